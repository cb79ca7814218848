/**
 * The same echo over Streamable HTTP on 127.0.0.1 (http-fixture.mjs): sequential latency host vs. bare SDK
 * (`StreamableHTTPClientTransport`), then 5000 host calls on one session while counting abort listeners on
 * the session's shared signal, MaxListenersExceeded warnings and open sockets (a leak shows in all three).
 */
import { getEventListeners } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { http } from '../test/unit/connection-helpers';
import { startHttpFixture } from '../test/fixtures/servers/harness';
import { interleaved, latencies, median, pairedRatio, round, startHost, type Bench } from './lib';

const CALLS = 1000;
const LEAK_CALLS = 5000;
const BLOCK = 50;

/** Abort listeners on a Streamable HTTP transport's session-wide signal (SDK 1.x private field). */
function abortListeners(transport: unknown): number {
  const signal = (transport as { _abortController?: AbortController })._abortController?.signal;
  return signal ? getEventListeners(signal, 'abort').length : -1;
}

const sockets = () => process.getActiveResourcesInfo().filter(r => r === 'TCPSocketWrap').length;

export const httpBench: Bench = {
  id: 'http',
  title: 'Streamable HTTP on 127.0.0.1 (http-fixture.mjs)',
  async run(log) {
    const server = await startHttpFixture();
    let host: Awaited<ReturnType<typeof startHost>> | undefined;
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: 'bench-bare', version: '0' }, { capabilities: {} });
    const warnings: string[] = [];
    const onWarning = (w: Error) => { warnings.push(w.name); };
    process.on('warning', onWarning);
    try {
      host = await startHost([http('echo-http', server.url)]);
      await client.connect(transport);
      const c = host.conn();
      const text = 'hello, echo';
      const r = await interleaved({
        host: () => c.callTool('echo', { text }),
        sdk: () => client.callTool({ name: 'echo', arguments: { text } }),
      }, CALLS, BLOCK, 100);
      const p = await interleaved({
        host: () => c.ping(),
        sdk: () => client.ping(),
      }, CALLS, BLOCK, 50);
      log(`tools/call median host ${median(r.host).toFixed(3)} ms, sdk ${median(r.sdk).toFixed(3)} ms; ping host ${median(p.host).toFixed(3)}, sdk ${median(p.sdk).toFixed(3)}`);
      const session = (c as unknown as { session?: { transport: unknown } }).session;
      const socketsBefore = sockets();
      const warningsBefore = warnings.length;
      const done = CALLS + 100 + CALLS + 50;
      await latencies(Math.max(0, LEAK_CALLS - done), () => c.callTool('echo', { text }));
      await new Promise(res => setTimeout(res, 100));
      const hostListeners = abortListeners(session?.transport);
      const sdkListeners = abortListeners(transport);
      const socketsAfter = sockets();
      const hostWarnings = warnings.length - warningsBefore;
      log(`after ${LEAK_CALLS} host calls: ${hostListeners} abort listener(s) on the session signal (bare SDK after ${CALLS + 100 + CALLS + 50}: ${sdkListeners}), sockets ${socketsBefore} → ${socketsAfter}, warnings ${warnings.join(', ') || 'none'}`);
      const leakFree = hostListeners >= 0 && hostListeners <= 2 && hostWarnings === 0 && socketsAfter <= socketsBefore + 2;
      const ratio = pairedRatio(r.host, r.sdk, BLOCK);
      const pingRatio = pairedRatio(p.host, p.sdk, BLOCK);
      return [
        {
          name: `HTTP: tools/call echo median latency (${CALLS} sequential)`, value: round(median(r.host), 4), unit: 'ms',
          ratio: round(ratio), target: 'ratio ≤ 1.10', met: ratio <= 1.10, baseline: 'bare SDK Client + StreamableHTTPClientTransport',
          note: `bare SDK ${round(median(r.sdk), 4)} ms; ratio = median of per-block median ratios (${CALLS / BLOCK} interleaved blocks)`,
        },
        {
          name: `HTTP: ping median latency (${CALLS} sequential)`, value: round(median(p.host), 4), unit: 'ms',
          ratio: round(pingRatio), target: 'ratio ≤ 1.10', met: pingRatio <= 1.10, baseline: 'bare SDK Client + StreamableHTTPClientTransport',
          note: `bare SDK ${round(median(p.sdk), 4)} ms; ratio = median of per-block median ratios`,
        },
        {
          name: `HTTP: abort listeners on the session signal after ${LEAK_CALLS} host calls`, value: hostListeners, unit: 'listeners',
          ratio: null, target: `no listener leak over ${LEAK_CALLS} calls`, met: leakFree,
          note: `MaxListenersExceeded warnings during them: ${hostWarnings}; TCP sockets ${socketsBefore} → ${socketsAfter}; the bare SDK's own fetch had ${sdkListeners} listeners after ${done} calls`,
        },
      ];
    } finally {
      process.off('warning', onWarning);
      await client.close().catch(() => undefined);
      await host?.close();
      await server.stop();
    }
  },
};
