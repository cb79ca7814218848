// Consent comes from the user's own act (H49), in the real extension host, for `mcpHost.startup` lazy and eager: after
// "Don't Allow" (or a dismissed dialog) expanding the server in the Servers view, an @mcp request, and the language-model
// tools `mcpHost_listTools` / `mcpHost_callTool` bring no dialog back; they are told the server's name and "MCP Host:
// Start Server". Only an explicit Start asks again. The denial is kept (as a definition key) in the workspace state, so a
// consent store built again from that state (what a reload does) still knows it; one log line per denial. A bystander
// server the user allowed keeps answering throughout.
//
// Issue 34 (H362–H364): a server MCP Host wrote into settings itself (Import Servers, the MCP Registry) asks launch
// consent on its first start in either scope, user scope included, and a workspace http server without headers or
// inputs asks too: nothing is spawned and the http fixture logs no request before the answer; the dialog names the
// origin (ASCII in its first line for a look-alike domain) and exactly the roots the host sends. Bystanders: a
// user-scope server the user wrote starts without a dialog; an allowed workspace stdio server runs throughout.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import { LaunchConsent, describeRoots } from '../../src/extension/trust/consent';
import { Dialogs } from '../../src/extension/ui/dialogs';
import { AddedServers } from '../../src/extension/trust/addedServers';
import { importReadError } from '../../src/extension/commands/settings';
import { READ_CAPS, readBoundedText } from '../../src/mcp/boundedRead';
import { parseServers } from '../../src/mcp/config/validate';
import type { McpNode } from '../../src/views/nodes';
import { EVERYTHING, ROOT, activateHost, until, answerWhereToWrite, textOf, testSupport } from './helpers';
import { startListening, type ListeningFixture } from '../support/listening';

type Api = McpHostExtensionApi & { chat: ChatRegistration };
const cfg = () => vscode.workspace.getConfiguration('mcpHost');
const WS = vscode.ConfigurationTarget.Workspace;
const kind = (api: Api, name: string) => api.host.get(name)?.state.kind;
const settle = (ms = 1200) => new Promise(r => setTimeout(r, ms));

/** Every regular file below `dir` (missing dir: none). */
function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(f => path.join(dir, f)).filter(f => {
    try { return fs.statSync(f).isFile(); } catch { return false; }
  });
}

