/**
 * The bodies the one fetch (guardedFetch.ts) hands back, read within the caps: a JSON body held whole and checked
 * (HeldResponse), a capped stream, and an SSE stream scanned event by event (SseScanner) to see which requests are
 * answered, so that a dropped, cut or unanswered stream gives each request still waiting a JSON-RPC error at once.
 */
import { McpHostError } from '../errors';
import { limitMessage } from '../limits';
import type { GuardContext } from './guardedFetch';

/** SSE events up to this size are parsed to see which request they answer; bigger ones are looked at head and tail only. */
export const PARSE_EVENT_BYTES = 1024 * 1024;
/**
 * The JSON-RPC error code of the responses made up here: one of the implementation-defined server
 * errors, not -32000 (which the SDK uses for "connection closed" and would hide the message).
 */
export const STREAM_FAILED_CODE = -32099;

export type JsonRpcId = string | number;
export const keyOf = (id: JsonRpcId): string => JSON.stringify(id);

/** Requests of one session whose answers are still expected. */
export interface Watch {
  /** key → id. */
  ids: Map<string, JsonRpcId>;
}

export interface JsonRpcLike { id?: unknown; method?: string; params?: unknown; result?: unknown; error?: unknown }

/** The JSON-RPC messages in a POST body (one or a batch); [] for anything else. */
export function jsonRpcMessages(body: unknown): JsonRpcLike[] {
  if (typeof body !== 'string' || !body) return [];
  try {
    const parsed: unknown = JSON.parse(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.filter((m): m is JsonRpcLike => !!m && typeof m === 'object');
  } catch {
    return [];
  }
}

/**
 * A JSON answer to requests, read to its end and counted while read: over the cap, the read is aborted and the
 * request fails with the limit message. The whole body passes through strictResponses, so an answer that breaks
 * JSON-RPC fails its request at once instead of at the timeout.
 */
export async function heldJsonBody(source: ReadableStream<Uint8Array>, ctx: GuardContext, own: AbortController, done: () => void): Promise<Buffer> {
  const reader = source.getReader();
  const held: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      total += r.value.byteLength;
      if (total > ctx.maxMessageBytes) {
        held.length = 0;
        throw cutOff(ctx, own, reader, 'httpBody');
      }
      held.push(r.value);
    }
  } finally {
    done();
  }
  const first = held[0];
  const bytes = held.length === 1 ? Buffer.from(first.buffer, first.byteOffset, first.byteLength) : Buffer.concat(held);
  held.length = 0;
  return strictBody(bytes, ctx);
}

/**
 * A JSON answer the guard read whole, handed on as a Response whose body methods serve the held bytes: the SDK's
 * `response.json()` parses them at once instead of reading them back through a stream made of them (that second
 * stream cost about 30 µs per HTTP call, a third of the guard's cost). `body`, should anything read it, is a stream
 * of the same bytes, made then.
 */
export class HeldResponse extends Response {
  #bytes: Buffer | undefined;
  #stream: ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
  #used = false;

  constructor(bytes: Buffer, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#stream === undefined && this.#bytes !== undefined && !this.#used) {
      this.#stream = new Blob([this.#bytes as Uint8Array<ArrayBuffer>]).stream();
      this.#bytes = undefined;
    }
    return this.#stream ?? null;
  }

  override get bodyUsed(): boolean {
    return this.#used || (this.#stream?.locked ?? false);
  }

  override async json(): Promise<unknown> { return JSON.parse(utf8(await this.#take())); }
  override async text(): Promise<string> { return utf8(await this.#take()); }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.#take();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }
  override async bytes(): Promise<Uint8Array<ArrayBuffer>> { return new Uint8Array(await this.arrayBuffer()); }
  override async blob(): Promise<Blob> { return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' }); }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: the body has already been used');
    const init = { status: this.status, statusText: this.statusText, headers: this.headers };
    // Its body asked for already: the stream is split, one branch for each.
    if (this.#stream) {
      const [mine, theirs] = this.#stream.tee();
      this.#stream = mine;
      return new Response(theirs, init);
    }
    return new HeldResponse(Buffer.from(this.#bytes ?? Buffer.alloc(0)), init);
  }

  async #take(): Promise<Buffer> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: the body has already been read');
    this.#used = true;
    if (this.#stream) return Buffer.from(await new Response(this.#stream).arrayBuffer());
    const b = this.#bytes ?? Buffer.alloc(0);
    this.#bytes = undefined;
    return b;
  }
}

/** UTF-8 text as a Response's `text()` decodes it (a leading byte-order mark dropped). */
export function utf8(b: Buffer): string {
  return b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? b.toString('utf8', 3) : b.toString('utf8');
}

/** A body read past `maxMessageBytes`: the request and the read are aborted; the limit message to fail with. */
export function cutOff(ctx: GuardContext, own: AbortController, reader: ReadableStreamDefaultReader<Uint8Array>, what: 'httpBody' | 'sseEvent'): McpHostError {
  const err = new McpHostError(limitMessage(ctx.server, ctx.maxMessageBytes, { kind: what }));
  own.abort(err);
  reader.cancel(err).catch(() => undefined);
  return err;
}

/** The body as strictResponses leaves it: an answer that breaks JSON-RPC rewritten so its request fails at once. */
export function strictBody(bytes: Buffer, ctx: GuardContext): Buffer {
  // Parse again only when both words occur: the common answer passes untouched.
  if (bytes.includes('"result"') && bytes.includes('"error"')) {
    let rewrite: string | undefined;
    try { rewrite = strictResponses(JSON.parse(bytes.toString('utf8')), ctx.server); } catch { /* the SDK reports it */ }
    if (rewrite !== undefined) return Buffer.from(rewrite, 'utf8');
  }
  return bytes;
}

/** Any other non-SSE body, failing (and aborting the read) once it is over the cap. */
export function cappedBody(source: ReadableStream<Uint8Array>, ctx: GuardContext, own: AbortController, done: () => void): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) {
          done();
          controller.close();
          return;
        }
        total += r.value.byteLength;
        if (total > ctx.maxMessageBytes) {
          const err = cutOff(ctx, own, reader, 'httpBody');
          done();
          controller.error(err);
          return;
        }
        controller.enqueue(r.value);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      own.abort(reason);
      return reader.cancel(reason).catch(() => undefined);
    },
  });
}

