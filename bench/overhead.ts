/**
 * Request overhead over stdio: `tools/call echo` and `ping`, sequential, through the host core vs. a bare
 * SDK `Client` vs. a raw newline-JSON pipe, all on their own copy of the same server binary (echo.mjs),
 * interleaved in blocks so noise hits every side.
 */
import { fixture, nodeFixture } from '../test/support/connection';
import { bareSdk, interleaved, median, pairedRatio, percentile, round, startHost, type Bench, type BenchResult } from './lib';
import { rawPipe } from './raw';

const CALLS = 2000;
const BLOCK = 50;

export const overhead: Bench = {
  id: 'overhead',
  title: 'request overhead + raw floor (stdio, echo.mjs)',
  async run(log) {
    const host = await startHost([nodeFixture('echo', 'echo')]);
    const sdk = await bareSdk('echo.mjs');
    const raw = await rawPipe(process.execPath, [fixture('echo')]);
    try {
      const c = host.conn();
      const text = 'hello, echo';
      const call = await interleaved({
        host: () => c.callTool('echo', { text }),
        sdk: () => sdk.client.callTool({ name: 'echo', arguments: { text } }),
        raw: () => raw.request('tools/call', { name: 'echo', arguments: { text } }),
      }, CALLS, BLOCK);
      const ping = await interleaved({
        host: () => c.ping(),
        sdk: () => sdk.client.ping(),
        raw: () => raw.request('ping'),
      }, CALLS, BLOCK);
      const m = (xs: number[]) => median(xs);
      for (const [what, r] of [['tools/call', call], ['ping', ping]] as const) {
        log(`${what}: median host ${m(r.host).toFixed(3)} ms, sdk ${m(r.sdk).toFixed(3)} ms, raw ${m(r.raw).toFixed(3)} ms; p99 host ${percentile(r.host, 99).toFixed(3)}, sdk ${percentile(r.sdk, 99).toFixed(3)}`);
      }
      const rows: BenchResult[] = [];
      for (const [what, r] of [['tools/call echo', call], ['ping', ping]] as const) {
        const ratio = pairedRatio(r.host, r.sdk, BLOCK);
        rows.push({
          name: `overhead: ${what} median latency (stdio, ${CALLS} sequential)`, value: round(m(r.host), 4), unit: 'ms',
          ratio: round(ratio), target: 'median latency ratio ≤ 1.10', met: ratio <= 1.10, baseline: 'bare SDK Client',
          note: `ratio = median over ${CALLS / BLOCK} interleaved blocks of the per-block median ratio (overall medians: ${round(m(r.host) / m(r.sdk))}); bare SDK ${round(m(r.sdk), 4)} ms, raw pipe ${round(m(r.raw), 4)} ms; p99 host ${round(percentile(r.host, 99), 3)} / SDK ${round(percentile(r.sdk, 99), 3)} ms`,
        });
      }
      for (const [what, r] of [['tools/call echo', call], ['ping', ping]] as const) {
        rows.push({
          name: `floor: ${what} host ÷ raw newline-JSON pipe`, value: round(m(r.raw), 4), unit: 'ms (raw median)',
          ratio: round(pairedRatio(r.host, r.raw, BLOCK)), target: 'report host ÷ raw', met: null, baseline: 'raw pipe, no SDK',
          note: `bare SDK ÷ raw = ${round(pairedRatio(r.sdk, r.raw, BLOCK))} (per-block medians, as above)`,
        });
      }
      return rows;
    } finally {
      await Promise.all([host.close(), sdk.close(), raw.close()]);
    }
  },
};
