/**
 * Big payloads (big.mjs, 20 MB): a resource read and a tool result, host vs. bare SDK on the same binary,
 * alternating, with the memory peak (rss and heap above the value after a GC) of each call.
 * Judged like for like: the baseline is a bare SDK `Client` given the same linear read buffer as the host
 * (bench/linearStdio.ts: a minimal SDK `Transport` over child_process, src/mcp/process/readBuffer.ts and the
 * SDK's public serializeMessage/deserializeMessage). The stock SDK client (`StdioClientTransport`, its own
 * read buffer, quadratic in the message size; `maxBufferSize` raised, or it refuses anything over 10 MB)
 * is measured too and reported in the note: it shows what the buffer alone is worth.
 */
import { nodeFixture } from '../test/support/connection';
import { DEFAULT_LIMITS } from '../src/mcp/limits';
import { bareSdkLinear } from './linearStdio';
import { bareSdk, gc, median, memorySampler, round, startHost, timed, type Bench, type BenchResult } from './lib';

const SIZE_MB = 20;
/** Rounds of host and SDK + linear buffer (the judged pair, adjacent in each round); the slow stock SDK runs in the first STOCK_ROUNDS. */
const ROUNDS = 9;
const STOCK_ROUNDS = 3;

export const big: Bench = {
  id: 'big',
  title: `big payloads: ${SIZE_MB} MB resource read and tool result (big.mjs)`,
  async run(log) {
    const args = ['--size', String(SIZE_MB)];
    const host = await startHost([nodeFixture('big', 'big.mjs', args)]);
    const sdk = await bareSdk('big.mjs', args, { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, timeoutMs: 30_000 });
    const lin = await bareSdkLinear('big.mjs', args, { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, timeoutMs: 30_000 });
    const rows: BenchResult[] = [];
    try {
      const c = host.conn();
      const cases = {
        'resource read big://payload': {
          host: () => c.readResource('big://payload'),
          sdk: () => sdk.client.readResource({ uri: 'big://payload' }),
          lin: () => lin.client.readResource({ uri: 'big://payload' }),
        },
        'tool result big': {
          host: () => c.callTool('big', {}),
          sdk: () => sdk.client.callTool({ name: 'big', arguments: {} }, { timeout: 60_000 }),
          lin: () => lin.client.callTool({ name: 'big', arguments: {} }, { timeout: 60_000 }),
        },
      };
      for (const [what, sides] of Object.entries(cases)) {
        type Side = 'host' | 'sdk' | 'lin';
        const names: Side[] = ['host', 'sdk', 'lin'];
        const t: Record<Side, number[]> = { host: [], sdk: [], lin: [] };
        const peak = { host: 0, sdk: 0, lin: 0, hostHeap: 0 };
        await sides.host(); await sides.lin();
        for (let r = 0; r < ROUNDS; r++) {
          for (const s of names.map((_, i) => names[(i + r) % names.length]).filter(x => x !== 'sdk' || r < STOCK_ROUNDS)) {
            gc();
            const mem = memorySampler(5);
            let size = 0;
            t[s].push(await timed(async () => {
              const res = await sides[s]() as { contents?: { text?: string }[]; content?: { text?: string }[] };
              size = (res.contents ?? res.content ?? [])[0]?.text?.length ?? 0;
            }));
            const m = mem.stop();
            if (size < SIZE_MB * 1024 * 1024 - 10) throw new Error(`${s} got ${size} characters`);
            peak[s] = Math.max(peak[s], m.rssPeakMb);
            if (s === 'host') peak.hostHeap = Math.max(peak.hostHeap, m.heapPeakMb);
          }
        }
        // Each round's host ÷ SDK + linear (the two ran back to back), then the median: a slow phase of the
        // shared machine hits both sides of a round alike.
        const ratio = median(t.host.map((h, i) => h / t.lin[i]));
        const stock = median(t.host) / median(t.sdk);
        const list = (xs: number[]) => xs.map(x => x.toFixed(0)).join('/');
        log(`${what}: host ${list(t.host)} ms, SDK + linear buffer ${list(t.lin)} ms, stock SDK ${list(t.sdk)} ms; rss peak host +${peak.host.toFixed(0)} MB, SDK + linear +${peak.lin.toFixed(0)} MB, stock SDK +${peak.sdk.toFixed(0)} MB`);
        rows.push({
          name: `big payload: ${SIZE_MB} MB ${what}`, value: round(median(t.host), 1), unit: 'ms',
          ratio: round(ratio), target: '≤ 1.2× bare SDK time (same read buffer), memory peak reported', met: ratio <= 1.2,
          baseline: 'bare SDK Client with the host\'s linear read buffer (bench/linearStdio.ts: SDK Transport over child_process, public serializeMessage/deserializeMessage)',
          note: `SDK + linear buffer ${round(median(t.lin), 1)} ms; stock SDK client (its own quadratic read buffer) ${round(median(t.sdk), 1)} ms, host ÷ stock = ${round(stock)}; ratio = median of ${ROUNDS} per-round host ÷ SDK + linear (overall medians: ${round(median(t.host) / median(t.lin))}); memory peak host rss +${round(peak.host, 0)} MB (heap +${round(peak.hostHeap, 0)} MB), SDK + linear rss +${round(peak.lin, 0)} MB, stock SDK rss +${round(peak.sdk, 0)} MB`,
        });
      }
      return rows;
    } finally {
      await Promise.all([host.close(), sdk.close(), lin.close()]);
    }
  },
};
