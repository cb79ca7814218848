/**
 * The gateway's loopback HTTP listener (issue 41): VS Code's own MCP support reaches MCP Host's gateway as a Streamable
 * HTTP server (`vscode.McpHttpServerDefinition`, src/extension/gateway/gatewayProvider.ts) served here, in the extension
 * host, on 127.0.0.1 and a port the system picks. No gateway process and no hop between processes: each MCP session is
 * the SDK's own Streamable HTTP server transport (httpSession.ts, loaded with the gateway's MCP server) connected to a
 * GatewayServer (server.ts).
 *
 * Other local processes and web pages are hostile (docs/SECURITY.md, threat model, "The gateway into VS Code's chat"). Before a request
 * reaches the SDK it must pass, in this order, each refusal a `403` (never `401`, which would start an OAuth flow in VS Code)
 * with the body unread and the connection closed:
 * - `Host` exactly `127.0.0.1:<port>` (DNS rebinding: a page on a name that resolves to 127.0.0.1 carries its own name);
 * - no `Origin` header (VS Code's client sends none; every browser's cross-site request carries one);
 * - `Authorization: Bearer <per-window secret>` (only VS Code's resolved definition carries it), compared in constant time.
 * Bounds: a body over the one message cap ({@link GATEWAY_MAX_MESSAGE_BYTES}) is answered `413` (declared: unread; sent:
 * reading stops at the cap); MCP requests answered at once (every session, open event streams included; a cancellation
 * or a response always passes) and sessions are capped (`503` beyond, with `Retry-After`); a session
 * with no open request for {@link GATEWAY_HTTP_IDLE_MS} is dropped (its client, if still there, starts a new one); sockets
 * are capped and must send their headers in time.
 *
 *   const l = new GatewayHttpListener({ secret: () => current, newSession: max => serve(max), log });
 *   await l.listen();      // l.url → the definition's uri
 *   l.close();             // every session ends, nothing listens
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseJson } from '../process/parseJson';
import { GATEWAY_MAX_MESSAGE_BYTES, GATEWAY_MAX_PENDING, secretsEqual } from './wire';

/** The one path the gateway answers. */
export const GATEWAY_HTTP_PATH = '/mcp';
/** MCP sessions at once (one per VS Code connection to "MCP Host"; a restart overlaps the old one briefly). */
export const GATEWAY_HTTP_MAX_SESSIONS = 8;
/**
 * MCP requests answered at once over every session (open event streams count; notifications and responses, such as a
 * cancellation, always pass): more wait for nothing, they get `503`.
 */
export const GATEWAY_HTTP_MAX_REQUESTS = GATEWAY_MAX_PENDING;
/** A session with no open request (not even its event stream) for this long is dropped. */
export const GATEWAY_HTTP_IDLE_MS = 10 * 60_000;
/** Sockets open at once (authenticated or not); more are refused by the listener. */
export const GATEWAY_HTTP_MAX_SOCKETS = 128;
/** A socket must send a request's headers within this time. */
export const GATEWAY_HTTP_HEADERS_TIMEOUT_MS = 10_000;

/** One MCP session: the SDK's transport with its GatewayServer (httpSession.ts). */
export interface GatewayHttpSession {
  /** The id the transport assigned with `initialize` (undefined before, or when the first request was not one). */
  readonly sessionId: string | undefined;
  /** Answers one HTTP request of this session; a POST's body is read already (`body`, parsed). */
  handle(req: http.IncomingMessage, res: http.ServerResponse, body?: unknown): Promise<void>;
  /** Ends the session (its GatewayServer is disposed). */
  close(): Promise<void>;
}

/** Options of {@link GatewayHttpListener}. */
export interface GatewayHttpOptions {
  /** The secret requests must carry now (undefined: refuse every request). */
  secret(): string | undefined;
  /** A new session for a request without a session id (an `initialize`); `maxBodyBytes` is the body cap. */
  newSession(maxBodyBytes: number): Promise<GatewayHttpSession>;
  /** One line for the log (refusals). */
  log?(message: string): void;
  /** Caps (tests lower them). */
  maxMessageBytes?: number;
  maxSessions?: number;
  maxRequests?: number;
  idleMs?: number;
}

interface Entry { session: GatewayHttpSession; open: number; last: number }

