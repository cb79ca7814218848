/**
 * Issue 11: the HTTP error paths on the SHIPPED bundle (the production, minified dist/cli.js, byte for byte the copy
 * in the VSIX). Each of these depends on recognising an SDK error class, which the minifier renames: they used to
 * work in the development build and fail in what users run.
 *   - Streamable HTTP → legacy HTTP+SSE fallback (a 2024-11-05 server answers the POST with 405)
 *   - an expired session (404) → re-initialise and retry, once, transparently
 *   - 401 and 403 → readable messages naming the server and the fix
 * The servers are test/fixtures/servers/http-fixture.mjs on 127.0.0.1, stopped after each test.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, shippedCliCopy } from '../support/shipped';
import { runCli, type CliRun } from '../support/cli';

const FIXTURE = path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs');

function cliRun(cli: string, args: string[], cwd: string): Promise<CliRun> {
  return runCli(cli, args, { cwd, env: { MCP_HOST_SIGN_IN: 'never' } });
}

interface Fixture { url: string; base: string; child: ChildProcess; stats(): Promise<Record<string, unknown>>; stop(): Promise<void> }

function startFixture(args: string[]): Promise<Fixture> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stderr!.on('data', d => { err += d; });
    child.on('error', reject);
    child.on('exit', code => reject(new Error(`http-fixture exited (${code}) before listening:\n${err}`)));
    child.stdout!.on('data', d => {
      out += d;
      const m = /LISTENING (\d+)/.exec(out);
      if (!m) return;
      const base = `http://127.0.0.1:${m[1]}`;
      resolve({
        url: `${base}/mcp`, base, child,
        stats: async () => (await (await fetch(`${base}/stats`)).json()) as Record<string, unknown>,
        stop: () => new Promise<void>(done => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 3000).unref();
        }),
      });
    });
  });
}

describe('HTTP error paths on the shipped bundle (production dist/cli.js)', function () {
  this.timeout(90_000);
  let copy: ReturnType<typeof shippedCliCopy>;
  let fixture: Fixture | undefined;

  before(() => { copy = shippedCliCopy('mcp-host-cli-http-'); });
  after(() => copy?.dispose());
  afterEach(async () => { await fixture?.stop(); fixture = undefined; });

  function config(name: string, url: string): string {
    const file = path.join(copy.dir, `${name}.json`);
    fs.writeFileSync(file, JSON.stringify({ servers: { [name]: { type: 'http', url } } }));
    return file;
  }

  it('is testing the production bundle (minified, no source map)', () => {
    const text = fs.readFileSync(copy.cli, 'utf8');
    assert.ok(!/sourceMappingURL/.test(text), 'dist/cli.js has a source map: a development build');
    // minified: long lines on average (the development build averages ~40 characters a line)
    assert.ok(text.length / text.split('\n').length > 500, 'dist/cli.js is not minified');
  });

  it('H13: "type": "http" against a legacy HTTP+SSE server falls back to SSE and the call works', async () => {
    fixture = await startFixture(['--sse-only']);
    const r = await cliRun(copy.cli, ['call', 'legacy', 'echo', '--args', '{"text":"over legacy SSE"}', '--config', config('legacy', fixture.url)], copy.dir);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /over legacy SSE/);
    assert.doesNotMatch(r.stdout + r.stderr, /Error POSTing to endpoint/);
    const stats = await fixture.stats();
    assert.ok(Number(stats.gets) >= 1, `the SSE stream was never opened: ${JSON.stringify(stats)}`);
  });

  it('H12: an expired session (404) is re-initialised and the request retried', async () => {
    // the server forgets the session at the first tools/call (404 Session expired); the next session serves the retry
    fixture = await startFixture(['--expire-at', 'tools/call']);
    const r = await cliRun(copy.cli, ['call', 'expiring', 'echo', '--args', '{"text":"after re-initialise"}', '--config', config('expiring', fixture.url)], copy.dir);
    assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /after re-initialise/);
    const stats = await fixture.stats();
    assert.ok(Number(stats.expired) >= 1, `no request met the expired session: ${JSON.stringify(stats)}`);
    assert.ok(Number(stats.initializes) >= 2, `the client did not initialise again: ${JSON.stringify(stats)}`);
  });

  it('H14: 401 without a usable sign-in reads as "requires authorization", naming the server and the fix', async () => {
    fixture = await startFixture(['--token', 'right-token']);
    const r = await cliRun(copy.cli, ['call', 'locked', 'echo', '--args', '{"text":"x"}', '--config', config('locked', fixture.url)], copy.dir);
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /server `locked` requires authorization/);
    assert.match(r.stderr, /Authorization header|sign in/i);
    assert.doesNotMatch(r.stderr, /Streamable HTTP error|Error POSTing/);
  });

  it('H14: 403 reads as "refused access", naming the server', async () => {
    fixture = await startFixture(['--forbid']);
    const r = await cliRun(copy.cli, ['call', 'forbidden', 'echo', '--args', '{"text":"x"}', '--config', config('forbidden', fixture.url)], copy.dir);
    assert.equal(r.code, 1, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
    // No WWW-Authenticate challenge: the server's own words are the reason, and no credentials are blamed (H193, H403).
    assert.match(r.stderr, /server `forbidden` refused access \(HTTP 403 Forbidden: ".*this token may not use this server.*"\); that is the server's own reason/);
    assert.doesNotMatch(r.stderr, /Streamable HTTP error|Error POSTing/);
    // 403 is not a reason to fall back to the legacy transport
    assert.equal((await fixture.stats()).gets ?? 0, 0);
  });
});
