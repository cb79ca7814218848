import * as assert from 'node:assert/strict';
import { JsonDepthError, SlicedJsonParser, type SlicedJsonOptions } from '../../src/mcp/process/slicedJson';
import { mayHaveEscapedKey, parseJson } from '../../src/mcp/process/parseJson';
import { safeCut } from '../../src/mcp/process/jsonBytes';
import { approxJsonSize, approxJsonSizeSliced, nestsDeeperThan, nestsDeeperThanSliced } from '../../src/mcp/jsonWalks';

/** Tiny thresholds so that small inputs take every path (descend, batch, pieces). */
const TINY: SlicedJsonOptions = { chunkBytes: 16, batchBytes: 24, pieceBytes: 7, maxDepth: 10_000 };

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = ['a', 'é', '\u{1F600}', '"', '\\', '/', '\n', '\t', '\u0001', '\ud800', '\udc00', '\u2028', ' ', 'zz', '__proto__', '0', '1e3'];
function randString(r: () => number, max: number): string {
  let s = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += ATOMS[Math.floor(r() * ATOMS.length)];
  return s;
}

function randValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 3 || k < 0.35) {
    const t = Math.floor(r() * 7);
    if (t === 0) return null;
    if (t === 1) return r() < 0.5;
    if (t === 2) return Math.floor(r() * 1e6) - 5e5;
    if (t === 3) return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    return randString(r, 40);
  }
  if (k < 0.65) return Array.from({ length: Math.floor(r() * 12) }, () => randValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 10);
  for (let i = 0; i < n; i++) o[r() < 0.2 ? String(Math.floor(r() * 20)) : randString(r, 8)] = randValue(r, depth + 1);
  return o;
}

/** Random JSON text with random whitespace (and, sometimes, __proto__ and duplicate keys written by hand). */
function randText(r: () => number): string {
  const ws = () => [' ', '', '\t', '\r\n', '  '][Math.floor(r() * 5)];
  const emit = (v: unknown): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map(x => ws() + emit(x) + ws()).join(',')}${ws()}]`;
    if (v !== null && typeof v === 'object') {
      const parts = Object.entries(v).map(([k, x]) => `${ws()}${JSON.stringify(k)}${ws()}:${ws()}${emit(x)}${ws()}`);
      if (r() < 0.2) parts.push(`"__proto__":${emit(randValue(r, 4))}`);
      if (r() < 0.2 && parts.length > 0) parts.push(parts[0].replace(/:.*$/s, ':"dup"'));
      return `{${parts.join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return ws() + emit(randValue(r, 0)) + ws();
}

/** Parse in steps of zero time (one unit of work per step), as the transport does under a tight deadline. */
function sliced(bytes: Buffer, options: SlicedJsonOptions = TINY): unknown {
  const p = new SlicedJsonParser(bytes, options);
  let steps = 0;
  while (!p.step(0)) if (++steps > 10_000_000) throw new Error('no progress');
  return p.value;
}

/** Same value, same key order, same prototypes (own `__proto__` data properties). */
function assertSame(actual: unknown, expected: unknown, where: string): void {
  assert.deepStrictEqual(actual, expected, where);
  const walk = (a: unknown, e: unknown) => {
    if (a === null || typeof a !== 'object') return;
    assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(e), `${where}: prototype`);
    assert.deepEqual(Object.keys(a), Object.keys(e as object), `${where}: key order`);
    for (const k of Object.keys(a)) walk((a as Record<string, unknown>)[k], (e as Record<string, unknown>)[k]);
  };
  walk(actual, expected);
}

/**
 * The oracle: the value of a JSON text that JSON.parse accepted, as RFC 8259 defines it. JSON.parse's own value is not
 * one on Node 24 and 26: their V8 decodes an escaped object key wrongly once an earlier object had a key its raw text
 * starts with (after `{"\\":1}`, the key of `{"\n":2}` comes out as a backslash; nodejs/node issue 63785), and
 * this file's earlier texts set that up. So the structure is walked here and each string (keys included) and number
 * is decoded alone by JSON.parse, as a whole text, which V8 gets right. RFC 8259 §4: "An object structure is
 * represented as a pair of curly brackets surrounding zero or more name/value pairs (or members). A name is a string."
 * Duplicate names: the first position, the last value (as JSON.parse gives them).
 */
