/**
 * HTTP transports against real servers: server-everything (Streamable HTTP and SSE) and the HTTP
 * fixture for what a real server cannot do on demand (expired sessions, 500s, 401s, dropped streams).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { Connection } from '../../src/mcp/server/connection';
import { McpOAuthProvider } from '../../src/mcp/oauth/provider';
import { stopProcessTree } from '../../src/mcp/process/processTree';
import { FAST_STOP, collectLogs, fixture, freePort, http, startEverythingHttp, type RunningServer } from '../support/connection';
import { until } from '../support/wait';

interface Fixture { url: string; base: string; child: ChildProcess; stats(): Promise<Record<string, unknown>>; stop(): Promise<void> }

async function startFixture(args: string[] = []): Promise<Fixture> {
  const child = spawn(process.execPath, [fixture('http-fixture'), '--port', '0', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /LISTENING (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    child.once('exit', code => reject(new Error(`fixture exited (${code}): ${out}`)));
    setTimeout(() => reject(new Error(`fixture did not start: ${out}`)), 15_000).unref();
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`, base, child,
    stats: async () => (await fetch(`${base}/stats`)).json() as Promise<Record<string, unknown>>,
    stop: async () => { if (child.exitCode === null && child.pid) await stopProcessTree(child.pid, () => child.stdin?.end(), FAST_STOP); },
  };
}

describe('HTTP (server-everything)', function () {
  this.timeout(60_000);
  let streamable: RunningServer;
  let sse: RunningServer;
  before(async () => {
    [streamable, sse] = await Promise.all([startEverythingHttp('streamableHttp'), startEverythingHttp('sse')]);
  });
  after(async () => { await Promise.all([streamable?.stop(), sse?.stop()]); });

  it('H12/H42: connects over Streamable HTTP, records the protocol version (legacy era: server-everything answers initialize), calls tools, and stops', async () => {
    const c = new Connection(http('ev-http', streamable.url), { pingIntervalMs: 0 });
    try {
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.equal(c.transportKind, 'streamableHttp');
      assert.ok(c.state.kind === 'running' && c.state.era === 'legacy' && c.state.protocolVersion === '2025-11-25', JSON.stringify(c.state));
      assert.ok(c.catalogue.tools.some(t => t.name === 'echo'));
      const r = await c.callTool('echo', { message: 'over http' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: over http' }]);
    } finally {
      await c.dispose();
    }
    assert.equal(c.state.kind, 'stopped');
  });

  it('H13: connects with type sse (2024-11-05 transport)', async () => {
    const c = new Connection(http('ev-sse', sse.url, 'sse'), { pingIntervalMs: 0 });
    try {
      await c.start();
      assert.equal(c.transportKind, 'sse');
      assert.ok(c.state.kind === 'running' && c.state.era === 'legacy', 'SSE is a 2024-11-05 transport: always the legacy era');
      const r = await c.callTool('echo', { message: 'over sse' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: over sse' }]);
    } finally {
      await c.dispose();
    }
  });

  it('H12/H13: type http falls back to SSE when the server answers the POST with a 4xx', async () => {
    const c = new Connection(http('ev-fallback', sse.url, 'http'), { pingIntervalMs: 0 });
    const logs = collectLogs(c);
    try {
      await c.start();
      assert.equal(c.transportKind, 'sse', 'SSE won');
      assert.ok(c.state.kind === 'running' && c.state.transport === 'sse', 'recorded in the state');
      assert.ok(logs.some(l => /trying the legacy SSE transport/.test(l.message)));
      await c.ping();
    } finally {
      await c.dispose();
    }
  });

  it('H12: after the server restarts (our session unknown to it), the next call re-initializes', async () => {
    const first = await startEverythingHttp('streamableHttp');
    const c = new Connection(http('ev-restart', first.url), { pingIntervalMs: 0 });
    const logs = collectLogs(c);
    let second: RunningServer | undefined;
    try {
      await c.start();
      await c.callTool('echo', { message: 'before' });
      await first.stop();
      second = await startEverythingHttp('streamableHttp', first.port);
      const r = await c.callTool('echo', { message: 'after' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: after' }]);
      assert.ok(logs.some(l => /re-initializing/.test(l.message)));
    } finally {
      await c.dispose();
      await first.stop();
      await second?.stop();
    }
  });

  it('H16: roots over HTTP reach the server', async () => {
    const c = new Connection(http('ev-roots', streamable.url), { pingIntervalMs: 0, roots: () => [{ uri: 'file:///tmp/project-a', name: 'project-a' }] });
    try {
      await c.start();
      const r = await c.callTool('get-roots-list', {});
      assert.match(JSON.stringify(r), /file:\/\/\/tmp\/project-a/);
    } finally {
      await c.dispose();
    }
  });
});

describe('HTTP (fixture)', function () {
  this.timeout(90_000);
  const started: Fixture[] = [];
  const run = async (args: string[] = []) => { const f = await startFixture(args); started.push(f); return f; };
  after(async () => { await Promise.all(started.map(f => f.stop())); });

  it('H12: an expired session (404) re-initializes transparently and replays only the failed request', async () => {
    const f = await run(['--expire-after', '3']);
    const c = new Connection(http('expiring', f.url), { pingIntervalMs: 0 });
    const logs = collectLogs(c);
    try {
      await c.start();
      const sessions = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const r = await c.callTool('echo', { text: `n${i}` });
        assert.match(JSON.stringify(r.content), new RegExp(`n${i}`));
        const who = await c.callTool('whoami', {});
        sessions.add(JSON.stringify(who.structuredContent ?? who.content));
      }
      assert.ok(sessions.size >= 2, 'a new session was made');
      const stats = await f.stats();
      assert.ok((stats.expired as number) >= 1);
      assert.ok(logs.some(l => /re-initializing/.test(l.message)));
      assert.equal(c.state.kind, 'running');
    } finally {
      await c.dispose();
    }
  });

  it('H12: sends DELETE for the session on stop', async () => {
    const f = await run();
    const c = new Connection(http('deleter', f.url), { pingIntervalMs: 0 });
    await c.start();
    await c.stop();
    assert.equal((await f.stats()).deletes, 1);
  });

  it('H12: falls back to SSE when the POST answers 405 (--sse-only)', async () => {
    const f = await run(['--sse-only']);
    const c = new Connection(http('legacy', f.url), { pingIntervalMs: 0 });
    try {
      await c.start();
      assert.equal(c.transportKind, 'sse');
      const r = await c.callTool('echo', { text: 'legacy' });
      assert.match(JSON.stringify(r.content), /legacy/);
    } finally {
      await c.dispose();
    }
  });

  it('H15: a 401 without credentials is a readable error state, not a hang; the Authorization header from the definition works', async () => {
    const f = await run(['--token', 'sekret-token']);
    const c = new Connection(http('locked', f.url), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /requires authorization \(HTTP 401\)/);
    assert.equal(c.state.kind, 'error');
    const ok = new Connection(http('unlocked', f.url, 'http', { headers: { Authorization: 'Bearer sekret-token' } }), { pingIntervalMs: 0 });
    const logs = collectLogs(ok);
    try {
      ok.setTrace(true);
      await ok.start();
      await ok.callTool('echo', { text: 'in' });
      assert.equal(ok.state.kind, 'running');
      assert.ok(logs.every(l => !l.message.includes('sekret-token')), 'the token never reaches the logs');
    } finally {
      await ok.dispose();
    }
  });

  it('H14/H15: with an OAuth provider, a 401 runs the SDK auth flow and ends in a readable error when the server has no authorization metadata', async () => {
    const f = await run(['--token', 'other-token']);
    const store = new Map<string, string>();
    const opened: string[] = [];
    const c = new Connection(http('oauth', f.url), {
      pingIntervalMs: 0,
      authProvider: new McpOAuthProvider({
        storage: { get: k => store.get(k), set: (k, v) => { store.set(k, v); }, delete: k => { store.delete(k); } },
        openBrowser: async url => { opened.push(url); },
        redirectUrl: 'http://127.0.0.1:1/callback', clientName: 'mcp-host tests', key: f.url,
      }),
    });
    await assert.rejects(c.start(), /server `oauth` requires authorization and signing in failed/);
    assert.equal(c.state.kind, 'error');
  });

  it('an unreachable URL is a readable error state', async () => {
    const port = await freePort();
    const c = new Connection(http('nowhere', `http://127.0.0.1:${port}/mcp`), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /cannot reach server `nowhere`: connection refused/);
    assert.equal(c.state.kind, 'error');
  });

  it('a 500 on initialize is a readable error state (no SSE fallback for 5xx)', async () => {
    const f = await run(['--fail-500', '1']);
    const c = new Connection(http('flaky', f.url), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /HTTP 500/);
    assert.equal(c.state.kind, 'error');
    await c.start();
    assert.equal(c.state.kind, 'running', 'a later start works');
    await c.dispose();
  });

  it('H12: the GET stream reconnects after the server drops it; later notifications still arrive', async () => {
    const f = await run(['--drop-get-stream-after', '200']);
    const c = new Connection(http('dropper', f.url), {
      pingIntervalMs: 0,
      reconnection: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 50 },
    });
    const logs = collectLogs(c);
    try {
      await c.start();
      await until(async () => ((await f.stats()).droppedStreams as number) >= 1, 'stream dropped', 10_000);
      await until(async () => ((await f.stats()).gets as number) >= 2, 'stream reopened', 10_000);
      await c.callTool('notify_later', { ms: 100 });
      await until(() => logs.some(l => l.source === 'server' && /notify_later fired/.test(l.message)), 'notification after reconnect', 10_000);
    } finally {
      await c.dispose();
    }
  });

  it('3000 HTTP calls leave no MaxListenersExceeded warning (each request has its own AbortSignal)', async function () {
    this.timeout(120_000);
    const f = await run();
    const c = new Connection(http('many', f.url), { pingIntervalMs: 0 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      await c.start();
      const N = 3000;
      let done = 0;
      const worker = async () => { while (done < N) { done++; await c.callTool('echo', { text: 'x' }); } };
      await Promise.all(Array.from({ length: 8 }, worker));
      assert.ok(done >= N);
      await new Promise(r => setImmediate(r));
      assert.deepEqual(warnings.filter(w => /MaxListeners|listener/i.test(w)), []);
      assert.equal(c.state.kind, 'running');
    } finally {
      process.off('warning', onWarning);
      await c.dispose();
    }
  });
});
