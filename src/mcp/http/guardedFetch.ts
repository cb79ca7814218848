/**
 * The one `fetch` every HTTP request for a server goes through (the transports' POSTs and GET stream,
 * and the OAuth flow's discovery, registration and token requests). SDK-agnostic: it sees only URLs,
 * RequestInit, Responses and the JSON-RPC messages in the bodies it carries.
 *
 * - Isolated: every request gets its own AbortSignal (as createIsolatedFetch did); the caller's signal
 *   (SDK v2: one per request, from the session's and the request's) aborts that request only, through
 *   a listener removed once the request's body is read, so a cancelled or timed-out call never takes
 *   the other calls in flight with it.
 * - Origins: the headers configured for the server (`headers` in its definition) go only to the
 *   origin of the server's `url`. A request anywhere else (a `resource_metadata` URL or an authorization
 *   server named by a 401, a legacy SSE `endpoint`, a redirect target) is sent without them, and without
 *   a Bearer token. Redirects are followed by hand and only within the request's origin; any other
 *   redirect is handed back unfollowed (the caller reports it).
 * - Bounded: bodies are counted while they are read. A JSON (or any non-SSE) body over
 *   `maxMessageBytes`, or one SSE event over it, aborts the read and fails with the limit message. SSE
 *   is passed on one complete event at a time, so a cut never leaves a half event behind.
 * - Requests fail fast: when a POST's SSE stream is dropped, cut by the cap, or ends without answering
 *   (and without an event id to resume from), each request in that POST not yet answered gets a JSON-RPC
 *   error response on the stream before it closes; the same for requests whose answers were to come on
 *   the GET stream (legacy SSE: POST answered 202). A `notifications/cancelled` for a request (sent on
 *   cancellation and timeout) aborts that request's body read.
 *
 * This file is the request side (origins, redirects, per-request signals); the bodies it hands back are read in
 * responseBodies.ts.
 */
import { McpHostError } from '../errors';
import type { FetchLike } from './fetch';
import { cappedBody, heldJsonBody, HeldResponse, jsonRpcMessages, keyOf, sseBody, type JsonRpcId, type Watch } from './responseBodies';
import * as l10n from '@vscode/l10n';

/** What the guard needs to know about the server, read at each request (the definition can change). */
export interface GuardContext {
  /** The server's name, for messages. */
  server: string;
  /** The server's URL: its origin is the only one that gets `headers`. */
  url: string;
  /** The headers configured for the server. */
  headers?: Record<string, string>;
  /** Largest JSON body or single SSE event read (Limits.maxMessageBytes). */
  maxMessageBytes: number;
}

