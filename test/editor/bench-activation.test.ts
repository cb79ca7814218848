// For the activation benchmark (bench/activation.ts) only: skipped unless MCP_HOST_BENCH_ACTIVATION_OUT names
// a file. Opened with bench-activation.code-workspace (10 servers configured before activation), it writes
// how long the extension's activate() took, and how long until its first settings sync had reconcile decide
// what starts (both from the start of activate(), as the extension measured them), to that file as JSON.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';

describe('Activation benchmark (real extension host)', () => {
  it('records activate() and first-reconcile durations with 10 servers configured', async function () {
    const out = process.env.MCP_HOST_BENCH_ACTIVATION_OUT;
    if (!out) this.skip();
    const ext = vscode.extensions.getExtension<{ activationMs: number; firstReconcileMs: Promise<number> }>('mcp-host.mcp-host');
    assert.ok(ext, 'extension not installed');
    const api = await ext.activate();
    const servers = Object.keys(vscode.workspace.getConfiguration('mcpHost').get<Record<string, unknown>>('servers') ?? {});
    assert.strictEqual(typeof api.activationMs, 'number', 'the extension does not report activationMs');
    assert.strictEqual(typeof api.firstReconcileMs?.then, 'function', 'the extension does not report firstReconcileMs');
    const firstReconcileMs = await api.firstReconcileMs;
    fs.writeFileSync(out!, JSON.stringify({ activationMs: api.activationMs, firstReconcileMs, servers: servers.length, vscode: vscode.version, time: new Date().toISOString() }));
  });
});