/**
 * An SSE body passed on one complete event at a time, each event capped. When it fails or ends with
 * requests in `watch` unanswered, those get an error response first (see the file comment).
 */
export function sseBody(
  source: ReadableStream<Uint8Array>, ctx: GuardContext, own: AbortController, signal: AbortSignal,
  watch: Watch | undefined, isPost: boolean, done: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const scan = new SseScanner();
  let resumable = false;
  let finished = false;
  const finish = () => { if (!finished) { finished = true; done(); } };

  /** Answers every watched request with an error, then closes (or errors, when nothing was watched). */
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, message: string, err: unknown, ended: boolean) => {
    finish();
    const open = watch && !(isPost && resumable) ? [...watch.ids.values()] : [];
    if (!open.length) {
      if (ended) controller.close(); else controller.error(err);
      return;
    }
    watch!.ids.clear();
    const enc = new TextEncoder();
    for (const id of open) {
      controller.enqueue(enc.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: STREAM_FAILED_CODE, message } })}\n\n`));
    }
    controller.close();
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        let r: ReadableStreamReadResult<Uint8Array>;
        try {
          r = await reader.read();
        } catch (err) {
          // Closed or cancelled by us: nothing to answer (the request already has its outcome).
          if (signal.aborted) { watch?.ids.clear(); finish(); controller.error(err); return; }
          fail(controller, `server \`${ctx.server}\`: the HTTP stream was dropped before the answer came (${errText(err)})`, err, false);
          return;
        }
        if (r.done) {
          // Ended without answering: the request would wait for its timeout; answer it now (unless resumable).
          fail(controller, `server \`${ctx.server}\`: the HTTP stream ended before the answer came`, undefined, true);
          return;
        }
        const events = scan.push(r.value);
        if (scan.pendingBytes > ctx.maxMessageBytes) {
          const err = cutOff(ctx, own, reader, 'sseEvent');
          scan.reset();
          fail(controller, err.message, err, false);
          return;
        }
        if (!events.length) continue;
        for (const ev of events) {
          if (watch?.ids.size) {
            const seen = answeredBy(ev.parts, ev.bytes, ctx.server, watch.ids.keys());
            if (seen.eventId) resumable = true;
            for (const k of seen.ids) watch?.ids.delete(k);
            if (seen.rewrite !== undefined) {
              controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${seen.rewrite}\n\n`));
              continue;
            }
          }
          for (const part of ev.parts) controller.enqueue(part);
        }
        return;
      }
    },
    cancel(reason) {
      finish();
      own.abort(reason);
      return reader.cancel(reason).catch(() => undefined);
    },
  });
}

export function errText(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err instanceof Error ? err.message : String(err)}${cause}`;
}

/** Splits an SSE byte stream into complete events (ended by a blank line; LF, CR or CRLF line ends). */
export class SseScanner {
  private parts: Uint8Array[] = [];
  /** Bytes of the event being read (not yet complete). */
  pendingBytes = 0;
  private lineBytes = 0;
  private lastWasCR = false;

  /** Feeds one chunk; returns the events it completed, as the slices of input that make them up. */
  push(chunk: Uint8Array): Array<{ parts: Uint8Array[]; bytes: number }> {
    const out: Array<{ parts: Uint8Array[]; bytes: number }> = [];
    let pos = 0;
    let from = 0;
    let lf = chunk.indexOf(10);
    let cr = chunk.indexOf(13);
    const n = chunk.length;
    while (pos < n) {
      if (lf !== -1 && lf < pos) lf = chunk.indexOf(10, pos);
      if (cr !== -1 && cr < pos) cr = chunk.indexOf(13, pos);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.lineBytes += n - pos;
        this.lastWasCR = false;
        pos = n;
        break;
      }
      if (end === pos && this.lastWasCR && chunk[end] === 10) {
        // The LF of a CRLF.
        this.lastWasCR = false;
        pos = end + 1;
        continue;
      }
      const blank = end === pos && this.lineBytes === 0;
      this.lineBytes = 0;
      this.lastWasCR = chunk[end] === 13;
      pos = end + 1;
      if (blank) {
        // A CRLF blank line: take its LF into this event too.
        if (this.lastWasCR && pos < n && chunk[pos] === 10) { pos++; this.lastWasCR = false; }
        const slice = chunk.subarray(from, pos);
        this.parts.push(slice);
        const bytes = this.pendingBytes + slice.byteLength;
        out.push({ parts: this.parts, bytes });
        this.parts = [];
        this.pendingBytes = 0;
        from = pos;
      }
    }
    if (from < n) {
      const rest = chunk.subarray(from);
      this.parts.push(rest);
      this.pendingBytes += rest.byteLength;
    }
    return out;
  }

  reset(): void {
    this.parts = [];
    this.pendingBytes = 0;
  }
}

/**
 * A response that carries both `result` and `error` breaks JSON-RPC; the SDK would drop it and its request would
 * wait for the timeout. Returns the message(s) as JSON with each such response replaced by an error response
 * for the same id (naming the server), or undefined when nothing needs replacing.
 */
export function strictResponses(parsed: unknown, server: string): string | undefined {
  const list = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcLike[];
  let changed = false;
  const out = list.map(m => {
    if (!m || typeof m !== 'object' || m.method !== undefined || !('result' in m) || !('error' in m)) return m;
    if (typeof m.id !== 'string' && typeof m.id !== 'number') return m;
    changed = true;
    return { jsonrpc: '2.0', id: m.id, error: { code: STREAM_FAILED_CODE, message: `server \`${server}\` answered request ${JSON.stringify(m.id)} with both result and error, which JSON-RPC forbids` } };
  });
  if (!changed) return undefined;
  return JSON.stringify(Array.isArray(parsed) ? out : out[0]);
}

/** True when `buf` holds `"id":KEY` (KEY as JSON.stringify writes the id) not followed by more digits. */
export function hasIdField(buf: Buffer, key: string): boolean {
  const needle = `"id":${key}`;
  for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + 1)) {
    const next = buf[at + Buffer.byteLength(needle)];
    if (next === undefined || next < 0x30 || next > 0x39) return true;
  }
  return false;
}

