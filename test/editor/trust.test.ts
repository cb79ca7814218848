// Trust in the editor, in the real extension host: one consent gate for every way a workspace server starts
// (settings sync, Start, Restart, Start All), "Don't Allow" stops it and nothing relaunches it silently; workspace
// http servers ask too, with or without headers or ${input:} values (origin shown, values masked); several servers are asked
// in one dialog; ${input:} values are kept where the input is declared; "always" grants for tools and sampling follow
// where a server is defined plus its definition, never its name; `"roots": []` gives no root; tooltips are masked.
import * as assert from 'assert';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import type { SamplingFeatures } from '../../src/extension/sampling/clientFeatures';
import type { ConsentBatchAnswer } from '../../src/extension/trust/consent';
import { InputStore, type InputScope } from '../../src/extension/trust/inputs';
import { shellQuote } from '../../src/mcp/config/commandLine';
import { EVERYTHING, activateHost, until, testSupport } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration; sampling: SamplingFeatures };
const cfg = () => vscode.workspace.getConfiguration('mcpHost');
const WS = vscode.ConfigurationTarget.Workspace;
const USER = vscode.ConfigurationTarget.Global;
const everything = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra });
const kind = (api: Api, name: string) => api.host.get(name)?.state.kind;

/** Polls `check` (consent answers arrive after `sync` resolves: the dialog runs beside it). */
async function eventually(what: string, check: () => boolean, ms = 20000): Promise<void> {
  for (const end = Date.now() + ms; !check();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 100));
  }
}

