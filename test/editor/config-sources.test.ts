// Every config source another MCP client starts servers from: a server in mcpHost.servers that a folder's .mcp.json
// (Claude Code) also configures is flagged in the Servers view, like one in .vscode/mcp.json; removing it there
// clears the flag. (The Copilot CLI's ~/.copilot/mcp-config.json is read the same way; its format is unit-tested.)
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import * as path from 'path';
import { activateHost, ROOT, until } from './helpers';

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');

describe('Config sources: also configured elsewhere', function () {
  this.timeout(180000);
  let api: McpHostExtensionApi;
  before(async () => {
    api = await activateHost();
    api.setConsentPrompt(async () => 'allow');
  });

  it('H105: a server also in the folder\'s .mcp.json is flagged in the Servers view, and the flag goes when it is removed there', async () => {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.mcp.json');
    const item = () => {
      const tree = api.views.servers;
      const node = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.kind === 'server' && n.server === 'claudetwin');
      return node && tree.getTreeItem(node as never);
    };
    const waitFor = async (re: RegExp, yes: boolean) => {
      for (let i = 0; i < 300 && re.test(String(item()?.description)) !== yes; i++) await new Promise(r => setTimeout(r, 200));
    };
    try {
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { claudetwin: { type: 'stdio', command: 'npx', args: ['-y', 'x'] }, other: { url: 'https://example.com/mcp' } } }));
      await vscode.workspace.getConfiguration('mcpHost').update('servers', { claudetwin: { type: 'stdio', command: process.execPath, args: [ECHO] } }, vscode.ConfigurationTarget.Workspace);
      await until(api, 'claudetwin running', () => api.host.get('claudetwin')?.state.kind === 'running', 90000);
      await waitFor(/also in \.mcp\.json/, true);
      assert.match(String(item()?.description), /^running · .* · also in \.mcp\.json$/);
      assert.match((item()?.tooltip as vscode.MarkdownString).value, /another MCP client/);
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { other: { url: 'https://example.com/mcp' } } }));
      await waitFor(/also in/, false);
      assert.doesNotMatch(String(item()?.description), /also in/);
    } finally {
      await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(file, { force: true });
    }
  });
});
