/**
 * Benchmarks under load (issue 41): every row carries the load its bench ran at (bench/lib.ts withLoad, which
 * bench/run.ts applies to each bench's rows), and the benches' editor runs load the production VSIX unpacked into a
 * folder of their own (MCP_HOST_SHIPPED_DIR, scripts/shipped.mjs), which no other editor run on the machine rewrites.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { withLoad, type BenchResult } from '../../bench/lib';

const ROOT = path.resolve(__dirname, '../../..');
const row = (name: string, extra: Partial<BenchResult> = {}): BenchResult => ({ name, value: 1, unit: 'ms', ratio: null, target: 'report', met: null, ...extra });

describe('Benchmarks under load (issue 41)', () => {
  it('H486: every row of a bench records the load it ran at (start→end); a row that set its own keeps it', () => {
    const rows = withLoad([row('a: one'), row('a: two', { load: '7.0 (editor run)' })], 1.234, 5.06);
    assert.deepEqual(rows.map(r => r.load), ['1.2→5.1', '7.0 (editor run)']);
    // Bystander: nothing else of a row changes.
    assert.deepEqual({ ...rows[0], load: undefined }, { ...row('a: one'), load: undefined });
  });

  it('H487: with MCP_HOST_SHIPPED_DIR the VSIX is unpacked into that folder, not the shared .vscode-test/shipped', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-shipped-dir-'));
    try {
      const script = 'import(process.argv[1]).then(m => console.log(JSON.stringify([m.SHIPPED_DIR, m.SHIPPED_EXTENSION])))';
      const url = `file://${path.join(ROOT, 'scripts', 'shipped.mjs')}`;
      const own = spawnSync(process.execPath, ['-e', script, url], { env: { ...process.env, MCP_HOST_SHIPPED_DIR: dir }, encoding: 'utf8' });
      assert.equal(own.status, 0, own.stderr);
      assert.deepEqual(JSON.parse(own.stdout), [dir, path.join(dir, 'extension')]);
      // Bystander: without it, the shared folder of the editor suite as before.
      const env: NodeJS.ProcessEnv = { ...process.env, VSCODE_TEST_DIR: path.join(dir, 'vt') };
      delete env.MCP_HOST_SHIPPED_DIR;
      const shared = spawnSync(process.execPath, ['-e', script, url], { env, encoding: 'utf8' });
      assert.equal(shared.status, 0, shared.stderr);
      assert.deepEqual(JSON.parse(shared.stdout), [path.join(dir, 'vt', 'shipped'), path.join(dir, 'vt', 'shipped', 'extension')]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
