// The Resources view against a server with many pages (test/fixtures/servers/paged.mjs): loaded one page
// at a time with a "Load more…" item, never all at once; a list_changed starts again from the first page.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import { ROOT, until, activateAllowing } from './helpers';

const PAGED = path.join(ROOT, 'test/fixtures/servers/paged.mjs');

describe('Resources view paging (fixture server with 600 resources in pages of 100)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');

  before(async () => {
    api = await activateAllowing();
    await cfg().update('servers', { paged: { command: process.execPath, args: [PAGED, '--resources', '600', '--page', '100', '--tools', '5', '--prompts', '2', '--templates', '2'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('paged')?.catalogue.resources.length === 600, 'all 600 resources of paged', 30000);
    assert.strictEqual(api.host.get('paged')?.state.kind, 'running');
  });

  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  async function children(): Promise<McpNode[]> {
    const root = (await api.views.resources.getChildren()).find(n => n.server === 'paged');
    assert.ok(root, 'paged is not in the Resources view');
    return api.views.resources.getChildren(root);
  }

  it('H20: shows the first page with "Load more…", and each Load more adds one page until the last', async () => {
    let nodes = await children();
    assert.strictEqual(nodes.filter(n => n.kind === 'resource').length, 100);
    const more = nodes[nodes.length - 1];
    assert.strictEqual(more.kind, 'loadMore');
    const item = api.views.resources.getTreeItem(more);
    assert.strictEqual(item.command?.command, 'mcpHost.loadMoreResources');
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    nodes = await children();
    assert.strictEqual(nodes.filter(n => n.kind === 'resource').length, 200);
    for (let page = 3; page <= 6; page++) {
      await vscode.commands.executeCommand('mcpHost.loadMoreResources', 'paged');
      nodes = await children();
      assert.strictEqual(nodes.filter(n => n.kind === 'resource').length, page * 100);
    }
    assert.ok(!nodes.some(n => n.kind === 'loadMore'), 'Load more shown after the last page');
  });

  it('caps the Servers view\'s Resources group and points to the Resources view for the rest', async () => {
    const tree = api.views.servers;
    const server = (tree.getChildren() as McpNode[]).find(n => n.server === 'paged')!;
    const group = (tree.getChildren(server) as McpNode[]).find(n => n.kind === 'group' && n.group === 'resources')!;
    assert.strictEqual(tree.getTreeItem(group).description, '600');
    const items = tree.getChildren(group) as McpNode[];
    assert.strictEqual(items.filter(n => n.kind === 'resource').length, 500);
    const last = items[items.length - 1];
    assert.ok(last.kind === 'message' && /100 more/.test(last.text), JSON.stringify(last));
  });

  it('H21: starts again from the first page when the server says its resource list changed', async () => {
    const changed = new Promise<void>(resolve => {
      const d = api.host.onDidChangeCatalogue(e => { if (e.server === 'paged' && e.catalogue.resources.length === 601) { d.dispose(); resolve(); } });
    });
    await api.host.get('paged')!.callTool('add_resource', { name: 'fresh' });
    await changed;
    const nodes = await children();
    assert.strictEqual(nodes.filter(n => n.kind === 'resource').length, 100);
    assert.ok(nodes.some(n => n.kind === 'loadMore'));
  });

  it('H22: a subscribed resource open as a document gets its resources/updated (the document provider is told to re-read)', async () => {
    const uri = 'paged://resource/1';
    const [docUri] = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.openResource', 'paged', uri);
    await vscode.commands.executeCommand('mcpHost.subscribeResource', 'paged', uri);
    assert.ok(vscode.workspace.textDocuments.some(d => d.uri.toString() === docUri.toString()), 'the resource is not open');
    const reread = new Promise<void>(resolve => {
      const d = api.host.onDidUpdateResource(e => { if (e.server === 'paged' && e.uri === uri) { d.dispose(); resolve(); } });
    });
    await api.host.get('paged')!.callTool('touch_resource', { uri });
    await reread;
    await vscode.commands.executeCommand('mcpHost.unsubscribeResource', 'paged', uri);
  });
});
