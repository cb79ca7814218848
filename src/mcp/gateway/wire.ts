/**
 * The private channel between the gateway process (`dist/gateway.js`, started by VS Code's MCP support) and the
 * running extension: newline-delimited JSON over a Unix socket in a folder only the user can open (0700), or a named
 * pipe with a random name on Windows. The gateway's first line is a hello carrying the per-window secret; the
 * extension answers `{"mcpHostGateway":1,"ok":true}` or closes. After that every line is one MCP message.
 * Both ends bound what they read (a line cap enforced while reading) and how many requests may wait for an answer.
 * No SDK here: the gateway process bundles only this and the line framer.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_LIMITS } from '../limits';

/** The variables VS Code's MCP passes the gateway process (from the resolved server definition). */
export const GATEWAY_ENV = { socket: 'MCP_HOST_GATEWAY_SOCKET', secret: 'MCP_HOST_GATEWAY_SECRET' } as const;
/** Protocol version of the hello. */
export const GATEWAY_WIRE_VERSION = 1;
/** The hello line is at most this long; a longer one is refused. */
export const GATEWAY_HELLO_MAX_BYTES = 1024;
/** A connection that sends no hello within this time is closed. */
export const GATEWAY_HELLO_TIMEOUT_MS = 5_000;
/** Longest MCP message on the channel, either way: the host's own default message cap (`maxMessageBytes`). */
export const GATEWAY_MAX_MESSAGE_BYTES = DEFAULT_LIMITS.maxMessageBytes;
/** Requests from VS Code that may wait for an answer at once; more are answered with an error at once. */
export const GATEWAY_MAX_PENDING = 64;
/** Authenticated connections at once (one per chat window that started the gateway; restarts overlap briefly). */
export const GATEWAY_MAX_CONNECTIONS = 8;
/** Connections still saying hello at once. */
export const GATEWAY_MAX_HANDSHAKES = 16;
/** JSON-RPC error code of the answers the channel makes up itself. */
export const GATEWAY_ERROR_CODE = -32000;

/** A fresh per-window secret (256 bits). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison of two secrets of any length (compares their SHA-256 digests). */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** The hello line the gateway sends. */
export function helloLine(secret: string): string {
  return `${JSON.stringify({ mcpHostGateway: GATEWAY_WIRE_VERSION, secret })}\n`;
}

/** The secret in a hello line, or undefined when the line is not a hello of this version. */
export function parseHello(line: Buffer): string | undefined {
  if (line.length > GATEWAY_HELLO_MAX_BYTES) return undefined;
  try {
    const v = JSON.parse(line.toString('utf8')) as unknown;
    if (!v || typeof v !== 'object') return undefined;
    const o = v as Record<string, unknown>;
    return o.mcpHostGateway === GATEWAY_WIRE_VERSION && typeof o.secret === 'string' ? o.secret : undefined;
  } catch {
    return undefined;
  }
}

/** The extension's answer to an accepted hello. */
export const HELLO_OK = `${JSON.stringify({ mcpHostGateway: GATEWAY_WIRE_VERSION, ok: true })}\n`;

/** A private place to listen: a 0700 folder of its own with the socket inside, or a random named pipe on Windows. */
export interface PrivateEndpoint {
  /** What `net.createServer().listen` and `net.connect` take. */
  readonly path: string;
  /** Removes the folder (after the server closed). */
  dispose(): void;
}

/** Creates the endpoint; throws when the folder would not be private (then nothing listens). */
export function privateEndpoint(): PrivateEndpoint {
  if (process.platform === 'win32') {
    return { path: `\\\\.\\pipe\\mcp-host-gateway-${randomBytes(16).toString('hex')}`, dispose: () => undefined };
  }
  // A short base: a Unix socket path is limited to ~104 bytes (macOS) and os.tmpdir() may be long there.
  const base = process.platform === 'darwin' && os.tmpdir().length > 60 ? '/tmp' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'mcp-host-gw-'));
  fs.chmodSync(dir, 0o700);
  const st = fs.lstatSync(dir);
  if (!st.isDirectory() || (st.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && st.uid !== process.getuid())) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`MCP Host gateway: ${dir} is not a private folder; not listening`);
  }
  return { path: path.join(dir, 'gateway.sock'), dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * What one line of JSON-RPC is, as far as the bounds care: a request (id + method), a response (id, no method), a
 * cancellation (`notifications/cancelled`: the request it names gets no answer), something else, or not JSON-RPC.
 * `id` is the JSON text of the request id.
 */
export function classify(line: Buffer | string): { kind: 'request' | 'response' | 'cancelled'; id: string } | { kind: 'other' } | { kind: 'invalid' } {
  let v: unknown;
  try { v = JSON.parse(typeof line === 'string' ? line : line.toString('utf8')); } catch { return { kind: 'invalid' }; }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { kind: 'invalid' };
  const o = v as Record<string, unknown>;
  const isId = (x: unknown) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x));
  if (o.method === 'notifications/cancelled' && o.params && typeof o.params === 'object') {
    const id = (o.params as Record<string, unknown>).requestId;
    return isId(id) ? { kind: 'cancelled', id: JSON.stringify(id) } : { kind: 'other' };
  }
  if (!isId(o.id)) return { kind: 'other' };
  return { kind: typeof o.method === 'string' ? 'request' : 'response', id: JSON.stringify(o.id) };
}

/** Variables the gateway process keeps from the extension host's environment (Windows needs SystemRoot to run Node). */
export const GATEWAY_KEPT_ENV: readonly string[] = ['SYSTEMROOT'];

/**
 * The gateway's environment as a change over `base` (VS Code merges a definition's env over the extension host's
 * own, `null` removing a variable): every variable removed except {@link GATEWAY_KEPT_ENV}, then Node mode for the
 * editor's binary (`ELECTRON_RUN_AS_NODE`) and `extra` (the channel's two variables).
 */
export function minimalEnv(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}): Record<string, string | null> {
  const env: Record<string, string | null> = {};
  for (const k of Object.keys(base)) if (!GATEWAY_KEPT_ENV.includes(k.toUpperCase())) env[k] = null;
  return { ...env, ELECTRON_RUN_AS_NODE: '1', ...extra };
}

/** The JSON-RPC error answer the channel makes up for a request it will not pass on. */
export function errorLine(idKey: string, message: string): string {
  return `{"jsonrpc":"2.0","id":${idKey},"error":{"code":${GATEWAY_ERROR_CODE},"message":${JSON.stringify(message)}}}\n`;
}

/** Requests waiting for an answer, bounded: `admit` says whether one more may wait. */
export class PendingBound {
  private readonly ids = new Set<string>();
  constructor(readonly max = GATEWAY_MAX_PENDING) {}
  get size(): number { return this.ids.size; }
  /** True (and counted) when the request may go on; false when `max` are already waiting. */
  admit(idKey: string): boolean {
    if (this.ids.has(idKey)) return true;
    if (this.ids.size >= this.max) return false;
    this.ids.add(idKey);
    return true;
  }
  settle(idKey: string): void { this.ids.delete(idKey); }
  clear(): void { this.ids.clear(); }
}

/** The message for a request refused because too many wait. */
export function tooManyPendingMessage(max: number): string {
  return `MCP Host gateway: ${max} requests are already waiting for an answer; try again when one has finished`;
}