for (const mode of ['lazy', 'eager'] as const) {
  describe(`Consent from the user's own act (startup ${mode}): a denial holds until an explicit Start`, function () {
    this.timeout(120000);
    let api: Api;
    const asked: string[] = [];
    const deny = new Set<string>();
    // Unique server names per mode, so log lines of one pass are not counted in the other.
    const shy = `shy-${mode}`;
    const by = `bystander-${mode}`;

    before(async () => {
      api = await activateHost<Api>();
      await vscode.commands.executeCommand('mcpHost.resetTrust');
      testSupport(api).setConsentBatchPrompt(undefined);
      testSupport(api).setConsentPrompt(async def => { asked.push(def.name); return deny.has(def.name) ? 'deny' : 'allow'; });
      await cfg().update('startup', mode, WS);
    });

    after(async () => {
      testSupport(api).setConsentPrompt(async () => 'allow');
      await cfg().update('servers', undefined, WS);
      await cfg().update('startup', undefined, WS);
      await until(() => api.host.servers.length === 0, 'no servers left');
      await vscode.commands.executeCommand('mcpHost.resetTrust');
    });

    it(`H49: deny → expanding it, @mcp and vscode.lm.invokeTool ask no more; a reload keeps the denial; an explicit Start asks (${mode})`, async () => {
      deny.add(shy);
      await cfg().update('servers', {
        [shy]: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: shy } },
        [by]: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: by } },
      }, WS);
      await until(() => !!api.host.get(shy) && !!api.host.get(by), 'both configured');
      const tree = api.views.servers;
      const node = (name: string): McpNode => ({ kind: 'server', server: name });
      if (mode === 'lazy') {
        await settle();
        assert.deepStrictEqual(asked, [], 'lazy: nothing asked before a use');
        tree.getChildren(node(by));
        await until(() => kind(api, by) === 'running', 'the bystander started by expanding it');
        tree.getChildren(node(shy));
      }
      await until(() => asked.includes(shy) && /not allowed/.test(api.blockedReason(shy) ?? ''), `${shy} denied`);
      await until(() => kind(api, by) === 'running', 'the bystander running');
      assert.strictEqual(asked.filter(n => n === shy).length, 1);

      // The uses that are not the user's own start: no dialog, and a clear answer naming the server.
      for (let i = 0; i < 5; i++) { tree.getChildren(node(shy)); tree.getTreeItem(node(shy)); await settle(200); }
      await settle();
      const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
      assert.ok(fake, 'the fake language model is installed');
      const chat = await api.chat.run('/tools', { model: fake, command: 'tools' });
      // The server's name is escaped in the markdown (a `-` as `\\-`): match it either way.
      assert.ok(chat.markdown.replace(/\\(.)/g, '$1').includes(shy) && chat.markdown.replace(/\\(.)/g, '$1').includes('MCP Host: Start Server'), chat.markdown);
      const listed = textOf(await vscode.lm.invokeTool('mcpHost_listTools', { input: {}, toolInvocationToken: undefined }));
      const entry = (JSON.parse(listed) as { server: string; notStarted?: string }[]).find(e => e.server === shy);
      assert.ok(entry?.notStarted?.includes('MCP Host: Start Server'), listed);
      const only = textOf(await vscode.lm.invokeTool('mcpHost_listTools', { input: { server: shy }, toolInvocationToken: undefined }));
      assert.match(only, new RegExp(`"${shy}" was not allowed to start.*MCP Host: Start Server`));
      const call = textOf(await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: shy, tool: 'echo', arguments: { message: 'x' } }, toolInvocationToken: undefined }));
      assert.match(call, /was not allowed to start.*MCP Host: Start Server/);
      await api.sync(); // a settings reload
      await settle();
      assert.strictEqual(asked.filter(n => n === shy).length, 1, `a use that was not an explicit Start asked again: ${asked.join(', ')}`);
      assert.strictEqual(kind(api, shy), 'stopped');
      if (mode === 'lazy') assert.strictEqual(tree.getTreeItem(node(shy)).collapsibleState, vscode.TreeItemCollapsibleState.None, 'a denied server no longer waits to be expanded');

      // The bystander keeps answering.
      const echo = await api.host.get(by)!.callTool('echo', { message: 'still here' });
      assert.ok(JSON.stringify(echo.content).includes('still here'));

      // A reload: the denial is in the workspace state as a definition key, and a consent store built from it knows it.
      const denied = api.storage.workspace.get<string[]>('mcpHost.launchDenied') ?? [];
      const def = api.host.get(shy)!.definition;
      assert.ok(denied.includes(api.definitionKey(def)), JSON.stringify(denied));
      assert.ok(denied.every(k => /^[0-9a-f]{64}$/.test(k)));
      let reloadAsked = 0;
      const reloaded = new LaunchConsent(api.storage.workspace, api.definitionKey, new Dialogs(), { consentPrompt: async () => { reloadAsked++; return 'allow'; } });
      assert.strictEqual(reloaded.wasDenied(def), true, 'the denial does not survive a reload');
      assert.strictEqual(reloaded.wasDenied(api.host.get(by)!.definition), false);
      assert.strictEqual(reloaded.isAllowed(api.host.get(by)!.definition), true);
      assert.deepStrictEqual(await reloaded.ensureAll([{ def }]), [false], 'a reloaded store asks about a denied server without an explicit start');
      assert.strictEqual(reloadAsked, 0);

      // One log line per denial, in the "MCP Host" log.
      const ud = process.env.CS_USER_DATA_DIR;
      if (ud) {
        const line = `${shy}: launch not allowed`;
        const count = () => filesBelow(path.join(ud, 'logs')).reduce((n, f) => { try { return n + fs.readFileSync(f, 'utf8').split(line).length - 1; } catch { return n; } }, 0);
        await until(() => count() >= 1, 'the denial in the log file', 20000);
        assert.strictEqual(count(), 1, 'one log line per denial');
      }

      // The user's own act: Start asks again. Denied again: no error toast after the dialog (the dialog was the message).
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', shy), false);
      assert.strictEqual(asked.filter(n => n === shy).length, 2, 'Start Server asks again');
      deny.delete(shy);
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', shy), true);
      assert.strictEqual(asked.filter(n => n === shy).length, 3);
      await until(() => kind(api, shy) === 'running', `${shy} running after consent`);
      assert.deepStrictEqual(api.storage.workspace.get<string[]>('mcpHost.launchDenied') ?? [], [], 'allowing forgets the denial');
      assert.strictEqual(kind(api, by), 'running');
    });
  });
}

const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs');
const USER = vscode.ConfigurationTarget.Global;

/** What one consent dialog showed, and the state of the world when it was shown. */
interface Asked { name: string; question: string; detail: string; requests: number; kind?: string; pid?: number }

