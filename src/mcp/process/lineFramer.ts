/**
 * Newline framing of a byte stream with a cap per line, enforced while reading (docs/SECURITY.md, Threat model:
 * "Bounded"). Like {@link LineReadBuffer} it keeps the chunks of the current line in a list, scans each
 * byte once and concatenates once per line, so a big line costs linear time; unlike it, a line that
 * grows past `maxLineBytes` is not buffered further: its chunks are released at once, only a bounded
 * head (and a short tail) is kept, and the rest is counted until its newline. So one line never holds
 * more than the cap plus one chunk.
 *
 *   const framer = new LineFramer({ maxLineBytes: 64 << 20, headBytes: 64 << 10 }, {
 *     line: bytes => …,                  // a complete line (without `\n`, `\r` kept)
 *     overflow: head => …,               // the line just went over the cap (called once per line)
 *     overflowEnd: (total, tail) => …,   // that line ended: its full size and its last bytes
 *   });
 *   stream.on('data', chunk => framer.push(chunk));
 */

const NEWLINE = 0x0a;
/** Bytes kept from the end of an oversized line (where a response's `id` may sit). */
export const OVERFLOW_TAIL_BYTES = 256;

/** Options for {@link LineFramer}. */
export interface LineFramerOptions {
  /** Longest line delivered whole; a longer one is cut (see the module comment). */
  maxLineBytes: number;
  /** Bytes of an oversized line kept and handed to `overflow` (at most `maxLineBytes`). */
  headBytes: number;
  /**
   * Lines of at least this many bytes go to `bigLine` as their pieces, not concatenated here (the sink joins them
   * in slices: one copy of a 50 MB line holds the thread for as long as it takes).
   */
  bigLineBytes?: number;
}

/** What the framer reports. */
export interface LineFramerSink {
  /** A complete line within the cap, without its `\n`. */
  line(bytes: Buffer): void;
  /** A complete line of at least `bigLineBytes` (and within the cap), as its pieces in order (`size` bytes in all). */
  bigLine?(parts: Buffer[], size: number): void;
  /** The current line just grew past the cap; `head` is its first `headBytes` bytes. Called once per line. */
  overflow?(head: Buffer): void;
  /** The oversized line ended: its full length in bytes, its head and its last {@link OVERFLOW_TAIL_BYTES} bytes. */
  overflowEnd?(totalBytes: number, head: Buffer, tail: Buffer): void;
}

/** Splits a byte stream into lines, none buffered beyond the cap. */
export class LineFramer {
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the cap: its head, total size so far and rolling tail. */
  private over: { head: Buffer; total: number; tail: Buffer } | undefined;

  constructor(private readonly options: LineFramerOptions, private readonly sink: LineFramerSink) {}

  /** Bytes of the current (incomplete) line held in memory. */
  get buffered(): number {
    return this.over ? this.over.head.length + this.over.tail.length : this.size;
  }

  /** Feed the next chunk; complete lines are delivered before this returns. */
  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      const end = nl < 0 ? chunk.length : nl;
      if (end > start) this.add(chunk.subarray(start, end));
      if (nl < 0) return;
      this.endLine();
      start = nl + 1;
    }
  }

  /** The stream ended: deliver a last line that had no `\n` (when `flushPartial`), and forget the rest. */
  end(flushPartial: boolean): void {
    if (flushPartial && (this.size > 0 || this.over)) this.endLine();
    this.clear();
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.over = undefined;
  }

  private add(piece: Buffer): void {
    if (this.over) {
      this.over.total += piece.length;
      this.over.tail = keepTail(this.over.tail, piece);
      return;
    }
    if (this.size + piece.length <= this.options.maxLineBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // Over the cap: keep a copy of the head (never a view that pins a big chunk), drop the rest.
    const headLen = Math.min(this.options.headBytes, this.options.maxLineBytes);
    const all = [...this.parts, piece];
    const head = Buffer.alloc(Math.min(headLen, this.size + piece.length));
    let o = 0;
    for (const p of all) {
      if (o >= head.length) break;
      o += p.copy(head, o, 0, Math.min(p.length, head.length - o));
    }
    this.over = { head, total: this.size + piece.length, tail: keepTail(Buffer.alloc(0), piece) };
    this.parts = [];
    this.size = 0;
    this.sink.overflow?.(head);
  }

  private endLine(): void {
    const over = this.over;
    if (over) {
      this.over = undefined;
      this.sink.overflowEnd?.(over.total, over.head, over.tail);
      return;
    }
    const { parts, size } = this;
    this.parts = [];
    this.size = 0;
    if (this.sink.bigLine && this.options.bigLineBytes !== undefined && size >= this.options.bigLineBytes && parts.length > 1) {
      this.sink.bigLine(parts, size);
      return;
    }
    this.sink.line(parts.length === 1 ? parts[0] : Buffer.concat(parts, size));
  }
}

/** The last OVERFLOW_TAIL_BYTES of `tail` + `piece`, copied (so no big chunk stays pinned). */
function keepTail(tail: Buffer, piece: Buffer): Buffer {
  if (piece.length >= OVERFLOW_TAIL_BYTES) return Buffer.from(piece.subarray(piece.length - OVERFLOW_TAIL_BYTES));
  const joined = Buffer.concat([tail, piece]);
  return joined.length > OVERFLOW_TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - OVERFLOW_TAIL_BYTES)) : joined;
}

/**
 * The largest `end` ≤ `maxBytes` (and ≤ `bytes.length`) that does not split a UTF-8 character, also
 * when `bytes` itself was cut in the middle of one.
 */
export function utf8Boundary(bytes: Buffer, maxBytes: number = bytes.length): number {
  let end = Math.min(maxBytes, bytes.length);
  if (end < bytes.length) {
    // Step back over continuation bytes (10xxxxxx) so no character is split.
    while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
    return end;
  }
  // At the very end: drop a last character whose bytes are not all there.
  let start = end - 1;
  while (start > 0 && end - start < 4 && (bytes[start] & 0xc0) === 0x80) start--;
  if (start < 0) return end;
  const lead = bytes[start];
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return end - start < need ? start : end;
}

/** `bytes` as UTF-8 text, cut to at most `maxBytes` bytes on a character boundary. */
export function utf8Head(bytes: Buffer, maxBytes: number = bytes.length): string {
  return bytes.toString('utf8', 0, utf8Boundary(bytes, maxBytes));
}

/** A line's text without the `\r` of a CRLF ending. */
export function stripCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}
