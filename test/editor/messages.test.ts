// Failure messages in the real editor: a server whose command is not on PATH gets a toast that offers Open Settings
// (not Restart), keeps the PATH out of the toast and in the server's log; the same failure is not toasted again after
// the server is started anew (as after a reload: what was seen is kept in the workspace state); a crash offers Restart.
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { ROOT, activatedSuite, until } from './helpers';

describe('Failure messages (toasts, their buttons, not repeated)', function () {
  this.timeout(60000);
  const suite = activatedSuite();
  const cfg = suite.cfg;

  it('a command not on PATH: "cannot start", Open Settings and Show Logs, no PATH in the toast; once only', async () => {
    const before = suite.api.failureNotices.length;
    await cfg().update('servers', { missing: { command: 'mcp-host-no-such-command-xyz', args: [] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => suite.api.failureNotices.length > before, 'the failure toast');
    const n = suite.api.failureNotices[suite.api.failureNotices.length - 1];
    assert.strictEqual(n.kind, 'settings');
    assert.deepStrictEqual(n.actions, ['Open Settings', 'Show Logs']);
    assert.match(n.text, /^MCP server "missing" cannot start: command `mcp-host-no-such-command-xyz` not found on PATH \(the PATH searched is in the log\)/);
    assert.doesNotMatch(n.text, /PATH=/);
    assert.match(n.logText, /PATH=/);
    // Started again (stopped, then the same failure): not toasted again, as after a reload.
    await vscode.commands.executeCommand('mcpHost.stopServer', 'missing');
    await until(() => suite.api.host.get('missing')?.state.kind === 'stopped', 'stopped');
    await vscode.commands.executeCommand('mcpHost.startServer', 'missing').then(undefined, () => undefined);
    await until(() => suite.api.host.get('missing')?.state.kind === 'error', 'failed again');
    await new Promise(r => setTimeout(r, 500));
    assert.strictEqual(suite.api.failureNotices.length, before + 1, suite.api.failureNotices.map(x => x.text).join(' | '));
  });

  it('a crash loop offers Show Logs and Restart', async () => {
    const before = suite.api.failureNotices.length;
    await cfg().update('servers', { crashy: { command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/crash-at-start.mjs')] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => suite.api.failureNotices.length > before, 'the crash toast', 50000);
    const n = suite.api.failureNotices[suite.api.failureNotices.length - 1];
    assert.strictEqual(n.kind, 'crash');
    assert.deepStrictEqual(n.actions, ['Show Logs', 'Restart']);
    assert.match(n.text, /^MCP server "crashy" failed: /);
  });
});
