// The History view in the real editor: every tool call, prompt and resource read (by the user, a model, an app view)
// is listed per server, newest first, with when, who, how long, how large and how it ended; an entry opens its request
// and result; Re-run… runs it again with edited arguments.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { HistoryNode } from '../../src/views/historyTree';
import { EVERYTHING, until, testSupport, activateAllowing } from './helpers';

describe('History view (the protocol timeline)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { hist: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('hist')?.catalogue.tools.length ?? 0) > 0, 'hist running');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  const entries = (): HistoryNode[] => {
    const tree = api.views.history;
    const server = tree.getChildren().find(n => n.server === 'hist');
    return server ? tree.getChildren(server) : [];
  };

  it('lists each request newest first with method, target, who, time, size and status; opens one; re-runs it with edited arguments', async () => {
    await vscode.commands.executeCommand('mcpHost.callTool', 'hist', 'echo', { message: 'first' });
    const res = api.host.get('hist')!.catalogue.resources[0];
    await vscode.commands.executeCommand('mcpHost.openResource', 'hist', res.uri);
    await until(() => entries().length >= 2, 'two entries');
    const [newest, older] = entries();
    const tree = api.views.history;
    assert.strictEqual(tree.getTreeItem(newest).label, `resources/read ${res.uri}`);
    const item = tree.getTreeItem(older);
    assert.strictEqual(item.label, 'tools/call echo');
    assert.match(String(item.description), /^\S.* · user · \d+ ms · \d+(\.\d)? (B|KiB) · ok$/);
    assert.strictEqual(item.contextValue, 'history.rerunnable');
    const doc = await vscode.commands.executeCommand<vscode.TextDocument>('mcpHost.openHistoryEntry', older);
    assert.strictEqual(doc?.uri.scheme, 'mcp-host-result');
    assert.match(doc?.getText() ?? '', /# tools\/call echo — hist[\s\S]*"message": "first"[\s\S]*Echo: first/);
    const again = await vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.rerunHistoryEntry', older, { message: 'edited' });
    assert.strictEqual(again?.content[0]?.text, 'Echo: edited');
    await until(() => tree.getTreeItem(entries()[0]).label === 'tools/call echo', 'the re-run listed first');
    assert.deepStrictEqual(api.host.get('hist')!.history.at(-1)?.args, { message: 'edited' });
  });

  it('a model\'s call is marked as the model\'s, and a failing call shows its error', async () => {
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    try {
      await api.chat.run('CALL_TOOL:hist_echo {"message":"by the model"}', { model: fake });
    } finally {
      testSupport(api).setChatUi(undefined);
    }
    const last = api.host.get('hist')!.history.at(-1)!;
    assert.strictEqual(last.by, 'model');
    assert.deepStrictEqual(last.args, { message: 'by the model' });
    await vscode.commands.executeCommand('mcpHost.callTool', 'hist', 'echo', {}).then(undefined, () => undefined);
    const failed = api.host.get('hist')!.history.at(-1)!;
    assert.strictEqual(failed.status, 'error');
    assert.ok(failed.error, JSON.stringify(failed));
  });
});