/** Listens on 127.0.0.1 for VS Code's MCP client; see the module comment. */
export class GatewayHttpListener {
  private server: http.Server | undefined;
  private starting: Promise<void> | undefined;
  /** Counts close() calls: a listen still starting when close() came closes its server at once. */
  private closes = 0;
  private readonly sessions = new Map<string, Entry>();
  /** Sessions being created (counted against the cap until they have an id or are dropped). */
  private creating = 0;
  private active = 0;
  private sweep: ReturnType<typeof setInterval> | undefined;
  private readonly maxBody: number;
  private readonly maxSessions: number;
  private readonly maxRequests: number;
  private readonly idleMs: number;
  /** Refusals since listening, by reason (tests and the log read them). */
  readonly refused = { host: 0, origin: 0, secret: 0, size: 0, busy: 0 };

  constructor(private readonly o: GatewayHttpOptions) {
    this.maxBody = o.maxMessageBytes ?? GATEWAY_MAX_MESSAGE_BYTES;
    this.maxSessions = o.maxSessions ?? GATEWAY_HTTP_MAX_SESSIONS;
    this.maxRequests = o.maxRequests ?? GATEWAY_HTTP_MAX_REQUESTS;
    this.idleMs = o.idleMs ?? GATEWAY_HTTP_IDLE_MS;
  }

  /** The port while listening (read once when listening starts: `address()` is a system call, and every request checks it). */
  get port(): number | undefined {
    return this.server ? this.listeningOn : undefined;
  }
  private listeningOn: number | undefined;
  /** `Host` exactly as a request to this listener carries it. */
  private ownHost = '';

  /** The URL VS Code connects to (undefined until listening). */
  get url(): string | undefined {
    return this.port === undefined ? undefined : `http://127.0.0.1:${this.port}${GATEWAY_HTTP_PATH}`;
  }

  /** HTTP requests being answered now (open event streams included). */
  get requests(): number {
    return this.active;
  }

  /** MCP sessions open now. */
  get connections(): number {
    return this.sessions.size;
  }

  /** Starts listening on 127.0.0.1 and a port the system picks. */
  listen(): Promise<void> {
    if (this.server) return Promise.resolve();
    return this.starting ??= this.start().finally(() => { this.starting = undefined; });
  }

