// Every config source another MCP client starts servers from: a server in mcpHost.servers that a folder's .mcp.json
// (Claude Code) also configures is flagged in the Servers view, like one in .vscode/mcp.json; removing it there
// clears the flag. (The Copilot CLI's ~/.copilot/mcp-config.json is read the same way; its format is unit-tested.)
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
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

describe('Config sources: the MCP Registry', function () {
  this.timeout(60000);
  it('Browse MCP Servers… installs a server.json from a local registry into settings, its required env as ${input:} prompts', async () => {
    const body = fs.readFileSync(path.join(ROOT, 'test/fixtures/registry/servers.json'));
    const server = http.createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(body); });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    const cfg = () => vscode.workspace.getConfiguration('mcpHost');
    const api = await activateHost();
    // The installed server asks for its token: answer nothing (no input box in a headless window), and deny its start.
    api.setInputPrompt(async () => undefined);
    api.setConsentPrompt(async () => 'deny');
    // The install dialog (issue 34): install where a folder's servers go.
    api.setDialogAnswerer(async d => d.buttons.some(b => b.title === 'Install in Workspace Settings') ? 'Install in Workspace Settings' : undefined);
    try {
      await vscode.workspace.getConfiguration('mcpHost.registry').update('url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, vscode.ConfigurationTarget.Global);
      const name = await vscode.commands.executeCommand<string>('mcpHost.browseRegistry', 'github', 'io.github.github/github-mcp-server', 0);
      assert.strictEqual(name, 'github-mcp-server');
      const servers = cfg().inspect<Record<string, { command?: string; args?: string[]; env?: Record<string, string> }>>('servers')?.workspaceValue ?? {};
      assert.strictEqual(servers[name]?.command, 'docker');
      assert.deepStrictEqual(servers[name]?.env, { GITHUB_PERSONAL_ACCESS_TOKEN: '${input:github-mcp-server-GITHUB_PERSONAL_ACCESS_TOKEN}' });
      const inputs = cfg().inspect<{ id: string; password?: boolean }[]>('inputs')?.workspaceValue ?? [];
      assert.ok(inputs.some(i => i.id === 'github-mcp-server-GITHUB_PERSONAL_ACCESS_TOKEN' && i.password === true), JSON.stringify(inputs));
      assert.strictEqual(await vscode.commands.executeCommand<string | undefined>('mcpHost.browseRegistry', 'x', 'example.evil/sneaky', 0), undefined, 'a refused document installs nothing');
    } finally {
      server.close();
      api.setDialogAnswerer(undefined);
      await vscode.workspace.getConfiguration('mcpHost.registry').update('url', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg().update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
      await until(api, 'the installed server removed', () => !api.host.get('github-mcp-server'));
      api.setConsentPrompt(async () => 'allow');
    }
  });
});
