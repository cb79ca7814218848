/**
 * The same echo over Streamable HTTP on 127.0.0.1 (http-fixture.mjs, a 2025-era stateful SDK v1 server):
 * sequential latency host vs. a bare SDK v2 client (`Client` + `StreamableHTTPClientTransport` from
 * `@modelcontextprotocol/client`, default options: the legacy `initialize` handshake), then 5000 host calls
 * on one session while watching for MaxListenersExceeded warnings (an abort listener added per request to a
 * session-wide signal trips Node's warning after 10) and open sockets: a leak shows in both.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { http } from '../test/support/connection';
import { startHttpFixture } from '../test/fixtures/servers/harness';
import { interleaved, latencies, median, pairedRatio, round, startHost, type Bench } from './lib';

const CALLS = 2000;
const LEAK_CALLS = 5000;
const BLOCK = 50;

const sockets = () => process.getActiveResourcesInfo().filter(r => r === 'TCPSocketWrap').length;

export const httpBench: Bench = {
  id: 'http',
  title: 'Streamable HTTP on 127.0.0.1 (http-fixture.mjs)',
  async run(log) {
    const server = await startHttpFixture();
    let host: Awaited<ReturnType<typeof startHost>> | undefined;
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    const client = new Client({ name: 'bench-bare', version: '0.0.0' });
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
      const socketsBefore = sockets();
      const done = CALLS + 100 + CALLS + 50;
      await latencies(Math.max(0, LEAK_CALLS - done), () => c.callTool('echo', { text }));
      await new Promise(res => setTimeout(res, 100));
      const socketsAfter = sockets();
      // Over the whole run (the host's calls and the bare client's): a warning is a leak on either side.
      const hostWarnings = warnings.filter(w => w === 'MaxListenersExceededWarning').length;
      log(`after ${LEAK_CALLS} host calls: sockets ${socketsBefore} → ${socketsAfter}, warnings ${warnings.join(', ') || 'none'}`);
      const leakFree = hostWarnings === 0 && socketsAfter <= socketsBefore + 2;
      const ratio = pairedRatio(r.host, r.sdk, BLOCK);
      const pingRatio = pairedRatio(p.host, p.sdk, BLOCK);
      return [
        {
          name: `HTTP: tools/call echo median latency (${CALLS} sequential)`, value: round(median(r.host), 4), unit: 'ms',
          ratio: round(ratio), target: 'ratio ≤ 1.10', met: ratio <= 1.10, baseline: 'bare SDK v2 Client + StreamableHTTPClientTransport',
          note: `bare SDK ${round(median(r.sdk), 4)} ms; ratio = median of per-block median ratios (${CALLS / BLOCK} interleaved blocks)`,
        },
        {
          name: `HTTP: ping median latency (${CALLS} sequential)`, value: round(median(p.host), 4), unit: 'ms',
          ratio: round(pingRatio), target: 'ratio ≤ 1.10', met: pingRatio <= 1.10, baseline: 'bare SDK v2 Client + StreamableHTTPClientTransport',
          note: `bare SDK ${round(median(p.sdk), 4)} ms; ratio = median of per-block median ratios`,
        },
        {
          name: `HTTP: MaxListenersExceeded warnings over ${LEAK_CALLS} host calls on one session`, value: hostWarnings, unit: 'warnings',
          ratio: null, target: `no listener leak over ${LEAK_CALLS} calls`, met: leakFree,
          note: `Node warns once a signal has more than 10 abort listeners, so a listener per request on the session's signal shows here; TCP sockets ${socketsBefore} → ${socketsAfter}`,
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