  private async start(): Promise<void> {
    const closes = this.closes;
    const server = http.createServer({ headersTimeout: GATEWAY_HTTP_HEADERS_TIMEOUT_MS, requestTimeout: 0 }, (req, res) => { void this.request(req, res); });
    server.maxConnections = GATEWAY_HTTP_MAX_SOCKETS;
    server.maxHeadersCount = 64;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => { server.off('error', reject); resolve(); });
    });
    if (closes !== this.closes) { server.close(); return; }
    server.on('error', e => this.o.log?.(`MCP Host gateway: the HTTP listener failed: ${e.message}`));
    server.on('clientError', (_e, socket) => socket.destroy());
    this.server = server;
    this.listeningOn = (server.address() as AddressInfo).port;
    this.ownHost = `127.0.0.1:${this.listeningOn}`;
    const every = Math.max(50, Math.min(60_000, Math.floor(this.idleMs / 4)));
    this.sweep = setInterval(() => this.dropIdle(), every);
    this.sweep.unref?.();
  }

  /** Ends every session and stops listening. */
  close(): void {
    this.closes++;
    clearInterval(this.sweep);
    this.sweep = undefined;
    for (const e of [...this.sessions.values()]) void e.session.close().catch(() => undefined);
    this.sessions.clear();
    this.server?.close();
    this.server?.closeAllConnections();
    this.server = undefined;
  }

  private dropIdle(): void {
    const now = Date.now();
    for (const [id, e] of this.sessions) {
      if (e.open === 0 && now - e.last >= this.idleMs) {
        this.sessions.delete(id);
        void e.session.close().catch(() => undefined);
      }
    }
  }

  /** Answers without reading the body, and closes the connection. */
  private refuse(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers });
    res.end(body);
  }

  private async request(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (this.port === undefined) { this.refuse(res, 503, 'MCP Host gateway: not listening'); return; }
    if (req.headers.host !== this.ownHost) {
      this.refused.host++;
      this.refuse(res, 403, 'MCP Host gateway: refused (the Host header must be this listener\'s own 127.0.0.1 address)');
      return;
    }
    if (req.headers.origin !== undefined) {
      this.refused.origin++;
      this.refuse(res, 403, 'MCP Host gateway: refused (requests from web pages are not served)');
      return;
    }
    const secret = this.o.secret();
    const auth = req.headers.authorization;
    const given = typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
    // Compared even without a secret (to the empty string), so the time says nothing either way.
    if (!secretsEqual(given, secret ?? '') || !secret || !given) {
      this.refused.secret++;
      this.refuse(res, 403, 'MCP Host gateway: refused (this window\'s secret is missing or wrong; VS Code gets it from MCP Host when it starts the "MCP Host" server)');
      return;
    }
    if ((req.url ?? '').split('?')[0] !== GATEWAY_HTTP_PATH) { this.refuse(res, 404, `MCP Host gateway: not found (the gateway answers ${GATEWAY_HTTP_PATH})`); return; }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') { this.refuse(res, 405, 'MCP Host gateway: method not allowed', { allow: 'GET, POST, DELETE' }); return; }
    const length = Number(req.headers['content-length']);
    if (Number.isFinite(length) && length > this.maxBody) {
      this.refused.size++;
      this.refuse(res, 413, `MCP Host gateway: a message over ${this.maxBody} bytes (the gateway's own cap, the default of every server's message-size limit) is not read`);
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      const bytes = await this.readBody(req);
      if (!bytes) {
        this.refused.size++;
        this.refuse(res, 413, `MCP Host gateway: a message over ${this.maxBody} bytes (the gateway's own cap, the default of every server's message-size limit) is not read`);
        return;
      }
      try {
        body = parseJson(bytes.toString('utf8'));
      } catch {
        this.refuse(res, 400, 'MCP Host gateway: the body is not JSON');
        return;
      }
    }
    // What holds an answer open: a request (one, or a batch) or the event stream (GET).
    const holds = req.method === 'GET' || Array.isArray(body) || (!!body && typeof body === 'object' && typeof (body as { method?: unknown }).method === 'string' && (body as { id?: unknown }).id !== undefined);
    if (holds && this.active >= this.maxRequests) {
      this.refused.busy++;
      this.refuse(res, 503, `MCP Host gateway: ${this.maxRequests} requests are already being answered; try again when one has finished`, { 'retry-after': '1' });
      return;
    }
    const header = req.headers['mcp-session-id'];
    const id = typeof header === 'string' ? header : undefined;
    if (holds) this.active++;
    try {
      if (id !== undefined) await this.inSession(id, req, res, body);
      else await this.newSession(req, res, body);
    } catch (e) {
      this.o.log?.(`MCP Host gateway: a request failed (${e instanceof Error ? e.message : String(e)})`);
      if (!res.headersSent) this.refuse(res, 500, 'MCP Host gateway: internal error');
      else res.destroy();
    } finally {
      if (holds) this.active--;
    }
  }

  /** The body, or undefined past the cap (reading stops there and the connection is closed after the answer). */
  private readBody(req: http.IncomingMessage): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const over = () => { req.off('data', data); req.pause(); resolve(undefined); };
      const data = (c: Buffer) => {
        size += c.length;
        if (size > this.maxBody) { over(); return; }
        chunks.push(c);
      };
      req.on('data', data);
      req.once('end', () => resolve(Buffer.concat(chunks, size)));
      req.once('error', reject);
      req.once('close', () => resolve(size > this.maxBody ? undefined : Buffer.concat(chunks)));
    });
  }

  private async inSession(id: string, req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    const e = this.sessions.get(id);
    if (!e) { this.refuse(res, 404, 'MCP Host gateway: session not found (it ended; start a new one)'); return; }
    e.open++;
    e.last = Date.now();
    try {
      await e.session.handle(req, res, body);
    } finally {
      e.open--;
      e.last = Date.now();
    }
    if (req.method === 'DELETE' && res.statusCode < 300 && this.sessions.get(id) === e) {
      this.sessions.delete(id);
      await e.session.close().catch(() => undefined);
    }
  }

  private async newSession(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    if (req.method !== 'POST') { this.refuse(res, 400, 'MCP Host gateway: no session (send initialize first)'); return; }
    if (this.sessions.size + this.creating >= this.maxSessions && !this.evictIdle()) {
      this.refused.busy++;
      this.refuse(res, 503, `MCP Host gateway: ${this.maxSessions} sessions are open already; try again when one has ended`, { 'retry-after': '1' });
      return;
    }
    this.creating++;
    let session: GatewayHttpSession | undefined;
    try {
      session = await this.o.newSession(this.maxBody);
      await session.handle(req, res, body);
    } finally {
      this.creating--;
    }
    const id = session.sessionId;
    if (id && this.server && !this.sessions.has(id)) this.sessions.set(id, { session, open: 0, last: Date.now() });
    else await session.close().catch(() => undefined);
  }

  /** Drops the session idle longest (no open request) to make room; false when every session is in use. */
  private evictIdle(): boolean {
    let oldest: [string, Entry] | undefined;
    for (const kv of this.sessions) if (kv[1].open === 0 && (!oldest || kv[1].last < oldest[1].last)) oldest = kv;
    if (!oldest) return false;
    this.sessions.delete(oldest[0]);
    void oldest[1].session.close().catch(() => undefined);
    return true;
  }
}
