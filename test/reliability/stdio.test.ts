/**
 * Reliability, hostile input over stdio (issue 12): messages over the size cap (enforced while reading,
 * memory bounded and released), responses that break JSON-RPC (failed at once, not at the timeout),
 * lines that are not JSON-RPC (logged, bounded), stderr lines and tail bounded in bytes, and servers
 * whose launch outlives them (double fork, setsid, a detached child on stdin EOF): ended with the launch.
 * Each case runs next to the bystander and ends with the process-table check.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isAlive } from '../../src/mcp/process/processTree';
import { MAX_REPORTED_INVALID_LINES } from '../../src/mcp/process/stdoutReader';
import type { ServerState } from '../../src/mcp/types';
import { MESSAGE_CAP, MESSAGE_CAP_HINT } from '../support/messageCap';
import { BYSTANDER, marked, markedProcesses, startHost, textOf, tmpDirPerTest, until, waitForState, type TestHost } from './helpers';

const MiB = 1024 * 1024;
const LIMIT_HINT = new RegExp(MESSAGE_CAP_HINT);

/** A full garbage collection (the flag is set at run time, so the suite needs no node option). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** Samples this process's memory every few ms until stopped; reports the peak growth over the baseline. */
function memoryPeak(): { stop(): { rss: number; external: number } } {
  const base = process.memoryUsage();
  let rss = 0;
  let external = 0;
  const sample = () => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss - base.rss);
    external = Math.max(external, m.external + m.heapUsed - base.external - base.heapUsed);
  };
  const timer = setInterval(sample, 5);
  return { stop() { clearInterval(timer); sample(); return { rss, external }; } };
}