describe('Consent for servers MCP Host adds (any scope) and for every workspace http server (issue 34)', function () {
  this.timeout(120000);
  let api: Api;
  let fixture: ListeningFixture & { stats: () => Promise<{ requests: number }> };
  const asked: Asked[] = [];
  const answers = new Map<string, 'allow' | 'deny'>();
  const pidOf = (name: string) => (api.host.get(name) as unknown as { pid?: number } | undefined)?.pid;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-consent-'));

  before(async () => {
    api = await activateHost<Api>();
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    testSupport(api).setConsentBatchPrompt(undefined);
    testSupport(api).setConsentPrompt(async (def, detail, question) => {
      // The world as the dialog opens: the fixture's request log, and whether the process exists.
      const { requests } = await fixture.stats();
      asked.push({ name: def.name, question, detail, requests, kind: kind(api, def.name), pid: pidOf(def.name) });
      return answers.get(def.name) ?? 'deny';
    });
  });

  // A fresh fixture per test: its request log starts at zero.
  beforeEach(async () => {
    const f = await startListening(HTTP_FIXTURE, [], { cwd: ROOT });
    // http-fixture.mjs's GET /stats counts every other request it received (`requests`).
    fixture = { ...f, stats: async () => (await fetch(`${f.base}/stats`)).json() as Promise<{ requests: number }> };
  });

  afterEach(async () => {
    await cfg().update('servers', undefined, WS);
    await cfg().update('servers', undefined, USER);
    await until(() => api.host.servers.length === 0, 'no servers left');
    asked.length = 0;
    answers.clear();
    fixture.child.kill();
  });

  after(async () => {
    testSupport(api).setConsentPrompt(async () => 'allow');
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('H362: Import Servers into user settings: nothing spawns or connects before consent; a denied http server gets no request, an allowed one runs; a hand-written user server needs no consent', async () => {
    // The bystander: the user's own user-scope server starts without a dialog.
    await cfg().update('servers', { 'by-user': { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: 'by-user' } } }, USER);
    await until(() => kind(api, 'by-user') === 'running', 'the hand-written user server running');
    const file = path.join(tmp, 'claude_desktop_config.json');
    fs.writeFileSync(file, JSON.stringify({ mcpServers: {
      'imp-remote': { url: fixture.url },
      'imp-stdio': { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: 'imp-stdio' } },
    } }));
    answers.set('imp-stdio', 'allow');
    answerWhereToWrite(api, 'Import into User Settings');
    try {
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file, undefined, 'user'), 2);
    } finally { testSupport(api).setDialogAnswerer(undefined); }
    const written = cfg().inspect<Record<string, unknown>>('servers')?.globalValue ?? {};
    assert.ok('imp-remote' in written && 'imp-stdio' in written, JSON.stringify(written));
    await until(() => asked.length === 2, 'both imported servers asked about');
    await until(() => kind(api, 'imp-stdio') === 'running', 'imp-stdio running after Allow');
    await until(() => /not allowed/.test(api.blockedReason('imp-remote') ?? ''), 'imp-remote denied');
    assert.deepStrictEqual(asked.map(a => a.name).sort(), ['imp-remote', 'imp-stdio'], 'the bystander was asked about');
    for (const a of asked) {
      assert.strictEqual(a.requests, 0, `${a.name}: the fixture was reached before the dialog`);
      assert.notStrictEqual(a.kind, 'running', `${a.name} ran before the dialog`);
      assert.strictEqual(a.pid, undefined, `${a.name} had a process before the dialog`);
      assert.match(a.question, /added to your user settings by MCP Host/);
    }
    const remote = asked.find(a => a.name === 'imp-remote')!;
    const origin = new URL(fixture.url).origin;
    assert.ok(remote.question.includes(`connect to the MCP server "imp-remote" at ${origin}`), remote.question);
    assert.ok(remote.detail.includes(`Sends requests to: ${origin}`), remote.detail);
    // The roots line is what the host sends this server (every workspace folder: it names none).
    const rootsLine = describeRoots(api.host.rootsFor(api.host.get('imp-remote')!.definition));
    assert.ok(remote.detail.split('\n').includes(rootsLine), `${rootsLine}\n---\n${remote.detail}`);
    assert.ok(rootsLine.includes(vscode.workspace.workspaceFolders![0].uri.fsPath), rootsLine);
    assert.strictEqual((await fixture.stats()).requests, 0, 'the denied server was connected to');

    // The record: the allowed server is forgotten (the usual rules from now on), the denied one still asks.
    const record = new AddedServers(api.storage.global, api.definitionKey);
    const raw = (n: string) => parseServers(cfg().inspect<Record<string, unknown>>('servers')?.globalValue).servers.find(r => r.name === n);
    assert.strictEqual(record.has(raw('imp-stdio')), false);
    assert.strictEqual(record.has(raw('imp-remote')), true);
    assert.strictEqual(record.has(raw('by-user')), false);
    await api.sync(); // a settings reload asks nothing again
    assert.strictEqual(asked.length, 2);
    assert.strictEqual(kind(api, 'imp-stdio'), 'running');

    // The user's own Start, allowed: now it connects.
    answers.set('imp-remote', 'allow');
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', 'imp-remote'), true);
    await until(() => kind(api, 'imp-remote') === 'running', 'imp-remote running after Allow');
    assert.ok((await fixture.stats()).requests > 0);
    assert.strictEqual(record.has(raw('imp-remote')), false);
    assert.strictEqual(kind(api, 'by-user'), 'running', 'the bystander kept running');
    assert.ok(!asked.some(a => a.name === 'by-user'));
  });

  it('H363: a workspace http server without headers or inputs asks first (no request before Allow, requests after); a look-alike host reads in ASCII in the first line; the roots line is what the host sends', async () => {
    answers.set('ws-by', 'allow');
    await cfg().update('servers', {
      'ws-by': { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: 'ws-by' } },
      'ws-plain': { type: 'http', url: fixture.url },
      // Never reached: denied (and port 1 on a loopback name).
      'ws-look': { type: 'http', url: 'http://\u0430pple.localhost:1/mcp', roots: [] },
    }, WS);
    await until(() => asked.length === 3, 'all three asked');
    await until(() => kind(api, 'ws-by') === 'running', 'the bystander running');
    await until(() => ['ws-plain', 'ws-look'].every(n => /not allowed/.test(api.blockedReason(n) ?? '')), 'both http servers denied');
    for (const a of asked) assert.strictEqual(a.requests, 0, `${a.name}: the fixture was reached before the dialog`);
    assert.strictEqual((await fixture.stats()).requests, 0, 'a denied workspace http server was connected to');

    const plain = asked.find(a => a.name === 'ws-plain')!;
    assert.match(plain.question, /^The workspace settings want to connect to the MCP server "ws-plain" at http:\/\/127\.0\.0\.1:\d+ /);
    assert.ok(plain.detail.split('\n').includes(describeRoots(api.host.rootsFor(api.host.get('ws-plain')!.definition))), plain.detail);
    const look = asked.find(a => a.name === 'ws-look')!;
    assert.ok(look.question.includes('at http://xn--pple-43d.localhost:1 '), look.question);
    assert.ok(!look.question.includes('\u0430pple'), `the first line shows the look-alike host decoded: ${look.question}`);
    assert.ok(look.detail.includes('http://xn--pple-43d.localhost:1 (the domain has international characters: http://\u0430pple.localhost:1)'), look.detail);
    assert.ok(look.detail.split('\n').includes('Roots it is sent: (none)'), look.detail);
    assert.deepStrictEqual(api.host.rootsFor(api.host.get('ws-look')!.definition), []);

    answers.set('ws-plain', 'allow');
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', 'ws-plain'), true);
    await until(() => kind(api, 'ws-plain') === 'running', 'ws-plain running after Allow');
    assert.ok((await fixture.stats()).requests > 0, 'no request after Allow');
    assert.strictEqual(kind(api, 'ws-by'), 'running');
  });

  it('H364: importing a FIFO ends within a second with a clear error naming the file; nothing is written; a regular file beside it imports', async function () {
    if (process.platform === 'win32') this.skip();
    const fifo = path.join(tmp, 'pipe-config.json');
    execFileSync('mkfifo', [fifo]);
    const before = JSON.stringify(cfg().inspect('servers'));
    const t0 = Date.now();
    assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', fifo, undefined, 'user'), 0);
    assert.ok(Date.now() - t0 < 1000, `the import of a FIFO took ${Date.now() - t0} ms`);
    assert.strictEqual(JSON.stringify(cfg().inspect('servers')), before, 'something was written');
    // The message the command showed (the same function, on the reader's error for this path).
    const err = await readBoundedText(fifo, { maxBytes: READ_CAPS.configFile, what: 'configFile' }).then(() => undefined, (e: unknown) => e);
    const message = importReadError(fifo, err);
    assert.ok(message.includes(fifo) && /FIFO/.test(message) && /choose an MCP configuration file/.test(message), message);
    // The bystander: a regular file imports (not started: autoStart off), into user settings.
    const file = path.join(tmp, 'regular.json');
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { 'imp-file': { command: process.execPath, args: [EVERYTHING, 'stdio'], autoStart: false } } }));
    answerWhereToWrite(api, 'Import into User Settings');
    try {
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file, undefined, 'user'), 1);
    } finally { testSupport(api).setDialogAnswerer(undefined); }
    assert.ok('imp-file' in (cfg().inspect<Record<string, unknown>>('servers')?.globalValue ?? {}));
    assert.deepStrictEqual(asked, [], 'a server that does not start asks nothing');
  });
});
