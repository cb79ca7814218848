/**
 * Reading JSON at the byte level for the time-sliced parser (slicedJson.ts): where a string or a value ends, a
 * string's text, a slice handed to the native `JSON.parse`, and a cut that never splits an escape or a UTF-8
 * character. Structural characters are ASCII, and UTF-8 continuation bytes never collide with them.
 */
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
/** Bytes scanned by the pre-pass between two looks at the clock. */

export function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** obj[key] = v as JSON.parse does it: an own data property, also for `__proto__`. */
export function setProp(obj: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value: v, writable: true, enumerable: true, configurable: true });
  else obj[key] = v;
}

export function skipWs(buf: Buffer, p: number): number {
  while (p < buf.length && isWs(buf[p])) p++;
  return p;
}

/** Whether bytes [a, b) hold a backslash (searched within them only: never to the end of the line). */
export function hasBackslash(buf: Buffer, a: number, b: number): boolean {
  return buf.subarray(a, b).indexOf(BACKSLASH) >= 0;
}

/** Index of the quote closing a string whose body starts at `from`, or -1. */
export function stringEnd(buf: Buffer, from: number): number {
  let i = from;
  for (;;) {
    const q = buf.indexOf(QUOTE, i);
    if (q < 0) return -1;
    let b = q - 1;
    while (b >= from && buf[b] === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    i = q + 1;
  }
}

/**
 * The end (exclusive) of the value starting at `p`: a container by depth counting (it is small here), a
 * string by its closing quote, anything else up to the next delimiter. Validity is JSON.parse's to judge.
 */
export function valueEnd(buf: Buffer, p: number): number {
  const n = buf.length;
  const c = buf[p];
  if (c === QUOTE) {
    const q = stringEnd(buf, p + 1);
    if (q < 0) throw new SyntaxError(`Unterminated string in JSON at position ${p}`);
    return q + 1;
  }
  if (c === LBRACE || c === LBRACKET) {
    let depth = 0;
    let i = p;
    while (i < n) {
      const d = buf[i];
      if (d === QUOTE) {
        const q = stringEnd(buf, i + 1);
        if (q < 0) break;
        i = q + 1;
        continue;
      }
      if (d === LBRACE || d === LBRACKET) depth++;
      else if (d === RBRACE || d === RBRACKET) {
        if (--depth === 0) return i + 1;
      }
      i++;
    }
    throw new SyntaxError('Unexpected end of JSON input');
  }
  let i = p;
  while (i < n) {
    const d = buf[i];
    if (d === COMMA || d === RBRACE || d === RBRACKET || isWs(d)) break;
    i++;
  }
  if (i === p) throw unexpected(buf, p);
  return i;
}

/** A control character, which JSON strings may not hold unescaped. */
const CONTROL = /[\u0000-\u001f]/;

/**
 * The value of the string body in bytes [a, b) (no quotes; a piece cut by safeCut): a piece without a backslash or a
 * control character is its own value, decoded as it is (most of a long text; JSON.parse of it cost twice a one-go
 * parse); any other goes to JSON.parse, which decodes its escapes or refuses it with JSON.parse's own message.
 */
export function stringBody(buf: Buffer, a: number, b: number): string {
  // Searched within the piece only: a search to the end of the line for every piece would be quadratic.
  if (!hasBackslash(buf, a, b)) {
    const text = buf.toString('utf8', a, b);
    if (!CONTROL.test(text)) return text;
  }
  return parseSlice(buf, a, b, '"', '"') as string;
}

/** JSON.parse of bytes [a, b) wrapped in `pre`/`post`; a failure names the byte range of the line. */
export function parseSlice(buf: Buffer, a: number, b: number, pre: string, post: string): unknown {
  const text = buf.toString('utf8', a, b);
  try {
    return JSON.parse(pre === '' ? text : pre + text + post);
  } catch (err) {
    throw new SyntaxError(`${(err as Error).message} (in bytes ${a}–${b} of the line)`);
  }
}

export function unexpected(buf: Buffer, p: number): SyntaxError {
  if (p >= buf.length) return new SyntaxError('Unexpected end of JSON input');
  const c = buf[p];
  const shown = c >= 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}'` : `byte 0x${c.toString(16).padStart(2, '0')}`;
  return new SyntaxError(`Unexpected token ${shown} in JSON at position ${p}`);
}

/**
 * A cut position ≤ `want` (and > `from`) inside a string body that splits neither an escape sequence nor a
 * UTF-8 character: decoding [from, cut) and [cut, …) separately gives what decoding the whole does.
 */
export function safeCut(buf: Buffer, from: number, want: number): number {
  let p = want;
  // UTF-8: step back to a point where the decoder starts afresh: a byte that is not a continuation byte (10xxxxxx),
  // or one after three continuation bytes (or after only continuation bytes since `from`, itself such a point): no
  // valid character spans it, so split or not, the same bytes decode to the same characters and U+FFFDs.
  const cont = (i: number) => (buf[i] & 0xc0) === 0x80;
  const fresh = (i: number) => {
    if (!cont(i)) return true;
    for (let j = Math.max(from, i - 3); j < i; j++) if (!cont(j)) return false;
    return true;
  };
  while (p > from && !fresh(p)) p--;
  // Escapes: the nearest backslash within 5 bytes before p decides (a \uXXXX has no backslash in its digits).
  for (let s = p - 1; s >= Math.max(from, p - 5); s--) {
    if (buf[s] !== BACKSLASH) continue;
    let r = s;
    while (r - 1 >= from && buf[r - 1] === BACKSLASH) r--;
    const initiates = (s - r) % 2 === 0;
    if (initiates) {
      const len = buf[s + 1] === 0x75 ? 6 : 2;
      if (p < s + len) p = s;
    }
    break;
  }
  if (p > from) return p;
  // Tiny pieces: the escape or character that starts at `from` goes whole into this piece.
  if (buf[from] === BACKSLASH) return from + (buf[from + 1] === 0x75 ? 6 : 2);
  p = from + 1;
  while (p < from + 4 && p < buf.length && (buf[p] & 0xc0) === 0x80) p++;
  return p;
}