describe('Reliability: hostile input over stdio (limits, JSON-RPC strictness, launches)', function () {
  this.timeout(120_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-reliability-stdio-', async () => { await t?.close(); t = undefined; });

  it('answers with one 300 MB line: the call fails at once naming the limit and setting; memory grows < 200 MB and is released; the server keeps answering', async () => {
    t = await startHost([marked('huge', 'hostile', [], { timeout: { request: 600_000 } })]);
    const h = t.get('huge');
    collectGarbage();
    const before = process.memoryUsage();
    const peak = memoryPeak();
    const call = h.callTool('huge', { mb: 300 });
    // Asked after the huge answer started: answered only once the whole line went by.
    const next = (async () => { await new Promise(r => setTimeout(r, 50)); return h.callTool('echo', { text: 'after the flood' }); })();
    const failure = await call.then(() => assert.fail('the 300 MB answer was accepted'), (e: Error) => e);
    assert.match(failure.message, /^server `huge` answered request \d+ with a message that is too large: /);
    assert.match(failure.message, LIMIT_HINT);
    assert.equal(textOf(await next), 'after the flood');
    const grown = peak.stop();
    assert.ok(grown.rss < 200 * MiB, `rss grew by ${Math.round(grown.rss / MiB)} MiB while reading 300 MB`);
    assert.ok(grown.external < 200 * MiB, `heap + buffers grew by ${Math.round(grown.external / MiB)} MiB`);
    // Released: back near the baseline after a full collection (buffers are freed off-thread, so look a few times).
    let kept = Infinity;
    for (let i = 0; i < 20 && kept >= 32 * MiB; i++) {
      collectGarbage();
      await new Promise(r => setTimeout(r, 50));
      const after = process.memoryUsage();
      kept = after.heapUsed + after.external - before.heapUsed - before.external;
    }
    assert.ok(kept < 32 * MiB, `${Math.round(kept / MiB)} MiB still held after the call`);
    assert.ok(t.logs.some(l => l.server === 'huge' && l.level === 'warning'
      && new RegExp(`^server \`huge\` sent a message of 300(\\.\\d)? MiB on stdout \\(the answer to request \\d+\\); it was dropped: over the limit of ${MESSAGE_CAP}`).test(l.message)), 'the drop is logged');
    assert.equal(h.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('answers with an oversized line whose id comes last (limit from the setting): the call fails when the line ends, with the limit message', async () => {
    t = await startHost([marked('late', 'hostile', [], { timeout: { request: 600_000 } })], { limits: { maxMessageBytes: 4 * MiB } });
    const l = t.get('late');
    await assert.rejects(l.callTool('huge', { mb: 20, idLast: true }),
      /^McpHostError: server `late` answered request \d+ with a message that is too large: over the limit of 4 MiB \(raise it with the setting `mcpHost\.limits\.maxMessageBytes`\)$/);
    // Within the setting: delivered whole.
    const ok = await l.callTool('huge', { mb: 3 });
    assert.equal(textOf(ok).length, 3 * MiB);
    await t.assertBystanderUndisturbed();
  });

  it('streams a 100 MB notification: dropped with a warning naming the server, the limit and the setting; the session keeps working', async () => {
    t = await startHost([marked('loud', 'hostile', ['--huge-notification-mb', '100'])]);
    const l = t.get('loud');
    await until(() => t!.logs.some(e => e.server === 'loud' && /sent a message of 100(\.\d)? MiB on stdout; it was dropped/.test(e.message)), 'the drop is logged', 60_000);
    const warning = t.logs.find(e => e.server === 'loud' && /it was dropped/.test(e.message))!;
    assert.equal(warning.level, 'warning');
    assert.match(warning.message, new RegExp(`^server \`loud\` .*: ${MESSAGE_CAP_HINT}$`));
    assert.equal(textOf(await l.callTool('echo', { text: 'still here' })), 'still here');
    assert.equal(l.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('answers with both result and error, or with a malformed result: the call fails at once naming the server (not at the timeout); the next call works', async () => {
    t = await startHost([marked('both', 'hostile', [], { timeout: { request: 600_000 } })]);
    const b = t.get('both');
    await assert.rejects(b.callTool('both', {}), /^McpHostError: server `both` answered request \d+ with a response with both result and error, which JSON-RPC forbids$/);
    await assert.rejects(b.callTool('bad_result', {}), /^McpHostError: server `both` answered request \d+ with a malformed response/);
    assert.equal(textOf(await b.callTool('echo', { text: 'fine' })), 'fine');
    assert.ok(t.logs.some(l => l.server === 'both' && l.level === 'warning' && /not valid JSON-RPC failed request \d+: a response with both result and error/.test(l.message)));
    assert.equal(b.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('writes 2000 lines that are not JSON-RPC: ignored, each said in a short warning, at most a bounded number of warnings; the session works', async () => {
    t = await startHost([marked('junk', 'hostile', ['--junk-lines', '2000'])]);
    const j = t.get('junk');
    await until(() => t!.logs.some(l => l.server === 'junk' && /further ones are dropped without a message/.test(l.message)), 'the bound was reached', 30_000);
    assert.equal(textOf(await j.callTool('echo', { text: 'through the junk' })), 'through the junk');
    const warnings = t.logs.filter(l => l.server === 'junk' && /not valid JSON-RPC|dropped/.test(l.message));
    assert.ok(warnings.length <= MAX_REPORTED_INVALID_LINES + 1, `${warnings.length} warnings`);
    assert.ok(warnings.every(l => l.message.length < 600));
    for (const reason of ['not JSON', 'a JSON array', 'no "jsonrpc": "2.0"', 'a method that is not a string']) {
      assert.ok(warnings.some(l => l.message.includes(reason)), `a warning says ${reason}`);
    }
    assert.equal(j.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('writes a 10 MB stderr line and 300 lines of 16 KiB: lines cut at 16 KiB with "(N more bytes)", the kept tail bounded in bytes, the limit said once', async () => {
    t = await startHost([marked('noisy', 'hostile')]);
    const n = t.get('noisy');
    await n.callTool('stderr_line', { kb: 10 * 1024 });
    await until(() => n.stderrTail.some(l => l.startsWith('LINE0:')), 'the long line arrived', 10_000);
    const long = n.stderrTail.find(l => l.startsWith('LINE0:'))!;
    const m = /^LINE0:x+ \((\d+) more bytes\)$/.exec(long);
    assert.ok(m, long.slice(0, 100));
    assert.equal(Buffer.byteLength(long) - ` (${m[1]} more bytes)`.length, 16 * 1024);
    assert.equal(16 * 1024 + Number(m[1]), 10 * 1024 * 1024, 'N counts every byte cut');
    await n.callTool('stderr_line', { kb: 17, lines: 300 });
    await until(() => n.stderrTail.some(l => l.startsWith('LINE299:')), 'the last line arrived', 10_000);
    const tailBytes = n.stderrTail.reduce((s, l) => s + Buffer.byteLength(l), 0);
    assert.ok(tailBytes <= 64 * 1024, `the tail holds ${tailBytes} bytes`);
    assert.ok(n.stderrTail.every(l => Buffer.byteLength(l) <= 16 * 1024 + 40));
    const said = t.logs.filter(l => l.server === 'noisy' && /mcpHost\.limits\.maxStderrLineBytes/.test(l.message));
    assert.equal(said.length, 1);
    assert.match(said[0].message, /^server `noisy` wrote a stderr line that was cut: over the limit of 16 KiB \(raise it with the setting `mcpHost\.limits\.maxStderrLineBytes`\)$/);
    assert.equal(textOf(await n.callTool('echo', { text: 'ok' })), 'ok');
    await t.assertBystanderUndisturbed();
  });

  const daemonPids = (file: string): number[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : []);

  for (const mode of ['double-fork', 'setsid', 'detach-on-eof'] as const) {
    for (const ignoreTerm of [false, true]) {
      it(`leaves a daemon outside its process tree (${mode}${ignoreTerm ? ', ignoring SIGTERM' : ''}): stop, restart and shutdown end the whole launch (process table)`, async function () {
        if (process.platform !== 'linux') this.skip();
        const pidFile = path.join(scratch.dir, 'daemons');
        const args = ['--mode', mode, '--pid-file', pidFile, ...(ignoreTerm ? ['--ignore-term'] : [])];
        t = await startHost([marked('d', 'daemon', args)]);
        const d = t.get('d');
        const bystanderPid = t.get(BYSTANDER).pid!;
        const { daemons } = (await d.callTool('pids', {})).structuredContent as { daemons: number[] };
        if (mode !== 'detach-on-eof') {
          assert.equal(daemons.length, 1, 'the daemon runs');
          assert.ok(isAlive(daemons[0]));
        }
        await d.restart();
        await until(() => daemonPids(pidFile).length >= (mode === 'detach-on-eof' ? 1 : 2), 'the second launch has its daemon', 10_000);
        await d.stop();
        await until(() => daemonPids(pidFile).every(p => !isAlive(p)), `every daemon ended (${daemonPids(pidFile).filter(isAlive).join(', ')} alive)`, 10_000);
        assert.deepEqual(markedProcesses(), [bystanderPid]);
        await d.start();
        await t.assertBystanderUndisturbed();
      });
    }
  }

  it('exits by itself and leaves a daemon behind: the daemon is ended with the launch; the crash is reported as usual', async function () {
    if (process.platform !== 'linux') this.skip();
    const pidFile = path.join(scratch.dir, 'daemons');
    t = await startHost([], { restart: { enabled: false } });
    await t.host.reconcile([marked(BYSTANDER, 'echo'), marked('crash', 'daemon', ['--mode', 'double-fork', '--ignore-term', '--pid-file', pidFile, '--exit-after', '1500'])]);
    const c = t.get('crash');
    await until(() => daemonPids(pidFile).length === 1, 'the daemon runs', 10_000);
    const s = await waitForState(c, x => x.kind === 'error', 30_000) as Extract<ServerState, { kind: 'error' }>;
    assert.match(s.message, /^server `crash` exited unexpectedly \(exit code 3\)/);
    await until(() => !isAlive(daemonPids(pidFile)[0]), 'the daemon was ended', 10_000);
    assert.deepEqual(markedProcesses(), [t.get(BYSTANDER).pid]);
    await t.assertBystanderUndisturbed();
  });

  it('exits by itself leaving a daemon that ignores SIGTERM, and the host shuts down at once: shutdown waits until the daemon is gone', async function () {
    if (process.platform !== 'linux') this.skip();
    const pidFile = path.join(scratch.dir, 'daemons');
    t = await startHost([], { restart: { enabled: false } });
    await t.host.reconcile([marked(BYSTANDER, 'echo'), marked('crash', 'daemon', ['--mode', 'double-fork', '--ignore-term', '--pid-file', pidFile, '--exit-after', '1000'])]);
    await until(() => daemonPids(pidFile).length === 1, 'the daemon runs', 10_000);
    await waitForState(t.get('crash'), x => x.kind === 'error', 30_000);
    await t.assertBystanderUndisturbed();
    await t.host.shutdown();
    assert.equal(isAlive(daemonPids(pidFile)[0]), false, 'the daemon outlived host.shutdown()');
  });
});
