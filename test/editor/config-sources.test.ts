// Every config source another MCP client starts servers from: a server in mcpHost.servers that a folder's .mcp.json
// (Claude Code) also configures is flagged in the Servers view, like one in .vscode/mcp.json; removing it there
// clears the flag. (The Copilot CLI's ~/.copilot/mcp-config.json is read the same way; its format is unit-tested.)
// mcpHost.configSources (issue 40): .mcp.json servers read live, de-duplicated, asked about, each next to a bystander.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import type { AddressInfo } from 'net';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import * as path from 'path';
import { activateHost, ROOT, until, testSupport, activateAllowing } from './helpers';

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');

describe('Config sources: also configured elsewhere', function () {
  this.timeout(180000);
  let api: McpHostExtensionApi;
  before(async () => {
    api = await activateAllowing();
    // This test is about the flag, not about reading .mcp.json (its "other" server must not be started from it).
    await vscode.workspace.getConfiguration('mcpHost').update('configSources', { mcpJson: false }, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('configSources', undefined, vscode.ConfigurationTarget.Global);
  });

  it('H105: a server also in the folder\'s .mcp.json is flagged in the Servers view, and the flag goes when it is removed there', async () => {
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.mcp.json');
    const item = () => {
      const tree = api.views.servers;
      const node = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.kind === 'server' && n.server === 'claudetwin');
      return node && tree.getTreeItem(node as never);
    };
    const waitFor = async (re: RegExp, yes: boolean) => {
      await until(() => re.test(String(item()?.description)) === yes, `the row's description ${yes ? 'matching' : 'not matching'} ${re}`, 60000);
    };
    try {
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { claudetwin: { type: 'stdio', command: 'npx', args: ['-y', 'x'] }, other: { url: 'https://example.com/mcp' } } }));
      await vscode.workspace.getConfiguration('mcpHost').update('servers', { claudetwin: { type: 'stdio', command: process.execPath, args: [ECHO] } }, vscode.ConfigurationTarget.Workspace);
      await until(() => api.host.get('claudetwin')?.state.kind === 'running', 'claudetwin running', 90000);
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
    testSupport(api).setInputPrompt(async () => undefined);
    testSupport(api).setConsentPrompt(async () => 'deny');
    // The install dialog (issue 34): install where a folder's servers go.
    testSupport(api).setDialogAnswerer(async d => d.buttons.some(b => b.title === 'Install in Workspace Settings') ? 'Install in Workspace Settings' : undefined);
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
      testSupport(api).setDialogAnswerer(undefined);
      await vscode.workspace.getConfiguration('mcpHost.registry').update('url', undefined, vscode.ConfigurationTarget.Global);
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg().update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
      await until(() => !api.host.get('github-mcp-server'), 'the installed server removed');
      testSupport(api).setConsentPrompt(async () => 'allow');
    }
  });
});

