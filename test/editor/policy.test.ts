// H453 (issue 40): the organisation's MCP policy in the real editor, on the production VSIX. The harness points the
// platform folder at a temporary one (MCP_HOST_POLICY_ROOT, set by scripts/editor/run-editor-tests.mjs, a variable
// only the tests use), starting empty: no policy. The test writes the managed-settings file while the editor runs
// (the rules: GitHub Copilot's managed settings, "If the server matches any entry in deniedMcpServers, it is
// blocked"; docs/POLICY.md), next to a bystander server the policy allows.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { activateHost, ROOT, until } from './helpers';

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');

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
    api = await activateHost();
    api.setConsentPrompt(async () => 'allow');
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