/**
 * Which responses (by id key) an SSE event carries, whether it had an `id:` field (resumable stream), and
 * `rewrite`: the event's data to pass on instead, when a response in it breaks JSON-RPC (see strictResponses).
 */
export function answeredBy(parts: Uint8Array[], bytes: number, server: string, watched: Iterable<string>): { ids: string[]; eventId: boolean; rewrite?: string } {
  const dec = new TextDecoder();
  if (bytes <= PARSE_EVENT_BYTES) {
    // The common event: one answer, `result` or `error` (not both), with the id written as JSON.stringify writes
    // it: found by searching the bytes, without parsing the message a second time (the SDK parses it).
    const buf = parts.length === 1 ? Buffer.from(parts[0].buffer, parts[0].byteOffset, parts[0].byteLength) : Buffer.concat(parts);
    const hasResult = buf.includes('"result"');
    const otherType = buf.includes('event:') && !buf.includes('event: message\n') && !buf.includes('event:message\n');
    if (hasResult !== buf.includes('"error"') && !otherType && !buf.includes('"method"')) {
      const ids = [...watched].filter(k => hasIdField(buf, k));
      if (ids.length) return { ids, eventId: buf.indexOf('id:') === 0 || buf.includes('\nid:') || buf.includes('\rid:') };
    }
  }
  if (bytes > PARSE_EVENT_BYTES) {
    // Too big to parse twice: look for a top-level `"id"` near either end.
    const head = dec.decode(parts[0].subarray(0, 4096));
    const last = parts[parts.length - 1];
    const tail = dec.decode(last.subarray(Math.max(0, last.byteLength - 4096)));
    const ids: string[] = [];
    for (const text of [head, tail]) {
      const m = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(text);
      if (m && /"(result|error)"\s*:/.test(head + tail)) ids.push(m[1]);
    }
    return { ids, eventId: /(^|[\r\n])id:/.test(head) };
  }
  let text = '';
  for (const p of parts) text += dec.decode(p, { stream: true });
  text += dec.decode();
  let data: string[] = [];
  let type = '';
  let eventId = false;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
    else if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('id:')) eventId = true;
  }
  if (!data.length || (type && type !== 'message')) return { ids: [], eventId };
  try {
    const parsed: unknown = JSON.parse(data.join('\n'));
    data = [];
    const list = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcLike[];
    const ids = list
      .filter(m => m && typeof m === 'object' && m.method === undefined && (typeof m.id === 'string' || typeof m.id === 'number') && ('result' in m || 'error' in m))
      .map(m => keyOf(m.id as JsonRpcId));
    const rewrite = strictResponses(parsed, server);
    return { ids, eventId, ...(rewrite !== undefined && { rewrite }) };
  } catch {
    return { ids: [], eventId };
  }
}