describe('Config sources: live .mcp.json', function () {
  this.timeout(240000);
  let api: McpHostExtensionApi;
  const questions: string[] = [];
  const file = () => path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.mcp.json');
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const write = (servers: Record<string, unknown>) => fs.writeFileSync(file(), JSON.stringify({ mcpServers: servers }));
  const row = (name: string) => {
    const tree = api.views.servers;
    const node = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.kind === 'server' && n.server === name);
    return node && tree.getTreeItem(node as never);
  };
  const problems = () => (api.views.servers.getChildren() as { kind: string; text?: string }[]).filter(n => n.kind === 'message').map(n => n.text ?? '');
  const bystander = { type: 'stdio', command: process.execPath, args: [ECHO, 'bystander'] };

  before(async () => {
    api = await activateHost();
    testSupport(api).setConsentPrompt(async (def, _detail, question) => { questions.push(`${def.name}: ${question}`); return 'allow'; });
    await cfg().update('servers', { bystander }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('bystander')?.state.kind === 'running', 'bystander running', 90000);
  });
  afterEach(async () => {
    fs.rmSync(file(), { force: true });
    await cfg().update('configSources', undefined, vscode.ConfigurationTarget.Global);
    await cfg().update('servers', { bystander }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.every(h => h.name === 'bystander'), 'only the bystander left', 60000);
  });
  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await until(() => !api.host.get('bystander'), 'the bystander removed');
    testSupport(api).setConsentPrompt(async () => 'allow');
  });

  it('H465: a .mcp.json written while the editor runs: the server appears "from .mcp.json", asks consent as a workspace server, runs; a real change restarts it; removal makes it disappear', async () => {
    questions.length = 0;
    write({ portable: { command: process.execPath, args: [ECHO, 'one'] } });
    await until(() => api.host.get('portable')?.state.kind === 'running', 'portable running', 90000);
    assert.ok(questions.some(q => /^portable: The workspace's \.mcp\.json wants to launch/.test(q)), questions.join('\n'));
    assert.match(String(row('portable')?.description), /^running · .* · from \.mcp\.json$/);
    const states: string[] = [];
    const sub = api.host.onDidChangeState(({ server, state }) => { if (server === 'portable') states.push(state.kind); });
    try {
      write({ portable: { command: process.execPath, args: [ECHO, 'two'] } });
      await until(() => {
        const h = api.host.get('portable');
        return h?.state.kind === 'running' && h.definition.type === 'stdio' && h.definition.args?.includes('two') === true;
      }, 'portable restarted with the new args', 90000);
      assert.ok(states.some(s => s !== 'running'), `it went through a restart: ${states.join(', ')}`);
      assert.ok(questions.filter(q => q.startsWith('portable:')).length >= 2, `the changed definition was asked about again: ${questions.join('\n')}`);
    } finally {
      sub.dispose();
    }
    fs.rmSync(file());
    await until(() => !api.host.get('portable'), 'portable gone', 60000);
    assert.equal(api.host.get('bystander')?.state.kind, 'running');
  });

  it('H466: a name in mcpHost.servers and .mcp.json with the same definition runs once, from the settings', async () => {
    const twin = { type: 'stdio', command: process.execPath, args: [ECHO, 'twin'] };
    await cfg().update('servers', { bystander, twin }, vscode.ConfigurationTarget.Workspace);
    write({ twin, onlyfile: { command: process.execPath, args: [ECHO, 'only'] } });
    await until(() => api.host.get('twin')?.state.kind === 'running' && api.host.get('onlyfile')?.state.kind === 'running', 'twin and onlyfile running', 90000);
    assert.equal(api.host.servers.filter(h => h.name === 'twin').length, 1);
    assert.doesNotMatch(String(row('twin')?.description), /from \.mcp\.json/, 'the settings entry is the one that runs');
    assert.match(String(row('onlyfile')?.description), /from \.mcp\.json/);
  });

  it('H467: with mcpHost.configSources { "mcpJson": false } nothing of .mcp.json is read; turning it on again reads it', async () => {
    await cfg().update('configSources', { mcpJson: false }, vscode.ConfigurationTarget.Global);
    write({ ignored: { command: process.execPath, args: [ECHO, 'ignored'] } });
    // The bystander is started again by a settings write: once that sync has run, the file has been seen (or not).
    await cfg().update('servers', { bystander: { ...bystander, args: [ECHO, 'bystander', 'again'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => { const h = api.host.get('bystander'); return h?.state.kind === 'running' && h.definition.type === 'stdio' && h.definition.args?.includes('again') === true; }, 'bystander restarted', 90000);
    assert.equal(api.host.get('ignored'), undefined);
    await cfg().update('configSources', undefined, vscode.ConfigurationTarget.Global);
    await until(() => api.host.get('ignored')?.state.kind === 'running', 'ignored read once the setting is on', 90000);
  });

  it('H468: a malformed .mcp.json is one problem naming the file and the fix; the bystander keeps running', async () => {
    fs.writeFileSync(file(), '{ "mcpServers": { "broken": { "command": "node", } ');
    await until(() => problems().some(p => p.includes('.mcp.json')), 'the problem shown', 60000);
    const shown = problems().filter(p => p.includes('.mcp.json'));
    assert.equal(shown.length, 1, shown.join('\n'));
    assert.match(shown[0], /^\.mcp\.json:\d+:\d+: JSON syntax error .*fix the text there .*mcpHost\.configSources/);
    assert.equal(api.host.get('broken'), undefined);
    assert.equal(api.host.get('bystander')?.state.kind, 'running');
    fs.rmSync(file());
    await until(() => !problems().some(p => p.includes('.mcp.json')), 'the problem gone', 60000);
  });
});

describe('Config sources: .mcp.json in Restricted Mode', function () {
  this.timeout(120000);
  before(function () {
    assert.strictEqual(vscode.workspace.isTrusted, false, 'run in the untrusted pass (KEEP_WORKSPACE_TRUST=1)');
  });

  it('H469: a .mcp.json server in an untrusted workspace is held back by name (never resolved, asked about or spawned); a user-settings bystander runs', async () => {
    const api = await activateHost();
    const asked: string[] = [];
    testSupport(api).setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.mcp.json');
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcpjson-untrusted-')), 'spawned');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const cfg = vscode.workspace.getConfiguration('mcpHost');
    try {
      await cfg.update('servers', { userbystander: { type: 'stdio', command: process.execPath, args: [ECHO] } }, vscode.ConfigurationTarget.Global);
      fs.writeFileSync(file, JSON.stringify({ mcpServers: { heldfile: { command: process.execPath, args: ['-e', script] } } }));
      const held = () => (api.views.servers.getChildren() as { kind: string; text?: string }[]).find(n => n.kind === 'message' && n.text === 'heldfile');
      await until(() => !!held(), 'the held-back row of heldfile', 60000);
      await until(() => api.host.get('userbystander')?.state.kind === 'running', 'the user bystander running', 60000);
      assert.strictEqual(api.host.get('heldfile'), undefined, 'an untrusted .mcp.json server reached the host');
      await vscode.commands.executeCommand('mcpHost.startServer', 'heldfile');
      assert.strictEqual(api.host.get('heldfile'), undefined);
      assert.deepStrictEqual(asked, [], 'consent is not even asked in Restricted Mode');
      assert.ok(!fs.existsSync(marker), 'the server process was spawned');
    } finally {
      fs.rmSync(file, { force: true });
      await cfg.update('servers', undefined, vscode.ConfigurationTarget.Global);
      await until(() => !api.host.get('userbystander'), 'the user bystander removed');
    }
  });
});
