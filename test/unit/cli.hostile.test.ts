/**
 * Hostile inputs at the edges of the shipped CLI (issue 21; a private copy of the production dist/cli.js,
 * test/support/shipped.ts): a 1 MB secret in an envFile, results nested 100,000 levels deep, `$ref` cycles in an
 * inputSchema, Ctrl+C during a task, a resource the server does not have, servers that fail at start (an uncaught
 * exception, npx of a package that does not exist, a 403 with a body: issue 37). Each case runs a well-behaved server
 * (or call) beside the hostile one that must keep working, and no process may be left with its cwd in the
 * servers' folder.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { finishCli, processesIn, runCli, startCli, useShippedCli, type CliRun } from '../support/cli';
import { freePort } from '../support/connection';
import { startHttpFixture } from '../fixtures/servers/harness';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/servers');

/** A value that repeats nowhere (so any 24 characters of it would be found in a leak). */
function uniqueValue(bytes: number, seed: string): string {
  let out = '';
  for (let i = 0; out.length < bytes; i++) out += `${seed}${i.toString(36)}z`;
  return out.slice(0, bytes);
}

/** Pieces of `value` (start, middle, end, and every 64 KiB) that must not appear anywhere in an output. */
function piecesOf(value: string): string[] {
  const out: string[] = [];
  for (let at = 0; at + 24 <= value.length; at += 64 * 1024) out.push(value.slice(at, at + 24));
  out.push(value.slice(value.length >> 1, (value.length >> 1) + 24), value.slice(-24));
  return out;
}

function assertHidden(what: string, run: CliRun, value: string): void {
  const all = run.stdout + run.stderr;
  for (const p of piecesOf(value)) assert.ok(!all.includes(p), `${what} shows part of the secret (${p}) at ${all.indexOf(p)}: …${all.slice(Math.max(0, all.indexOf(p) - 80), all.indexOf(p) + 40)}…`);
}

