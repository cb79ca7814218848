/**
 * Time-sliced JSON parsing of one big line on the thread that reads it (issue 27: a big stdout line never holds
 * the extension host's thread for long). `JSON.parse` of a 50 MB line holds the thread for its whole duration;
 * this parser does the same work in steps of a few milliseconds, each handing back to the event loop:
 *
 *   1. a structural pre-pass over the bytes finds every container (object or array) of at least `chunkBytes`
 *      and where it ends (strings are skipped with `indexOf('"')` and a count of the backslashes before the
 *      quote; structural characters are ASCII and UTF-8 continuation bytes never collide with them);
 *   2. the build pass descends only into those big containers, and hands everything else to the native
 *      `JSON.parse`: runs of small array elements (or object members) up to `batchBytes` are parsed as one
 *      `[…]` (or `{…}`), and a big string literal is decoded in pieces of `pieceBytes` that never split an
 *      escape or a UTF-8 character, then joined.
 *
 * The result is the value `JSON.parse` gives for the same text: the same property order, duplicate keys
 * last-wins, `__proto__` an own data property (never a prototype), the same numbers, escapes and surrogates,
 * and invalid UTF-8 replaced the same way. Invalid JSON throws a `SyntaxError`. Nesting is bounded by
 * `maxDepth` (a clear error, never a stack overflow downstream).
 *
 * One exception, on purpose: an object key written with an escape (`"\n"`, `"\""`, `"\u00e9"`) never goes to
 * `JSON.parse` inside an object. The V8 of Node 24 and 26 (seen here on 24.21.0; Node 20 gets it right) decodes
 * such a key wrongly once an earlier object in the process had a key its raw text starts with: after `{"\\":1}`,
 * `{"\n":2}` gives the key `\` (V8 follows the earlier object's map transition; nodejs/node issue 63785, open).
 * The pre-pass marks every container holding such a key (and its ancestors) to be descended into, and the key is
 * decoded alone as a string literal, which V8 gets right: the value is the one RFC 8259 gives, on every Node.
 * `parseJson` (parseJson.ts) does the same for the lines that are not big: `JSON.parse` unless such a key may be in
 * the text.
 *
 *   const p = new SlicedJsonParser(bytes);
 *   while (!p.step(performance.now() + 8)) await new Promise(r => setImmediate(r));
 *   use(p.value);
 */
import { COLON, COMMA, LBRACE, LBRACKET, QUOTE, RBRACE, RBRACKET, hasBackslash, parseSlice, safeCut, setProp, skipWs, stringBody, stringEnd, unexpected, valueEnd } from './jsonBytes';

/**
 * The longest one step of the parser should hold the thread before its caller yields (ms): the deadline both of its
 * callers pass (stdio lines, App view messages).
 */
export const PARSE_SLICE_MS = 8;

/** Options of {@link SlicedJsonParser}; the defaults suit the stdio transport. */
export interface SlicedJsonOptions {
  /** Containers at least this big are descended into; smaller values go to `JSON.parse` whole. */
  chunkBytes?: number;
  /** Bytes of small array elements or object members parsed by one `JSON.parse`. */
  batchBytes?: number;
  /** Bytes of a big string literal decoded per piece. */
  pieceBytes?: number;
  /** Deepest nesting of containers accepted. */
  maxDepth?: number;
}

export const SLICED_JSON_DEFAULTS: Required<SlicedJsonOptions> = {
  chunkBytes: 128 * 1024, batchBytes: 64 * 1024, pieceBytes: 256 * 1024, maxDepth: 10_000,
};

/** A value nested deeper than `maxDepth` (a SyntaxError, so it is reported as "not JSON"). */
export class JsonDepthError extends SyntaxError {
  constructor(readonly maxDepth: number, at: number) {
    super(`nested deeper than ${maxDepth} levels (at byte ${at})`);
    this.name = 'SyntaxError';
  }
}

const SCAN_STRIDE = 64 * 1024;

interface ArrayFrame { kind: 'array'; value: unknown[]; end: number }
interface ObjectFrame { kind: 'object'; value: Record<string, unknown>; end: number; key: string | undefined }
type Frame = ArrayFrame | ObjectFrame;

