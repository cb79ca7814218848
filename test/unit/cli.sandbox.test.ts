/**
 * `mcp-host` and the OS sandbox (issue 24; H90–H94, H96), on the production dist/cli.js with the sandbox runtime it
 * ships next to it: `sandboxEnabled` in the configuration and `--sandbox` for every stdio server; the doctor's
 * shield; the hostile probe refused outside its root (the denial on stderr) and let through inside it; the
 * bystander `@modelcontextprotocol/server-filesystem` working sandboxed inside its root; and a machine without
 * bubblewrap failing the server with the fix instead of running it unsandboxed. Linux with bubblewrap only.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipWithoutSandbox } from '../support/sandbox';
import { shippedCliCopy } from '../support/shipped';
import { assertNoProcessesIn, runCli, type CliRun } from '../support/cli';
import { tmpDir } from '../support/connection';

const ROOT = path.resolve(__dirname, '../../..');
const PROBE = path.join(ROOT, 'test/fixtures/servers/sandbox-probe.mjs');
const FILESYSTEM = path.join(ROOT, 'node_modules/.bin/mcp-server-filesystem');
const SECRET = 'cli secret 91ab';

describe('mcp-host CLI: sandboxed servers (dist/cli.js)', function () {
  this.timeout(120_000);
  let copy: ReturnType<typeof shippedCliCopy>;
  let work: string;
  let home: string;
  let root: string;
  let outside: string;
  let config: string;

  before(async function () {
    await skipWithoutSandbox(this, { reset: true });
    copy = shippedCliCopy('mcp-host-cli-sandbox-');
    work = tmpDir('mcp-cli-sandbox-');
    home = path.join(work, 'home');
    root = path.join(work, 'project');
    outside = path.join(work, 'outside');
    for (const d of [path.join(home, '.ssh'), root, outside]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), SECRET);
    config = path.join(work, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({
      servers: {
        probe: { command: process.execPath, args: [PROBE], cwd: root, sandboxEnabled: true },
        plain: { command: process.execPath, args: [PROBE], cwd: root },
        files: { command: FILESYSTEM, args: [root], cwd: root },
      },
    }, null, 2));
  });
  afterEach(async () => { if (root) await assertNoProcessesIn(root); });
  after(() => {
    copy?.dispose();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
    runCli(copy.cli, [...args, '--config', config, '--root', root], { cwd: work, env: { HOME: home, ...env }, timeoutMs: 90_000 });
  const result = (r: CliRun) => JSON.parse(r.stdout.trim()) as { ok: boolean; value?: string; code?: string };

  it('H93: doctor marks the sandboxed server with a shield, the others without', async () => {
    const r = await cli(['doctor']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /✓ probe \(stdio\) [^\n]* 🛡 sandboxed\n/);
    assert.match(r.stdout, /✓ plain \(stdio\) [^\n]*\(via absolute\)\n/);
    assert.doesNotMatch(r.stdout, /✓ plain[^\n]*🛡/);
    assert.match(r.stdout, /3 of 3 servers OK/);
  });

  it('H90 H92 H93: a sandboxEnabled server cannot write outside its root (the denial on stderr) nor read a secret; inside its root it writes', async () => {
    const out = path.join(outside, 'cli-escape.txt');
    const w = await cli(['call', 'probe', 'write', '--args', JSON.stringify({ path: out })]);
    assert.equal(result(w).ok, false, w.stdout + w.stderr);
    assert.equal(fs.existsSync(out), false);
    assert.match(w.stderr, new RegExp(`mcp-host: sandbox: server "probe": denied: write to ${out.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    const r = await cli(['call', 'probe', 'read', '--args', JSON.stringify({ path: path.join(home, '.ssh', 'id_rsa') })]);
    assert.ok(!result(r).ok || !String(result(r).value).includes(SECRET), r.stdout);
    const inside = await cli(['call', 'probe', 'write', '--args', JSON.stringify({ path: path.join(root, 'in.txt') })]);
    assert.equal(result(inside).ok, true, inside.stdout + inside.stderr);
    assert.ok(fs.existsSync(path.join(root, 'in.txt')));
  });

  it('H96: --sandbox sandboxes every stdio server of the run; without it the plain server reads the secret', async () => {
    const secret = JSON.stringify({ path: path.join(home, '.ssh', 'id_rsa') });
    const open = await cli(['call', 'plain', 'read', '--args', secret]);
    assert.equal(result(open).value, SECRET, 'unsandboxed, the probe reads it (the fixture works)');
    const forced = await cli(['call', 'plain', 'read', '--args', secret, '--sandbox']);
    assert.ok(!result(forced).ok || !String(result(forced).value).includes(SECRET), forced.stdout + forced.stderr);
    const d = await cli(['doctor', '--sandbox']);
    assert.match(d.stdout, /✓ plain \(stdio\) [^\n]* 🛡 sandboxed/);
  });

  it('H91: the bystander server-filesystem keeps working sandboxed inside its root', async () => {
    const file = path.join(root, 'from-filesystem.txt');
    const w = await cli(['call', 'files', 'write_file', '--args', JSON.stringify({ path: file, content: 'hello from the sandbox' }), '--sandbox']);
    assert.equal(w.code, 0, w.stdout + w.stderr);
    assert.equal(fs.readFileSync(file, 'utf8'), 'hello from the sandbox');
    const l = await cli(['call', 'files', 'list_directory', '--args', JSON.stringify({ path: root }), '--sandbox']);
    assert.equal(l.code, 0, l.stdout + l.stderr);
    assert.match(l.stdout, /from-filesystem\.txt/);
  });

  it('H94: without bubblewrap on PATH the sandboxed server fails with the reason and the fix; the others still start', async () => {
    // A PATH with node (which server-filesystem's `#!/usr/bin/env node` needs) and nothing else.
    const nodeOnly = path.join(work, 'node-only');
    fs.mkdirSync(nodeOnly, { recursive: true });
    if (!fs.existsSync(path.join(nodeOnly, 'node'))) fs.symlinkSync(process.execPath, path.join(nodeOnly, 'node'));
    const r = await cli(['doctor'], { PATH: nodeOnly });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✗ probe \(stdio\)[^\n]*🛡 sandboxed\n\s+server `probe` is set to run sandboxed and was not started: the sandbox needs bubblewrap \(`bwrap`\), socat, ripgrep \(`rg`\), not found on PATH; install them \(Debian\/Ubuntu: `sudo apt-get install bubblewrap socat ripgrep`/);
    assert.match(r.stdout, /✓ plain \(stdio\)/);
    assert.match(r.stdout, /2 of 3 servers OK/);
  });
});
