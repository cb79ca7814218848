/**
 * The MCP Apps bridge's transport inside the extension host: JSON-RPC messages to and from the view travel as
 * JSON text over the webview's message channel (the webview page relays them to and from the sandboxed frame
 * that runs the view). The view is untrusted and bounded like a server (docs/SECURITY.md, Threat model: "Every requester is
 * bounded"; caps in src/mcp/limits.ts VIEW_LIMITS): a message larger than the cap or not JSON-RPC is dropped with a
 * log line; messages and characters per second are budgeted (over the budget they are dropped, with one log line
 * per burst); at most `maxPendingViewRequests` requests of the view wait for an answer, and more (or a request
 * reusing a pending id) are refused at once with a JSON-RPC error; closing settles what waits.
 * The page relays a message in parts (`viewPartChars` each) and keeps at most `maxViewCharsInFlight` characters
 * unacknowledged: each part is charged to the budget here when it arrives, then acknowledged (one `ack` a turn), so
 * the extension host takes in a bounded amount of a view's text at a time however fast the view sends. Parts are
 * put together one message at a time, in order, never beyond the message cap; a part out of order ends that message.
 * A message of several parts is encoded, parsed (the stdio transport's sliced parser) and handed on in steps of a few
 * milliseconds, each in a turn of its own (H150): no turn holds the thread for a whole message.
 */
import { parseJSONRPCMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { RateBudget, VIEW_LIMITS, viewLimitMessage, PARSE_SLICE_MS, SlicedJsonParser, parseJson } from '../../mcp';

/** A larger message from a view is dropped. */
export const MAX_VIEW_MESSAGE_CHARS = 4 * 1024 * 1024;
/** The JSON-RPC error code of a request refused because the view has too many pending. */
export const VIEW_BUSY_CODE = -32000;

/** What the transport needs of the webview (a WebviewPanel's `webview`, or a test double). */
export interface ViewChannel {
  postMessage(message: unknown): Thenable<boolean>;
}

type Id = string | number;
const idKey = (id: Id) => `${typeof id}:${id}`;

export class ViewTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  /** Responses the host's own requests-as-the-view wait for (tests: `AppView.asView`). */
  private readonly waiting = new Map<string, (message: JSONRPCMessage) => void>();
  private nextId = 0;
  /** Requests of the view the bridge has not answered yet. */
  private readonly pending = new Set<string>();
  private readonly messages: RateBudget;
  private readonly chars: RateBudget;
  /** A burst of drops or refusals is logged once; the next line comes after a message passed again. */
  private droppingSaid = false;
  private refusingSaid = false;
  /** Counts for tests and the log. */
  readonly counts = { received: 0, receivedChars: 0, dropped: 0, refused: 0 };
  /** The message being put together from its parts: its id, the parts so far, and whether it is already dropped. */
  private assembling?: { id: number; parts: string[]; next: number; count: number; chars: number; dropped: boolean };
  /** Characters handled since the last acknowledgement, and whether one is scheduled. */
  private unacked = 0;
  private ackScheduled = false;

  /** `now` (milliseconds) is the rate budgets' clock: replaceable for tests. */
  constructor(private readonly channel: ViewChannel, private readonly log: (message: string) => void, private readonly who = 'the view', now?: () => number) {
    this.messages = new RateBudget(VIEW_LIMITS.maxViewMessagesPerSecond, now);
    this.chars = new RateBudget(VIEW_LIMITS.maxViewCharsPerSecond, now);
  }

  async start(): Promise<void> { /* the channel exists already */ }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const id = 'id' in message && !('method' in message) ? message.id as Id : undefined;
    if (id !== undefined && id !== null) this.pending.delete(idKey(id));
    const waiter = id !== undefined ? this.waiting.get(String(id)) : undefined;
    if (waiter && id !== undefined) { this.waiting.delete(String(id)); waiter(message); return; }
    await this.channel.postMessage({ type: 'app', text: serializeMessage(message).trimEnd() });
  }

  /**
   * One part of a message from the view, as the page relays it (`{ type: 'app', text, id, part, parts }`; a message
   * without `parts` is whole). Charged to the budgets and acknowledged to the page whatever becomes of it.
   */
  receivePart(m: Record<string, unknown>): void {
    if (this.closed) return;
    const text = m.text;
    const chars = typeof text === 'string' ? text.length : 0;
    this.acknowledge(Math.min(chars, VIEW_LIMITS.viewPartChars));
    if (m.parts === undefined) return this.receive(text);
    const { id, part, parts } = m;
    const maxParts = Math.ceil(MAX_VIEW_MESSAGE_CHARS / VIEW_LIMITS.viewPartChars);
    if (typeof text !== 'string' || chars > VIEW_LIMITS.viewPartChars || typeof id !== 'number' || typeof part !== 'number' || typeof parts !== 'number'
      || !Number.isInteger(part) || !Number.isInteger(parts) || parts < 1 || parts > maxParts || part < 0 || part >= parts) {
      this.assembling = undefined;
      return this.log(`${this.who}: its page relayed a part of a message that is not well formed; dropped`);
    }
    let a = this.assembling;
    if (part === 0) {
      if (a && !a.dropped) this.log(`${this.who}: a message it sent in parts was not complete when the next began; dropped`);
      // The message is charged once, when it begins; its characters as they arrive.
      a = this.assembling = { id, parts: [], next: 0, count: parts, chars: 0, dropped: false };
      if (!this.messages.take(1)) { a.dropped = true; this.drop('maxViewMessagesPerSecond'); }
    }
    if (!a || a.id !== id || a.next !== part || a.count !== parts) {
      this.assembling = undefined;
      return this.log(`${this.who}: its page relayed the parts of a message out of order; dropped`);
    }
    a.next++;
    a.chars += chars;
    if (!a.dropped && !this.chars.take(chars)) { a.dropped = true; this.drop('maxViewCharsPerSecond'); }
    if (!a.dropped && a.chars > MAX_VIEW_MESSAGE_CHARS) { a.dropped = true; this.log(`${this.who} sent a message of more than ${MAX_VIEW_MESSAGE_CHARS} characters; dropped`); }
    if (!a.dropped) a.parts.push(text);
    if (a.next < a.count) return;
    this.assembling = undefined;
    if (a.dropped) return;
    if (a.count === 1) {
      const text = a.parts[0];
      if (this.draining) this.later(() => this.accept(text)); else this.accept(text);
      return;
    }
    // A message of several parts: put together, parsed and handled in steps, each in a turn of its own and each
    // bounded in time whatever the message's size (H150), so no turn of the extension host holds the thread for
    // the whole message; the view's later messages wait behind it, in order.
    const pieces = a.parts;
    this.later(() => this.assemble(pieces));
  }

  /**
   * A message of several parts, in steps of at most PARSE_SLICE_MS each (the parser's slice, as for stdio lines; H150): its parts
   * measured, then written as UTF-8 into one buffer a few at a time (a surrogate pair split between two parts is kept
   * whole; the buffer is touched part by part, never copied whole in one turn), the bytes parsed by the sliced parser,
   * then checked as JSON-RPC and handed on in turns of their own. The value is exactly what `JSON.parse` gives for the
   * joined text; text that is not well-formed UTF-16 (no page sends it: `JSON.stringify` escapes lone surrogates)
   * takes the one-turn path, which keeps it exact.
   */
  private assemble(pieces: string[]): void {
    let chars = 0;
    let total = 0;
    let i = 0;
    // Each part's text, a surrogate pair cut by the page's slicing moved whole into the part that began it.
    const fix = (k: number): string => {
      let piece = pieces[k];
      if (k < pieces.length - 1) {
        const last = piece.charCodeAt(piece.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) { pieces[k] = piece = piece + pieces[k + 1].slice(0, 1); pieces[k + 1] = pieces[k + 1].slice(1); }
      }
      return piece;
    };
    const measure = () => {
      const deadline = performance.now() + PARSE_SLICE_MS;
      for (; i < pieces.length && performance.now() < deadline; i++) {
        const piece = fix(i);
        if (!(piece as unknown as { isWellFormed(): boolean }).isWellFormed()) {
          const text = pieces.join('');
          return this.later(() => this.accept(text, true), true);
        }
        chars += piece.length;
        total += Buffer.byteLength(piece, 'utf8');
      }
      if (i < pieces.length) return this.later(measure, true);
      const buf = Buffer.allocUnsafe(total);
      let at = 0;
      i = 0;
      const write = () => {
        const deadline = performance.now() + PARSE_SLICE_MS;
        for (; i < pieces.length && performance.now() < deadline; i++) at += buf.write(pieces[i], at, 'utf8');
        if (i < pieces.length) return this.later(write, true);
        pieces.length = 0;
        const parser = new SlicedJsonParser(buf);
        const parse = () => {
          let done: boolean;
          try {
            done = parser.step(performance.now() + PARSE_SLICE_MS);
          } catch (err) {
            return this.notJson(chars, err);
          }
          if (!done) return this.later(parse, true);
          this.later(() => this.acceptValue(chars, parser.value, true), true);
        };
        this.later(parse, true);
      };
      this.later(write, true);
    };
    measure();
  }

  /** Work of this view's messages waiting for their turn, in order (`receive` and whole messages too wait behind it). */
  private backlog: (() => void)[] = [];
  private draining = false;

  /** Runs `step` in a later turn, after every step queued before it (`first`: before them, the rest of the step running). */
  private later(step: () => void, first = false): void {
    if (first) this.backlog.unshift(step); else this.backlog.push(step);
    if (this.draining) return;
    this.draining = true;
    const next = () => setImmediate(() => {
      const s = this.backlog.shift();
      if (s && !this.closed) s();
      if (this.backlog.length && !this.closed) next();
      else { this.draining = false; this.backlog = []; }
    });
    next();
  }

  /** Tells the page how many characters were handled (one message a turn, however many parts came in it). */
  private acknowledge(chars: number): void {
    this.unacked += chars;
    if (this.ackScheduled) return;
    this.ackScheduled = true;
    setImmediate(() => {
      this.ackScheduled = false;
      const n = this.unacked;
      this.unacked = 0;
      if (!this.closed) void Promise.resolve(this.channel.postMessage({ type: 'ack', chars: n })).catch(() => undefined);
    });
  }

  /** A whole message from the view (the `text` the webview page relayed, or the test's `asView`). */
  receive(text: unknown): void {
    if (this.closed) return;
    if (typeof text !== 'string') return this.log(`${this.who} sent a message that is not text; dropped`);
    if (text.length > MAX_VIEW_MESSAGE_CHARS) return this.log(`${this.who} sent a message of ${text.length} characters (over ${MAX_VIEW_MESSAGE_CHARS}); dropped`);
    if (!this.messages.take(1)) return this.drop('maxViewMessagesPerSecond');
    if (!this.chars.take(text.length)) return this.drop('maxViewCharsPerSecond');
    // Behind a message of several parts still on its way: in order.
    if (this.draining) this.later(() => this.accept(text));
    else this.accept(text);
  }

  /**
   * A message within the caps and budgets: parsed, its request counted as pending (or refused), handed to the bridge.
   * `split`: the handling waits for another turn after the parse (a large message).
   */
  private accept(text: string, split = false): void {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (err) {
      return this.notJson(text.length, err);
    }
    this.acceptValue(text.length, value, split);
  }

  /** A message the view sent that is not JSON: counted as received, dropped with a log line. */
  private notJson(chars: number, err: unknown): void {
    this.droppingSaid = false;
    this.counts.received++;
    this.counts.receivedChars += chars;
    this.log(`${this.who} sent a message that is not JSON-RPC (${err instanceof Error ? err.message.slice(0, 200) : 'unreadable'}); dropped`);
  }

  /** A parsed message of `chars` characters: checked as JSON-RPC, its request counted as pending (or refused), handed on. */
  private acceptValue(chars: number, value: unknown, split: boolean): void {
    this.droppingSaid = false;
    this.counts.received++;
    this.counts.receivedChars += chars;
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch (err) {
      this.log(`${this.who} sent a message that is not JSON-RPC (${err instanceof Error ? err.message.slice(0, 200) : 'unreadable'}); dropped`);
      return;
    }
    if ('method' in message && 'id' in message) {
      const key = idKey(message.id as Id);
      const why = this.pending.has(key) ? `${this.who} reused the id of a request still pending`
        : this.pending.size >= VIEW_LIMITS.maxPendingViewRequests ? viewLimitMessage(this.who, 'maxPendingViewRequests', `sent request "${String(message.method).slice(0, 60)}"`) : undefined;
      if (why) return this.refuse(message.id as Id, why);
      this.refusingSaid = false;
      this.pending.add(key);
    }
    if (split) this.later(() => this.onmessage?.(message), true);
    else this.onmessage?.(message);
  }

  private drop(limit: 'maxViewMessagesPerSecond' | 'maxViewCharsPerSecond'): void {
    this.counts.dropped++;
    if (this.droppingSaid) return;
    this.droppingSaid = true;
    this.log(`${viewLimitMessage(this.who, limit, 'sent messages too fast')}; dropping its messages until it slows down`);
  }

  private refuse(id: Id, why: string): void {
    this.counts.refused++;
    if (!this.refusingSaid) { this.refusingSaid = true; this.log(`${why}; refused with an error (and so are more, until one is answered)`); }
    void this.reply({ jsonrpc: '2.0', id, error: { code: VIEW_BUSY_CODE, message: why } } as JSONRPCMessage, id);
  }

  /** An answer that never passed the bridge (a refusal). */
  private async reply(message: JSONRPCMessage, id: Id): Promise<void> {
    const waiter = this.waiting.get(String(id));
    if (waiter) { this.waiting.delete(String(id)); waiter(message); return; }
    await this.channel.postMessage({ type: 'app', text: serializeMessage(message).trimEnd() });
  }

  /**
   * Sends `method` to the bridge as if the view had, and resolves the bridge's answer (never reaches the view).
   * For tests: they cannot click inside the sandboxed frame from the extension host.
   */
  asView(method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> {
    const id = `host-test-${++this.nextId}`;
    return new Promise(resolve => {
      this.waiting.set(id, resolve);
      const dropped = this.counts.dropped;
      this.receive(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      // A dropped request gets no answer (a view learns nothing); the test's promise settles with an error instead.
      if (this.counts.dropped > dropped && this.waiting.delete(id)) resolve({ jsonrpc: '2.0', id, error: { code: VIEW_BUSY_CODE, message: 'dropped: the view sent messages too fast' } } as JSONRPCMessage);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // What the tests' requests-as-the-view wait for settles too.
    for (const [id, w] of this.waiting) w({ jsonrpc: '2.0', id, error: { code: VIEW_BUSY_CODE, message: 'the view was closed' } } as JSONRPCMessage);
    this.waiting.clear();
    this.pending.clear();
    this.assembling = undefined;
    this.onclose?.();
  }
}
