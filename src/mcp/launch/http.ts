/**
 * Launching an HTTP server connection: the SDK's Streamable HTTP or (2024-11-05) SSE client transport on
 * the guarded fetch (headers stay with their origin, bodies are capped), with the server's headers and OAuth
 * provider; ending a Streamable HTTP session politely; recognising a session the server forgot.
 */
import { SSEClientTransport, StreamableHTTPClientTransport, type OAuthClientProvider, type Transport } from '@modelcontextprotocol/client';
import { McpHostError, httpStatusOf, messageOf } from '../errors';
import type { FetchLike } from '../http/fetch';
import type { HttpServerDefinition } from '../types';
import { idKey } from '../process/stdoutReader';
import * as l10n from '@vscode/l10n';

export type HttpKind = 'streamableHttp' | 'sse';

export interface ReconnectionOptions {
  initialReconnectionDelay: number;
  maxReconnectionDelay: number;
  reconnectionDelayGrowFactor: number;
  maxRetries: number;
}

export interface HttpLaunchOptions {
  name: string;
  /** The guarded fetch every request (transport and OAuth) goes through. */
  fetch: FetchLike;
  authProvider?: OAuthClientProvider;
  reconnection?: ReconnectionOptions;
  /** Only for a 2025-03-26 server whose issuer is on its own origin (oauth/legacyIssuer.ts). */
  skipIssuerMetadataValidation?: boolean;
}

const DEFAULT_RECONNECTION: ReconnectionOptions = {
  initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5,
};

/** The transport for `def`, not started (the SDK Client's connect starts it). A bad `url` is a readable error. */
export function httpTransport(def: HttpServerDefinition, kind: HttpKind, o: HttpLaunchOptions): Transport {
  let url: URL;
  try {
    url = new URL(def.url);
  } catch {
    throw new McpHostError(l10n.t('server `{0}`: `{1}` is not a valid URL; fix the server\'s `url` setting', o.name, def.url));
  }
  const requestInit: RequestInit = { headers: { ...(def.headers ?? {}) } };
  return exactResponseIds(kind === 'streamableHttp'
    ? new StreamableHTTPClientTransport(url, {
      requestInit, fetch: o.fetch, authProvider: o.authProvider, reconnectionOptions: o.reconnection ?? DEFAULT_RECONNECTION,
      ...(o.skipIssuerMetadataValidation && { skipIssuerMetadataValidation: true }),
    })
    : new SSEClientTransport(url, {
      requestInit, fetch: o.fetch, authProvider: o.authProvider, ...(o.skipIssuerMetadataValidation && { skipIssuerMetadataValidation: true }),
    }));
}

/**
 * H1 over HTTP: the SDK's Protocol looks a response up by `Number(id)`, so the string "5" would answer request 5.
 * The transport's own `send` and `onmessage` (its public Transport members, on this instance) are wrapped: the
 * ids of outgoing requests are remembered by type and value, and a response that answers none of them exactly is
 * dropped before the SDK sees it (the request then fails at its timeout, as an unanswered one does). The stdio
 * transport does the same itself (idKey).
 */
export function exactResponseIds<T extends Transport>(transport: T): T {
  const outstanding = new Set<string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as { id?: unknown; method?: unknown; params?: { requestId?: unknown } };
    if (typeof m.method === 'string' && m.id !== undefined) outstanding.add(idKey(m.id));
    else if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) outstanding.delete(idKey(m.params.requestId));
    return send(message, options);
  };
  // The SDK chains handlers (it reads `onmessage` and sets one that calls what it read): each read gets a filter
  // bound to the handler of that moment, and a message is judged once (the chain passes it through several).
  const judged = new WeakMap<object, boolean>();
  const accept = (message: object): boolean => {
    const known = judged.get(message);
    if (known !== undefined) return known;
    const m = message as { id?: unknown; method?: unknown };
    const ok = m.id === undefined || m.method !== undefined || outstanding.delete(idKey(m.id));
    judged.set(message, ok);
    return ok;
  };
  let handler: Transport['onmessage'];
  Object.defineProperty(transport, 'onmessage', {
    configurable: true, enumerable: true,
    get: (): Transport['onmessage'] => {
      const h = handler;
      return h && ((message, extra) => { if (accept(message)) h(message, extra); });
    },
    set: (fn: Transport['onmessage']) => { handler = fn; },
  });
  return transport;
}

/** Ends a Streamable HTTP session (DELETE), waiting at most `ms`; anything else is left to close(). */
export async function endHttpSession(transport: Transport, ms = 2000): Promise<void> {
  if (!(transport instanceof StreamableHTTPClientTransport)) return;
  await Promise.race([transport.terminateSession().catch(() => undefined), new Promise(r => setTimeout(r, ms).unref())]);
}

/**
 * Spec backwards compatibility: a 4xx (other than 401/403) to the first POST means a legacy SSE server.
 */
export function wantsSseFallback(err: unknown): number | undefined {
  const status = httpStatusOf(err);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403 ? status : undefined;
}

/**
 * The server no longer knows our session: 404 per the spec (H12); many servers (the reference
 * server-everything among them) answer 400 "No valid session ID" instead, after a restart.
 */
export function isSessionGone(err: unknown): boolean {
  const status = httpStatusOf(err);
  if (status === 404) return true;
  return status === 400 && /session/i.test(messageOf(err));
}
