/**
 * One MCP session of the gateway's HTTP listener (http.ts): the SDK's own Streamable HTTP server transport
 * (`WebStandardStreamableHTTPServerTransport`, stateful, a random session id) behind the SDK's Node adapter
 * (`toNodeHandler`), connected to a new GatewayServer (server.ts). Nothing of the protocol is written here.
 * This module is the gateway's lazy bundle (dist/gateway-server.js, esbuild.mjs LAZY): it loads with VS Code's first
 * connection, not at activation.
 *
 *   const s = await gatewaySession(options, maxBodyBytes, g => sessions.add(g));
 *   await s.handle(req, res);  …  await s.close();
 */
import { randomUUID } from 'node:crypto';
import { isJSONRPCNotification, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { GatewayServer, type GatewayServerOptions } from './server';
import type { GatewayHttpSession } from './http';

export { GatewayServer };

/** A new session: its GatewayServer is handed to `created` before it serves (its owner tells it of list changes). */
export async function gatewaySession(options: GatewayServerOptions, maxBodyBytes: number, created?: (g: GatewayServer) => void): Promise<GatewayHttpSession> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), maxRequestBodySize: maxBodyBytes });
  const g = new GatewayServer(options);
  created?.(g);
  await g.connect(transport);
  // A request VS Code cancelled gets no answer (the spec: "receivers ... SHOULD NOT send a response"), so its event
  // stream would stay open and hold one of the listener's requests: it is closed once the cancellation is delivered.
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    deliver?.(message, extra);
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') setImmediate(() => transport.closeSSEStream(id));
    }
  };
  const handler = toNodeHandler({ fetch: (request, o) => transport.handleRequest(request, o) }, {
    maxRequestBodySize: maxBodyBytes,
    onerror: e => options.log?.(`MCP Host gateway: a request could not be answered (${e.message})`),
  });
  return {
    get sessionId() { return transport.sessionId; },
    handle: (req, res, body) => handler(req, res, body),
    close: () => transport.close(),
  };
}