/** A big string literal being decoded piece by piece. */
interface PendingString { from: number; end: number; parts: string; asKey: boolean }

const enum Phase { Scan, Build, Done }

/** Parses one JSON text (a Buffer of UTF-8) in time-bounded steps. See the module comment. */
export class SlicedJsonParser {
  private readonly opt: Required<SlicedJsonOptions>;
  private phase = Phase.Scan;
  // Pre-pass state.
  private scanPos = 0;
  private inString = false;
  private openStack = new Int32Array(64);
  private depth = 0;
  /** The open containers 0…escapedKeyDepth-1 hold an object key with an escape (so does every ancestor of one). */
  private escapedKeyDepth = 0;
  /** Open position → close position of every container to descend into: at least chunkBytes, or with an escaped key. */
  private readonly bigEnd = new Map<number, number>();
  // Build state.
  private pos = 0;
  private readonly frames: Frame[] = [];
  private str: PendingString | undefined;
  private result: unknown;

  constructor(private readonly buf: Buffer, options?: SlicedJsonOptions) {
    this.opt = { ...SLICED_JSON_DEFAULTS, ...options };
  }

  /** The parsed value, once {@link step} returned true. */
  get value(): unknown {
    if (this.phase !== Phase.Done) throw new Error('the JSON text is not parsed yet');
    return this.result;
  }

  /** Work until `deadline` (a `performance.now()` time) or the end; true when the value is ready. Throws SyntaxError. */
  step(deadline: number): boolean {
    if (this.phase === Phase.Scan) {
      if (!this.scan(deadline)) return false;
      this.phase = Phase.Build;
      this.openStack = new Int32Array(0);
      if (performance.now() >= deadline) return false;
    }
    if (this.phase === Phase.Build) {
      if (!this.build(deadline)) return false;
      this.phase = Phase.Done;
    }
    return true;
  }

  /** Parse all at once (tests, and small inputs). */
  parseAll(): unknown {
    while (!this.step(Infinity)) { /* one step does it all */ }
    return this.value;
  }

  // ---------------------------------------------------------------------------------------------
  // Pre-pass
  // ---------------------------------------------------------------------------------------------

  private scan(deadline: number): boolean {
    const buf = this.buf;
    const n = buf.length;
    let i = this.scanPos;
    let nextCheck = i + SCAN_STRIDE;
    while (i < n) {
      if (i >= nextCheck) {
        nextCheck = i + SCAN_STRIDE;
        if (performance.now() >= deadline) break;
      }
      if (this.inString) {
        const q = stringEnd(buf, i);
        if (q < 0) { i = n; break; }
        // A key (a string before `:`) with an escape: its object and their ancestors are descended into (module comment).
        if (this.depth > this.escapedKeyDepth && buf[skipWs(buf, q + 1)] === COLON && hasBackslash(buf, i, q)) this.escapedKeyDepth = this.depth;
        i = q + 1;
        this.inString = false;
        continue;
      }
      const c = buf[i];
      if (c === QUOTE) {
        this.inString = true;
        i++;
      } else if (c === LBRACE || c === LBRACKET) {
        if (this.depth >= this.opt.maxDepth) throw new JsonDepthError(this.opt.maxDepth, i);
        if (this.depth === this.openStack.length) {
          const grown = new Int32Array(this.openStack.length * 2);
          grown.set(this.openStack);
          this.openStack = grown;
        }
        this.openStack[this.depth++] = i;
        i++;
      } else if (c === RBRACE || c === RBRACKET) {
        if (this.depth > 0) {
          const o = this.openStack[--this.depth];
          if (i - o >= this.opt.chunkBytes || this.depth < this.escapedKeyDepth) this.bigEnd.set(o, i);
          if (this.escapedKeyDepth > this.depth) this.escapedKeyDepth = this.depth;
        }
        i++;
      } else {
        i++;
      }
    }
    this.scanPos = i;
    return i >= n;
  }

  // ---------------------------------------------------------------------------------------------
  // Build
  // ---------------------------------------------------------------------------------------------