describe('Trust in the editor (consent gate, inputs and grants scoped, roots, masked tooltips)', function () {
  this.timeout(120000);
  let api: Api;

  before(async () => {
    api = await activateHost<Api>();
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    testSupport(api).setConsentPrompt(async () => 'allow');
    testSupport(api).setConsentBatchPrompt(undefined);
  });

  afterEach(async () => {
    testSupport(api).setConsentPrompt(async () => 'allow');
    testSupport(api).setConsentBatchPrompt(undefined);
    testSupport(api).setChatUi(undefined);
    testSupport(api).setSamplingUi(undefined);
    await cfg().update('servers', undefined, WS);
    await cfg().update('servers', undefined, USER);
    await cfg().update('inputs', undefined, WS);
    await cfg().update('inputs', undefined, USER);
    await api.sync();
    await until(() => api.host.servers.length === 0, 'no servers left');
    await vscode.commands.executeCommand('mcpHost.clearInputs');
    await api.sampling.resetGrants();
    await api.chat.chat.resetGrants();
  });

  it('"Don\'t Allow" stops a running workspace server; Restart, Start, Start All and a settings reload ask again and never relaunch it silently', async () => {
    await cfg().update('servers', { guarded: everything() }, WS);
    await until(() => kind(api, 'guarded') === 'running', 'guarded running');
    const pid = (api.host.get('guarded') as unknown as { pid?: number }).pid;
    assert.ok(pid, 'the connection knows its process id');
    const alive = (p: number) => { try { process.kill(p, 0); return true; } catch { return false; } };
    const asked: string[] = [];
    testSupport(api).setConsentPrompt(async def => { asked.push(def.name); return 'deny'; });
    // Forgetting consent re-asks at once; the answer "Don't Allow" stops the running server.
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    await eventually('the denial', () => asked.length === 1 && kind(api, 'guarded') === 'stopped' && /not allowed/.test(api.blockedReason('guarded') ?? ''));
    await eventually('the denied server\'s process gone', () => !alive(pid));

    await vscode.commands.executeCommand('mcpHost.restartServer', 'guarded');
    assert.deepStrictEqual(asked, ['guarded', 'guarded'], 'Restart Server after a denial asks again');
    assert.strictEqual(kind(api, 'guarded'), 'stopped', 'Restart relaunched a denied server');
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', 'guarded'), false);
    await vscode.commands.executeCommand('mcpHost.startAll');
    assert.strictEqual(asked.length, 4, 'Start and Start All ask again');
    await api.sync(); // a settings reload does not start a denied server, nor pester with a dialog
    await new Promise(r => setTimeout(r, 500));
    assert.strictEqual(asked.length, 4);
    assert.strictEqual(kind(api, 'guarded'), 'stopped');

    testSupport(api).setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    await vscode.commands.executeCommand('mcpHost.restartServer', 'guarded');
    assert.strictEqual(asked.length, 5);
    await until(() => kind(api, 'guarded') === 'running', 'guarded running after consent');
  });

  it('H504: the consent dialog shows the command line shell-quoted (the one quoting of the install and import dialogs), a secret with a quote in it still masked; the plain bystander runs', async () => {
    testSupport(api).setInputPrompt(async () => "pa'ss word 4455");
    await cfg().update('inputs', [{ id: 'q-secret', type: 'promptString', password: true }], WS);
    const shown: { name: string; detail: string }[] = [];
    testSupport(api).setConsentPrompt(async (def, detail) => { shown.push({ name: def.name, detail }); return def.name === 'plainq' ? 'allow' : 'deny'; });
    await cfg().update('servers', {
      quoted: everything({ args: [EVERYTHING, 'stdio', "it's a b", '${input:q-secret}'] }),
      plainq: everything(),
    }, WS);
    await eventually('both consent questions answered', () => shown.length === 2 && /not allowed/.test(api.blockedReason('quoted') ?? '') && kind(api, 'plainq') === 'running');
    const head = [process.execPath, EVERYTHING, 'stdio'].map(shellQuote).join(' ');
    const quoted = shown.find(s => s.name === 'quoted')!.detail;
    assert.ok(quoted.split('\n').includes(`Command: ${head} 'it'\\''s a b' '••••'`), quoted);
    assert.ok(!quoted.includes('4455') && !quoted.includes('ss word'), quoted);
    assert.ok(shown.find(s => s.name === 'plainq')!.detail.split('\n').includes(`Command: ${head}`));
  });

  it('a workspace http server asks first, with headers and ${input:} values (origin, where each input goes, values masked) or without; denied, it never connects', async () => {
    const hits: string[] = [];
    const server = http.createServer((req, res) => { hits.push(req.url ?? ''); res.writeHead(404).end(); });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const values: Record<string, string> = { 'remote-token': 'tok-remote-7788', 'remote-key': 'key-remote-9911' };
      testSupport(api).setInputPrompt(async o => values[/input:([\w-]+)/.exec(o.prompt ?? '')![1]]);
      await cfg().update('inputs', [{ id: 'remote-token', type: 'promptString', password: true }, { id: 'remote-key', type: 'promptString', password: true }], WS);
      const shown: { name: string; detail: string }[] = [];
      testSupport(api).setConsentPrompt(async (def, detail) => { shown.push({ name: def.name, detail }); return 'deny'; });
      await cfg().update('servers', {
        remote: { type: 'http', url: `http://127.0.0.1:${port}/secret?key=\${input:remote-key}`, headers: { Authorization: 'Bearer ${input:remote-token}', 'X-Team': 'acme' } },
        plain: { type: 'http', url: `http://127.0.0.1:${port}/plain` },
      }, WS);
      await eventually('both consent questions and their denials', () => shown.length === 2 && ['remote', 'plain'].every(n => /not allowed/.test(api.blockedReason(n) ?? '')));
      assert.deepStrictEqual(shown.map(s => s.name).sort(), ['plain', 'remote'], 'a workspace http server without values asks too (issue 34)');
      assert.ok(shown.find(s => s.name === 'plain')!.detail.includes('Headers sent there: (none)'));
      const { detail } = shown.find(s => s.name === 'remote')!;
      assert.ok(detail.includes(`Sends requests to: http://127.0.0.1:${port}`), detail);
      assert.match(detail, /Authorization: ••••/);
      assert.match(detail, /X-Team: ••••/);
      assert.match(detail, /\$\{input:remote-key\} → URL/);
      assert.match(detail, /\$\{input:remote-token\} → header Authorization/);
      for (const v of Object.values(values)) assert.ok(!detail.includes(v), `the dialog shows ${v}:\n${detail}`);
      assert.ok(!detail.includes('acme'), detail);
      assert.deepStrictEqual(hits, [], 'a denied server was connected to');
      assert.strictEqual(kind(api, 'remote'), 'stopped');
    } finally {
      server.closeAllConnections();
      await new Promise(r => server.close(r));
    }
  });

  it('several workspace servers waiting for consent are asked in one dialog: allow all, allow none, review each', async () => {
    const batches: string[][] = [];
    const single: string[] = [];
    let batchAnswer: ConsentBatchAnswer = 'allowAll';
    testSupport(api).setConsentBatchPrompt(async defs => { batches.push(defs.map(d => d.name)); return batchAnswer; });
    testSupport(api).setConsentPrompt(async def => { single.push(def.name); return def.name === 'one' ? 'allow' : 'deny'; });
    await cfg().update('servers', { one: everything({ env: { N: '1' } }), two: everything({ env: { N: '2' } }), three: everything({ env: { N: '3' } }) }, WS);
    await until(() => ['one', 'two', 'three'].every(n => kind(api, n) === 'running'), 'all three running', 60000);
    assert.deepStrictEqual(batches.map(b => b.sort()), [['one', 'three', 'two']], 'one dialog for three servers');
    assert.deepStrictEqual(single, []);

    batchAnswer = 'denyAll';
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    await eventually('all three denied and stopped', () => batches.length === 2 && ['one', 'two', 'three'].every(n => kind(api, n) === 'stopped' && /not allowed/.test(api.blockedReason(n) ?? '')));
    assert.deepStrictEqual(single, []);

    batchAnswer = 'review';
    await vscode.commands.executeCommand('mcpHost.startAll');
    assert.strictEqual(batches.length, 3, 'Start All asks once for every held-back server');
    assert.deepStrictEqual(single.sort(), ['one', 'three', 'two'], 'review asks about each');
    await until(() => kind(api, 'one') === 'running', 'one running');
    assert.strictEqual(kind(api, 'two'), 'stopped');
    assert.strictEqual(kind(api, 'three'), 'stopped');
  });

  it('${input:} values stay in the scope that declares them: a workspace declaring a user input\'s id is asked, and never gets the user\'s value', async () => {
    const prompts: string[] = [];
    let answer = 'user-value-1111';
    testSupport(api).setInputPrompt(async o => { prompts.push(o.prompt ?? ''); return answer; });
    await cfg().update('inputs', [{ id: 'shared', type: 'promptString', password: true }, { id: 'useronly', type: 'promptString', password: true }], USER);
    await cfg().update('servers', { mine: everything({ env: { KEY: '${input:shared}', OTHER: '${input:useronly}' } }) }, USER);
    await until(() => kind(api, 'mine') === 'running', 'the user server running');
    assert.strictEqual(prompts.length, 2);
    assert.ok(api.host.get('mine')!.definition.secrets?.includes('user-value-1111'));

    answer = 'ws-value-2222';
    await cfg().update('inputs', [{ id: 'shared', type: 'promptString', password: true }], WS);
    await cfg().update('servers', { theirs: everything({ env: { KEY: '${input:shared}' } }), sneaky: everything({ env: { KEY: '${input:useronly}' } }) }, WS);
    await until(() => kind(api, 'theirs') === 'running', 'the workspace server running');
    assert.strictEqual(prompts.length, 3, 'the workspace\'s own "shared" was asked for');
    assert.match(prompts[2], /declared in this workspace/);
    const theirs = api.host.get('theirs')!.definition;
    assert.ok(theirs.type === 'stdio' && theirs.env.KEY === 'ws-value-2222', 'the workspace server got the user\'s value');
    // An id declared only in user settings is not the workspace's to use.
    const sneaky = api.host.get('sneaky');
    assert.ok(!sneaky || sneaky.state.kind === 'error', JSON.stringify(sneaky?.state));
    assert.ok(!JSON.stringify(api.host.servers.filter(s => s.name !== 'mine').map(s => [s.definition, s.state])).includes('user-value-1111'));
    assert.strictEqual(prompts.length, 3);
    // The user server keeps its own value.
    const mine = api.host.get('mine')!.definition;
    assert.ok(mine.type === 'stdio' && mine.env.KEY === 'user-value-1111');
  });

  it('${input:} values of one workspace are not another workspace\'s (the store the extension uses, keyed by workspace)', async () => {
    const kept = new Map<string, string>();
    const secrets = { get: async (k: string) => kept.get(k), store: async (k: string, v: string) => { kept.set(k, v); }, delete: async (k: string) => { kept.delete(k); } } as unknown as vscode.SecretStorage;
    const memo = new Map<string, unknown>();
    const state = { get: (k: string, d?: unknown) => memo.get(k) ?? d, update: async (k: string, v: unknown) => { memo.set(k, v); }, keys: () => [...memo.keys()] } as unknown as vscode.Memento;
    const asked: string[] = [];
    const store = new InputStore(secrets, state, { ask: async o => { asked.push(o.prompt ?? ''); return `value-${asked.length}`; } });
    const input = { id: 'token', type: 'promptString' as const, password: true };
    const a: InputScope = { kind: 'workspace', id: 'file:///work/a' };
    const b: InputScope = { kind: 'workspace', id: 'file:///work/b' };
    assert.strictEqual(await store.resolve(input, a), 'value-1');
    assert.strictEqual(await store.resolve(input, a), 'value-1', 'kept for workspace a');
    assert.strictEqual(await store.resolve(input, b), 'value-2', 'workspace b is asked, never given a\'s value');
    assert.strictEqual(await store.resolve(input, { kind: 'user' }), 'value-3', 'user settings are a scope of their own');
    assert.strictEqual(await store.stored('token', b), 'value-2');
    assert.strictEqual(await store.clear(), 3);
  });

  it('"always" grants for tools and sampling follow where a server is defined plus its definition, never its name', async () => {
    let toolAsks = 0;
    let samplingAsks = 0;
    testSupport(api).setChatUi({ approveTool: async () => { toolAsks++; return 'always'; } });
    testSupport(api).setSamplingUi({ approve: async () => { samplingAsks++; return { grant: 'always' }; }, review: async (_s, _m, text) => ({ action: 'send', text }) });
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    const useBoth = async () => {
      await until(() => kind(api, 'g') === 'running' && api.host.get('g')!.catalogue.tools.some(t => t.name === 'echo'), 'g running');
      const t = await api.chat.run('CALL_TOOL:g_echo {"message":"hi"}', { model: fake });
      assert.ok(t.markdown.includes('tool-result:Echo: hi'), t.markdown);
      const r = JSON.stringify(await api.host.get('g')!.callTool('trigger-sampling-request', { prompt: 'p', maxTokens: 5 }));
      assert.ok(r.includes('fake-reply-to:'), r);
    };
    const original = everything({ sampling: { maxRequestsPerMinute: 100 } });
    await cfg().update('servers', { g: original }, WS);
    await useBoth();
    await useBoth();
    assert.deepStrictEqual([toolAsks, samplingAsks], [1, 1], '"always" holds for the same workspace server');

    // The same name and command defined in user settings is another server: asked again.
    await cfg().update('servers', undefined, WS);
    await cfg().update('servers', { g: original }, USER);
    await api.sync();
    await useBoth();
    assert.deepStrictEqual([toolAsks, samplingAsks], [2, 2], 'a workspace grant followed the name into user settings');

    // An edited workspace definition is another server too.
    await cfg().update('servers', undefined, USER);
    await cfg().update('servers', { g: { ...original, env: { CHANGED: '1' } } }, WS);
    await api.sync();
    await useBoth();
    assert.deepStrictEqual([toolAsks, samplingAsks], [3, 3], 'a grant followed the name onto an edited definition');

    // Back to the original workspace definition: its grant still holds.
    await cfg().update('servers', { g: original }, WS);
    await api.sync();
    await useBoth();
    assert.deepStrictEqual([toolAsks, samplingAsks], [3, 3]);
  });

  it('"roots": [] gives a server no root at all; without "roots" it sees the workspace folder', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri.toString();
    await cfg().update('servers', { rootless: everything({ roots: [] }), rooted: everything({ env: { R: '1' } }) }, WS);
    await until(() => kind(api, 'rootless') === 'running' && kind(api, 'rooted') === 'running', 'both running');
    const seen = async (n: string) => JSON.stringify((await api.host.get(n)!.callTool('get-roots-list', {})).content);
    assert.ok((await seen('rooted')).includes(folder), await seen('rooted'));
    const none = await seen('rootless');
    assert.ok(!none.includes('file://'), none);
  });

  it('the Servers tree tooltip masks resolved ${input:} values, as the consent dialog does', async () => {
    const SECRET = 'tip-secret-5555';
    testSupport(api).setInputPrompt(async () => SECRET);
    await cfg().update('inputs', [{ id: 'tip', type: 'promptString', password: true }], WS);
    await cfg().update('servers', { tipped: everything({ args: [EVERYTHING, 'stdio', `--token=\${input:tip}`] }) }, WS);
    await until(() => kind(api, 'tipped') === 'running', 'tipped running');
    const item = api.views.servers.getTreeItem({ kind: 'server', server: 'tipped' });
    const tip = (item.tooltip as vscode.MarkdownString).value;
    assert.ok(!tip.includes(SECRET), tip);
    assert.ok(tip.includes('--token=••••'), tip);
    assert.ok(!String(item.description).includes(SECRET));
  });
});
