// One identity (issue 35, H234), in the real extension host: with a consented workspace server running and used (a
// History entry), changing `mcpHost.timeout.request` in user settings and the server's own `timeout` asks no consent
// again, keeps the process (same pid), the definition key grants are kept under, and History; the new timeout is the one
// in use, and an "always" grant for its tool stands (H383: no tool dialog). Changing its `args` is another server:
// consent is asked again and the grant does not apply. A bystander server keeps its process throughout.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { EVERYTHING, activateHost, until, testSupport } from './helpers';

const cfg = () => vscode.workspace.getConfiguration('mcpHost');
const WS = vscode.ConfigurationTarget.Workspace;
const USER = vscode.ConfigurationTarget.Global;
/** The server process's pid (the connection's own; not part of the handle the views see). */
const pidOf = (api: McpHostExtensionApi, name: string) => (api.host.get(name) as unknown as { pid?: number } | undefined)?.pid;
const settle = (ms = 1500) => new Promise(r => setTimeout(r, ms));

describe('One identity: a tuning edit is the same server (H234)', function () {
  this.timeout(120000);
  let api: McpHostExtensionApi;
  const asked: string[] = [];
  const server = 'tuned';
  const by = 'tuned-bystander';
  const def = (extraArgs: string[] = [], timeout?: { request: number }) => ({
    type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio', ...extraArgs], ...(timeout && { timeout }),
  });

  before(async () => {
    api = await activateHost<McpHostExtensionApi>();
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    testSupport(api).setConsentBatchPrompt(undefined);
    testSupport(api).setConsentPrompt(async d => { asked.push(d.name); return 'allow'; });
  });

  after(async () => {
    testSupport(api).setChatUi(undefined);
    await api.chat.chat.resetGrants();
    testSupport(api).setConsentPrompt(async () => 'allow');
    await cfg().update('timeout.request', undefined, USER);
    await cfg().update('servers', undefined, WS);
    await until(() => api.host.servers.length === 0, 'no servers left');
    await vscode.commands.executeCommand('mcpHost.resetTrust');
  });

  it('H234, H383: user-level timeout.request and the server\'s own timeout: no dialog, same pid, same key, History and an "always" tool grant kept; args: asked again, the grant gone', async () => {
    await cfg().update('servers', { [server]: def(), [by]: def() }, WS);
    await until(() => api.host.get(server)?.state.kind === 'running' && api.host.get(by)?.state.kind === 'running', 'both running');
    assert.strictEqual(asked.filter(n => n === server).length, 1, `consent asks: ${asked.join(', ')}`);
    const pid = pidOf(api, server);
    const byPid = pidOf(api, by);
    assert.ok(pid && byPid);
    const key = api.definitionKey(api.host.get(server)!.definition);
    const echo = await api.host.get(server)!.callTool('echo', { message: 'before the edit' });
    assert.ok(JSON.stringify(echo.content).includes('before the edit'));
    const history = api.host.get(server)!.history.length;
    assert.ok(history > 0);
    // The user allows its tool "always" (the tool dialog's answer).
    const echoTool = api.host.get(server)!.catalogue.tools.find(t => t.name === 'echo')!;
    testSupport(api).setChatUi({ approveTool: async () => 'always' });
    assert.strictEqual(await api.chat.chat.approveCall(server, echoTool, {}), true);
    assert.strictEqual(api.chat.chat.alwaysAllowed(server, 'echo'), true);
    testSupport(api).setChatUi({ approveTool: async () => assert.fail('the "always" grant was lost: the tool dialog asked again') });

    // A user-level timeout edit.
    await cfg().update('timeout.request', 123_000, USER);
    await until(() => api.host.get(server)?.definition.timeout?.request === 123_000, 'the user timeout adopted');
    // The server's own timeout.
    await cfg().update('servers', { [server]: def([], { request: 45_000 }), [by]: def() }, WS);
    await until(() => api.host.get(server)?.definition.timeout?.request === 45_000, 'the server timeout adopted');
    await settle();
    const h = api.host.get(server)!;
    assert.strictEqual(asked.filter(n => n === server).length, 1, `a tuning edit asked consent again: ${asked.join(', ')}`);
    assert.strictEqual(h.state.kind, 'running');
    assert.strictEqual(pidOf(api, server), pid, 'a tuning edit restarted the server');
    assert.strictEqual(api.definitionKey(h.definition), key, 'a tuning edit changed the definition key (grants, History, caches)');
    assert.ok(h.history.length >= history, 'History was dropped');
    assert.strictEqual(pidOf(api, by), byPid, 'the bystander restarted');
    assert.strictEqual(api.chat.chat.alwaysAllowed(server, 'echo'), true, 'a tuning edit dropped the "always" grant');
    assert.strictEqual(await api.chat.chat.approveCall(server, echoTool, {}), true, 'allowed by the grant, no dialog');

    // An identity edit: another server, asked about again.
    await cfg().update('servers', { [server]: def(['--edited'], { request: 45_000 }), [by]: def() }, WS);
    await until(() => asked.filter(n => n === server).length === 2, 'asked again');
    await until(() => api.host.get(server)?.state.kind === 'running' && pidOf(api, server) !== pid, 'the edited server running');
    assert.notStrictEqual(api.definitionKey(api.host.get(server)!.definition), key);
    assert.strictEqual(api.chat.chat.alwaysAllowed(server, 'echo'), false, 'another server: the grant does not apply');
    assert.strictEqual(pidOf(api, by), byPid, 'the bystander restarted');
  });
});
