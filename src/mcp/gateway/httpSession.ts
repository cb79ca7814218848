/**
 * One MCP session of the gateway's HTTP listener (http.ts): the SDK's own Streamable HTTP server transport
 * (`WebStandardStreamableHTTPServerTransport`, stateful, a random session id) connected to a new GatewayServer
 * (server.ts), and the few lines that hand it a Node request and write its web `Response` back (`serveNode`).
 * Nothing of the protocol is written here. This module is the gateway's lazy bundle (dist/gateway-server.js,
 * esbuild.mjs LAZY): it loads with VS Code's first connection, not at activation.
 *
 * Issue 41 (`vscode.lm.invokeTool` through the gateway as fast as VS Code's own host): the SDK's transport answers every
 * request with an event stream of its own, and VS Code's client sends a progress token with every `tools/call`
 * (`McpTool.callWithProgress`), so "JSON when no progress was asked for" would never apply. Instead a request whose
 * stream would carry nothing but its answer is answered with that answer as one JSON body (the specification's other
 * form: "the server MUST either return `Content-Type: text/event-stream` ... or `Content-Type: application/json`"):
 * headers, body and end in one write, and VS Code reads it with `res.text()` instead of its event-stream parser. A
 * request that gets anything before its answer (progress) keeps its event stream, from the first event on. The headers
 * wait for the first event: at most the transport's keep-alive interval (15 s), whose comment starts the stream.
 *
 *   const s = await gatewaySession(options, maxBodyBytes, g => sessions.add(g));
 *   await s.handle(req, res, body);  …  await s.close();
 */
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import { isJSONRPCNotification, isJSONRPCResponse, WebStandardStreamableHTTPServerTransport, type RequestId } from '@modelcontextprotocol/server';
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
  // What went first on each open request's stream: its answer alone, or something before it (progress).
  const first = new Map<RequestId, 'open' | 'answer' | 'other'>();
  const send = transport.send.bind(transport);
  transport.send = (message, o) => {
    const answer = isJSONRPCResponse(message);
    const id = answer ? message.id : o?.relatedRequestId;
    if (id !== undefined && first.get(id) === 'open') first.set(id, answer ? 'answer' : 'other');
    return send(message, o);
  };
  return {
    get sessionId() { return transport.sessionId; },
    handle: (req, res, body) => serveNode(transport, first, req, res, body),
    close: () => transport.close(),
  };
}

/** `event: message\ndata: ` — how the SDK's transport frames one message on a request's stream. */
const SSE_MESSAGE = Buffer.from('event: message\ndata: ');
/** Headers of an event stream that a JSON answer does not carry. */
const STREAM_ONLY = new Set(['content-type', 'cache-control', 'connection', 'x-accel-buffering', 'content-length', 'transfer-encoding']);

/**
 * One message's JSON from a chunk of a request's stream, when the chunk is exactly one `message` event with one data
 * line (JSON.stringify writes no line breaks); else undefined (the stream is passed on as it is).
 */
function singleMessage(chunk: Uint8Array): Uint8Array | undefined {
  const n = chunk.length;
  if (n < SSE_MESSAGE.length + 3 || chunk[n - 1] !== 10 || chunk[n - 2] !== 10) return undefined;
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, n);
  if (bytes.compare(SSE_MESSAGE, 0, SSE_MESSAGE.length, 0, SSE_MESSAGE.length) !== 0) return undefined;
  if (bytes.indexOf(10, SSE_MESSAGE.length) !== n - 2) return undefined;
  return bytes.subarray(SSE_MESSAGE.length, n - 2);
}

/**
 * Hands one Node request to the transport (the body was read and parsed by the listener, so the web `Request` carries
 * none; the session's transport reads nothing else of it than its headers) and writes its `Response` back: an event
 * stream as it comes (a stalled socket is waited for), or, when the request's first message is its answer, that answer
 * as JSON. A client that goes away ends the stream (the transport forgets it; the answer, if it comes, is dropped).
 */
async function serveNode(
  transport: WebStandardStreamableHTTPServerTransport, first: Map<RequestId, 'open' | 'answer' | 'other'>,
  req: http.IncomingMessage, res: http.ServerResponse, body: unknown,
): Promise<void> {
  let finished = false;
  let gone = false;
  let stop: (() => void) | undefined;
  res.once('close', () => { if (!finished) { gone = true; stop?.(); } });
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
  const request = new Request(`http://${req.headers.host}${req.url ?? '/'}`, { method: req.method, headers });
  const id = requestId(body);
  if (id !== undefined) first.set(id, 'open');
  try {
    const response = await transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
    const out: Record<string, string> = {};
    response.headers.forEach((v, k) => { out[k] = v; });
    if (!response.body) { res.writeHead(response.status, out); res.end(); return; }
    if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const bytes = new Uint8Array(await response.arrayBuffer());
      res.writeHead(response.status, { ...out, 'content-length': String(bytes.length) });
      res.end(bytes);
      return;
    }
    const reader = response.body.getReader();
    stop = () => { void reader.cancel().catch(() => undefined); };
    if (gone) stop();
    let r = await reader.read();
    const json = !r.done && id !== undefined && first.get(id) === 'answer' ? singleMessage(r.value) : undefined;
    if (json) {
      const h: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(json.length) };
      for (const k in out) if (!STREAM_ONLY.has(k)) h[k] = out[k];
      res.writeHead(response.status, h);
      res.end(json);
      return;
    }
    res.writeHead(response.status, out);
    while (!r.done && !gone) {
      if (!res.write(r.value)) await drained(res);
      r = await reader.read();
    }
    res.end();
  } finally {
    finished = true;
    if (id !== undefined) first.delete(id);
  }
}

/** The id of a body that is one request (a batch or a notification has none here). */
function requestId(body: unknown): RequestId | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { id, method } = body as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}

function drained(res: http.ServerResponse): Promise<void> {
  return new Promise(resolve => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.once('drain', done);
    res.once('close', done);
  });
}
