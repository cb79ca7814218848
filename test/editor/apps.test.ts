// MCP Apps in the real editor (code-server + Chromium render the webviews): server-basic-vanillajs's `get-time`
// opens its view in an editor panel, the real app inside the sandboxed frame initializes over the bridge and gets
// the tool's input and result; what the view may ask (tool calls, links, model context) follows the rules, at a
// bounded rate (H64, H136: a view flooding its largest messages, next to a bystander view); the view tears down
// when closed, goes stale when its server stops and reloads when it runs again.
import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { AppView } from '../../src/extension/apps/appViews';
import { ROOT, until, testSupport, activateAllowing } from './helpers';

const app = (name: string) => path.join(ROOT, `node_modules/@modelcontextprotocol/${name}/dist/index.js`);
type Response = { result?: Record<string, unknown>; error?: { message: string } };

/** A loopback HTTP server that counts the requests it gets (CORS open, so a view's fetch can read the answer). */
async function counter(): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const srv = http.createServer((req, res) => { hits.push(req.url ?? ''); res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' }); res.end('ok'); });
  await new Promise<void>(r => srv.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, hits, close: () => new Promise(r => { srv.closeAllConnections(); srv.close(() => r()); }) };
}

describe('MCP Apps: views in editor panels (server-basic-vanillajs, server-system-monitor, server-budget-allocator)', function () {
  this.timeout(180000);
  let api: McpHostExtensionApi;
  const asked: string[] = [];
  let declared: Awaited<ReturnType<typeof counter>>;
  let undeclared: Awaited<ReturnType<typeof counter>>;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    testSupport(api).setChatUi({ approveTool: async ask => { asked.push(`${ask.server}/${ask.tool}`); return 'once'; } });
    declared = await counter();
    undeclared = await counter();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      fx: { type: 'stdio', command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/apps-hostile.mjs')], env: { APPS_FX_ALLOWED: declared.origin, APPS_FX_OTHER: undeclared.origin } },
      basic: { type: 'stdio', command: process.execPath, args: [app('server-basic-vanillajs'), '--stdio'], timeout: { startup: 110000 } },
      sysmon: { type: 'stdio', command: process.execPath, args: [app('server-system-monitor'), '--stdio'], timeout: { startup: 110000 } },
      budget: { type: 'stdio', command: process.execPath, args: [app('server-budget-allocator'), '--stdio'], timeout: { startup: 110000 } },
    }, vscode.ConfigurationTarget.Workspace);
    // Four servers at once (the App servers are large Node programs): a loaded machine needs more than the default wait.
    await until(() => ['basic', 'sysmon', 'budget', 'fx'].every(s => (api.host.get(s)?.catalogue.tools.length ?? 0) > 0), 'the app servers running with their tools', 120000);
  });

  after(async () => {
    testSupport(api).setChatUi(undefined);
    testSupport(api).setExternalUrlUi(undefined);
    for (const v of api.apps.all) v.dispose();
    await declared?.close();
    await undeclared?.close();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  const viewOf = (server: string, tool: string) => api.apps.get(server, tool);
  async function initialized(server: string, tool: string): Promise<AppView> {
    await until(() => !!viewOf(server, tool)?.initialized, `the ${tool} view initialized by the app in its frame`, 60000);
    return viewOf(server, tool)!;
  }

  it('Call Tool on get-time opens its view in a panel; the app initializes over the bridge and gets the input and result', async () => {
    const result = await vscode.commands.executeCommand<{ structuredContent?: { time?: string } }>('mcpHost.callTool', 'basic', 'get-time', {});
    assert.match(String(result?.structuredContent?.time), /^\d{4}-\d{2}-\d{2}T/);
    const view = await initialized('basic', 'get-time');
    assert.strictEqual(view.panel.viewType, 'mcpHost.app');
    assert.strictEqual(view.panel.title, 'Get Time — basic');
    assert.ok(view.trace.includes('ui/notifications/initialized'), view.trace.join(', '));
    // The editor's theme reached the view as the spec's host context (computed in the webview page).
    const ctx = view.context();
    assert.ok(ctx.theme === 'dark' || ctx.theme === 'light');
    const vars = (ctx.styles as { variables?: Record<string, string> } | undefined)?.variables ?? {};
    assert.ok(vars['--color-background-primary'] && vars['--color-text-primary'], JSON.stringify(vars));
    assert.ok(((ctx.containerDimensions as { width?: number } | undefined)?.width ?? 0) > 0, JSON.stringify(ctx.containerDimensions));
    // Nothing declared: no network, no remote resources, no frames.
    assert.match(view.policy ?? '', /connect-src 'none'/);
    assert.match(view.policy ?? '', /frame-src 'none'/);
    assert.doesNotMatch(view.policy ?? '', /https?:/);
  });

  it('calling the tool again reuses the panel', async () => {
    const first = viewOf('basic', 'get-time');
    await vscode.commands.executeCommand('mcpHost.callTool', 'basic', 'get-time', {});
    assert.strictEqual(viewOf('basic', 'get-time'), first);
    assert.strictEqual(api.apps.all.filter(v => v.server === 'basic').length, 1);
  });

  it("the view's tools/call goes through the confirmation and reaches its own server", async () => {
    const view = await initialized('basic', 'get-time');
    asked.length = 0;
    const r = await view.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.deepStrictEqual(asked, ['basic/get-time']);
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
  });

  it("the view cannot call another server's tool, and a declined confirmation is an error to the view", async () => {
    const view = await initialized('basic', 'get-time');
    const other = await view.asView('tools/call', { name: 'poll-system-stats', arguments: {} }) as Response;
    assert.match(String(other.error?.message), /has no running tool named "poll-system-stats"/);
    testSupport(api).setChatUi({ approveTool: async () => 'deny' });
    try {
      const denied = await view.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
      assert.match(String(denied.error?.message), /declined/);
    } finally {
      testSupport(api).setChatUi({ approveTool: async ask => { asked.push(`${ask.server}/${ask.tool}`); return 'once'; } });
    }
  });

  it('H62: links go through the one confirm-and-open path: refused without asking when hostile; the dialog shows exactly the URL that is opened', async () => {
    const view = await initialized('basic', 'get-time');
    const asks: { question: string; detail: string; buttons: readonly string[] }[] = [];
    const opened: string[] = [];
    let answer: string | undefined;
    testSupport(api).setExternalUrlUi({ ask: async (question, detail, buttons) => { asks.push({ question, detail, buttons }); return answer; }, open: async url => { opened.push(url); return true; } });
    for (const url of ['file:///etc/passwd', 'https://good.example\\@evil.example/login', 'https://good.example@evil.example/login', 'javascript:alert(1)', 'http://evil.example/', 'https://good.example/\u202elogin']) {
      const r = await view.asView('ui/open-link', { url }) as Response;
      assert.strictEqual(r.result?.isError, true, url);
    }
    assert.strictEqual(asks.length, 0, 'a refused link is never asked about');
    answer = undefined;
    const declined = await view.asView('ui/open-link', { url: 'https://example.com/docs?q=1' }) as Response;
    assert.strictEqual(declined.result?.isError, true);
    assert.deepStrictEqual(opened, []);
    assert.strictEqual(asks[0].question, 'The view of tool "get-time" (MCP server "basic") wants to open https://example.com');
    answer = 'Open Link';
    const r = await view.asView('ui/open-link', { url: 'HTTPS://Example.COM:443/a/../docs?q=1' }) as Response;
    assert.deepStrictEqual(r.result, {});
    assert.deepStrictEqual(opened, ['https://example.com/docs?q=1']);
    assert.strictEqual(asks[1].detail, `Full address: ${opened[0]}`, 'the dialog shows exactly what is opened');
    await view.asView('ui/open-link', { url: 'https://xn--pple-43d.com/login' });
    assert.strictEqual(asks[2].question, 'The view of tool "get-time" (MCP server "basic") wants to open https://xn--pple-43d.com');
    assert.match(asks[2].detail, /^Full address: https:\/\/xn--pple-43d\.com\/login\nThe domain has international characters: https:\/\/аpple\.com is written https:\/\/xn--pple-43d\.com/);
    assert.strictEqual(opened[1], 'https://xn--pple-43d.com/login');
    testSupport(api).setExternalUrlUi(undefined);
  });

  it('ui/update-model-context is kept for the next @mcp request, bounded', async () => {
    const view = await initialized('basic', 'get-time');
    const r = await view.asView('ui/update-model-context', { content: [{ type: 'text', text: 'The user picked 12:00.' }] }) as Response;
    assert.deepStrictEqual(r.result, {});
    assert.deepStrictEqual(api.apps.modelContexts(), [{ server: 'basic', tool: 'get-time', text: 'The user picked 12:00.' }]);
  });

  it('an app-only tool (poll-system-stats) is marked in the Servers view and hidden from the model; the view may call it', async () => {
    const tools = api.host.get('sysmon')!.catalogue.tools;
    const poll = tools.find(t => t.name === 'poll-system-stats')!;
    const info = tools.find(t => t.name === 'get-system-info')!;
    const tree = api.views.servers;
    const server = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.server === 'sysmon' && n.kind === 'server')!;
    const group = (tree.getChildren(server as never) as { kind: string; group?: string }[]).find(n => n.kind === 'group' && n.group === 'tools')!;
    const items = (tree.getChildren(group as never) as never[]).map(n => tree.getTreeItem(n));
    const pollItem = items.find(i => i.id === 'tool/sysmon/poll-system-stats')!;
    const infoItem = items.find(i => i.id === 'tool/sysmon/get-system-info')!;
    assert.match(String(pollItem.description), /app only/);
    assert.match(String(infoItem.description), /^app/);
    assert.strictEqual((infoItem.iconPath as vscode.ThemeIcon).id, 'window');
    const listing = await api.chat.run('', { command: 'tools' });
    assert.match(listing.markdown, /get-system-info/);
    assert.doesNotMatch(listing.markdown, /poll-system-stats/);
    await vscode.commands.executeCommand('mcpHost.callTool', 'sysmon', info.name, {});
    const view = await initialized('sysmon', 'get-system-info');
    asked.length = 0;
    const r = await view.asView('tools/call', { name: poll.name, arguments: {} }) as Response;
    assert.ok(r.result && !r.error, JSON.stringify(r).slice(0, 300));
    // The system monitor's view polls poll-system-stats by itself too: every confirmation asked is for that tool.
    assert.ok(asked.length >= 1 && asked.every(a => a === 'sysmon/poll-system-stats'), asked.join(', '));
  });

  it('@mcp chat: the model calling get-time opens the view beside the chat and the answer offers a button to focus it; view context is said', async () => {
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    const name = [...(await api.chat.run('', { command: 'tools', model: fake })).markdown.matchAll(/`([^`]+)` — \*\*get\\?-time\*\* of `basic`/g)][0]?.[1];
    assert.ok(name, 'get-time is offered to the model');
    const t = await api.chat.run(`CALL_TOOL:${name} {}`, { model: fake });
    assert.match(t.markdown, /Called `get-time` \(basic\)/);
    assert.deepStrictEqual(t.buttons.map(b => [b.command, ...(b.arguments ?? [])]), [['mcpHost.openAppView', 'basic', 'get-time']]);
    const view = await initialized('basic', 'get-time');
    // The model context the view gave earlier was part of the request, visibly.
    assert.match(t.markdown, /Context from MCP App views: `get-time` \(basic\)/);
    await vscode.commands.executeCommand('mcpHost.openAppView', 'basic', 'get-time');
    await until(() => view.panel.active, 'the view focused by the button');
  });

  it('server-budget-allocator: its view loads and initializes with the result of get-budget-data', async () => {
    const result = await vscode.commands.executeCommand<{ isError?: boolean }>('mcpHost.callTool', 'budget', 'get-budget-data', {});
    assert.ok(result && !result.isError);
    const view = await initialized('budget', 'get-budget-data');
    assert.strictEqual(view.panel.title.endsWith('— budget'), true, view.panel.title);
  });

  it('H382: a view posting 1,000 ui/message fills the @mcp chat input (focusing the chat) once; the rest are refused until the user sends a request; then a bystander view\'s message is put there', async () => {
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await vscode.commands.executeCommand('mcpHost.callTool', 'basic', 'get-time', {});
    const hostile = await initialized('basic', 'get-time');
    await vscode.commands.executeCommand('mcpHost.callTool', 'budget', 'get-budget-data', {});
    const bystander = await initialized('budget', 'get-budget-data');
    // A user act first: whatever an earlier view put into the chat input no longer holds the one place.
    await api.chat.run('hello', { model: fake });
    const message = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
    const placed = (r: Response) => !!r.result && r.result.isError !== true && !r.error;
    const flood = await Promise.all(Array.from({ length: 1000 }, (_, i) => hostile.asView('ui/message', message(`hostile ${i}`)) as Promise<Response>));
    assert.strictEqual(flood.filter(placed).length, 1, 'one message put into the chat input (one focus of the chat) for 1,000');
    assert.ok(flood.filter(r => !placed(r)).every(r => r.result?.isError === true || !!r.error), 'the rest refused, as an error to the view');
    // The bystander before the user acts: refused too (one per user act, whoever sends it).
    assert.strictEqual(placed(await bystander.asView('ui/message', message('bystander early')) as Response), false);
    // The user sends a request: the bystander's one message is put there; the hostile view's next one is refused.
    await api.chat.run('hello again', { model: fake });
    assert.strictEqual(placed(await bystander.asView('ui/message', message('bystander')) as Response), true, 'the bystander\'s message after the user act');
    assert.strictEqual(placed(await hostile.asView('ui/message', message('hostile again')) as Response), false);
  });

  it('H63: a frame nested in a view cannot drive the page (banner, reload without CSP, camera…); the bystander keeps working', async () => {
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'nested', {});
    const view = await initialized('fx', 'nested');
    await until(() => /attacked/.test(view.modelContext ?? ''), 'the hostile view done with its attack', 30000);
    assert.strictEqual(view.modelContext, 'attacked (nested ran: yes)', 'the nested frame ran and sent its forged control messages');
    assert.ok(view.pageSender === 'frameElement' || view.pageSender === 'frames', `the page knows the extension's side: ${view.pageSender}`);
    // The page answers the extension (a control message from the right side) and reports what it shows.
    const page = await view.probe();
    assert.strictEqual(page.banner, '', 'no banner drawn outside the sandbox');
    assert.strictEqual(page.allow, '', 'no camera, microphone, geolocation or clipboard');
    assert.strictEqual(page.sandbox, 'allow-scripts allow-forms');
    assert.deepStrictEqual(page.csp, [view.pagePolicy], "the page's policy is the one it was generated with");
    assert.ok(page.srcdocChars > 500, `the view's document was not replaced (${page.srcdocChars} characters)`);
    assert.ok(view.initialized);
    const basic = await initialized('basic', 'get-time');
    const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
    assert.strictEqual((await basic.probe()).banner, '');
    view.dispose();
  });

  it('H65: a connect domain the App declares is reachable from its view; an undeclared one is not', async () => {
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'connect', {});
    const view = await initialized('fx', 'connect');
    await until(() => /declared:/.test(view.modelContext ?? ''), 'the view reported its two fetches', 30000);
    assert.strictEqual(view.modelContext, 'declared: ok; undeclared: blocked');
    assert.deepStrictEqual(declared.hits, ['/declared']);
    assert.deepStrictEqual(undeclared.hits, [], 'the undeclared origin never saw a request');
    assert.ok(view.policy?.includes(`connect-src ${declared.origin};`), view.policy);
    assert.ok(view.pagePolicy?.includes(`connect-src ${declared.origin};`), view.pagePolicy);
    view.dispose();
  });

  it('H64: a view sending 2,000 tools/call and 4 MiB messages gets one dialog at a time, the rest refused or dropped; closing it leaves no dialog; the bystander keeps working', async () => {
    let open = 0;
    let most = 0;
    let shown = 0;
    testSupport(api).setChatUi({
      approveTool: ask => {
        if (ask.server !== 'fx') return Promise.resolve('once');
        shown++; open++; most = Math.max(most, open);
        // Nobody answers: the dialog stays until the view's close tells it to go.
        return new Promise(resolve => ask.closed?.addEventListener('abort', () => { open--; resolve('deny'); }, { once: true }));
      },
    });
    try {
      await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'flood', {});
      const view = await initialized('fx', 'flood');
      await until(() => view.trace.filter(t => t === 'tools/call good').length === 16 && view.dialogsWaiting === 16, '16 calls of the flood waiting for their dialog', 30000);
      // The rest of the flood (the 2,000 calls, then 40 messages of nearly 4 MiB) arrives within moments; give it time.
      await new Promise(r => setTimeout(r, 3000));
      assert.strictEqual(most, 1, 'one dialog at a time');
      assert.strictEqual(shown, 1);
      assert.strictEqual(view.trace.filter(t => t === 'tools/call good').length, 16, 'no more than 16 reached the bridge');
      const counts = view.counts!;
      assert.ok(counts.refused > 0, `the rest refused with an error: ${JSON.stringify(counts)}`);
      assert.ok(counts.receivedChars < 20 * 4 * 1024 * 1024, `most of the 160 MiB flood never reached the extension host: ${JSON.stringify(counts)}`);
      view.dispose();
      await until(() => open === 0 && view.dialogsWaiting === 0, 'no dialog left');
      assert.strictEqual(shown, 1, 'nothing more was asked after the close');
    } finally {
      testSupport(api).setChatUi({ approveTool: async ask => { asked.push(`${ask.server}/${ask.tool}`); return 'once'; } });
    }
    const basic = await initialized('basic', 'get-time');
    asked.length = 0;
    const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
    assert.deepStrictEqual(asked, ['basic/get-time']);
    assert.match(String((r.result?.structuredContent as { time?: string })?.time), /^\d{4}-/);
  });

  it('H136: a view sending messages of nearly 4 MiB as fast as it can for 5 s gets no more than its budget (4 MiB/s, bursts of 8) to the extension host, in parts; the bystander view calls its tool all along', async () => {
    if (!viewOf('basic', 'get-time')) await vscode.commands.executeCommand('mcpHost.callTool', 'basic', 'get-time', {});
    const basic = await initialized('basic', 'get-time');
    const t0 = Date.now();
    await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'stream', {});
    const view = await initialized('fx', 'stream');
    let ok = 0;
    const failed: string[] = [];
    while (!/^streamed/.test(view.modelContext ?? '') && Date.now() - t0 < 90000) {
      const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as Response;
      if (/^\d{4}-/.test(String((r.result?.structuredContent as { time?: string })?.time))) ok++; else failed.push(JSON.stringify(r).slice(0, 200));
      await new Promise(res => setTimeout(res, 250));
    }
    assert.match(view.modelContext ?? '', /^streamed \d+ in \d+ ms$/, 'the view finished and could still talk to the host');
    const seconds = (Date.now() - t0) / 1000;
    const counts = view.counts!;
    const budget = 4 * 1024 * 1024 * (seconds + 2);
    assert.ok(counts.receivedChars <= budget, `at most the budget reached the extension host: ${JSON.stringify(counts)} in ${seconds} s`);
    assert.deepStrictEqual(failed, []);
    assert.ok(ok >= 5, `the bystander was answered all along (${ok})`);
    view.dispose();
  });

  it('a server restart makes the view stale (teardown first), and it reloads when the server runs again', async () => {
    const view = await initialized('basic', 'get-time');
    await vscode.commands.executeCommand('mcpHost.stopServer', 'basic');
    await until(() => view.stale, 'the view stale');
    assert.ok(view.trace.includes('ui/resource-teardown'), view.trace.join(', '));
    await vscode.commands.executeCommand('mcpHost.startServer', 'basic');
    await until(() => !view.stale && view.initialized, 'the view reloaded and initialized again', 60000);
  });

  it('Close MCP App View asks the view to tear down, then closes the panel', async () => {
    const view = await initialized('basic', 'get-time');
    view.reveal();
    await until(() => view.panel.active, 'the panel active');
    const before = view.trace.filter(t => t === 'ui/resource-teardown').length;
    await vscode.commands.executeCommand('mcpHost.closeAppView');
    assert.strictEqual(view.trace.filter(t => t === 'ui/resource-teardown').length, before + 1);
    assert.ok(view.isDisposed);
    assert.strictEqual(viewOf('basic', 'get-time'), undefined);
  });
});