function specValue(text: string, seen: { escapedKey: boolean } = { escapedKey: false }): unknown {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const str = (): string => {
    const a = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    return JSON.parse(text.slice(a, ++i)) as string;
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      const o: Record<string, unknown> = {};
      i++;
      ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws();
        const from = i;
        const k = str();
        if (text.slice(from, i).includes('\\')) seen.escapedKey = true;
        ws();
        i++; // ':'
        const v = value();
        if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
        else o[k] = v;
        ws();
        if (text[i++] === '}') return o;
      }
    }
    if (c === '[') {
      const a: unknown[] = [];
      i++;
      ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value());
        ws();
        if (text[i++] === ']') return a;
      }
    }
    if (c === '"') return str();
    const a = i;
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++;
    return JSON.parse(text.slice(a, i));
  };
  return value();
}

function differential(text: string | Buffer, options?: SlicedJsonOptions): void {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let expected: unknown;
  let expectedError: unknown;
  try {
    JSON.parse(bytes.toString('utf8'));
    expected = specValue(bytes.toString('utf8'));
  } catch (err) {
    expectedError = err;
  }
  const where = JSON.stringify(bytes.toString('utf8').slice(0, 120));
  if (expectedError) {
    assert.throws(() => sliced(bytes, options), SyntaxError, `${where} should be refused`);
    if (!options) assert.throws(() => parseJson(bytes.toString('utf8')), SyntaxError, `${where} should be refused by parseJson`);
    return;
  }
  assertSame(sliced(bytes, options), expected, where);
  assertSame(new SlicedJsonParser(bytes, options).parseAll(), expected, where);
  if (!options) {
    assertSame(parseJson(bytes.toString('utf8')), expected, `${where} (parseJson)`);
    // H513: the test that sends a text to the sliced parser never misses a key written with an escape.
    const seen = { escapedKey: false };
    specValue(bytes.toString('utf8'), seen);
    if (seen.escapedKey) assert.ok(mayHaveEscapedKey(bytes.toString('utf8')), `${where}: a key with an escape was missed`);
  }
}

