/**
 * Big payloads (big.mjs, 20 MB): a resource read and a tool result, host vs. bare SDK on the same binary,
 * alternating, with the memory peak (rss and heap above the value after a GC) of each call.
 * Two bare SDK clients, both with `maxBufferSize` raised (the SDK refuses anything over 10 MB otherwise):
 * one stock (the SDK's own read buffer, quadratic in the message size: the baseline the ratio uses), and
 * one given the linear read buffer (src/mcp/process/readBuffer.ts; the host frames with the same design in
 * src/mcp/process/lineFramer.ts), so the host's own layer can be told apart from the buffer.
 */
import { nodeFixture } from '../test/unit/connection-helpers';
import { DEFAULT_LIMITS } from '../src/mcp/limits';
import { bareSdk, gc, median, memorySampler, round, startHost, timed, type Bench, type BenchResult } from './lib';

const SIZE_MB = 20;
const ROUNDS = 3;

export const big: Bench = {
  id: 'big',
  title: `big payloads: ${SIZE_MB} MB resource read and tool result (big.mjs)`,
  async run(log) {
    const args = ['--size', String(SIZE_MB)];
    const host = await startHost([nodeFixture('big', 'big.mjs', args)]);
    const sdk = await bareSdk('big.mjs', args, { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, timeoutMs: 30_000 });
    const lin = await bareSdk('big.mjs', args, { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, linearReadBuffer: true, timeoutMs: 30_000 });
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
          sdk: () => sdk.client.callTool({ name: 'big', arguments: {} }, undefined, { timeout: 60_000 }),
          lin: () => lin.client.callTool({ name: 'big', arguments: {} }, undefined, { timeout: 60_000 }),
        },
      };
      for (const [what, sides] of Object.entries(cases)) {
        type Side = 'host' | 'sdk' | 'lin';
        const names: Side[] = ['host', 'sdk', 'lin'];
        const t: Record<Side, number[]> = { host: [], sdk: [], lin: [] };
        const peak = { host: 0, sdk: 0, lin: 0, hostHeap: 0 };
        await sides.host(); await sides.lin();
        for (let r = 0; r < ROUNDS; r++) {
          for (const s of names.map((_, i) => names[(i + r) % names.length])) {
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
        const ratio = median(t.host) / median(t.sdk);
        const layer = median(t.host) / median(t.lin);
        const list = (xs: number[]) => xs.map(x => x.toFixed(0)).join('/');
        log(`${what}: host ${list(t.host)} ms, bare SDK ${list(t.sdk)} ms, SDK + linear buffer ${list(t.lin)} ms; rss peak host +${peak.host.toFixed(0)} MB, SDK +${peak.sdk.toFixed(0)} MB, SDK + linear +${peak.lin.toFixed(0)} MB`);
        rows.push({
          name: `big payload: ${SIZE_MB} MB ${what}`, value: round(median(t.host), 1), unit: 'ms',
          ratio: round(ratio), target: '≤ 1.2× bare SDK time, memory peak reported', met: ratio <= 1.2,
          baseline: 'bare SDK Client (maxBufferSize raised, stock read buffer)',
          note: `bare SDK ${round(median(t.sdk), 1)} ms; SDK with the host's linear read buffer ${round(median(t.lin), 1)} ms (host ÷ that = ${round(layer)}); memory peak host rss +${round(peak.host, 0)} MB (heap +${round(peak.hostHeap, 0)} MB), bare SDK rss +${round(peak.sdk, 0)} MB`,
        });
      }
      return rows;
    } finally {
      await Promise.all([host.close(), sdk.close(), lin.close()]);
    }
  },
};
