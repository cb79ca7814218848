// For the activation benchmark (bench/activation.ts) only: skipped unless MCP_HOST_BENCH_ACTIVATION_OUT names
// a file. Opened with bench-activation.code-workspace (10 servers configured before activation), it writes
// how long the extension's activate() took, as the extension measured it, to that file as JSON.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';

describe('Activation benchmark (real extension host)', () => {
  it('records activate() duration with 10 servers configured', async function () {
    const out = process.env.MCP_HOST_BENCH_ACTIVATION_OUT;
    if (!out) this.skip();
    const ext = vscode.extensions.getExtension<{ activationMs: number }>('mcp-host.mcp-host');
    assert.ok(ext, 'extension not installed');
    const api = await ext.activate();
    const servers = Object.keys(vscode.workspace.getConfiguration('mcpHost').get<Record<string, unknown>>('servers') ?? {});
    assert.strictEqual(typeof api.activationMs, 'number', 'the extension does not report activationMs');
    fs.writeFileSync(out!, JSON.stringify({ activationMs: api.activationMs, servers: servers.length, vscode: vscode.version, time: new Date().toISOString() }));
  });
});
