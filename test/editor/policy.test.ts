// H453 (issue 40): the organisation's MCP policy in the real editor, on the production VSIX. The harness points the
// platform folder at a temporary one (MCP_HOST_POLICY_ROOT, set by scripts/editor/run-editor-tests.mjs, a variable
// only the tests use), starting empty: no policy. The test writes the managed-settings file while the editor runs
// (the rules: GitHub Copilot's managed settings, "If the server matches any entry in deniedMcpServers, it is
// blocked"; docs/POLICY.md), next to a bystander server the policy allows.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { ROOT, until, testSupport, activateAllowing } from './helpers';
import { startListening, type ListeningFixture } from '../support/listening';

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');
const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs');

describe('Organisation policy in the editor', function () {
  this.timeout(180000);
  let api: McpHostExtensionApi;
  const root = process.env.MCP_HOST_POLICY_ROOT;
  const file = root ? path.join(root, 'managed-settings.json') : '';
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const state = (n: string) => api.host.get(n)?.state;
  const message = (n: string) => { const s = state(n); return s?.kind === 'error' ? s.message : ''; };

  before(async function () {
    if (!root) this.skip(); // only under the editor harness, which sets the test-only policy folder
    api = await activateAllowing();
    await cfg().update('servers', {
      polbystander: { type: 'stdio', command: process.execPath, args: [ECHO] },
      polblocked: { type: 'stdio', command: process.execPath, args: [ECHO] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => state('polbystander')?.kind === 'running' && state('polblocked')?.kind === 'running', 'both policy servers running', 90000);
  });

  after(async () => {
    if (!root) return;
    fs.rmSync(file, { force: true });
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('H453: a deny entry written while the editor runs stops that server and keeps it from starting; a workspace cannot re-point the policy; a malformed file blocks all; removing it lets them run', async () => {
    fs.writeFileSync(file, JSON.stringify({ deniedMcpServers: [{ serverName: 'polblocked' }] }));
    await until(() => /blocked by your organisation's policy \(.*managed-settings\.json\): deniedMcpServers names it/.test(message('polblocked')), 'polblocked blocked by the policy', 60000);
    assert.strictEqual(state('polbystander')?.kind, 'running', 'the bystander the policy allows keeps running');
    const item = () => {
      const tree = api.views.servers;
      const node = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.kind === 'server' && n.server === 'polblocked');
      return node && tree.getTreeItem(node as never);
    };
    assert.match(String((item()?.tooltip as vscode.MarkdownString | undefined)?.value ?? item()?.tooltip ?? item()?.description), /organisation's policy/, 'polblocked blocked by the policy');

    // The user's own Start does not start it.
    await vscode.commands.executeCommand('mcpHost.startServer', 'polblocked');
    assert.notStrictEqual(state('polblocked')?.kind, 'running');
    assert.match(message('polblocked'), /organisation's policy/);

    // A workspace whose settings file points mcpHost.policy.file at an empty policy changes nothing (machine scope:
    // the editor refuses to write it there, so the hostile workspace file is written by hand); the next sync (a
    // server edit) still blocks it.
    const open = path.join(root!, 'open.json');
    fs.writeFileSync(open, '{}');
    const wsFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
    fs.writeFileSync(wsFile, fs.readFileSync(wsFile, 'utf8').replace('{', `{\n  "mcpHost.policy.file": ${JSON.stringify(open)},`));
    await cfg().update('servers', {
      polbystander: { type: 'stdio', command: process.execPath, args: [ECHO], env: { EDITED: '1' } },
      polblocked: { type: 'stdio', command: process.execPath, args: [ECHO] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => state('polbystander')?.kind === 'running' && api.host.get('polbystander')?.definition.type === 'stdio'
      && (api.host.get('polbystander')!.definition as { env?: Record<string, string> }).env?.EDITED === '1', 'the edited bystander running', 60000);
    assert.match(message('polblocked'), /organisation's policy/, 'still blocked after the workspace re-pointed the policy file');

    // A malformed policy file fails closed: every server is blocked, naming the file.
    fs.writeFileSync(file, '{ "deniedMcpServers": [ ');
    await until(() => /managed-settings\.json is not valid JSON/.test(message('polbystander')) && /not valid JSON/.test(message('polblocked')), 'every server blocked by the malformed policy', 60000);

    // No file: no policy; both run again.
    fs.rmSync(file);
    await until(() => state('polbystander')?.kind === 'running' && state('polblocked')?.kind === 'running', 'both running again', 90000);
  });
});

// H503 (issue 40): `chat.mcp.access: registry` on the production VSIX. VS Code's own words for the value: "Allows access
// to MCP servers listed in the registry that VS Code is connected to." A test cannot set a VS Code policy in the editor
// it runs in, so it writes the stand-in file the extension reads only under the harness's MCP_HOST_POLICY_ROOT
// (src/extension/trust/policy.ts, vscode-policy.json). The registry is served on 127.0.0.1 from entries written from the
// server.json schema ("remotes": [{ "type": "streamable-http", "url": … }]), both pointing at the http fixture.
describe('Organisation policy: chat.mcp.access registry', function () {
  this.timeout(240000);
  let api: McpHostExtensionApi;
  let registry: http.Server;
  let fixture: ListeningFixture;
  const root = process.env.MCP_HOST_POLICY_ROOT;
  const standIn = root ? path.join(root, 'vscode-policy.json') : '';
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const USER = vscode.ConfigurationTarget.Global;
  const state = (n: string) => api.host.get(n)?.state;
  const message = (n: string) => { const s = state(n); return s?.kind === 'error' ? s.message : ''; };
  const userServers = () => ({ ...(cfg().inspect<Record<string, Record<string, unknown>>>('servers')?.globalValue ?? {}) });
  const tooltip = (n: string) => {
    const tree = api.views.servers;
    const node = (tree.getChildren() as { server?: string; kind: string }[]).find(x => x.kind === 'server' && x.server === n);
    const t = node && tree.getTreeItem(node as never).tooltip;
    return String((t as vscode.MarkdownString | undefined)?.value ?? t ?? '');
  };

  before(async function () {
    if (!root) this.skip(); // only under the editor harness, which sets the test-only policy folder
    api = await activateAllowing();
    fixture = await startListening(HTTP_FIXTURE, [], { cwd: ROOT });
    const entry = (name: string) => ({ server: { name: `io.github.example/${name}`, description: 'policy test', version: '1.0.0', remotes: [{ type: 'streamable-http', url: fixture.url }] } });
    const body = JSON.stringify({ servers: [entry('polreg'), entry('polreg2')] });
    registry = http.createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(body); });
    await new Promise<void>(r => registry.listen(0, '127.0.0.1', r));
    await vscode.workspace.getConfiguration('mcpHost.registry').update('url', `http://127.0.0.1:${(registry.address() as AddressInfo).port}`, USER);
    testSupport(api).setDialogAnswerer(async d => (d.buttons.some(b => b.title === 'Install in User Settings') ? 'Install in User Settings' : undefined));
    await cfg().update('servers', { polhand: { type: 'stdio', command: process.execPath, args: [ECHO] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => state('polhand')?.kind === 'running', 'the hand-written server running', 90000);
  });

  after(async () => {
    if (!root) return;
    fs.rmSync(standIn, { force: true });
    testSupport(api).setDialogAnswerer(undefined);
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    const user = userServers();
    delete user.polreg;
    delete user.polreg2;
    await cfg().update('servers', Object.keys(user).length ? user : undefined, USER);
    await vscode.workspace.getConfiguration('mcpHost.registry').update('url', undefined, USER);
    await until(() => !api.host.get('polreg') && !api.host.get('polreg2') && !api.host.get('polhand'), 'the policy servers removed', 60000);
    registry?.close();
    fixture?.child.kill();
  });

  it('H503: under "registry" a server installed from the configured registry runs and its tooltip says so; a hand-written one is blocked with the fix; editing the install (not its timeout) blocks it, beside an unchanged install', async () => {
    fs.writeFileSync(standIn, JSON.stringify({ 'chat.mcp.access': 'registry' }));
    await until(() => /chat\.mcp\.access is "registry".*it was not installed from the registry.*reinstall it from the registry/.test(message('polhand')), 'the hand-written server blocked', 60000);

    // Install both entries from the registry (the install dialog answered "Install in User Settings"): they run.
    for (const n of ['polreg', 'polreg2']) {
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.browseRegistry', n, `io.github.example/${n}`, 0), n);
    }
    await until(() => state('polreg')?.kind === 'running' && state('polreg2')?.kind === 'running', 'both installs running', 90000);
    assert.match(tooltip('polreg'), /Installed from the MCP Registry at `http:\/\/127\.0\.0\.1:\d+`/);
    assert.match(message('polhand'), /not installed from the registry/, 'the hand-written server stays blocked');
    assert.doesNotMatch(tooltip('polhand'), /Installed from the MCP Registry/);

    // A timeout edit is tuning: still the install, still running.
    let user = userServers();
    await cfg().update('servers', { ...user, polreg: { ...user.polreg, timeout: { request: 45000 } } }, USER);
    await until(() => (api.host.get('polreg')?.definition.timeout as { request?: number } | undefined)?.request === 45000, 'the timeout adopted', 60000);
    assert.strictEqual(state('polreg')?.kind, 'running');

    // An identity edit (a header added to the remote install): no longer what the registry gave; blocked with the fix.
    user = userServers();
    await cfg().update('servers', { ...user, polreg: { ...user.polreg, headers: { 'X-Edited': '1' } } }, USER);
    await until(() => /its definition changed after it was installed from http:\/\/127\.0\.0\.1:\d+ \(io\.github\.example\/polreg 1\.0\.0\).*reinstall it from the registry/.test(message('polreg')), 'the edited install blocked', 60000);
    assert.strictEqual(state('polreg2')?.kind, 'running', 'the unchanged install (the bystander) keeps running');
    assert.doesNotMatch(tooltip('polreg'), /Installed from the MCP Registry/);

    // No policy: every server may run again.
    fs.rmSync(standIn);
    await until(() => ['polhand', 'polreg', 'polreg2'].every(n => state(n)?.kind === 'running'), 'all running without the policy', 90000);
  });
});
