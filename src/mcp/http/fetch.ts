/**
 * A `fetch` for the SDK's HTTP transports that gives every request its own AbortSignal.
 *
 * The SDK passes one long-lived AbortController's signal to every POST of a session; Node's fetch
 * adds an abort listener to it per request, so after a few thousand requests the process warns
 * (MaxListenersExceededWarning) and holds memory. Here each request gets a fresh controller; the
 * shared signal gets exactly one listener, which aborts whatever is still in flight.
 */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

export function createIsolatedFetch(base: FetchLike = (u, i) => fetch(u, i)): FetchLike {
  const inFlight = new Set<AbortController>();
  const watched = new WeakSet<AbortSignal>();

  return async (url, init) => {
    const shared = init?.signal ?? undefined;
    if (shared?.aborted) throw shared.reason ?? new DOMException('aborted', 'AbortError');
    if (shared && !watched.has(shared)) {
      watched.add(shared);
      shared.addEventListener('abort', () => {
        for (const c of inFlight) c.abort(shared.reason);
        inFlight.clear();
      }, { once: true });
    }
    const own = new AbortController();
    inFlight.add(own);
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.signal });
    } catch (err) {
      inFlight.delete(own);
      throw err;
    }
    const type = response.headers.get('content-type') ?? '';
    // A streamed body (SSE) stays abortable until the session closes; anything else is read at once.
    if (!type.includes('text/event-stream') || !response.body) {
      inFlight.delete(own);
    } else {
      // Forget the controller when the stream ends on its own.
      const body = response.body;
      const reader = body.getReader();
      const stream = new ReadableStream<Uint8Array>({
        async pull(ctrl) {
          try {
            const { done, value } = await reader.read();
            if (done) { inFlight.delete(own); ctrl.close(); } else ctrl.enqueue(value);
          } catch (err) {
            inFlight.delete(own);
            ctrl.error(err);
          }
        },
        cancel(reason) {
          inFlight.delete(own);
          return reader.cancel(reason);
        },
      });
      response = new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    return response;
  };
}
