// Restricted Mode: servers from workspace settings never start in an untrusted workspace. Runs only when the
// harness keeps Workspace Trust on (the harness's untrusted pass, or by hand
// `KEEP_WORKSPACE_TRUST=1 MCP_HOST_TEST_GREP=Restricted npm run test:editor`); the trusted pass leaves it out.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpNode } from '../../src/views/nodes';
import { activateHost, testSupport } from './helpers';

describe('Restricted Mode (untrusted workspace)', function () {
  this.timeout(30000);

  before(function () {
    // The untrusted pass of the harness runs this (KEEP_WORKSPACE_TRUST=1); the trusted pass leaves it out by grep.
    assert.strictEqual(vscode.workspace.isTrusted, false, 'Restricted Mode tests ran in a trusted window: run them in the untrusted pass');
  });

  it('never spawns a server defined in workspace settings, and the Servers view says why', async () => {
    const api = await activateHost();
    const asked: string[] = [];
    testSupport(api).setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'untrusted-')), 'spawned');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000);`;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { sneaky: { command: process.execPath, args: ['-e', script] } }, vscode.ConfigurationTarget.Workspace);
    await api.sync();
    assert.strictEqual(api.host.get('sneaky'), undefined, 'an untrusted workspace server reached the host');
    const row = (api.views.servers.getChildren() as McpNode[]).find(n => n.kind === 'message' && n.text === 'sneaky');
    assert.ok(row, 'the held-back server has its own row');
    // An explicit start is refused too.
    await vscode.commands.executeCommand('mcpHost.startServer', 'sneaky');
    await api.sync();
    assert.strictEqual(api.host.get('sneaky'), undefined);
    assert.deepStrictEqual(asked, [], 'consent must not even be asked in Restricted Mode');
    assert.ok(!fs.existsSync(marker), 'the server process was spawned');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('H137: MCP Host: Reset MCP App Permissions… runs in Restricted Mode (it only takes away): confirmed, it says how many grants it forgot', async () => {
    const api = await activateHost();
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as { contributes: { commands: { command: string; title: string; category: string }[] } };
    const c = pkg.contributes.commands.find(x => x.command === 'mcpHost.resetAppPermissions');
    assert.deepStrictEqual(c && { title: c.title, category: c.category }, { title: 'Reset MCP App Permissions…', category: 'MCP Host' });
    assert.ok((await vscode.commands.getCommands(true)).includes('mcpHost.resetAppPermissions'));
    const shown: string[] = [];
    testSupport(api).setDialogAnswerer(async d => { shown.push(d.message); return 'Reset'; });
    try {
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.resetAppPermissions', { all: true }), 0);
      assert.deepStrictEqual(shown, ['Reset the permissions granted to the App views of every MCP server?']);
    } finally {
      testSupport(api).setDialogAnswerer(undefined);
    }
  });

  it('H432: Call Tool…, Run Prompt…, Browse Resources and Read Resource… with only a held-back workspace server say the workspace is not trusted and offer Manage Workspace Trust, not "No running MCP server offers …"', async () => {
    const api = await activateHost();
    const cfg = vscode.workspace.getConfiguration('mcpHost');
    await cfg.update('servers', { held38: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } }, vscode.ConfigurationTarget.Workspace);
    try {
      await api.sync();
      const commands = ['mcpHost.callTool', 'mcpHost.callToolAsTask', 'mcpHost.runPrompt', 'mcpHost.browseResources', 'mcpHost.readResource', 'mcpHost.readResourceTemplate'];
      for (const arg of [undefined, 'held38']) {
        for (const command of commands) {
          const before = api.trustOffers.length;
          const result = await vscode.commands.executeCommand(command, arg);
          assert.ok(result === undefined || (Array.isArray(result) && result.length === 0), `${command}: ${JSON.stringify(result)}`);
          const offers = api.trustOffers.slice(before);
          assert.deepStrictEqual(offers, [{
            text: 'This workspace is not trusted (Restricted Mode): "held38" is defined in workspace settings and cannot start until you trust it.',
            actions: ['Manage Workspace Trust'],
          }], `${command} (${arg ?? 'no argument'})`);
        }
      }
      assert.strictEqual(api.host.get('held38'), undefined, 'nothing started');
    } finally {
      await cfg.update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  for (const mode of ['eager', 'lazy'] as const) {
    it(`H82 (${mode}): Start Server and Start All Servers say the workspace is not trusted and offer Manage Workspace Trust; the row says it whole and opens it (a click, its inline shield action)`, async () => {
      const api = await activateHost();
      const cfg = vscode.workspace.getConfiguration('mcpHost');
      await cfg.update('startup', mode === 'lazy' ? 'lazy' : undefined, vscode.ConfigurationTarget.Workspace);
      await cfg.update('servers', { held: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } }, vscode.ConfigurationTarget.Workspace);
      try {
        await api.sync();
        const row = (api.views.servers.getChildren() as McpNode[]).find(n => n.kind === 'message' && n.text === 'held');
        assert.ok(row, 'a row for the held-back server');
        const item = api.views.servers.getTreeItem(row);
        assert.strictEqual(item.label, 'held', 'the label is the name alone, short enough to read whole');
        // "not trusted" alone: a longer description was cut off in a narrow side bar (the H106 UI scenario)
        assert.strictEqual(item.description, 'not trusted');
        assert.strictEqual(item.contextValue, 'restricted', 'the row carries the inline Manage Workspace Trust action');
        assert.ok((await vscode.commands.getCommands(true)).includes('mcpHost.manageWorkspaceTrust'));
        assert.match(String(item.tooltip), /^held is defined in this workspace's settings\. The workspace is not trusted \(Restricted Mode\), so it does not start\. Click to manage Workspace Trust/);
        assert.strictEqual(item.command?.command, 'workbench.trust.manage');
        const before = api.trustOffers.length;
        assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer'), false);
        await vscode.commands.executeCommand('mcpHost.startAll');
        await vscode.commands.executeCommand('mcpHost.startServer', 'held');
        const offers = api.trustOffers.slice(before);
        assert.strictEqual(offers.length, 3, JSON.stringify(offers));
        for (const o of offers) {
          assert.match(o.text, /^This workspace is not trusted \(Restricted Mode\): "held" is defined in workspace settings and cannot start until you trust it\.$/);
          assert.deepStrictEqual(o.actions, ['Manage Workspace Trust']);
        }
        assert.ok(!offers.some(o => /already running/.test(o.text)));
        assert.strictEqual(api.host.get('held'), undefined, 'nothing started');
      } finally {
        await cfg.update('servers', undefined, vscode.ConfigurationTarget.Workspace);
        await cfg.update('startup', undefined, vscode.ConfigurationTarget.Workspace);
      }
    });
  }
});
