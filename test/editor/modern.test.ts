// A 2026-07-28 server in the editor (test/fixtures/servers/modern.mjs, on the SDK v2 server package), over stdio and
// Streamable HTTP: the Servers view names its era and protocol version, and the Servers and Resources views refresh
// when the server announces a change on its subscriptions/listen stream.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import { ROOT, until, activateAllowing } from './helpers';
import { startListening, type ListeningFixture } from '../support/listening';

const MODERN = path.join(ROOT, 'test/fixtures/servers/modern.mjs');

describe('A 2026-07-28 server in the editor (modern.mjs)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  let httpServer: ListeningFixture | undefined;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const names = ['modern', 'modern-http'];

  before(async () => {
    api = await activateAllowing();
    httpServer = await startListening(MODERN, ['--http'], { cwd: ROOT });
    await cfg().update('servers', {
      modern: { command: process.execPath, args: [MODERN] },
      'modern-http': { type: 'http', url: httpServer.url },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() =>
      names.every(n => api.host.get(n)?.state.kind === 'running' && api.host.get(n)!.catalogue.tools.length >= 19), 'both modern servers running with their catalogues');
  });

  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
    if (httpServer && httpServer.child.exitCode === null) {
      const exited = new Promise(r => httpServer!.child.once('exit', r));
      httpServer.child.kill('SIGTERM');
      await exited;
    }
  });

  const serverNode = (name: string) => (api.views.servers.getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === name);
  const group = (name: string, g: string) => (api.views.servers.getChildren(serverNode(name)!) as McpNode[]).find(n => n.kind === 'group' && n.group === g);

  for (const name of names) {
    it(`H38/H42/H83: the Servers view shows ${name}'s protocol revision 2026-07-28, its stateless handshake only in the tooltip`, () => {
      const node = serverNode(name);
      assert.ok(node, `${name} is not in the Servers view`);
      const item = api.views.servers.getTreeItem(node);
      assert.strictEqual(item.description, 'running · MCP 2026-07-28');
      const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
      assert.match(tooltip, /MCP 2026-07-28 \(stateless protocol/);
      assert.doesNotMatch(tooltip, /\b(legacy|modern) era\b|\((legacy|modern)\)/i, 'era names are the SDK\'s words, not the user\'s');
    });

    it(`H21/H40: ${name}: the Servers and Resources views refresh after a change announced on subscriptions/listen`, async () => {
      const server = api.host.get(name)!;
      const tools = server.catalogue.tools.length;
      // The count, then what the offered tool definitions cost a model (the tool budget's estimate).
      assert.match(String(api.views.servers.getTreeItem(group(name, 'tools')!).description), new RegExp(`^${tools} · about \\d+ tokens to models$`));
      await server.callTool('add_tool', { name: 'from_editor' });
      await until(() =>
        String(api.views.servers.getTreeItem(group(name, 'tools')!).description).startsWith(`${tools + 1} · `), 'the tools group to count the new tool');
      const toolNames = (api.views.servers.getChildren(group(name, 'tools')!) as McpNode[])
        .map(n => (n.kind === 'tool' ? n.tool.name : '')).filter(Boolean);
      assert.ok(toolNames.includes('extra_from_editor'), toolNames.join(', '));

      await server.callTool('add_resource', { name: 'from_editor' });
      await until(() => server.catalogue.resources.some(r => r.uri === 'modern://extra/from_editor'), 'the new resource in the catalogue');
      const root = (await api.views.resources.getChildren()).find(n => n.server === name);
      assert.ok(root, `${name} is not in the Resources view`);
      const resources = await api.views.resources.getChildren(root);
      assert.ok(resources.some(n => n.kind === 'resource' && n.resource.uri === 'modern://extra/from_editor'),
        'the Resources view lists the new resource');
    });
  }
});
