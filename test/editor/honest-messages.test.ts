// What a new user meets (issue 38, items 2, 8, 9, 10), in the real editor on the production VSIX: an import that adds
// a password input raises no settings error between its writes and asks the value as the server starts (eager), or
// waits with "starts on first use" (lazy); the server pickers word a lazy server's state as the tree does; the
// launch-consent dialog says how "Cancel" differs from "Don't Allow" / "Allow None"; `mcpHost.registry.url` is read at
// each Browse MCP Servers…. Restricted Mode's pickers are tested in untrusted.test.ts (the untrusted pass).
import * as assert from 'assert';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import { ANSWERS_MANY, ANSWERS_ONE, LaunchConsent } from '../../src/extension/trust/consent';
import { Dialogs, type Dialog } from '../../src/extension/ui/dialogs';
import { createTestSupport, type TestSeams } from '../../src/extension/testSupport';
import type { ServerDefinition } from '../../src/mcp';
import { answerWhereToWrite, EVERYTHING, ROOT, until, testSupport, activateAllowing } from './helpers';

const cfg = () => vscode.workspace.getConfiguration('mcpHost');
const WS = vscode.ConfigurationTarget.Workspace;

describe('Honest messages and labels (issue 38)', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await activateAllowing();
  });
  afterEach(async () => {
    testSupport(api).setConsentPrompt(async () => 'allow');
    await cfg().update('servers', undefined, WS);
    await cfg().update('inputs', undefined, WS);
    await cfg().update('startup', undefined, WS);
    await until(() => api.host.servers.length === 0, 'no servers left');
    await vscode.commands.executeCommand('mcpHost.clearInputs');
  });

  /** Every settings problem the Servers view listed while `run` ran (read at each refresh of the view). */
  async function problemsDuring(run: () => Promise<unknown>): Promise<string[]> {
    const seen = new Set<string>();
    const read = () => {
      for (const n of api.views.servers.getChildren() as McpNode[]) if (n.kind === 'message' && n.error && n.server === '' && !n.context) seen.add(n.text);
    };
    const sub = api.views.servers.onDidChangeTreeData(read);
    try {
      await run();
      await api.sync();
      read();
    } finally {
      sub.dispose();
    }
    return [...seen];
  }

  /** A VS Code mcp.json with one server that takes its token from a password input. */
  function mcpJsonWithSecret(name: string): string {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'import38-')), 'mcp.json');
    fs.writeFileSync(file, JSON.stringify({
      inputs: [{ id: `${name}-token`, type: 'promptString', description: 'API token', password: true }],
      servers: { [name]: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { MY_TOKEN: `\${input:${name}-token}` } } },
    }));
    return file;
  }

  it('H430: an import that adds a server and its password input writes the input first: no "has no input with id" error at any point; the value is asked at once, masked, and reaches the server (eager)', async () => {
    const asked: vscode.InputBoxOptions[] = [];
    testSupport(api).setInputPrompt(async o => { asked.push(o); return 'value-38'; });
    const file = mcpJsonWithSecret('secret38');
    const problems = await problemsDuring(async () => {
      answerWhereToWrite(api, 'Import into Workspace Settings');
      try { assert.strictEqual(await vscode.commands.executeCommand('mcpHost.importServers', file), 1); } finally { testSupport(api).setDialogAnswerer(undefined); }
      await until(() => api.host.get('secret38')?.state.kind === 'running', 'secret38 running', 60000);
    });
    assert.deepStrictEqual(problems, [], 'a settings problem was shown during the import');
    assert.strictEqual(asked.length, 1, 'the value is asked once, as the server starts');
    assert.strictEqual(asked[0].password, true);
    const env = await api.host.get('secret38')!.callTool('get-env', {});
    assert.ok(JSON.stringify(env).includes('value-38'), 'the server got the value');
    assert.strictEqual(api.blockedReason('secret38'), undefined);
  });

  it('H431: in lazy start-up the imported server with a password input reads "starts on first use" (not "stopped · needs input"), with no settings error; its first use asks the value', async () => {
    await cfg().update('startup', 'lazy', WS);
    const asked: vscode.InputBoxOptions[] = [];
    testSupport(api).setInputPrompt(async o => { asked.push(o); return 'lazy-38'; });
    const file = mcpJsonWithSecret('later38');
    const problems = await problemsDuring(async () => {
      answerWhereToWrite(api, 'Import into Workspace Settings');
      try { assert.strictEqual(await vscode.commands.executeCommand('mcpHost.importServers', file), 1); } finally { testSupport(api).setDialogAnswerer(undefined); }
      await until(() => !!api.host.get('later38'), 'later38 configured');
    });
    assert.deepStrictEqual(problems, [], 'a settings problem was shown during the import');
    assert.strictEqual(api.host.get('later38')!.state.kind, 'stopped');
    assert.strictEqual(asked.length, 0, 'nothing asked before the first use');
    const item = api.views.servers.getTreeItem({ kind: 'server', server: 'later38' });
    assert.strictEqual(item.description, 'starts on first use');
    const r = await vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'later38', 'echo', { message: 'first use' });
    assert.strictEqual(r?.content[0]?.text, 'Echo: first use');
    assert.strictEqual(asked.length, 1);
    assert.strictEqual(asked[0].password, true);
  });

  it('H433: in lazy start-up the server pickers (Call Tool…, Run Prompt…, Browse Resources) say "starts on first use", as the tree does, not "stopped"', async () => {
    await cfg().update('startup', 'lazy', WS);
    const everything = (t: string) => ({ command: process.execPath, args: [EVERYTHING, 'stdio'], env: { T: t } });
    await cfg().update('servers', { 'pick-a': everything('a'), 'pick-b': everything('b') }, WS);
    await until(() => !!api.host.get('pick-a') && !!api.host.get('pick-b'), 'both configured');
    for (const command of ['mcpHost.callTool', 'mcpHost.runPrompt', 'mcpHost.browseResources']) {
      // The quick inputs shown, as the test-only object records them (the newest 20): the picker is the newest pick.
      const shownInputs = testSupport(api).quickInputs;
      const newest = () => shownInputs[shownInputs.length - 1];
      const before = newest();
      let done = false;
      const run = Promise.resolve(vscode.commands.executeCommand(command)).finally(() => { done = true; });
      await until(() => newest() !== before && newest()?.kind === 'pick', `${command} shows its server picker`);
      const shown = newest();
      // Close the picker (Escape) until the command has ended: the pick may reach the workbench after the first close.
      for (let i = 0; i < 50 && !done; i++) {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        await Promise.race([run, new Promise(r => setTimeout(r, 200))]);
      }
      await run;
      assert.deepStrictEqual(shown.items, [
        { label: 'pick-a', description: 'starts on first use' },
        { label: 'pick-b', description: 'starts on first use' },
      ], command);
      for (const name of ['pick-a', 'pick-b']) {
        assert.strictEqual(api.views.servers.getTreeItem({ kind: 'server', server: name }).description, 'starts on first use');
      }
    }
    assert.strictEqual(api.host.get('pick-a')!.state.kind, 'stopped', 'a picker closed without a choice starts nothing');
  });

  it('H436: the launch-consent dialogs say how "Cancel" (not now, asked again on your next start) differs from "Don\'t Allow" / "Allow None" (remembered)', async () => {
    const state = new Map<string, unknown>();
    const memento = { get: <T>(k: string) => state.get(k) as T, update: async (k: string, v: unknown) => { state.set(k, v); } } as Pick<vscode.Memento, 'get' | 'update'>;
    // A consent store of its own, wired as activate() wires the extension's: the window's dialogs over test seams, answered
    // through the test-only object (testSupport.ts) like every other dialog a test answers.
    const seams: TestSeams = {};
    const support = createTestSupport(seams);
    const consent = new LaunchConsent(memento, def => createHash('sha256').update(def.name).digest('hex'), new Dialogs(seams), seams);
    const shown: Dialog[] = [];
    support.setDialogAnswerer(async d => { shown.push(d); return undefined; });
    try {
      const def = (name: string) => ({ name, type: 'stdio', command: 'node', args: ['server.js'] }) as unknown as ServerDefinition;
      assert.strictEqual(await consent.ensure(def('one')), false);
      assert.deepStrictEqual(await consent.ensureAll([{ def: def('two') }, { def: def('three') }]), [false, false]);
    } finally {
      support.setDialogAnswerer(undefined);
    }
    assert.strictEqual(shown.length, 2);
    assert.deepStrictEqual(shown[0].buttons.map(b => b.title), ['Allow', "Don't Allow"]);
    assert.ok(shown[0].detail?.endsWith(`\n\n${ANSWERS_ONE}`), shown[0].detail);
    assert.strictEqual(ANSWERS_ONE, '"Don\'t Allow" is remembered: it stays stopped, and only your own Start (MCP Host: Start Server) asks again. '
      + '"Cancel" is "not now": nothing is remembered, and you are asked again on your next start.');
    assert.deepStrictEqual(shown[1].buttons.map(b => b.title), ['Allow All', 'Review Each…', 'Allow None']);
    assert.ok(shown[1].detail?.endsWith(`\n\n${ANSWERS_MANY}`), shown[1].detail);
    assert.match(ANSWERS_MANY, /^"Allow None" is remembered for each server: .* "Cancel" is "not now": nothing is remembered, and you are asked again on your next start\.$/);
  });

  it('H437: mcpHost.registry.url is read at each Browse MCP Servers…, never cached: a new value is the registry the next search queries, with no reload', async () => {
    // (Written to the user settings file outside the editor, a value is not seen at all until the editor re-reads the
    // file: code-server 1.139 re-reads it only after its own settings writes, for every setting, mcpHost.trace too.)
    const body = fs.readFileSync(path.join(ROOT, 'test/fixtures/registry/servers.json'));
    const registry = async (queried: string[]) => {
      const server = http.createServer((req, res) => { queried.push(req.url ?? ''); res.setHeader('content-type', 'application/json'); res.end(body); });
      await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    };
    const first: string[] = [];
    const second: string[] = [];
    const a = await registry(first);
    const b = await registry(second);
    // The installed server would run npx (a download): its launch is denied, it never starts.
    testSupport(api).setConsentPrompt(async () => 'deny');
    const registryCfg = () => vscode.workspace.getConfiguration('mcpHost.registry');
    answerWhereToWrite(api, 'Install in Workspace Settings');
    try {
      for (const [r, queried, other] of [[a, first, second], [b, second, first]] as const) {
        await registryCfg().update('url', r.url, vscode.ConfigurationTarget.Global);
        const before = other.length;
        const name = await vscode.commands.executeCommand<string>('mcpHost.browseRegistry', 'filesystem', 'io.github.modelcontextprotocol/server-filesystem', 0);
        assert.strictEqual(name, 'server-filesystem');
        assert.ok(queried.some(q => q.startsWith('/v0.1/servers?') && q.includes('search=filesystem')), `${r.url} was not queried: ${JSON.stringify(queried)}`);
        assert.strictEqual(other.length, before, 'the other registry was queried');
        await cfg().update('servers', undefined, WS);
        await until(() => !api.host.get('server-filesystem'), 'the installed server removed');
      }
    } finally {
      testSupport(api).setDialogAnswerer(undefined);
      await registryCfg().update('url', undefined, vscode.ConfigurationTarget.Global);
      a.server.close();
      b.server.close();
    }
  });
});