const MAX_REDIRECTS = 10;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export function createGuardedFetch(context: () => GuardContext, base: FetchLike = (u, i) => fetch(u, i)): FetchLike {
  /** In-flight requests by JSON-RPC id, so a `notifications/cancelled` can abort its body read. */
  const inFlight = new Map<string, AbortController>();
  /** Requests POSTed and answered 202: their responses come on the GET stream (legacy SSE). */
  const accepted: Watch = { ids: new Map() };
  /** The origin of the last `ctx.url` seen (parsed again only when the definition's URL changes). */
  let originFor = { url: '', origin: 'null' };

  return async (input, init) => {
    const ctx = context();
    // The SDK passes a URL; it is only read here (fetchWithinOrigin makes new ones for redirects).
    const url = input instanceof URL ? input : new URL(String(input));
    if (originFor.url !== ctx.url) originFor = { url: ctx.url, origin: originOf(ctx.url) };
    const serverOrigin = originFor.origin;
    const method = (init?.method ?? 'GET').toUpperCase();
    const messages = method === 'POST' ? jsonRpcMessages(init?.body) : [];
    const requestIds: JsonRpcId[] = [];
    for (const m of messages) {
      if (m.method !== undefined && m.id !== undefined && m.id !== null) requestIds.push(m.id as JsonRpcId);
      if (m.method === 'notifications/cancelled') {
        const id = (m.params as { requestId?: JsonRpcId } | undefined)?.requestId;
        if (id === undefined) continue;
        accepted.ids.delete(keyOf(id));
        inFlight.get(keyOf(id))?.abort(new McpHostError(l10n.t('server `{0}`: request {1} was cancelled', ctx.server, String(id))));
      }
    }

    // Each request gets its own controller. The caller's signal (SDK v2: one per request, the session's
    // and the request's combined) aborts this request only; its listener goes once the body is read.
    const caller = init?.signal ?? undefined;
    if (caller?.aborted) throw caller.reason ?? new DOMException('aborted', 'AbortError');
    const own = new AbortController();
    const signal = own.signal;
    const onAbort = caller && (() => own.abort(caller.reason));
    if (onAbort) caller.addEventListener('abort', onAbort, { once: true });
    const keys = requestIds.map(keyOf);
    for (const k of keys) inFlight.set(k, own);
    const forget = () => {
      if (onAbort) caller.removeEventListener('abort', onAbort);
      for (const k of keys) if (inFlight.get(k) === own) inFlight.delete(k);
    };

    let response: Response;
    try {
      response = await fetchWithinOrigin(base, url, init ?? {}, signal, ctx, serverOrigin);
    } catch (err) {
      forget();
      throw err;
    }
    // Accepted, answer to come on the GET stream (legacy SSE): watched there.
    if (response.status === 202 && method === 'POST') requestIds.forEach((id, i) => accepted.ids.set(keys[i], id));
    if (!response.body || response.status === 204 || response.status === 304) {
      forget();
      return response;
    }
    const contentType = (response.headers.get('content-type') ?? '').toLowerCase();
    const isSse = contentType.includes('text/event-stream');
    const isJson = contentType.includes('application/json');
    const watch: Watch | undefined = isSse
      ? (method === 'POST' ? { ids: new Map(requestIds.map((id, i) => [keys[i], id])) } : method === 'GET' ? accepted : undefined)
      : undefined;
    const init2 = { status: response.status, statusText: response.statusText, headers: response.headers };
    // A JSON answer to requests is read whole here (the SDK parses it whole anyway), then handed on as bytes: no
    // stream of ours between the socket and the SDK on the path every call takes.
    if (!isSse && isJson && requestIds.length > 0) return new HeldResponse(await heldJsonBody(response.body, ctx, own, forget), init2);
    const body = isSse
      ? sseBody(response.body, ctx, own, signal, watch, method === 'POST', forget)
      : cappedBody(response.body, ctx, own, forget);
    return new Response(body, init2);
  };
}

/** Sends `init` to `url` on `signal` (not init's), following redirects only while they stay within the request's origin. */
async function fetchWithinOrigin(base: FetchLike, url: URL, init: RequestInit, signal: AbortSignal, ctx: GuardContext, serverOrigin: string): Promise<Response> {
  const follow = init.redirect === undefined || init.redirect === 'follow';
  const start = url.origin;
  let target = url;
  let current: RequestInit = init;
  for (let hop = 0; ; hop++) {
    // Same origin: the caller's headers as they are (nothing to take out, no copy).
    const headers = target.origin === serverOrigin ? current.headers : headersFor(target, current.headers, ctx, serverOrigin);
    const response = await base(target, { ...current, headers, signal, redirect: follow ? 'manual' : init.redirect });
    if (!follow || !REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers.get('location');
    let next: URL | undefined;
    try { next = location ? new URL(location, target) : undefined; } catch { next = undefined; }
    // Another origin, another scheme, new credentials or too many hops: the caller gets the redirect as is.
    if (!next || next.origin !== start || next.username || next.password || hop >= MAX_REDIRECTS) return response;
    await response.body?.cancel().catch(() => undefined);
    const toGet = response.status === 303 || ((response.status === 301 || response.status === 302) && (current.method ?? 'GET').toUpperCase() === 'POST');
    current = toGet ? { ...current, method: 'GET', body: undefined } : current;
    target = next;
  }
}

/** The request's headers, without the server's configured ones (and a Bearer token) when `target` is another origin. */
export function headersFor(target: URL, headers: HeadersInit | undefined, ctx: Pick<GuardContext, 'headers'>, serverOrigin: string): Headers {
  const out = new Headers(headers);
  if (target.origin === serverOrigin) return out;
  for (const name of Object.keys(ctx.headers ?? {})) out.delete(name);
  if (/^bearer\s/i.test(out.get('authorization') ?? '')) out.delete('authorization');
  return out;
}

function originOf(u: string): string {
  try { return new URL(u).origin; } catch { return 'null'; }
}