describe('process: SlicedJsonParser (time-sliced parsing of a big line, H142)', () => {
  it('H142: gives the value of the text (JSON.parse\'s, escaped keys as RFC 8259 decodes them) on 3,000 generated texts, with every path forced (descend, batches, string pieces)', () => {
    const r = rng(27);
    for (let i = 0; i < 3000; i++) {
      const text = randText(r);
      differential(text);
      if (i % 10 === 0) differential(text, { chunkBytes: 1, batchBytes: 1, pieceBytes: 1, maxDepth: 10_000 });
    }
  });

  it('H142: refuses what JSON.parse refuses: 3,000 generated texts with one byte changed, cut or inserted', () => {
    const r = rng(42);
    const junk = ['', ',', ']', '}', '[', '{', '"', ':', '\\', 'x', ' ', '0', '-', '\u0000', '\u00ff', '\ud83d'];
    for (let i = 0; i < 3000; i++) {
      const text = randText(r);
      const at = Math.floor(r() * (text.length + 1));
      const j = junk[Math.floor(r() * junk.length)];
      const mode = Math.floor(r() * 3);
      const bad = mode === 0 ? text.slice(0, at) + j + text.slice(at + 1) : mode === 1 ? text.slice(0, at) : text.slice(0, at) + j + text.slice(at);
      differential(bad);
    }
  });

  it('H142: adversarial texts: escapes and surrogates across string pieces, __proto__, duplicates, numbers, empty containers, whitespace', () => {
    const cases = [
      '{"__proto__":{"polluted":1},"a":1}',
      '{"a":1,"b":2,"a":3,"__proto__":[],"__proto__":{"x":1}}',
      '[' + '"\\ud83d\\ude00\\\\\\"\\u00e9\\n",'.repeat(50) + '1]',
      JSON.stringify('x'.repeat(100) + '\\"'.repeat(30) + '\u{1F600}'.repeat(40) + '\u00e9'.repeat(33)),
      JSON.stringify({ s: '\\'.repeat(101), t: '"'.repeat(57), u: '\ud800x\udc00' }),
      '[1e400,-0,0.1e-400,123456789012345678901234567890,-1.5E+3,0]',
      '{"10":1,"2":2,"b":3,"1":4,"a":5}',
      '  [ [] , {} , [ { } ] , "" ]  ',
      '{"":{"":[""]}}',
      ' \t\r\n"only a string"\r\n',
      'true', 'null', '-0', '17',
      // Raw control characters (refused by JSON.parse) inside long pieces with no backslash, and next to escapes.
      '"' + 'x'.repeat(60) + '\u0000' + 'x'.repeat(60) + '"',
      '["' + 'y'.repeat(90) + '\n' + 'y'.repeat(9) + '"]',
      '{"a":"' + 'z'.repeat(70) + '\u001f' + '"}',
      '"' + 'w'.repeat(50) + '\\n' + 'w'.repeat(50) + '\u007f\u2028' + 'w'.repeat(40) + '"',
    ];
    for (const c of cases) {
      differential(c);
      differential(c, { chunkBytes: 1, batchBytes: 1, pieceBytes: 1, maxDepth: 10_000 });
      differential(c, { chunkBytes: 8, batchBytes: 8, pieceBytes: 32, maxDepth: 10_000 });
    }
    const polluted = sliced(Buffer.from('{"__proto__":{"polluted":1}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(polluted), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('H510: an escaped key after an object whose key its raw text starts with (wrong in the JSON.parse of Node 24 and 26) is the key RFC 8259 gives, on every path; plain keys beside it too', () => {
    // V8 takes the wrong path only when the object so far has exactly one map transition, the earlier key: each text
    // starts with a key of its own (P), an object `{P, <the earlier key>}` is made first, and the outcome is compared
    // as JSON text (a literal object with the same keys would add a second transition and hide the fault).
    const cases: Array<[poison: string, text: string, want: string]> = [
      ['{"P":0,"\\\\":0}', '{"P":1,"\\n":2}', '{"P":1,"\\n":2}'],
      ['{"P":0,"\\\\":0}', '{"P":1,"\\/":1,"\\u0041":2,"\\"":3,"\\udc00":4}', '{"P":1,"/":1,"A":2,"\\"":3,"\\udc00":4}'],
      ['{"P":0,"ab\\\\":0}', '{"P":0,"ab\\n":1,"x":2,"plain":[1,{"y":"\\\\"}]}', '{"P":0,"ab\\n":1,"x":2,"plain":[1,{"y":"\\\\"}]}'],
      ['{"P":0,"\\\\":0}', '[{"k":{"P":0,"\\t":[]}},{"bystander":true}]', '[{"k":{"P":0,"\\t":[]}},{"bystander":true}]'],
      ['{"P":0,"\\\\":0}', '{"a":[{"b":{"P":0,"\\r":{"c":"\\n"}}}],"d":"e"}', '{"a":[{"b":{"P":0,"\\r":{"c":"\\n"}}}],"d":"e"}'],
    ];
    const paths: Array<(bytes: Buffer) => unknown> = [undefined, TINY, { chunkBytes: 1, batchBytes: 1, pieceBytes: 1, maxDepth: 10_000 }]
      .flatMap(options => [(b: Buffer) => sliced(b, options), (b: Buffer) => new SlicedJsonParser(b, options).parseAll()])
      .concat((b: Buffer) => parseJson(b.toString('utf8'))); // H513: a message line that is not big
    cases.forEach(([poison, text, want], c) => paths.forEach((parse, k) => {
      const P = `h510-${c}-${k}`;
      JSON.parse(poison.replace('"P"', JSON.stringify(P)));
      assert.equal(JSON.stringify(parse(Buffer.from(text.replace('"P"', JSON.stringify(P))))), want.replace('"P"', JSON.stringify(P)), `case ${c}, path ${k}: ${text}`);
    }));
  });

  it('H513: parseJson (every message line that is not big) is JSON.parse where no key has an escape, the sliced parser where one may', () => {
    assert.deepEqual(parseJson('{"a":"x\\ny","b":["\\"",{"c":null}]}'), { a: 'x\ny', b: ['"', { c: null }] });
    assert.throws(() => parseJson('{"\\n":'), SyntaxError);
    assert.throws(() => parseJson('{"a":1,}'), SyntaxError);
    // A string value that looks like the end of a key takes the sliced path and gives the same value.
    assert.deepEqual(parseJson('["\\n\\":", {"k":"v"}]'), ['\n":', { k: 'v' }]);
    // A lone surrogate in the text itself (not from UTF-8 bytes) is JSON.parse's, unchanged.
    assert.deepEqual(parseJson('{"a\\n":"\ud800"}'), JSON.parse('{"a\\n":"\ud800"}'));
  });

  it('H142: invalid UTF-8 is replaced as a whole-line decode replaces it, whatever the piece size', () => {
    const r = rng(7);
    for (let i = 0; i < 500; i++) {
      const body = Buffer.from(Array.from({ length: 40 + Math.floor(r() * 40) }, () => {
        const b = Math.floor(r() * 256);
        return b === 0x22 || b === 0x5c || b < 0x20 ? 0x61 : b;
      }));
      const bytes = Buffer.concat([Buffer.from('["'), body, Buffer.from('"]')]);
      for (const pieceBytes of [1, 2, 3, 5, 8]) differential(bytes, { chunkBytes: 1, batchBytes: 1, pieceBytes, maxDepth: 100 });
    }
  });

  it('H142: safeCut never splits an escape or a UTF-8 character', () => {
    const body = Buffer.from(JSON.stringify('a\\"\u00e9\u{1F600}\\u0041\\\\b').slice(1, -1));
    for (let want = 1; want < body.length; want++) {
      const cut = safeCut(body, 0, want);
      assert.ok(cut > 0 && cut <= want);
      assert.equal((JSON.parse(`"${body.toString('utf8', 0, cut)}"`) as string) + (JSON.parse(`"${body.toString('utf8', cut)}"`) as string),
        JSON.parse(`"${body.toString()}"`), `cut at ${want} → ${cut}`);
    }
  });

  it('H145: a value nested deeper than maxDepth is a SyntaxError, never a stack overflow', () => {
    const deep = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000));
    assert.throws(() => new SlicedJsonParser(deep).parseAll(), (err: unknown) => err instanceof JsonDepthError && err instanceof SyntaxError && /nested deeper than 10000 levels/.test(err.message));
    const ok = Buffer.from('['.repeat(500) + ']'.repeat(500));
    differential(ok, { ...TINY, maxDepth: 501 });
  });

  it('H142: a big line (8 MB string, 100,000 objects) parses in many short steps to what JSON.parse gives', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'é'.repeat(4_000_000) + 'END' }], structuredContent: { items: Array.from({ length: 100_000 }, (_, i) => ({ id: i, name: `item-${i}`, ok: i % 2 === 0 })) } } });
    const bytes = Buffer.from(text);
    const p = new SlicedJsonParser(bytes);
    let steps = 0;
    let longest = 0;
    for (;;) {
      const t0 = performance.now();
      const done = p.step(t0 + 5);
      longest = Math.max(longest, performance.now() - t0);
      steps++;
      if (done) break;
    }
    assertSame(p.value, JSON.parse(text), 'big line');
    assert.ok(steps > 5, `${steps} steps`);
    // Not a timing assertion (benchmarks measure that): the steps exist and each is bounded by the units of work.
    void longest;
  });
});

