// The 2025-11-25 client features in the real extension host, driven from the server side by
// test/fixtures/servers/client-features.mjs: elicitation defaults preselected in the real quick inputs (SEP-1034),
// server and tool icons in the Servers view.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { SamplingFeatures } from '../../src/extension/sampling';
import type { McpNode } from '../../src/views/nodes';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, until } from './helpers';

type Api = McpHostExtensionApi & { sampling: SamplingFeatures };
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/client-features.mjs');

function json(result: CallToolResult | undefined): Record<string, unknown> {
  const t = (result?.content ?? []).find(c => c.type === 'text') as { text: string } | undefined;
  return JSON.parse(t?.text ?? 'null') as Record<string, unknown>;
}

/** Presses Enter in whatever quick input is open until `work` settles (the user accepting every field as shown). */
async function acceptEachInput<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const settled = work.finally(() => { done = true; });
  for (let i = 0; i < 100 && !done; i++) {
    await new Promise(r => setTimeout(r, 200));
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return settled;
}

describe('Client features of 2025-11-25 (client-features fixture)', function () {
  this.timeout(60000);
  let api: Api;

  before(async function () {
    api = await vscode.extensions.getExtension<Api>('mcp-host.mcp-host')!.activate();
    api.setConsentPrompt(async () => 'allow');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      features: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(api, 'the client-features fixture running', () => api.host.get('features')?.state.kind === 'running'
      && (api.host.get('features')?.catalogue.tools.length ?? 0) > 0);
  });

  afterEach(() => {
    api?.sampling.setElicitUi(undefined);
  });

  after(async () => {
    if (!api) return;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(api, 'no servers left', () => api.host.servers.length === 0);
  });

  it('SEP-1034: the real quick inputs preselect every default; Enter on each field returns the defaults', async () => {
    // Only the "Respond / Decline" modal is answered by the test; every field is the real quick input, accepted as shown.
    api.sampling.setElicitUi({ start: async () => 'respond' });
    const out = json(await acceptEachInput(api.host.get('features')!.callTool('elicit_defaults', {})));
    assert.deepStrictEqual(out, {
      action: 'accept',
      content: {
        subscribe: false, friend: 'Joey', hero: 'hero-3', pet: 'pet-2', instruments: ['Piano', 'Drums'], fish: ['fish-3'],
        line: 'It was a dark and stormy night.', ratio: 2.5, count: 7,
      },
    });
  });

  it('icons: the server\'s and a tool\'s data: icons show from the cache (light and dark); a stdio server\'s https icon is never fetched', async () => {
    const tree = api.views.servers;
    const serverNode = (tree.getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === 'features')!;
    const toolsGroup = (tree.getChildren(serverNode) as McpNode[]).find(g => g.kind === 'group' && g.group === 'tools')!;
    const toolNode = (name: string) => (tree.getChildren(toolsGroup) as McpNode[]).find(t => t.kind === 'tool' && t.tool.name === name)!;
    tree.getTreeItem(serverNode);
    tree.getTreeItem(toolNode('elicit_defaults'));
    await until(api, 'the icons cached', () => tree.getTreeItem(serverNode).iconPath instanceof vscode.Uri
      && !(tree.getTreeItem(toolNode('elicit_defaults')).iconPath instanceof vscode.ThemeIcon));
    const serverIcon = tree.getTreeItem(serverNode).iconPath as vscode.Uri;
    assert.deepStrictEqual(fs.readFileSync(serverIcon.fsPath), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
    assert.match(String(tree.getTreeItem(serverNode).description), /^running · /, 'the state is still shown');
    const toolIcon = tree.getTreeItem(toolNode('elicit_defaults')).iconPath as { light: vscode.Uri; dark: vscode.Uri };
    assert.match(fs.readFileSync(toolIcon.light.fsPath, 'utf8'), /fill="black"/);
    assert.match(fs.readFileSync(toolIcon.dark.fsPath, 'utf8'), /fill="white"/);
    for (const f of [serverIcon, toolIcon.light, toolIcon.dark]) assert.ok(f.fsPath.includes('mcp-host.mcp-host'), `${f.fsPath} is under the extension's globalStorage`);
    const remote = tree.getTreeItem(toolNode('elicit_url')).iconPath;
    assert.ok(remote instanceof vscode.ThemeIcon && remote.id === 'tools', 'the codicon stays');
  });
});
