// The MCP Apps host in the real editor (code-server + Chromium render the webviews), beyond the basics of
// apps.test.ts: display modes mapped to the editor's layout at a bounded rate (H130), the proposed call as
// tool-input-partial while the user confirms (H131), ui/download-file through a modal and the Save dialog (H132),
// resource reads from a view to its own server only (H133), permissions only when declared and agreed (H134), and
// server-pdf 2.0.4 rendering a PDF fixture (H135), MCP Host: Reset MCP App Permissions… (H137), and a hostile
// resource URI in the permission modal (H138). Each hostile case runs next to a well-behaved view that must keep
// working: server-basic-vanillajs's get-time, and the fixture's own well-behaved requests.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { AppView, AppViewsUi, DownloadAsk, PermissionsAsk } from '../../src/extension/apps/appViews';
import type { Dialog } from '../../src/extension/ui/dialogs';
import { ROOT, until, testSupport, activateAllowing } from './helpers';

const app = (name: string) => path.join(ROOT, `node_modules/@modelcontextprotocol/${name}/dist/index.js`);
const PDF = path.join(ROOT, 'test/fixtures/apps/hello.pdf');
type Response = { result?: Record<string, unknown>; error?: { message: string } };
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));

describe('MCP Apps host: display modes, partial input, downloads, resource reads, permissions, server-pdf, reset permissions (H130–H135, H137, H138)', function () {
  this.timeout(180000);
  let api: McpHostExtensionApi;
  let ui0: AppViewsUi;
  let dir: string;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    ui0 = api.apps.ui;
    await api.apps.resetPermissions();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-apps-dl-'));
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      fx: { type: 'stdio', command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/apps-hostile.mjs')] },
      basic: { type: 'stdio', command: process.execPath, args: [app('server-basic-vanillajs'), '--stdio'], timeout: { startup: 110000 } },
      pdf: { type: 'stdio', command: process.execPath, args: [app('server-pdf'), '--stdio', PDF], timeout: { startup: 110000 } },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => ['basic', 'pdf', 'fx'].every(s => (api.host.get(s)?.catalogue.tools.length ?? 0) > 0), 'the app servers running with their tools', 120000);
  });

  afterEach(() => { api.apps.ui = ui0; });

  after(async () => {
    testSupport(api).setChatUi(undefined);
    if (ui0) api.apps.ui = ui0;
    for (const v of api.apps.all) await v.close().catch(() => undefined);
    await api.apps.resetPermissions();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const viewOf = (server: string, tool: string) => api.apps.get(server, tool);
  async function opened(server: string, tool: string, args: Record<string, unknown> = {}): Promise<AppView> {
    await vscode.commands.executeCommand('mcpHost.callTool', server, tool, args);
    await until(() => !!viewOf(server, tool)?.initialized, `the ${tool} view initialized by the app in its frame`, 60000);
    return viewOf(server, tool)!;
  }

  it('H130: display modes: pip moves the view to a group beside, fullscreen maximises its group, inline brings it back; the view is told each', async () => {
    // pip needs another editor to be beside: a text document in the first group, where the view then opens too.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: 'beside' }), vscode.ViewColumn.One);
    const view = await opened('basic', 'get-time');
    assert.deepStrictEqual(view.context().availableDisplayModes, ['inline', 'fullscreen', 'pip']);
    assert.strictEqual(view.context().displayMode, 'inline');
    const column = view.column();
    const pip = await view.asView('ui/request-display-mode', { mode: 'pip' }) as Response;
    assert.deepStrictEqual(pip.result, { mode: 'pip' });
    const groups = () => JSON.stringify(vscode.window.tabGroups.all.map(g => ({ column: g.viewColumn, active: g.isActive, tabs: g.tabs.map(t => `${t.label}${t.input instanceof vscode.TabInputWebview ? ` [${t.input.viewType}]` : ''}`) })));
    await until(() => view.column() !== column, 'the view in the group beside').catch(err => { throw new Error(`${err instanceof Error ? err.message : String(err)}: was ${column}, now ${view.column()}, panel ${view.panel.viewColumn}; groups ${groups()}`); });
    assert.strictEqual(view.context().displayMode, 'pip');
    await sleep(1100);
    const full = await view.asView('ui/request-display-mode', { mode: 'fullscreen' }) as Response;
    assert.deepStrictEqual(full.result, { mode: 'fullscreen' });
    assert.ok(view.groupMaximized, 'with two groups, fullscreen maximises the view\'s group');
    assert.ok(view.panel.active);
    await sleep(1100);
    const inline = await view.asView('ui/request-display-mode', { mode: 'inline' }) as Response;
    assert.deepStrictEqual(inline.result, { mode: 'inline' });
    assert.strictEqual(view.groupMaximized, false);
    await until(() => view.column() === column, 'the view back where it opened');
    assert.deepStrictEqual(view.trace.filter(t => t.startsWith('display mode')), ['display mode pip', 'display mode fullscreen', 'display mode inline']);
  });

  it('H130: a view asking 1,000 display mode changes as fast as it can changes the layout at most once a second (bursts of two); the bystander keeps working', async () => {
    const start = Date.now();
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'modes', {});
    await until(() => !!viewOf('fx', 'modes')?.initialized, 'the modes view initialized', 60000);
    const view = viewOf('fx', 'modes')!;
    await until(() => view.modelContext === 'modes flooded', 'the flood done', 30000);
    const seconds = (Date.now() - start) / 1000;
    const c = view.modeCounts;
    assert.ok(c.requests >= 16, `the flood reached the bridge: ${JSON.stringify(c)}`);
    assert.ok(c.changes >= 1 && c.changes <= 2 + Math.ceil(seconds), `layout changes ${c.changes} in ${seconds.toFixed(1)} s: ${JSON.stringify(c)}`);
    assert.ok(c.refused > 0, JSON.stringify(c));
    assert.strictEqual(view.context().displayMode, view.displayMode);
    await view.close();
    const basic = await opened('basic', 'get-time');
    const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
    const mode = await basic.asView('ui/request-display-mode', { mode: 'inline' }) as Response;
    assert.deepStrictEqual(mode.result, { mode: 'inline' });
  });

  it('H131: a call the model proposes opens the view with tool-input-partial while the user confirms; tool-input follows once confirmed; a declined one gets tool-cancelled', async () => {
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    const name = [...(await api.chat.run('', { command: 'tools', model: fake })).markdown.matchAll(/`([^`]+)` — \*\*partial\*\* of `fx`/g)][0]?.[1];
    assert.ok(name, 'partial is offered to the model');
    let seen: string | undefined;
    let answer: 'once' | 'deny' = 'once';
    testSupport(api).setChatUi({
      approveTool: async ask => {
        if (ask.tool !== 'partial') return 'once';
        await until(() => /tool-input-partial/.test(viewOf('fx', 'partial')?.modelContext ?? ''), 'the proposed call shown in the view before the answer', 60000);
        seen = viewOf('fx', 'partial')!.modelContext;
        return answer;
      },
    });
    try {
      await api.chat.run(`CALL_TOOL:${name} {"q":"hello"}`, { model: fake });
      assert.strictEqual(seen, 'tool-input-partial {"q":"hello"}', 'the view had the proposed arguments while the user was asked');
      const view = viewOf('fx', 'partial')!;
      await until(() => /tool-result/.test(view.modelContext ?? ''), 'the input and result in the view');
      assert.strictEqual(view.modelContext, 'tool-input-partial {"q":"hello"} | tool-input {"q":"hello"} | tool-result');
      // Declined: the same view gets the proposed call, then the cancellation, never the input.
      answer = 'deny';
      await api.chat.run(`CALL_TOOL:${name} {"q":"again"}`, { model: fake });
      await until(() => /tool-cancelled/.test(view.modelContext ?? ''), 'the cancellation in the view');
      assert.strictEqual(view.modelContext, 'tool-input-partial {"q":"hello"} | tool-input {"q":"hello"} | tool-result | tool-input-partial {"q":"again"} | tool-cancelled "The user declined to run the tool"');
      await view.close();
    } finally {
      testSupport(api).setChatUi({ approveTool: async () => 'once' });
    }
  });

  it('H132: ui/download-file: a modal names server, tool, file, type and size, then the Save dialog opens in the first workspace folder and the file is written; a hostile name is made safe; declining writes nothing', async () => {
    const view = await opened('basic', 'get-time');
    const asks: DownloadAsk[] = [];
    const saves: (DownloadAsk & { defaultUri: vscode.Uri })[] = [];
    let agree = true;
    api.apps.ui = {
      ...ui0,
      confirmDownload: async a => { asks.push(a); return agree; },
      saveAs: async a => { saves.push(a); return vscode.Uri.file(path.join(dir, a.name)); },
    };
    const r = await view.asView('ui/download-file', { contents: [{ type: 'resource', resource: { uri: 'file:///reports/summary.txt', mimeType: 'text/plain', text: 'hello' } }] }) as Response;
    assert.deepStrictEqual(r.result, {});
    assert.deepStrictEqual(asks, [{ server: 'basic', tool: 'get-time', name: 'summary.txt', mimeType: 'text/plain', size: 5 }]);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    assert.ok(folder, 'the editor tests run with a workspace folder');
    assert.strictEqual(saves[0].defaultUri.toString(), vscode.Uri.joinPath(folder, 'summary.txt').toString());
    assert.strictEqual(fs.readFileSync(path.join(dir, 'summary.txt'), 'utf8'), 'hello');
    const hostile = await view.asView('ui/download-file', { contents: [{ type: 'resource', resource: { uri: '../../.ssh\\..\\evil\n\u202Etxt.exe', blob: Buffer.from('x').toString('base64') } }] }) as Response;
    assert.deepStrictEqual(hostile.result, {});
    assert.strictEqual(asks[1].name, 'eviltxt.exe');
    assert.strictEqual(asks[1].mimeType, undefined);
    agree = false;
    const declined = await view.asView('ui/download-file', { contents: [{ type: 'resource', resource: { uri: 'file:///x/nope.txt', text: 'no' } }] }) as Response;
    assert.strictEqual(declined.result?.isError, true);
    assert.strictEqual(saves.length, 2, 'no Save dialog after a declined modal');
    assert.ok(!fs.existsSync(path.join(dir, 'nope.txt')));
  });

  it('H132: a view sending 1,000 downloads gets one dialog, the rest refused; the name is made safe; closing the view closes the dialog and writes nothing; a closed view cannot ask', async () => {
    let shown = 0;
    let open = 0;
    const names: string[] = [];
    let saves = 0;
    api.apps.ui = {
      ...ui0,
      // Nobody answers: the dialog stays until the view's close tells it to go.
      confirmDownload: (a, closed) => { shown++; open++; names.push(a.name); return new Promise(resolve => closed.addEventListener('abort', () => { open--; resolve(true); }, { once: true })); },
      saveAs: async () => { saves++; return vscode.Uri.file(path.join(dir, 'flood.txt')); },
    };
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'downloads', {});
    await until(() => !!viewOf('fx', 'downloads')?.initialized, 'the downloads view initialized', 60000);
    const view = viewOf('fx', 'downloads')!;
    await until(() => shown === 1, 'the first download asked about', 30000);
    await sleep(3000);
    assert.strictEqual(shown, 1, 'one dialog');
    assert.deepStrictEqual(names, ['eviltxt.exe']);
    const c = view.counts!;
    const detail = JSON.stringify({ ...c, ...view.modeCounts, traced: view.trace.filter(t => t === 'ui/download-file').length });
    // The page drops what comes over the view's message rate before it reaches the extension host; of what arrives,
    // every download while the first is on screen is refused at once.
    assert.ok(view.modeCounts.downloadsRefused > 0, `the rest refused: ${detail}`);
    assert.ok(c.received < 1000, `most of the flood never reached the extension host: ${detail}`);
    assert.strictEqual(view.modeCounts.downloadsRefused, view.trace.filter(t => t === 'ui/download-file').length - 1, `every download but the first refused: ${detail}`);
    view.dispose();
    await until(() => open === 0, 'no dialog left');
    await sleep(300);
    assert.strictEqual(saves, 0, 'the answer after the close is ignored: no Save dialog');
    assert.ok(!fs.existsSync(path.join(dir, 'flood.txt')));
    await assert.rejects(view.asView('ui/download-file', { contents: [{ type: 'resource', resource: { uri: 'a.txt', text: 'a' } }] }), /not loaded/);
    assert.strictEqual(shown, 1);
  });

  it("H133: resource reads from a view go to its own server: listed URIs and schemes yes, another server's URI, an unlisted scheme and an oversized result no (JSON-RPC errors); the bystander reads its own", async () => {
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'reads', {});
    await until(() => !!viewOf('fx', 'reads')?.initialized, 'the reads view initialized', 60000);
    const view = viewOf('fx', 'reads')!;
    await until(() => /^own:/.test(view.modelContext ?? ''), 'the view reported its reads', 30000);
    assert.strictEqual(view.modelContext, 'own: ok; file: refused; big: refused; listed: 2');
    const other = api.host.get('basic')!.catalogue.resources[0]?.uri;
    assert.ok(other, 'server-basic-vanillajs lists its view resource');
    const refused = await view.asView('resources/read', { uri: other }) as Response;
    assert.match(String(refused.error?.message), /another server/);
    const own = await view.asView('resources/read', { uri: 'doc://fx/readme' }) as Response;
    assert.strictEqual((own.result?.contents as { text?: string }[])[0]?.text, 'fixture readme');
    const templates = await view.asView('resources/templates/list', {}) as Response;
    assert.deepStrictEqual(templates.result?.resourceTemplates, []);
    await view.close();
    const basic = await opened('basic', 'get-time');
    const mine = await basic.asView('resources/read', { uri: other }) as Response;
    assert.ok(!mine.error && Array.isArray(mine.result?.contents), JSON.stringify(mine).slice(0, 300));
  });

  it('H134: permissions: the frame gets camera and microphone only after the user agreed, once per definition and resource; a declined geolocation is never in allow; nothing undeclared is asked', async () => {
    const asks: PermissionsAsk[] = [];
    api.apps.ui = { ...ui0, approvePermissions: async a => { asks.push(a); return a.permissions.includes('camera'); } };
    let view = await opened('fx', 'perms');
    assert.deepStrictEqual(asks, [{ server: 'fx', tool: 'perms', uri: 'ui://fx/perms.html', permissions: ['camera', 'microphone'] }]);
    assert.strictEqual((await view.probe()).allow, 'camera; microphone');
    await view.close();
    view = await opened('fx', 'perms');
    assert.strictEqual(asks.length, 1, 'asked once: the grant is remembered');
    assert.strictEqual((await view.probe()).allow, 'camera; microphone');
    await view.close();
    const geo = await opened('fx', 'perms-geo');
    assert.strictEqual(asks.length, 2);
    assert.deepStrictEqual(asks[1].permissions, ['geolocation']);
    assert.strictEqual((await geo.probe()).allow, '', 'declined: nothing in allow');
    assert.strictEqual(geo.granted.geolocation, false);
    await geo.close();
    // A view whose resource declares nothing is never asked about, and gets nothing.
    const basic = await opened('basic', 'get-time');
    assert.strictEqual((await basic.probe()).allow, '');
    assert.strictEqual(asks.length, 2);
  });

  it('H137: MCP Host: Reset MCP App Permissions… forgets what a server\'s views were granted after a confirmation: the modal is asked again (an open view reloads and asks); a cancelled reset and a reset of another server change nothing', async () => {
    const dialogs: Dialog[] = [];
    let resetAnswer: string | undefined = 'Cancel';
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return d.buttons.some(b => b.title === 'Reset') ? resetAnswer : 'Allow'; });
    const permissionDialogs = () => dialogs.filter(d => /asks for: camera, microphone/.test(d.message));
    try {
      await api.apps.resetPermissions();
      // The real modal (through the dialogs module): asked once, then remembered.
      let view = await opened('fx', 'perms');
      assert.strictEqual(permissionDialogs().length, 1, JSON.stringify(dialogs));
      assert.strictEqual((await view.probe()).allow, 'camera; microphone');
      await view.close();
      view = await opened('fx', 'perms');
      assert.strictEqual(permissionDialogs().length, 1, 'remembered: not asked again');
      await view.close();
      // Cancelled: the confirmation names the server; nothing is forgotten.
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.resetAppPermissions', 'fx'), undefined);
      const confirm = dialogs.at(-1)!;
      assert.strictEqual(confirm.message, 'Reset the permissions granted to the App views of MCP server "fx"?');
      assert.deepStrictEqual(confirm.buttons.map(b => b.title), ['Reset', 'Cancel']);
      // Another server's reset (the bystander, which holds none) leaves fx's grant alone.
      resetAnswer = 'Reset';
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.resetAppPermissions', 'basic'), 0);
      view = await opened('fx', 'perms');
      assert.strictEqual(permissionDialogs().length, 1, 'neither a cancelled reset nor another server\'s took the grant');
      // Reset with the view open: the grant is forgotten, the open view reloads and the modal is asked again.
      const loadsBefore = permissionDialogs().length;
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.resetAppPermissions', 'fx'), 1);
      await until(() => permissionDialogs().length === loadsBefore + 1, 'the open view reloaded and asked again', 30000);
      await until(() => view.initialized, 'the reloaded view initialized', 60000);
      assert.strictEqual((await view.probe()).allow, 'camera; microphone', 'allowed again');
      await view.close();
      // All servers ({ all: true }, the quick pick's first item): forgotten again.
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.resetAppPermissions', { all: true }), 1);
      assert.strictEqual(dialogs.at(-1)!.message, 'Reset the permissions granted to the App views of every MCP server?');
      testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return undefined; });
      view = await opened('fx', 'perms');
      assert.strictEqual(permissionDialogs().length, loadsBefore + 2, 'asked again after the reset of all');
      assert.strictEqual((await view.probe()).allow, '', 'dismissed: nothing granted');
      await view.close();
    } finally {
      testSupport(api).setDialogAnswerer(undefined);
      await api.apps.resetPermissions();
    }
    const basic = await opened('basic', 'get-time');
    const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
  });

  it('H138: the permission modal shows a hostile resource URI (bidi override, newlines, a forged line) quoted: one line, no control or bidi characters, cut at 200; a 10 KB URI opens no view and asks nothing; the well-behaved view\'s modal shows its URI whole', async () => {
    const dialogs: Dialog[] = [];
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return undefined; });
    try {
      await api.apps.resetPermissions();
      const evil = await opened('fx', 'perms-evil');
      assert.strictEqual(dialogs.length, 1, JSON.stringify(dialogs).slice(0, 2000));
      const d = dialogs[0];
      assert.strictEqual(d.message, 'The view of tool "perms-evil" (MCP server "fx") asks for: camera');
      const m = /^Its resource "([^"]*)" declares these permissions\. /.exec(d.detail ?? '');
      assert.ok(m, d.detail);
      const shown = m[1];
      assert.doesNotMatch(shown, /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u, 'no control or bidi character');
      assert.strictEqual(Array.from(shown).length, 200, 'cut at 200');
      assert.ok(shown.startsWith('ui://fx/perms-evil/exe.txt Signed by: Microsoft Corporation (verified) ppp'), shown);
      assert.ok(shown.endsWith('…'), shown);
      assert.ok(!(d.detail ?? '').includes('\n'), 'the detail is one line');
      assert.strictEqual((await evil.probe()).allow, '', 'dismissed: nothing granted');
      await evil.close();
      // Over the 2,048-character cap on a ui:// URI: no view, no dialog (the tool runs as a plain tool).
      await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'perms-huge', {});
      await sleep(1000);
      assert.strictEqual(viewOf('fx', 'perms-huge'), undefined);
      assert.strictEqual(dialogs.length, 1, 'nothing asked for the 10 KB URI');
      // The well-behaved view next to it: its URI shown as it is.
      const good = await opened('fx', 'perms');
      assert.strictEqual(dialogs.length, 2);
      assert.ok(dialogs[1].detail?.startsWith('Its resource "ui://fx/perms.html" declares these permissions. '), dialogs[1].detail);
      await good.close();
    } finally {
      testSupport(api).setDialogAnswerer(undefined);
      await api.apps.resetPermissions();
    }
  });

  it('request-teardown: the view asks to close; the host sends ui/resource-teardown (bounded), closes the panel, ends the bridge and denies the call still waiting for its dialog', async () => {
    let waiting = 0;
    let closedDialog = false;
    testSupport(api).setChatUi({
      approveTool: ask => {
        if (ask.server !== 'fx') return Promise.resolve('once');
        waiting++;
        return new Promise(resolve => ask.closed?.addEventListener('abort', () => { closedDialog = true; resolve('deny'); }, { once: true }));
      },
    });
    try {
      await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'teardown', {});
      await until(() => !!viewOf('fx', 'teardown')?.initialized, 'the teardown view initialized', 60000);
      const view = viewOf('fx', 'teardown')!;
      await until(() => view.isDisposed, 'the view closed at its own request', 30000);
      assert.ok(view.trace.includes('ui/notifications/request-teardown'), view.trace.join(', '));
      assert.ok(view.trace.includes('ui/resource-teardown'), view.trace.join(', '));
      assert.strictEqual(waiting, 1);
      assert.ok(closedDialog, 'the dialog on screen was told to close');
      assert.strictEqual(view.dialogsWaiting, 0);
      assert.strictEqual(viewOf('fx', 'teardown'), undefined);
      await assert.rejects(view.asView('tools/call', { name: 'good', arguments: {} }), /not loaded/);
    } finally {
      testSupport(api).setChatUi({ approveTool: async () => 'once' });
    }
    const basic = await opened('basic', 'get-time');
    const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
  });

  it('H135: server-pdf 2.0.4 renders a PDF fixture in its view (its text reaches the model context), with fullscreen offered', async () => {
    const asks: PermissionsAsk[] = [];
    api.apps.ui = { ...ui0, approvePermissions: async a => { asks.push(a); return true; } };
    const result = await vscode.commands.executeCommand<{ isError?: boolean }>('mcpHost.callTool', 'pdf', 'display_pdf', { url: PDF });
    assert.ok(result && !result.isError, JSON.stringify(result).slice(0, 500));
    await until(() => !!viewOf('pdf', 'display_pdf')?.initialized, 'the PDF view initialized', 90000);
    const view = viewOf('pdf', 'display_pdf')!;
    await until(() => /Hello from MCP Host/.test(view.modelContext ?? ''), 'the PDF rendered (its page text in the model context)', 90000);
    assert.match(view.modelContext!, /Page 1\/1|1\/1/);
    assert.deepStrictEqual(view.context().availableDisplayModes, ['inline', 'fullscreen', 'pip']);
    assert.strictEqual(view.panel.title.endsWith('— pdf'), true, view.panel.title);
    // Its viewer declares clipboard write (copying text): asked once, then in the frame's allow.
    assert.deepStrictEqual(asks.map(a => a.permissions), [['clipboardWrite']]);
    assert.strictEqual((await view.probe()).allow, 'clipboard-write');
  });
});