describe('sliced walks over a whole answer (H144)', () => {
  it('H144: nestsDeeperThanSliced and approxJsonSizeSliced answer what nestsDeeperThan and approxJsonSize answer, also past a yield', async () => {
    const r = rng(5);
    const values: unknown[] = Array.from({ length: 300 }, () => randValue(r, 0));
    values.push({ items: Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: `item-${i}`, tags: ['a', { b: [i] }] })) });
    let deep: unknown = 1;
    for (let i = 0; i < 1500; i++) deep = [deep];
    values.push(deep, { a: deep }, null, 'x', 7);
    for (const v of values) {
      assert.equal(await nestsDeeperThanSliced(v), nestsDeeperThan(v));
      assert.equal(await nestsDeeperThanSliced(v, 3), nestsDeeperThan(v, 3));
      assert.equal(await approxJsonSizeSliced(v), approxJsonSize(v));
    }
    // Not trees (never what a parse gives): shared objects count each time, as serialising them would; a cycle ends.
    const shared = { s: 1 };
    const dag = [shared, shared, [shared]];
    assert.equal(await nestsDeeperThanSliced(dag), false);
    assert.equal(await approxJsonSizeSliced(dag), approxJsonSize([{ s: 1 }, { s: 1 }, [{ s: 1 }]]));
    const cycle: unknown[] = [];
    cycle.push(cycle);
    assert.equal(await nestsDeeperThanSliced(cycle), true);
  });
});
