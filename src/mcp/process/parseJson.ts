/**
 * The parse of a whole JSON text that is not big (a stdio message line under SLICED_PARSE_MIN_BYTES, a gateway
 * channel message, an App view message, a line of the read buffer): `JSON.parse`, except where the text may hold an object key written with an escape, which
 * the `JSON.parse` of Node 24 and 26 can decode wrongly (slicedJson.ts, module comment; nodejs/node issue 63785).
 * Such a text goes through the sliced parser, which decodes those keys alone. Kept apart from the sliced parser
 * because it is the hot path of every small message: a scan for a backslash, then the native parse.
 */
import { BACKSLASH, QUOTE, isWs } from './jsonBytes';
import { SlicedJsonParser } from './slicedJson';

/**
 * Whether a JSON text may hold an object key written with an escape. Every key ends with a quote that is not escaped
 * (an even number of backslashes before it) and a colon (maybe with whitespace between); a quote inside a string is
 * escaped, so `\":` in a string value (JSON inside a text) is no key end. From each key end the text is read back to the
 * key's opening quote: a backslash on the way (or an escaped quote) means it may. Never misses one (the differential
 * test checks it on every generated text). Linear: each key is read back once.
 */
export function mayHaveEscapedKey(text: string): boolean {
  if (text.indexOf('\\') < 0) return false;
  for (let colon = text.indexOf(':'); colon >= 0; colon = text.indexOf(':', colon + 1)) {
    let q = colon - 1;
    while (q >= 0 && isWs(text.charCodeAt(q))) q--;
    if (q < 0 || text.charCodeAt(q) !== QUOTE) continue;
    let b = q - 1;
    while (b >= 0 && text.charCodeAt(b) === BACKSLASH) b--;
    const before = q - 1 - b;
    if (before % 2 === 1) continue; // an escaped quote: inside a string, not the end of a key
    if (before > 0) return true; // the key ends with an escaped backslash
    for (let j = b; j >= 0; j--) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH) return true;
      // A quote after a backslash is one inside the key; else it is the key's opening quote (after `{`, `,` or space).
      if (c === QUOTE) {
        if (j > 0 && text.charCodeAt(j - 1) === BACKSLASH) return true;
        break;
      }
    }
  }
  return false;
}
/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * `JSON.parse` of a whole text (a message line that is not big), with object keys written with an escape decoded as
 * RFC 8259 says on every Node (the module comment: the `JSON.parse` of Node 24 and 26 can get them wrong): a text that
 * may hold one goes through {@link SlicedJsonParser}, which decodes such keys alone; any other is `JSON.parse`'s.
 * Throws `SyntaxError` for text that is not JSON.
 */
export function parseJson(text: string): unknown {
  // Buffer.from would replace a lone surrogate of the text itself (never in text decoded from UTF-8 bytes).
  if (!mayHaveEscapedKey(text) || LONE_SURROGATE.test(text)) return JSON.parse(text);
  return new SlicedJsonParser(Buffer.from(text, 'utf8')).parseAll();
}
