/**
 * Reliability, big stdout lines parsed in slices (issue 27): a line of 1 MiB or more is parsed on the host's
 * thread in short steps that yield (src/mcp/process/slicedJson.ts), so hostile big lines must still be exact,
 * ordered, bounded and reported like any other line. Each case runs next to the bystander and ends with the
 * process-table check. Fixture: test/fixtures/servers/block.mjs.
 */
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { LogEntry } from '../../src/mcp';
import { marked, startHost, textOf, until, type TestHost } from './helpers';

const MiB = 1024 * 1024;

/** A full garbage collection (the flag is set at run time, so the suite needs no node option). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** JS heap and external memory in use (what the process holds, collected or not; rss also counts freed pages). */
const inUse = () => { const m = process.memoryUsage(); return m.heapUsed + m.external; };

describe('Reliability: big stdout lines parsed in slices (H142–H145)', function () {
  this.timeout(180_000);
  let t: TestHost | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('H143: 1,000 lines of 1 MiB in a row: every one delivered in order, memory bounded, the session and the bystander keep answering', async function () {
    this.timeout(300_000);
    t = await startHost([marked('lines', 'block', [], { timeout: { request: 290_000 } })]);
    const c = t.get('lines');
    const seen: number[] = [];
    c.onLog((e: LogEntry) => {
      const m = /^(\d+) y/.exec(typeof e.message === 'string' ? e.message : '');
      if (m) seen.push(Number(m[1]));
      // This test checks the lines itself: the test host's record keeps the other servers' entries only, so what is
      // measured is the host's memory, not 1,000 retained log entries of 64 KiB.
      const others = t!.logs.filter(l => l.server !== 'lines');
      if (others.length !== t!.logs.length) t!.logs.splice(0, t!.logs.length, ...others);
    });
    collectGarbage();
    let peak = 0;
    const base = inUse();
    const timer = setInterval(() => { peak = Math.max(peak, inUse() - base); }, 20);
    try {
      const bystanderMeanwhile = (async () => { await new Promise(r => setTimeout(r, 200)); return t!.get('bystander').callTool('echo', { text: 'meanwhile' }); })();
      const r = await c.callTool('lines', { n: 1000, kb: 1025 });
      assert.equal(textOf(r), '1000 lines');
      assert.match(JSON.stringify((await bystanderMeanwhile).content), /meanwhile/);
    } finally {
      clearInterval(timer);
    }
    await until(() => seen.length >= 1000, 'all 1,000 lines logged', 30_000);
    assert.deepEqual(seen.slice(0, 1000), Array.from({ length: 1000 }, (_, i) => i), 'in order, none lost');
    // Bounded: what is held at any time stays under half of what went through (1 GB), garbage not yet collected
    // included: holding the lines would take all of it. How much garbage waits for the collector depends on the
    // machine's load (29 Nov 2026: 174-276 MiB alone at load 6-8, 378 MiB once in a full run beside other suites),
    // so the bound is on accumulation, not on the collector's timing; after a full collection next to nothing of it
    // remains (below: seen 9-13 MiB).
    assert.ok(peak < 512 * MiB, `heap + external grew by ${Math.round(peak / MiB)} MiB for 1 GB of lines`);
    // A full collection frees the heap at once, but the lines' buffers (external memory) are released by V8's
    // background threads after it, later on a loaded machine (a full run saw 69 MiB right after the collection): so
    // collect until what is held is under the bound, or fail naming what stayed.
    let kept = Infinity;
    await until(() => { collectGarbage(); kept = inUse() - base; return kept < 48 * MiB; }, 'under 48 MiB held after the 1 GB of lines and a full collection', 15_000)
      .catch(() => assert.fail(`${Math.round(kept / MiB)} MiB still held after the 1 GB of lines and repeated full collections`));
    assert.equal(textOf(await c.callTool('ping', {})), 'pong');
    await t.assertBystanderUndisturbed();
  });

  it('H143: a 5 MB answer between 100 small notifications: every note delivered in order, those written before the answer before it', async () => {
    t = await startHost([marked('mixed', 'block')]);
    const c = t.get('mixed');
    const order: string[] = [];
    c.onLog((e: LogEntry) => { if (typeof e.message === 'string' && e.message.startsWith('note ')) order.push(e.message); });
    const r = await c.callTool('mixed', { mb: 5, n: 50 });
    // The notes written before the answer were delivered before it (those after it may come in the same turn).
    const atAnswer = order.length;
    assert.equal(textOf(r).length, 5 * MiB);
    await until(() => order.length >= 100, 'all notes', 10_000);
    assert.ok(atAnswer >= 50, `${atAnswer} notes before the answer`);
    assert.deepEqual(order, Array.from({ length: 100 }, (_, i) => `note ${i}`), 'every note, in order');
    await t.assertBystanderUndisturbed();
  });

  it('H144: a 30 MB line that is not JSON at its very end: the call fails with the warning naming the server (not JSON), the session keeps answering', async () => {
    t = await startHost([marked('badend', 'block', [], { timeout: { request: 5_000 } })]);
    const c = t.get('badend');
    const failure = await c.callTool('badend', { mb: 30 }).then(() => assert.fail('accepted'), (e: Error) => e);
    // Like any line that is not JSON: dropped with a warning, so the request runs into its timeout (5 s here).
    assert.match(failure.message, /^server `badend` did not answer tools\/call within 5 s/);
    const warning = t.logs.find(l => l.server === 'badend' && l.level === 'warning' && /not valid JSON-RPC: not JSON/.test(l.message));
    assert.ok(warning, 'a warning says the line is not JSON');
    assert.ok(warning.message.length < 800, 'the warning is short');
    assert.equal(textOf(await c.callTool('ping', {})), 'pong');
    await t.assertBystanderUndisturbed();
  });

  for (const padMb of [0, 2]) {
    it(`H145: structuredContent nested 100,000 levels deep (${padMb ? 'a 2 MB line, parsed in slices' : 'a 200 KB line, parsed at once'}): a clear error naming the server, no stack overflow; the session keeps answering`, async () => {
      t = await startHost([marked('deep', 'block', [], { timeout: { request: 20_000 } })]);
      const c = t.get('deep');
      const failure = await c.callTool('deep', { levels: 100_000, padMb }).then(() => assert.fail('accepted'), (e: Error) => e);
      assert.match(failure.message, /^server `deep`(,| answered request \d+ with a message) .*nest.* deeper than 1,000 levels; the host does not take it$/, failure.message);
      assert.doesNotMatch(failure.message, /Maximum call stack/);
      assert.equal(textOf(await c.callTool('ping', {})), 'pong');
      await t.assertBystanderUndisturbed();
    });
  }

  it('H143: a server that answers with 20 MB and exits at once: the answer is delivered, then the exit is reported as usual', async () => {
    t = await startHost([marked('exits', 'block')]);
    const c = t.get('exits');
    const r = await c.callTool('exit', { mb: 20 });
    assert.equal(textOf(r).length, 20 * MiB);
    await until(() => c.state.kind !== 'running', 'the exit is seen', 20_000);
    await t.assertBystanderUndisturbed();
  });
});
