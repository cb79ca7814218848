/**
 * The gateway's hop without the editor (issue 41): what `vscode.lm.invokeTool` of an MCP Host tool pays over VS Code's
 * own host, which talks to the same server over stdio. Three sides, interleaved, on their own copy of echo.mjs:
 * - `gateway`: an SDK v2 client over Streamable HTTP (as VS Code's client: a session, `Authorization: Bearer`, a
 *   `_meta.progressToken` on every `tools/call`, as VS Code's `McpTool.callWithProgress` sends) → the gateway's
 *   loopback listener and session (src/mcp/gateway/http.ts, httpSession.ts: the code the extension runs) → the host's
 *   connection → echo.mjs over stdio;
 * - `host`: the same host's connection called directly (MCP Host's own call path, no HTTP, no gateway server);
 * - `direct`: a bare SDK v2 client over stdio → echo.mjs (what VS Code's own host does).
 * `gateway ÷ direct` is the hop's whole price; `gateway − host` is the HTTP leg and the gateway's MCP server.
 * `MCP_HOST_HOP_CALLS` changes the number of calls per side (a CPU profile wants more).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { nodeFixture } from '../test/support/connection';
import { GatewayHttpListener } from '../src/mcp/gateway/http';
import { gatewaySession } from '../src/mcp/gateway/httpSession';
import { newSecret } from '../src/mcp/gateway/wire';
import { bareSdk, interleaved, median, pairedRatio, percentile, round, startHost, type Bench } from './lib';

const CALLS = Number(process.env.MCP_HOST_HOP_CALLS) || 500;
const BLOCK = 25;

export const gatewayHop: Bench = {
  id: 'gateway-hop',
  title: 'the gateway\'s hop: SDK client → loopback HTTP gateway → host → echo.mjs, against the SDK client → echo.mjs',
  async run(log) {
    const host = await startHost([nodeFixture('echo', 'echo')]);
    const direct = await bareSdk('echo.mjs');
    const secret = newSecret();
    const listener = new GatewayHttpListener({ secret: () => secret, newSession: max => gatewaySession({ host: host.host, version: 'bench' }, max) });
    const client = new Client({ name: 'bench-gateway', version: '0.0.0' });
    try {
      await listener.listen();
      await client.connect(new StreamableHTTPClientTransport(new URL(listener.url!), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
      const c = host.conn();
      const text = 'hello, echo';
      let token = 0;
      const r = await interleaved({
        gateway: () => client.callTool({ name: 'echo_echo', arguments: { text }, _meta: { progressToken: `p${++token}` } }),
        host: () => c.callTool('echo', { text }, { by: 'model' }),
        direct: () => direct.client.callTool({ name: 'echo', arguments: { text } }),
      }, CALLS, BLOCK, 100);
      const m = (xs: number[]) => median(xs).toFixed(3);
      log(`median gateway ${m(r.gateway)} ms, host ${m(r.host)} ms, direct ${m(r.direct)} ms; p99 gateway ${percentile(r.gateway, 99).toFixed(3)}, direct ${percentile(r.direct, 99).toFixed(3)}`);
      const ratio = pairedRatio(r.gateway, r.direct, BLOCK);
      const p99 = percentile(r.gateway, 99) / percentile(r.direct, 99);
      return [
        {
          name: `gateway hop: tools/call echo through the loopback gateway, median (${CALLS} sequential)`, value: round(median(r.gateway), 4), unit: 'ms',
          ratio: round(ratio), target: 'report (the editor row vs-builtin is judged)', met: null, baseline: 'bare SDK v2 Client over stdio to echo.mjs',
          note: `direct ${round(median(r.direct), 4)} ms, the host's own call path ${round(median(r.host), 4)} ms (gateway ÷ host ${round(pairedRatio(r.gateway, r.host, BLOCK))}); ratio = median of per-block median ratios (${CALLS / BLOCK} interleaved blocks)`,
        },
        {
          name: `gateway hop: tools/call echo through the loopback gateway, p99 (${CALLS} sequential)`, value: round(percentile(r.gateway, 99), 4), unit: 'ms',
          ratio: round(p99), target: 'report', met: null, baseline: 'bare SDK v2 Client over stdio to echo.mjs',
          note: `direct p99 ${round(percentile(r.direct, 99), 4)} ms`,
        },
      ];
    } finally {
      await client.close().catch(() => undefined);
      listener.close();
      await Promise.all([host.close(), direct.close()]);
    }
  },
};
