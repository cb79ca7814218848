// Consent comes from the user's own act (H49), in the real extension host, for `mcpHost.startup` lazy and eager: after
// "Don't Allow" (or a dismissed dialog) expanding the server in the Servers view, an @mcp request, and the language-model
// tools `mcpHost_listTools` / `mcpHost_callTool` bring no dialog back; they are told the server's name and "MCP Host:
// Start Server". Only an explicit Start asks again. The denial is kept (as a definition key) in the workspace state, so a
// consent store built again from that state (what a reload does) still knows it; one log line per denial. A bystander
// server the user allowed keeps answering throughout.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat';
import { LaunchConsent } from '../../src/extension/consent';
import type { McpNode } from '../../src/views/nodes';
import { EVERYTHING, activateHost, until } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration };
const cfg = () => vscode.workspace.getConfiguration('mcpHost');
const WS = vscode.ConfigurationTarget.Workspace;
const kind = (api: Api, name: string) => api.host.get(name)?.state.kind;
const textOf = (r: vscode.LanguageModelToolResult) => r.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
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
      api.setConsentBatchPrompt(undefined);
      api.setConsentPrompt(async def => { asked.push(def.name); return deny.has(def.name) ? 'deny' : 'allow'; });
      await cfg().update('startup', mode, WS);
    });

    after(async () => {
      api.setConsentPrompt(async () => 'allow');
      await cfg().update('servers', undefined, WS);
      await cfg().update('startup', undefined, WS);
      await until(api, 'no servers left', () => api.host.servers.length === 0);
      await vscode.commands.executeCommand('mcpHost.resetTrust');
    });

    it(`H49: deny → expanding it, @mcp and vscode.lm.invokeTool ask no more; a reload keeps the denial; an explicit Start asks (${mode})`, async () => {
      deny.add(shy);
      await cfg().update('servers', {
        [shy]: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: shy } },
        [by]: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { WHO: by } },
      }, WS);
      await until(api, 'both configured', () => !!api.host.get(shy) && !!api.host.get(by));
      const tree = api.views.servers;
      const node = (name: string): McpNode => ({ kind: 'server', server: name });
      if (mode === 'lazy') {
        await settle();
        assert.deepStrictEqual(asked, [], 'lazy: nothing asked before a use');
        tree.getChildren(node(by));
        await until(api, 'the bystander started by expanding it', () => kind(api, by) === 'running');
        tree.getChildren(node(shy));
      }
      await until(api, `${shy} denied`, () => asked.includes(shy) && /not allowed/.test(api.blockedReason(shy) ?? ''));
      await until(api, 'the bystander running', () => kind(api, by) === 'running');
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
      const reloaded = new LaunchConsent(api.storage.workspace, api.definitionKey);
      assert.strictEqual(reloaded.wasDenied(def), true, 'the denial does not survive a reload');
      assert.strictEqual(reloaded.wasDenied(api.host.get(by)!.definition), false);
      assert.strictEqual(reloaded.isAllowed(api.host.get(by)!.definition), true);
      let reloadAsked = 0;
      reloaded.prompt = async () => { reloadAsked++; return 'allow'; };
      assert.deepStrictEqual(await reloaded.ensureAll([{ def }]), [false], 'a reloaded store asks about a denied server without an explicit start');
      assert.strictEqual(reloadAsked, 0);

      // One log line per denial, in the "MCP Host" log.
      const ud = process.env.CS_USER_DATA_DIR;
      if (ud) {
        const line = `${shy}: launch not allowed`;
        const count = () => filesBelow(path.join(ud, 'logs')).reduce((n, f) => { try { return n + fs.readFileSync(f, 'utf8').split(line).length - 1; } catch { return n; } }, 0);
        await until(api, 'the denial in the log file', () => count() >= 1, 20000);
        assert.strictEqual(count(), 1, 'one log line per denial');
      }

      // The user's own act: Start asks again. Denied again: no error toast after the dialog (the dialog was the message).
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', shy), false);
      assert.strictEqual(asked.filter(n => n === shy).length, 2, 'Start Server asks again');
      deny.delete(shy);
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', shy), true);
      assert.strictEqual(asked.filter(n => n === shy).length, 3);
      await until(api, `${shy} running after consent`, () => kind(api, shy) === 'running');
      assert.deepStrictEqual(api.storage.workspace.get<string[]>('mcpHost.launchDenied') ?? [], [], 'allowing forgets the denial');
      assert.strictEqual(kind(api, by), 'running');
    });
  });
}
