/** Connection against the fixture servers in test/fixtures/servers (real child processes). */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Connection } from '../../src/mcp/server/connection';
import { isAlive } from '../../src/mcp/process/processTree';
import { FAST_STOP, collectLogs, fixture, nodeFixture, stdio, tmpDir, waitForState } from '../support/connection';
import { until } from '../support/wait';

describe('Connection (fixture servers)', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = tmpDir('mcp-fixtures-'); });
  after(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  it('H9: crash at start: the error state carries the stderr lines (last 50 kept)', async () => {
    const c = new Connection(nodeFixture('cas', 'crash-at-start', ['--lines', '60', '--code', '2']), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /exited during startup \(exit code 2\): fatal: missing configuration FIXTURE_API_KEY/);
    assert.ok(c.state.kind === 'error');
    if (c.state.kind === 'error') {
      assert.equal(c.state.stderrTail.length, 50);
      assert.equal(c.state.stderrTail.at(-1), 'fatal: missing configuration FIXTURE_API_KEY');
    }
  });

  it('H9: never-init fails the start after the startup timeout', async () => {
    const c = new Connection(nodeFixture('ni', 'never-init', [], { timeout: { startup: 700 } }), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await assert.rejects(c.start(), /did not answer initialize within 700 ms/);
    assert.equal(c.state.kind, 'error');
  });

  it('H5: a spawned server that has not answered initialize is "starting", never "running"', async () => {
    const seen = path.join(dir, 'ni-seen');
    const c = new Connection(nodeFixture('ni2', 'never-init', ['--log-file', seen], { timeout: { startup: 20_000 } }), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    const kinds: string[] = [];
    c.onDidChangeState(s => kinds.push(s.kind));
    const started = c.start().catch(e => e as Error);
    // The process is up and has read our initialize request: the user must still see "starting".
    await until(() => fs.existsSync(seen) && fs.readFileSync(seen, 'utf8').includes('"method":"initialize"'), 'initialize to reach the server', 15_000);
    assert.equal(c.state.kind, 'starting');
    await c.stop();
    assert.match(String(await started), /stopped while starting/);
    assert.ok(!kinds.includes('running'), `states: ${kinds.join(' → ')}`);
  });

  it('crash loop with crash-after: restarts counted, then crashLoop', async () => {
    const countFile = path.join(dir, 'count');
    const c = new Connection(nodeFixture('ca', 'crash-after', ['--after', '100', '--code', '5', '--count-file', countFile]), {
      pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { initialDelayMs: 10, maxDelayMs: 50, maxCrashes: 5, windowMs: 60_000 },
    });
    await c.start();
    const s = await waitForState(c, x => x.kind === 'error' && x.crashLoop, 30_000);
    assert.ok(s.kind === 'error' && /crashed 5 times/.test(s.message));
    const starts = fs.readFileSync(countFile, 'utf8').trim().split('\n').length;
    assert.equal(starts, 5);
    await new Promise(r => setTimeout(r, 200));
    assert.equal(fs.readFileSync(countFile, 'utf8').trim().split('\n').length, 5, 'no restart after the crash-loop stop');
  });

  it('garbage on stdout (banner, invalid UTF-8, non-JSON-RPC JSON, interleaved junk) does not break the session', async () => {
    const c = new Connection(nodeFixture('junk', 'garbage', ['--interleave', '20']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    const logs = collectLogs(c);
    try {
      await c.start();
      const tool = c.catalogue.tools[0];
      assert.ok(tool);
      for (let i = 0; i < 5; i++) await c.callTool(tool.name, { text: `hi ${i}`, message: `hi ${i}` });
      assert.equal(c.state.kind, 'running');
      assert.ok(logs.some(l => /not valid JSON-RPC/.test(l.message)));
    } finally {
      await c.dispose();
    }
  });

  it('garbage then exit is a clean error state', async () => {
    const c = new Connection(nodeFixture('junk-exit', 'garbage', ['--then', 'exit']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await assert.rejects(c.start(), /exited during startup \(exit code 3\)/);
  });

  it('H10: receives a 20 MB tool result and a 20 MB resource over stdio', async function () {
    const c = new Connection(nodeFixture('big', 'big', ['--size', '20']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await c.start();
      const r = await c.callTool('big', {});
      const text = (r.content[0] as { text: string }).text;
      assert.equal(text.length, 20 * 1024 * 1024);
      assert.ok(text.endsWith('END'));
      const res = await c.readResource('big://payload');
      assert.ok(((res.contents[0] as { text: string }).text).endsWith('END'));
    } finally {
      await c.dispose();
    }
  });

  for (const variant of ['node', 'shell wrapper'] as const) {
    it(`H11: stop leaves no orphan grandchild (${variant})`, async () => {
      const pidFile = path.join(dir, `gc-${variant.replace(' ', '-')}`);
      const def = variant === 'node'
        ? nodeFixture('gc', 'grandchild', ['--pid-file', pidFile])
        : stdio('gc-sh', '/bin/sh', [fixture('grandchild-wrapper.sh'), '--pid-file', pidFile], { env: { FIXTURE_NODE: process.execPath } });
      const c = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP });
      await c.start();
      const r = await c.callTool('pids', {});
      const { server, grandchild } = r.structuredContent as { server: number; grandchild: number };
      assert.ok(isAlive(server) && isAlive(grandchild));
      const root = c.pid!;
      await c.stop();
      for (const pid of [root, server, grandchild]) assert.equal(isAlive(pid), false, `pid ${pid} gone`);
    });
  }

  it('H11: a server that ignores EOF and SIGTERM is killed', async () => {
    const pidFile = path.join(dir, 'ignore');
    const c = new Connection(nodeFixture('stubborn', 'ignore-signals', ['--serve', '--pid-file', pidFile]), { pingIntervalMs: 0, stopGrace: { eofGraceMs: 200, termGraceMs: 300 } });
    const logs = collectLogs(c);
    await c.start();
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await c.stop();
    assert.equal(isAlive(pid), false);
    assert.ok(logs.some(l => /stopped \(kill\)/.test(l.message)));
  });

  it('H27: cancellation reaches the server (it records notifications/cancelled and aborts)', async () => {
    const record = path.join(dir, 'slow-record');
    const c = new Connection(nodeFixture('slow', 'slow', ['--record', record]), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await c.start();
      const ac = new AbortController();
      const call = c.callTool('slow', { ms: 5000 }, { signal: ac.signal, onProgress: () => ac.abort('user pressed stop') });
      await assert.rejects(call, /cancelled/);
      await until(() => fs.existsSync(record) && /aborted/.test(fs.readFileSync(record, 'utf8')), 'server aborted', 5000);
      const lines = fs.readFileSync(record, 'utf8');
      assert.match(lines, /cancelled-notification \d+ user pressed stop/);
      assert.doesNotMatch(lines, /finished/);
    } finally {
      await c.dispose();
    }
  });

  it('H8/H29: uses only declared capabilities: no prompts/get, resources or logging/setLevel on a tools-only server', async () => {
    const c = new Connection(nodeFixture('tools-only', 'echo'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    c.setTrace(true);
    const logs = collectLogs(c);
    try {
      await c.start();
      await assert.rejects(c.getPrompt('x', {}), /server `tools-only` does not offer prompts/);
      await assert.rejects(c.readResource('file:///x'), /does not offer resources/);
      await assert.rejects(c.subscribe('file:///x'), /does not support resource subscriptions/);
      await c.setLogLevel('debug');
      assert.deepEqual(await c.complete({ type: 'ref/prompt', name: 'x' }, { name: 'a', value: '' }), { values: [] });
      const sent = logs.filter(l => l.source === 'trace' && l.message.startsWith('→')).map(l => JSON.parse(l.message.slice(2)).method as string);
      // server/discover is the era probe (SDK v2 'auto'), answered "method not found" by this 2025-era fixture.
      assert.deepEqual(sent.filter(m => m !== 'server/discover' && m !== 'initialize' && m !== 'notifications/initialized' && m !== 'tools/list'), []);
    } finally {
      await c.dispose();
    }
  });

  it('H28: progress extends the request timeout; without progress the same timeout fails', async () => {
    const c = new Connection(nodeFixture('slow2', 'slow'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await c.start();
      let n = 0;
      const ok = await c.callTool('slow', { ms: 1500 }, { timeout: 600, onProgress: () => { n++; } });
      assert.match((ok.content[0] as { text: string }).text, /done after/);
      assert.ok(n >= 3);
      await assert.rejects(c.callTool('silent', { ms: 1500 }, { timeout: 600 }), /did not answer tools\/call within 600 ms/);
    } finally {
      await c.dispose();
    }
  });
});