describe('mcp-host CLI: hostile inputs at its edges (production build)', function () {
  this.timeout(120_000);
  // Each test writes the config it needs (config() below); the suite's own mcp.json lists no server.
  const ws = useShippedCli('mcp-host-cli-hostile-', () => ({}), { setupMs: 180_000 });

  function config(name: string, servers: Record<string, unknown>): string {
    const file = path.join(ws.dir, name);
    fs.writeFileSync(file, JSON.stringify({ servers }, null, 2));
    return file;
  }

  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(ws.cli, args, { cwd: ws.dir, env, timeoutMs: 60_000 });

  it('H70: a 1 MB envFile secret: doctor reports the server cleanly and prints no part of it; the bystander\'s secret is still hidden in its log lines', async () => {
    const huge = uniqueValue(1024 * 1024, 'HugeSecret');
    const small = uniqueValue(2000, 'SmallSecret');
    fs.writeFileSync(path.join(ws.dir, 'huge.env'), `API_TOKEN=${huge}\n`);
    fs.writeFileSync(path.join(ws.dir, 'small.env'), `API_TOKEN=${small}\n`);
    const cfg = config('huge-secret.json', {
      huge: { command: process.execPath, args: [path.join(FIXTURES, 'leaky.mjs'), '--secret-env', 'API_TOKEN'], envFile: path.join(ws.dir, 'huge.env'), cwd: ws.serverCwd },
      leaky: { command: process.execPath, args: [path.join(FIXTURES, 'leaky.mjs'), '--secret-env', 'API_TOKEN'], envFile: path.join(ws.dir, 'small.env'), cwd: ws.serverCwd },
    });
    const doctor = await run(['doctor', '--config', cfg, '--verbose', '--timeout', '10000']);
    assert.equal(doctor.code, 1, doctor.stdout + doctor.stderr.slice(0, 2000));
    assert.match(doctor.stdout, /✗ huge \(stdio\)/);
    assert.match(doctor.stdout, /API_TOKEN .* is 1\.0 MiB, over the 128 KiB/);
    assert.match(doctor.stdout, /✓ leaky \(stdio\)/);
    assert.match(doctor.stderr, /leaky: my secret is \*\*\*/, 'the bystander\'s stderr line, redacted');
    assert.doesNotMatch(doctor.stdout + doctor.stderr, /internal error|Regular expression|at \S+ \(/);
    assertHidden('doctor', doctor, huge);
    assertHidden('doctor', doctor, small);

    // H402: the tool result is the server's data, shown as sent (it chose to send back what it was given); the CLI's
    // own lines around it show no part of either secret.
    const leak = await run(['call', 'leaky', 'leak', '--config', cfg]);
    assert.equal(leak.code, 0, leak.stderr.slice(0, 2000));
    assert.ok(leak.stdout.startsWith(`leaked: ${small.slice(0, 100)}`), leak.stdout.slice(0, 200));
    assertHidden('call leak (its own lines)', { ...leak, stdout: '' }, huge);
    assertHidden('call leak (its own lines)', { ...leak, stdout: '' }, small);
  });
  function edgesConfig(): string {
    return config('edges.json', {
      edges: { command: process.execPath, args: [path.join(FIXTURES, 'edges.mjs')], cwd: ws.serverCwd },
      bystander: { command: process.execPath, args: [path.join(FIXTURES, 'echo.mjs')], cwd: ws.serverCwd },
    });
  }

  it('H72: a result nested 100,000 levels deep: call (with and without --json) exits 1 naming server and tool; 900 levels and the bystander print', async () => {
    const cfg = edgesConfig();
    for (const extra of [[], ['--json'], ['--args', '{"where":"meta"}', '--json'], ['--args', '{"where":"content"}']]) {
      const r = await run(['call', 'edges', 'deep', ...extra, '--config', cfg]);
      assert.equal(r.code, 1, `${extra.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^mcp-host call: server `edges`, tool `deep`: the result nests deeper than 1,000 levels; the host does not take it$/m);
      assert.doesNotMatch(r.stdout + r.stderr, /Maximum call stack|RangeError|internal error/);
      assert.equal(r.stdout, '');
    }
    const shallow = await run(['call', 'edges', 'deep', '--args', '{"depth":900}', '--json', '--config', cfg]);
    assert.equal(shallow.code, 0, shallow.stderr);
    assert.match(shallow.stdout, /"bottom"/);
    const echo = await run(['call', 'bystander', 'echo', '--args', '{"text":"hi"}', '--config', cfg]);
    assert.equal(echo.code, 0, echo.stderr);
  });

  it('H72: an inputSchema whose $refs loop: call exits 1 with the reason, never the raw stack overflow text; echo on the same server works', async () => {
    const cfg = edgesConfig();
    const r = await run(['call', 'edges', 'cycle', '--args', '{"x":1}', '--config', cfg]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /mcp-host call: server `edges` tool `cycle` inputSchema: its `\$ref`s refer to each other in a loop that never reaches a schema .*; tool `cycle` is unusable/);
    assert.doesNotMatch(r.stdout + r.stderr, /Maximum call stack|RangeError/);
    const echo = await run(['call', 'edges', 'echo', '--args', '{"text":"fine"}', '--config', cfg]);
    assert.equal(echo.code, 0, echo.stderr);
    assert.match(echo.stdout, /^echo: fine$/m);
  });
  it('H75: read of a URI the server does not have says so with the server\'s words, escaped, and exits 1 (not 2, no inputSchema hint); a known URI prints', async () => {
    const cfg = edgesConfig();
    const r = await run(['read', 'edges', 'edges://nope\x1b[31m', '--config', cfg]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^mcp-host read: server "edges" has no resource "edges:\/\/nope\\u001b\[31m": Resource not found: edges:\/\/nope\\x1b\[31m$/m);
    assert.doesNotMatch(r.stderr.split('\n').filter(l => l.startsWith('mcp-host read:')).join('\n'), /inputSchema|--help/);
    assert.ok(!r.stderr.includes('\x1b'), 'no raw ESC');
    const known = await run(['read', 'edges', 'edges://known', '--config', cfg]);
    assert.equal(known.code, 0, known.stderr);
    assert.equal(known.stdout, 'known resource\n');
  });
  it('H74: Ctrl+C during a task (after the server answered tasks/cancel) exits 130 with no process of the launch left; the bystander call before it worked', async () => {
    const record = path.join(ws.dir, 'tasks.record');
    const cfg = config('tasks.json', {
      fx: { command: process.execPath, args: [path.join(FIXTURES, 'tasks.mjs'), '--notify', '--record', record], cwd: ws.serverCwd },
    });
    const plain = await run(['call', 'fx', 'plain', '--config', cfg]);
    assert.equal(plain.code, 0, plain.stderr);
    for (let i = 0; i < 3; i++) {
      const child = startCli(ws.cli, ['call', 'fx', 'never', '--config', cfg], { cwd: ws.dir });
      let stderr = '';
      child.stderr!.on('data', d => { stderr += d; });
      for (const end = Date.now() + 30_000; !/mcp-host: task task-\d+ \(never\): working/.test(stderr) && Date.now() < end;) await new Promise(r => setTimeout(r, 50));
      assert.ok(processesIn(ws.serverCwd).length > 0, 'the server runs');
      child.kill('SIGINT');
      const r = await finishCli(child);
      assert.equal(r.code, 130, stderr + r.stderr);
      assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-\d+$/m);
      // At once, not after a grace period: the CLI exits only when every server it started is gone.
      assert.deepEqual(processesIn(ws.serverCwd), [], `run ${i + 1}: processes left after exit`);
    }
  });

  it('H403: a Node server that throws at start and npx of a package that does not exist: the reason is the line that explains it; the bystander starts', async () => {
    const closed = await freePort(); // nothing listens there: the registry is unreachable, and nothing leaves the machine
    const cfg = config('start-failures.json', {
      throws: { command: process.execPath, args: [path.join(FIXTURES, 'crash-at-start.mjs'), '--throw', '--lines', '2', '--message', 'getaddrinfo ENOTFOUND docs.invalid'], cwd: ws.serverCwd },
      missing: {
        command: 'npx', args: ['-y', 'no-such-mcp-server-h403'], cwd: ws.serverCwd,
        env: { npm_config_registry: `http://127.0.0.1:${closed}/`, npm_config_fetch_retries: '0', npm_config_cache: path.join(ws.dir, 'npm-cache'), npm_config_update_notifier: 'false' },
      },
      ok: { command: process.execPath, args: [path.join(FIXTURES, 'echo.mjs')], cwd: ws.serverCwd },
    });
    const doctor = await run(['doctor', '--config', cfg, '--timeout', '60000']);
    assert.equal(doctor.code, 1, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /✓ ok \(stdio\)/);
    const block = (name: string) => doctor.stdout.slice(doctor.stdout.indexOf(`✗ ${name} `)).split('\n').slice(0, 2).join('\n');
    assert.match(block('throws'), /Error: getaddrinfo ENOTFOUND docs\.invalid/, doctor.stdout);
    assert.doesNotMatch(block('throws'), /Node\.js v\d/);
    assert.match(block('missing'), /ECONNREFUSED 127\.0\.0\.1:\d+/, doctor.stdout);
    assert.doesNotMatch(block('missing'), /complete log/);
    // The whole tail is still shown below the reason (Node's own last line included).
    assert.match(doctor.stdout, /Node\.js v\d+/);
    // A command that needs the server says the same reason on its one line.
    const call = await run(['call', 'throws', 'echo', '--config', cfg]);
    assert.equal(call.code, 1);
    assert.match(call.stderr, /Error: getaddrinfo ENOTFOUND docs\.invalid/);
    assert.doesNotMatch(call.stderr, /Node\.js v\d/);
    const good = await run(['call', 'ok', 'echo', '--args', '{"text":"still here"}', '--config', cfg]);
    assert.equal(good.code, 0, good.stderr);
  });

  it('H403: a 403 with a body shows the server\'s own words and blames no credentials; the bystander works', async () => {
    const fx = await startHttpFixture(['--forbid', 'Access is only allowed at localhost:47521'], 'hostile-http.mjs');
    try {
      const cfg = config('forbidden.json', { pw: { type: 'http', url: fx.url }, ok: { command: process.execPath, args: [path.join(FIXTURES, 'echo.mjs')], cwd: ws.serverCwd } });
      const r = await run(['inspect', 'pw', '--config', cfg, '-v']);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /403[^\n]*"Access is only allowed at localhost:47521"/);
      assert.doesNotMatch(r.stderr, /credentials|sign-in/);
      const good = await run(['call', 'ok', 'echo', '--args', '{"text":"fine"}', '--config', cfg]);
      assert.equal(good.code, 0, good.stderr);
    } finally {
      await fx.stop();
    }
    // The other side: a 403 whose answer challenges the credentials (insufficient_scope) still says so.
    const challenge = await startHttpFixture(['--forbid', 'scope admin needed', '--forbid-challenge'], 'hostile-http.mjs');
    try {
      const r = await run(['inspect', 'scoped', '--config', config('challenged.json', { scoped: { type: 'http', url: challenge.url } })]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /credentials|sign-in|scope/, r.stderr);
    } finally {
      await challenge.stop();
    }
  });
});
