// Start-up in the real editor: the last known lists of a server show while it is not running (marked "cached lists"),
// and `mcpHost.startup: lazy` leaves servers stopped until their first use (expanding one in the Servers view, an
// @mcp request), which starts them.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import { EVERYTHING, until, activateAllowing } from './helpers';

describe('Start-up: cached lists and lazy start', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const serverItem = (name: string) => {
    const tree = api.views.servers;
    const node = (tree.getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === name);
    return node && { node, item: tree.getTreeItem(node) };
  };

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
  });
  after(async () => {
    await cfg().update('startup', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('a stopped server keeps showing its last known lists, marked cached', async () => {
    await cfg().update('servers', { cached: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('cached')?.state.kind === 'running') && api.host.get('cached')!.catalogue.tools.length > 0, 'cached running with its tools');
    const tools = api.host.get('cached')!.catalogue.tools.length;
    await vscode.commands.executeCommand('mcpHost.stopServer', 'cached');
    await until(() => api.host.get('cached')?.state.kind === 'stopped' && api.host.get('cached')!.catalogueStale, 'stopped with its lists cached');
    assert.strictEqual(api.host.get('cached')!.catalogue.tools.length, tools);
    const s = serverItem('cached')!;
    assert.match(String(s.item.description), /^stopped.* · cached lists/);
    const groups = api.views.servers.getChildren(s.node) as McpNode[];
    assert.ok(groups.some(g => g.kind === 'group' && g.group === 'tools'), 'the cached tools are listed');
  });

  it('startup "lazy": servers wait stopped until first use; expanding one starts it, so does a command on it, and an @mcp request starts the rest', async () => {
    await cfg().update('startup', 'lazy', vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', {
      lazyA: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      lazyB: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      lazyC: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => ['lazyA', 'lazyB', 'lazyC'].every(n => !!api.host.get(n)), 'all configured');
    await new Promise(r => setTimeout(r, 1000));
    for (const n of ['lazyA', 'lazyB', 'lazyC']) assert.strictEqual(api.host.get(n)!.state.kind, 'stopped', n);
    const a = serverItem('lazyA')!;
    assert.strictEqual(a.item.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed, 'expandable, to start it');
    api.views.servers.getChildren(a.node);
    await until(() => api.host.get('lazyA')?.state.kind === 'running', 'lazyA started by expanding it');
    assert.strictEqual(api.host.get('lazyB')!.state.kind, 'stopped');
    // A palette command on a waiting server is a use: it starts the server, then runs.
    const r = await vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'lazyB', 'echo', { message: 'first use' });
    assert.strictEqual(r?.content[0]?.text, 'Echo: first use');
    assert.strictEqual(api.host.get('lazyC')!.state.kind, 'stopped');
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    await api.chat.run('/tools', { model: fake, command: 'tools' });
    assert.strictEqual(api.host.get('lazyC')!.state.kind, 'running', 'the @mcp request started the waiting server');
  });
});
