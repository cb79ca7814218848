// Restricted Mode: servers from workspace settings never start in an untrusted workspace. Runs only when the
// harness keeps Workspace Trust on (the harness's untrusted pass, or by hand
// `KEEP_WORKSPACE_TRUST=1 MCP_HOST_TEST_GREP=Restricted npm run test:editor`); the trusted pass leaves it out.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { activateHost } from './helpers';

describe('Restricted Mode (untrusted workspace)', function () {
  this.timeout(30000);

  before(function () {
    // The untrusted pass of the harness runs this (KEEP_WORKSPACE_TRUST=1); the trusted pass leaves it out by grep.
    assert.strictEqual(vscode.workspace.isTrusted, false, 'Restricted Mode tests ran in a trusted window: run them in the untrusted pass');
  });

  it('never spawns a server defined in workspace settings, and the Servers view says why', async () => {
    const api = await activateHost();
    const asked: string[] = [];
    api.setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    const marker = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'untrusted-')), 'spawned');
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setInterval(() => {}, 1000);`;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { sneaky: { command: process.execPath, args: ['-e', script] } }, vscode.ConfigurationTarget.Workspace);
    await api.sync();
    assert.strictEqual(api.host.get('sneaky'), undefined, 'an untrusted workspace server reached the host');
    const banner = (api.views.servers.getChildren() as { kind: string; text?: string }[]).find(n => n.kind === 'message');
    assert.match(banner?.text ?? '', /Restricted Mode: sneaky/);
    // An explicit start is refused too.
    await vscode.commands.executeCommand('mcpHost.startServer', 'sneaky');
    await api.sync();
    assert.strictEqual(api.host.get('sneaky'), undefined);
    assert.deepStrictEqual(asked, [], 'consent must not even be asked in Restricted Mode');
    assert.ok(!fs.existsSync(marker), 'the server process was spawned');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });
});
