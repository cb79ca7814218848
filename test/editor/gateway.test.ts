// The gateway into VS Code's own chat, in the real editor: MCP Host's server definition provider is registered and
// provides "MCP Host", an HTTP definition served by this extension host on 127.0.0.1 (issue 41); its tools appear in
// vscode.lm.tools; invoking one through vscode.lm.invokeTool reaches the server through MCP Host (History records it);
// turning the setting off ends it. In Restricted Mode there is no gateway at all.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { activateHost, ROOT, until, textOf, testSupport, activateAllowing } from './helpers';

const CLAIMS = path.join(ROOT, 'test/fixtures/servers/gateway-claims.mjs');

/** Waits (bounded) for a condition that no host event announces. */
async function poll(what: string, check: () => boolean | Promise<boolean>, ms = 60000): Promise<void> {
  const end = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise(r => setTimeout(r, 250));
  }
}


describe('The gateway into VS Code\'s chat', function () {
  this.timeout(120000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await activateAllowing();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { gw: { type: 'stdio', command: process.execPath, args: [CLAIMS] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('gw')?.catalogue.tools.length ?? 0) > 0, 'gw running');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost.gateway').update('enabled', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.mcp.stopServer', '*').then(undefined, () => undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H423/H424: VS Code runs the "MCP Host" server from the start, with no request: its lists reach VS Code\'s chat', async () => {
    // Nothing here starts it (no workbench.mcp.startServer, no chat request): MCP Host asked VS Code when it offered
    // the definition, so `MCP: List Servers` shows it running and its prompts are in the `/` menu without a first use.
    await api.gateway.started;
    await poll('VS Code connected to the gateway', () => api.gateway.connections > 0, 30000);
    await poll('the gateway\'s tools in vscode.lm.tools', () => vscode.lm.tools.some(t => t.name.endsWith('gw_echo')), 30000);
  });

  it('H425: one tool group per purpose: VS Code\'s chat is offered each server tool once, by the gateway', async () => {
    await poll('the gateway\'s tools in vscode.lm.tools', () => vscode.lm.tools.some(t => t.name.endsWith('gw_echo')), 30000);
    // Each server tool once in vscode.lm.tools: the gateway's, tagged as VS Code's MCP tools.
    const echo = vscode.lm.tools.filter(t => t.name.endsWith('gw_echo'));
    assert.strictEqual(echo.length, 1, echo.map(t => t.name).join(', '));
    assert.ok(echo[0].tags.includes('mcp'));
    // MCP Host's own language model tools stay in vscode.lm.tools for other extensions' agents (which call them by
    // name), but VS Code's tool picker lists, and its agent mode sends, only tools that can be referenced in a
    // prompt: these cannot, so VS Code's chat does not get the same tools a second time under a second "MCP Host".
    const ours = vscode.lm.tools.filter(t => t.name.startsWith('mcpHost_')).map(t => t.name).sort();
    assert.deepStrictEqual(ours, ['mcpHost_callTool', 'mcpHost_listTools', 'mcpHost_loadSkill']);
    const contributed = (vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as { contributes: { languageModelTools: { name: string; canBeReferencedInPrompt?: boolean; toolReferenceName?: string; userDescription?: string }[] } })
      .contributes.languageModelTools;
    for (const t of contributed) {
      assert.strictEqual(t.canBeReferencedInPrompt, false, `${t.name} is offered in VS Code's tool picker`);
      assert.strictEqual(t.toolReferenceName, undefined, `${t.name} has a #reference in VS Code's chat`);
      assert.match(t.userDescription ?? '', /other extensions' agents/, t.name);
    }
  });

  it('H97/H98/H99: VS Code starts the "MCP Host" definition, lists its tools in vscode.lm.tools, and a call reaches the server through MCP Host', async () => {
    assert.strictEqual(api.gateway.offered, true);
    // A tool allowed always in MCP Host is marked read-only for VS Code, so VS Code runs it without its own dialog
    // (a headless window could not answer one). Granted before VS Code lists the tools.
    const echo = api.host.get('gw')!.catalogue.tools.find(t => t.name === 'echo')!;
    testSupport(api).setChatUi({ approveTool: async () => 'always' });
    try {
      assert.strictEqual(await api.chat.chat.approveCall('gw', echo, {}), true);
    } finally {
      testSupport(api).setChatUi(undefined);
    }
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    await poll('VS Code connected to the gateway', () => api.gateway.connections > 0);
    assert.match(api.gateway.url ?? '', /^http:\/\/127\.0\.0\.1:\d+\/mcp$/, 'the listener is on 127.0.0.1');
    let tools: readonly vscode.LanguageModelToolInformation[] = [];
    await poll('the gateway\'s tools in vscode.lm.tools', () => (tools = vscode.lm.tools.filter(t => /gw_/.test(t.name))).some(t => t.name.endsWith('gw_echo')));
    const names = tools.map(t => t.name);
    assert.ok(names.some(n => n.endsWith('gw_read_notes')) && names.some(n => n.endsWith('gw_delete_all')), names.join(', '));
    assert.ok(!names.some(n => /app_only/.test(n)), `an app-only tool reached VS Code: ${names.join(', ')}`);
    assert.ok(tools.every(t => t.tags.includes('mcp')), 'VS Code lists them as MCP tools');
    const before = api.host.get('gw')!.history.length;
    const result = await vscode.lm.invokeTool(names.find(n => n.endsWith('gw_echo'))!, { input: { text: 'from VS Code' }, toolInvocationToken: undefined });
    assert.strictEqual(textOf(result), 'echo: from VS Code');
    const last = api.host.get('gw')!.history.at(-1)!;
    assert.ok(api.host.get('gw')!.history.length > before, 'History recorded the call');
    assert.strictEqual(last.target, 'echo');
    assert.strictEqual(last.by, 'model');
    assert.deepStrictEqual(last.args, { text: 'from VS Code' });
  });

  it('H104: mcpHost.gateway.enabled: false ends the running gateway and withdraws the definition', async () => {
    await poll('a gateway connected', () => api.gateway.connections > 0);
    await vscode.workspace.getConfiguration('mcpHost.gateway').update('enabled', false, vscode.ConfigurationTarget.Workspace);
    await poll('the gateway ended', () => api.gateway.connections === 0 && api.gateway.url === undefined, 20000);
    assert.strictEqual(api.gateway.offered, false);
    await poll('VS Code dropped its tools', () => !vscode.lm.tools.some(t => t.name.endsWith('gw_echo')), 20000);
  });

  it('H423: with chat.mcp.autostart "never" MCP Host does not start its server in VS Code; without it, offering the definition again starts it', async () => {
    // H104 left the gateway off. VS Code's own "never start MCP servers by themselves" is the user's say.
    const autostart = vscode.workspace.getConfiguration('chat.mcp');
    await autostart.update('autostart', 'never', vscode.ConfigurationTarget.Global);
    try {
      await vscode.workspace.getConfiguration('mcpHost.gateway').update('enabled', true, vscode.ConfigurationTarget.Workspace);
      await poll('the definition offered again', () => api.gateway.offered, 20000);
      await api.gateway.started;
      assert.strictEqual(api.gateway.connections, 0, 'the gateway was started although chat.mcp.autostart is "never"');
      assert.strictEqual(api.gateway.url, undefined);
    } finally {
      await autostart.update('autostart', undefined, vscode.ConfigurationTarget.Global);
    }
    // Without "never", offering the definition again starts it (VS Code registers it asynchronously: MCP Host asks again).
    const gateway = vscode.workspace.getConfiguration('mcpHost.gateway');
    await gateway.update('enabled', false, vscode.ConfigurationTarget.Workspace);
    await poll('the definition withdrawn', () => !api.gateway.offered, 20000);
    await gateway.update('enabled', true, vscode.ConfigurationTarget.Workspace);
    await poll('the gateway started again by MCP Host', () => api.gateway.connections > 0, 30000);
  });
});

describe('Restricted Mode: no gateway into VS Code\'s chat', function () {
  this.timeout(30000);
  it('H104: offers no definition and opens no channel in an untrusted workspace', async () => {
    assert.strictEqual(vscode.workspace.isTrusted, false, 'run in the untrusted pass');
    const api = await activateHost();
    assert.strictEqual(api.gateway.offered, false);
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*').then(undefined, () => undefined);
    await new Promise(r => setTimeout(r, 1000));
    assert.strictEqual(api.gateway.url, undefined);
    assert.strictEqual(api.gateway.connections, 0);
  });
});
