import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultImportLocations, detectKind, importConfig, loadConfigFile, parseInputs, parseServers } from '../../src/mcp/config';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/config');
const read = (f: string) => fs.readFileSync(path.join(FIXTURES, f), 'utf8');

/** Import then validate: every imported server must pass parseServers. */
function importAndValidate(text: string, kind?: Parameters<typeof importConfig>[1]) {
  const r = importConfig(text, kind);
  assert.deepEqual(r.errors, []);
  const parsed = parseServers(r.servers, { settingPrefix: 'servers' });
  assert.deepEqual(parsed.errors, []);
  return { ...r, parsed };
}

describe('config import', () => {
  it('VS Code .vscode/mcp.json with comments and trailing commas: servers and inputs', () => {
    const r = importAndValidate(read('ws/.vscode/mcp.json'));
    assert.equal(r.kind, 'vscode');
    assert.deepEqual(Object.keys(r.servers), ['everything', 'remote']);
    assert.deepEqual(r.parsed.servers.map(s => s.type), ['stdio', 'http']);
    assert.deepEqual(parseInputs(r.inputs).inputs, [{ id: 'token', type: 'promptString', description: 'API token', password: true }]);
    assert.deepEqual(r.warnings, []);
  });

  it('Claude Desktop: mcpServers without type become stdio; other top-level keys are ignored', () => {
    const r = importAndValidate(read('claude_desktop_config.json'));
    assert.equal(r.kind, 'claude');
    assert.deepEqual(r.parsed.servers.map(s => [s.name, s.type, s.command]), [['filesystem', 'stdio', 'npx'], ['github', 'stdio', 'docker']]);
    assert.deepEqual(r.parsed.servers[1].env, { GITHUB_PERSONAL_ACCESS_TOKEN: '<token>' });
    assert.deepEqual(r.inputs, []);
  });

  it('Cursor: url servers become http, command servers stdio, envFile kept', () => {
    const r = importAndValidate(read('ws/.cursor/mcp.json'));
    assert.equal(r.kind, 'cursor');
    const byName = Object.fromEntries(r.parsed.servers.map(s => [s.name, s]));
    assert.equal(byName.local.type, 'stdio');
    assert.equal(byName.local.envFile, '.env');
    assert.equal(byName.remote.type, 'http');
    assert.equal(byName.remote.url, 'https://cursor.example/mcp');
    assert.deepEqual(byName.remote.headers, { 'X-Key': '${env:KEY}' });
  });

  it('Windsurf: serverUrl becomes url; unsupported keys are dropped with a warning', () => {
    const r = importAndValidate(read('windsurf_mcp_config.json'));
    assert.equal(r.kind, 'windsurf');
    const byName = Object.fromEntries(r.parsed.servers.map(s => [s.name, s]));
    assert.equal(byName.remote.url, 'https://windsurf.example/sse');
    assert.equal(byName.remote.type, 'http');
    assert.equal(byName.local.disabled, false);
    assert.deepEqual(r.warnings, ['windsurf server "local": `disabledTools` is not used by MCP Host and was dropped.']);
  });

  it('Cline-style extras: transportType, timeout in seconds, alwaysAllow', () => {
    const r = importAndValidate(JSON.stringify({ mcpServers: { s: { transportType: 'sse', url: 'http://127.0.0.1:9/sse', timeout: 60, alwaysAllow: ['x'] } } }), 'claude');
    assert.deepEqual(r.servers.s, { type: 'sse', url: 'http://127.0.0.1:9/sse', timeout: { request: 60000 } });
    assert.equal(r.warnings.length, 2);
    const t = importAndValidate(JSON.stringify({ mcpServers: { s: { type: 'streamable-http', url: 'https://x' } } }));
    assert.equal((t.servers.s as { type: string }).type, 'http');
  });

  it('unknown properties are kept so that validation points at them', () => {
    const r = importConfig(JSON.stringify({ mcpServers: { s: { comand: 'x' } } }));
    const parsed = parseServers(r.servers, { settingPrefix: 'mcpServers' });
    assert.match(parsed.errors[0].message, /mcpServers\.s\.comand.*did you mean `command`/);
  });

  it('a JSONC syntax error names line:column and nothing is imported', () => {
    const r = importConfig(read('broken.json'), 'auto', 'broken.json');
    assert.deepEqual(r.servers, {});
    assert.equal(r.errors.length >= 1, true);
    assert.match(r.errors[0].message, /^broken\.json:4:5: JSON syntax error \(expected `,`\)/);
  });

  it('documents of an unknown shape are errors, an empty file is nothing', () => {
    assert.match(importConfig('{ "foo": 1 }').errors[0].message, /neither "servers" .* nor "mcpServers"/);
    assert.match(importConfig('[1]').errors[0].message, /holds an array/);
    assert.deepEqual(importConfig('  ').servers, {});
    assert.equal(detectKind({ servers: {} }), 'vscode');
    assert.equal(detectKind(null), undefined);
  });

  it('H105: Claude Code project .mcp.json: typed stdio and http servers', () => {
    const r = importAndValidate(read('ws/.mcp.json'));
    assert.equal(r.kind, 'cursor');
    assert.deepEqual(r.parsed.servers.map(s => [s.name, s.type]), [['memory', 'stdio'], ['docs', 'http']]);
    assert.deepEqual(r.warnings, []);
  });

  it('H105: GitHub Copilot CLI ~/.copilot/mcp-config.json: local becomes stdio; an allow-list of tools is dropped with a warning, "*" silently', () => {
    const r = importAndValidate(read('home/.copilot/mcp-config.json'));
    assert.equal(r.kind, 'copilot');
    const byName = Object.fromEntries(r.parsed.servers.map(s => [s.name, s]));
    assert.equal(byName.playwright.type, 'stdio');
    assert.equal(byName.playwright.command, 'npx');
    assert.equal(byName.github.type, 'http');
    assert.deepEqual(byName.github.headers, { Authorization: 'Bearer ${input:gh-token}' });
    assert.deepEqual(r.warnings, ['copilot server "github": `tools` (a list of allowed tools) is not used by MCP Host and was dropped; every tool of the server is offered.']);
    assert.equal(detectKind({ mcpServers: { a: { type: 'local', command: 'x' } } }), 'copilot');
  });

  it('defaultImportLocations lists the usual files per platform', () => {
    const mac = defaultImportLocations('darwin', '/Users/me', { workspaceFolder: '/w' });
    const paths = mac.map(l => l.path);
    assert.ok(paths.includes('/Users/me/Library/Application Support/Claude/claude_desktop_config.json'));
    assert.ok(paths.includes('/Users/me/.cursor/mcp.json'));
    assert.ok(paths.includes('/Users/me/.codeium/windsurf/mcp_config.json'));
    assert.ok(paths.includes('/w/.vscode/mcp.json'));
    assert.ok(paths.includes('/w/.cursor/mcp.json'));
    assert.ok(paths.includes('/w/.mcp.json'));
    assert.ok(mac.some(l => l.path === '/Users/me/.copilot/mcp-config.json' && l.kind === 'copilot'), 'H105: the Copilot CLI\'s file');
    const win = defaultImportLocations('win32', 'C:\\Users\\me', { appData: 'C:\\Users\\me\\AppData\\Roaming' });
    assert.ok(win.some(l => l.path === 'C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json' && l.kind === 'claude'));
    const linux = defaultImportLocations('linux', '/home/me');
    assert.ok(linux.some(l => l.path === '/home/me/.config/Claude/claude_desktop_config.json'));
    assert.ok(linux.every(l => l.scope === 'user'));
  });

  describe('loadConfigFile', () => {
    it('reads a workspace settings.json (mcpHost.servers) and knows its folder', async () => {
      const r = await loadConfigFile(path.join(FIXTURES, 'ws/.vscode/settings.json'));
      assert.deepEqual(r.errors, []);
      assert.equal(r.source, 'settings');
      assert.equal(r.serversPrefix, 'mcpHost.servers');
      assert.equal(r.inputsPrefix, 'mcpHost.inputs');
      assert.equal(r.folder, path.join(FIXTURES, 'ws'));
      assert.deepEqual(Object.keys(r.servers), ['memory']);
    });

    it('reads the mcp section of user settings', async () => {
      const r = await loadConfigFile(path.join(FIXTURES, 'user-settings.json'));
      assert.equal(r.source, 'settings');
      assert.equal(r.serversPrefix, 'mcp.servers');
      assert.deepEqual(Object.keys(r.servers), ['fetch']);
      assert.equal(r.folder, undefined);
    });

    it('reads mcp.json, Claude and Cursor files with the right path prefix', async () => {
      const vs = await loadConfigFile(path.join(FIXTURES, 'ws/.vscode/mcp.json'));
      assert.equal(vs.source, 'vscode');
      assert.equal(vs.serversPrefix, 'servers');
      assert.equal(vs.inputs.length, 1);
      const claude = await loadConfigFile(path.join(FIXTURES, 'claude_desktop_config.json'));
      assert.equal(claude.source, 'claude');
      assert.equal(claude.serversPrefix, 'mcpServers');
      const cursor = await loadConfigFile(path.join(FIXTURES, 'ws/.cursor/mcp.json'));
      assert.equal(cursor.source, 'cursor');
      assert.equal(cursor.folder, path.join(FIXTURES, 'ws'));
    });

    it('a missing file or a syntax error is an error, not an exception', async () => {
      const missing = await loadConfigFile(path.join(FIXTURES, 'nope.json'));
      assert.match(missing.errors[0].message, /does not exist/);
      const broken = await loadConfigFile(path.join(FIXTURES, 'broken.json'));
      assert.match(broken.errors[0].message, /broken\.json:4:5: JSON syntax error/);
    });
  });
});