  private build(deadline: number): boolean {
    const buf = this.buf;
    for (;;) {
      // One unit of work (a batch, a string piece, a separator), then a look at the clock.
      if (this.str) {
        this.stringPiece();
      } else {
        const frame = this.frames[this.frames.length - 1];
        if (frame) {
          if (frame.kind === 'array') this.arrayStep(frame);
          else this.objectStep(frame);
        } else if (!this.startedTop) {
          this.startedTop = true;
          this.pos = skipWs(buf, 0);
          this.value1();
        } else {
          const end = skipWs(buf, this.pos);
          if (end < buf.length) throw unexpected(buf, end);
          return true;
        }
      }
      if (performance.now() >= deadline) return false;
    }
  }

  private startedTop = false;

  /** Deliver a finished value to its parent (or as the result). */
  private deliver(v: unknown): void {
    const frame = this.frames[this.frames.length - 1];
    if (!frame) {
      this.result = v;
      return;
    }
    if (frame.kind === 'array') {
      frame.value.push(v);
    } else {
      setProp(frame.value, frame.key as string, v);
      frame.key = undefined;
    }
    this.afterValue = true;
  }

  /**
   * One value at `pos` (whitespace skipped), parsed whole unless it is a big container (a frame is pushed)
   * or a big string (decoding starts). Leaves `pos` after what it consumed.
   */
  private value1(): void {
    const buf = this.buf;
    const p = this.pos;
    if (p >= buf.length) throw new SyntaxError('Unexpected end of JSON input');
    const c = buf[p];
    if (c === LBRACE || c === LBRACKET) {
      const end = this.bigEnd.get(p);
      if (end !== undefined) {
        this.open(p, end);
        return;
      }
    } else if (c === QUOTE) {
      const q = stringEnd(buf, p + 1);
      if (q < 0) throw new SyntaxError(`Unterminated string in JSON at position ${p}`);
      if (q - p >= this.opt.chunkBytes) {
        this.str = { from: p + 1, end: q, parts: '', asKey: false };
        return;
      }
    }
    const e = valueEnd(buf, p);
    this.deliver(parseSlice(buf, p, e, '', ''));
    this.pos = e;
  }

  private open(p: number, end: number): void {
    if (this.buf[p] === LBRACKET) {
      const frame: ArrayFrame = { kind: 'array', value: [], end };
      this.frames.push(frame);
      this.afterValue = false;
      this.pos = skipWs(this.buf, p + 1);
      if (this.buf[this.pos] === RBRACKET) this.close(frame);
    } else {
      const frame: ObjectFrame = { kind: 'object', value: {}, end, key: undefined };
      this.frames.push(frame);
      this.afterValue = false;
      this.pos = skipWs(this.buf, p + 1);
      if (this.buf[this.pos] === RBRACE) this.close(frame);
    }
  }

  /**
   * Where the container's next member starts: after a delivered value (a big one, or the last of a batch) a
   * separator comes first, `,` or `end` (then the container is closed and -1 returned).
   */
  private separator(frame: Frame, end: number): number {
    const buf = this.buf;
    const p = skipWs(buf, this.pos);
    if (!this.afterValue) return p;
    this.afterValue = false;
    const c = buf[p];
    if (c === end) {
      this.pos = p;
      this.close(frame);
      return -1;
    }
    if (c !== COMMA) throw unexpected(buf, p);
    return skipWs(buf, p + 1);
  }

  private close(frame: Frame): void {
    this.frames.pop();
    this.pos++;
    this.deliver(frame.value);
  }

  /**
   * In an array, at an element (whitespace skipped) or, after a value, at `,` / `]` (maybe after whitespace).
   * A run of small elements up to batchBytes is parsed with one JSON.parse.
   */
  private arrayStep(frame: ArrayFrame): void {
    const buf = this.buf;
    let p = this.separator(frame, RBRACKET);
    if (p < 0) return;
    this.pos = p;
    const batchStart = p;
    let last = -1;
    for (;;) {
      if (this.isBig(p)) break;
      last = this.batchValue(p, batchStart);
      if (this.batchNext < 0) break;
      p = this.batchNext;
    }
    if (last < 0) {
      // A big element: descend or start decoding.
      this.value1();
      return;
    }
    const items = parseSlice(buf, batchStart, last, '[', ']') as unknown[];
    for (let k = 0; k < items.length; k++) frame.value.push(items[k]);
    this.pos = last;
    this.afterValue = true;
  }

  /** Like arrayStep, for the members of an object. */
  private objectStep(frame: ObjectFrame): void {
    const buf = this.buf;
    let p = this.separator(frame, RBRACE);
    if (p < 0) return;
    if (frame.key !== undefined) {
      // A big key was decoded: its `:` and value follow.
      p = this.colon(p);
      this.pos = p;
      this.value1();
      return;
    }
    this.pos = p;
    const batchStart = p;
    let last = -1;
    for (;;) {
      if (buf[p] !== QUOTE) throw unexpected(buf, p);
      const q = stringEnd(buf, p + 1);
      if (q < 0) throw new SyntaxError(`Unterminated string in JSON at position ${p}`);
      // A big key is decoded in pieces; a key with an escape alone, as a string literal (module comment).
      if (q - p >= this.opt.chunkBytes || hasBackslash(buf, p + 1, q)) break;
      const v = this.colon(skipWs(buf, q + 1));
      if (this.isBig(v)) break;
      last = this.batchValue(v, batchStart);
      if (this.batchNext < 0) break;
      p = this.batchNext;
    }
    if (last < 0) {
      // A member with a big key, a key with an escape, or a big value.
      const q = stringEnd(buf, p + 1);
      if (q - p >= this.opt.chunkBytes) {
        this.str = { from: p + 1, end: q, parts: '', asKey: true };
        return;
      }
      frame.key = JSON.parse(buf.toString('utf8', p, q + 1)) as string;
      this.pos = this.colon(skipWs(buf, q + 1));
      this.value1();
      return;
    }
    const members = parseSlice(buf, batchStart, last, '{', '}') as Record<string, unknown>;
    const keys = Object.keys(members);
    for (let k = 0; k < keys.length; k++) setProp(frame.value, keys[k], members[keys[k]]);
    this.pos = last;
    this.afterValue = true;
  }

  /** At `p` (whitespace skipped) a `:` must come: the position of the value after it. */
  private colon(p: number): number {
    if (this.buf[p] !== COLON) throw unexpected(this.buf, p);
    return skipWs(this.buf, p + 1);
  }

  /** After {@link batchValue}: where the batch's next element (or member) starts, or -1 when the batch ends there. */
  private batchNext = -1;

  /**
   * A small value at `v` joins the batch begun at `batchStart` (arrayStep and objectStep alike): returns its end and sets
   * {@link batchNext}. The batch goes on after a `,` while it is under batchBytes.
   */
  private batchValue(v: number, batchStart: number): number {
    const buf = this.buf;
    const e = valueEnd(buf, v);
    const s = skipWs(buf, e);
    this.batchNext = buf[s] === COMMA && e - batchStart < this.opt.batchBytes ? skipWs(buf, s + 1) : -1;
    return e;
  }

  /** Whether the value at `p` is a big container or a big string. */
  private isBig(p: number): boolean {
    const c = this.buf[p];
    if (c === LBRACE || c === LBRACKET) return this.bigEnd.has(p);
    if (c === QUOTE) {
      const q = stringEnd(this.buf, p + 1);
      return q >= 0 && q - p >= this.opt.chunkBytes;
    }
    return false;
  }

  /** The innermost frame's last value is delivered: a separator (or its end) comes next. */
  private afterValue = false;

  /** Decode the next piece of the pending big string; deliver it when complete. */
  private stringPiece(): void {
    const s = this.str as PendingString;
    const buf = this.buf;
    let cut = s.end;
    if (s.end - s.from > this.opt.pieceBytes) cut = Math.min(s.end, safeCut(buf, s.from, s.from + this.opt.pieceBytes));
    // A cut never lands inside an escape or a UTF-8 character, so each piece is a valid string body on its own.
    const piece = stringBody(buf, s.from, cut);
    s.parts += piece;
    s.from = cut;
    if (cut < s.end) return;
    this.str = undefined;
    this.pos = s.end + 1;
    const frame = this.frames[this.frames.length - 1];
    if (s.asKey) {
      (frame as ObjectFrame).key = s.parts;
      return;
    }
    this.deliver(s.parts);
  }
}
