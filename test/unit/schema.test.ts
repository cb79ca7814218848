import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import { LinearRegExp, UnsupportedPatternError, patternProblem, testPattern } from '../../src/mcp/schema/regexp';
import { SchemaCompiler, SchemaRefusedError, census } from '../../src/mcp/schema/compiler';
import { buildToolValidators } from '../../src/mcp/catalogue/toolSchemas';
import { PendingServerRequests, TOO_MANY_PENDING } from '../../src/mcp/server/serverRequests';
import { parseToolResult } from '../../src/mcp/catalogue/toolResult';
import { ProtocolError } from '@modelcontextprotocol/client';
import { coerce, fieldsOf } from '../../src/extension/elicitation/form';
import { bindArguments, parseInvocation } from '../../src/extension/chat/parse';
import { parsePromptArgs } from '../../src/cli/args';

function validator(v: ValidateFunction | Error): ValidateFunction {
  if (v instanceof Error) assert.fail(v.message);
  return v;
}

describe('schema: linear-time patterns (RE2)', () => {
  it('searches like RegExp.test (unanchored) and keeps ECMAScript escapes', () => {
    assert.equal(LinearRegExp.compile('b').test('abc'), true);
    assert.equal(LinearRegExp.compile('^b').test('abc'), false);
    assert.equal(LinearRegExp.compile('^[\\u0041-\\u005A]+$').test('ABC'), true);
    assert.equal(LinearRegExp.compile('^\\d{3}-\\w+$').test('123-abc'), true);
    assert.equal(LinearRegExp.compile('\\p{Lu}').test('xÉ'), true);
    assert.equal(LinearRegExp.compile('[(?=]').test('?'), true, 'a group opener inside a class is a character');
    assert.equal(LinearRegExp.compile('^\\uD83D\\uDE00+$').test('\u{1F600}\u{1F600}'), true, 'a surrogate pair spelled as two escapes is one code point');
    assert.equal(LinearRegExp.compile('^\\\\uD83D$').test('\\uD83D'), true, 'an escaped backslash stays a backslash');
  });

  it('a catastrophic pattern runs in linear time on a long input', () => {
    const re = LinearRegExp.compile('^(a+)+$');
    // With a backtracking engine this input takes longer than the age of the universe.
    assert.equal(re.test(`${'a'.repeat(50_000)}!`), false);
    assert.equal(re.test('a'.repeat(50_000)), true);
  });

  it('refuses what RE2 cannot run in linear time, saying what it is', () => {
    for (const [p, what] of [['(a)\\1', /backreference/], ['(?<n>a)\\k<n>', /backreference/], ['a(?=b)', /lookahead/], ['a(?!b)', /lookahead/], ['(?<=a)b', /lookbehind/], ['a{2000}', /repeat count/]] as const) {
      assert.throws(() => LinearRegExp.compile(p), (e: unknown) => e instanceof UnsupportedPatternError && what.test(e.message) && e.message.includes('pattern `'), p);
      assert.match(patternProblem(p) ?? '', what);
      assert.equal(testPattern(p, 'aa'), undefined);
    }
    assert.equal(patternProblem('^a+$'), undefined);
    assert.equal(testPattern('^a+$', 'aa'), true);
  });
});

describe('schema: SchemaCompiler', () => {
  it('validates with RE2 for pattern and patternProperties; a hostile pattern does not stall', () => {
    const c = new SchemaCompiler('s1');
    const v = validator(c.compile({
      type: 'object',
      properties: { x: { type: 'string', pattern: '^(a+)+$' } },
      patternProperties: { '^(b+)+$': { type: 'number' } },
    }, 'tool `t` inputSchema'));
    assert.equal(v({ x: `${'a'.repeat(30_000)}!` }), false);
    assert.equal(v({ x: 'aaa' }), true);
    assert.equal(v({ bbb: 'not a number' }), false);
    assert.equal(v({ bbb: 1 }), true);
  });

  it('two patterns in one schema are two patterns (ajv keys its cache by toString)', () => {
    const v = validator(new SchemaCompiler('s').compile({
      type: 'object', properties: { a: { type: 'string', pattern: '^a$' }, b: { type: 'string', pattern: '^b$' } },
    }, 'x'));
    assert.equal(v({ a: 'a', b: 'b' }), true);
    assert.equal(v({ a: 'a', b: 'a' }), false);
  });

  it('a pattern RE2 cannot run refuses the schema naming server, schema and problem', () => {
    const r = new SchemaCompiler('srv').compile({ type: 'object', properties: { x: { type: 'string', pattern: '(a)\\1' } } }, 'tool `t` inputSchema');
    assert.ok(r instanceof SchemaRefusedError);
    assert.match(r.message, /^server `srv` tool `t` inputSchema: pattern `\(a\)\\1` uses a backreference/);
  });

  it('a `pattern` key inside default/enum/const is data, not a pattern', () => {
    validator(new SchemaCompiler('s').compile({ type: 'object', default: { pattern: '(a)\\1' }, enum: [{ pattern: '(?=x)' }] }, 'x'));
  });

  it('huge schemas are refused before ajv sees them (node budget, pattern budget), with the limit and setting', () => {
    const props: Record<string, unknown> = {};
    for (let i = 0; i < 1000; i++) props[`p${i}`] = { type: 'string', minLength: 1 };
    const big = { type: 'object', properties: props };
    const r = new SchemaCompiler('srv').compile(big, 'tool `t` inputSchema');
    assert.ok(r instanceof SchemaRefusedError);
    assert.match(r.message, /server `srv` tool `t` inputSchema is too large to compile: over the limit of 2,000 schema nodes \(raise it with the setting `mcpHost\.limits\.maxSchemaNodes`\)/);
    validator(new SchemaCompiler('srv', { maxSchemaNodes: 10_000 }).compile(big, 'x'));
    const long = new SchemaCompiler('srv').compile({ type: 'string', pattern: 'x'.repeat(9000) }, 'tool `t` outputSchema');
    assert.ok(long instanceof SchemaRefusedError);
    assert.match(long.message, /maxSchemaPatternChars/);
  });

  it('counts nodes without recursion (a deeply nested schema cannot overflow the stack)', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    assert.equal(census(deep, 2000).nodes, 2001);
    assert.ok(new SchemaCompiler('s').compile(deep, 'x') instanceof SchemaRefusedError);
  });

  it('uniqueItems is checked in linear time, with ajv\'s meaning of equal', () => {
    const v = validator(new SchemaCompiler('s').compile({ type: 'array', uniqueItems: true }, 'x'));
    assert.equal(v([{ a: 1, b: 2 }, { b: 2, a: 1 }]), false);
    assert.equal(v([1, '1', [1], { a: [1] }]), true);
    const many = Array.from({ length: 20_000 }, (_, i) => ({ i, tags: ['x', 'y'] }));
    assert.equal(v(many), true);
    assert.equal(v([...many, { tags: ['x', 'y'], i: 5 }]), false);
    assert.equal(validator(new SchemaCompiler('s').compile({ type: 'array', uniqueItems: false }, 'x'))([1, 1]), true);
  });

  it('`constructor`, `__proto__`, `toString` are property names like any other (own properties only)', () => {
    const v = validator(new SchemaCompiler('s').compile(JSON.parse('{"type":"object","properties":{"constructor":{"type":"string"},"__proto__":{"type":"string"},"toString":{"type":"string"}},"required":["constructor","__proto__","toString"],"additionalProperties":false}'), 'x'));
    assert.equal(v({}), false, 'inherited members do not satisfy required');
    assert.equal(v(JSON.parse('{"constructor":"a","__proto__":"b","toString":"c"}')), true);
    assert.equal(v(JSON.parse('{"constructor":1,"__proto__":"b","toString":"c"}')), false);
  });

  it('one compiler per server: two servers using the same $id never interfere', () => {
    const a = new SchemaCompiler('a');
    const b = new SchemaCompiler('b');
    const va = validator(a.compile({ $id: 'https://example.test/shared.json', type: 'object', properties: { n: { type: 'number' } } }, 'x'));
    const vb = validator(b.compile({ $id: 'https://example.test/shared.json', type: 'object', properties: { n: { type: 'string' } } }, 'x'));
    assert.equal(va({ n: 1 }), true);
    assert.equal(vb({ n: 1 }), false);
    assert.equal(vb({ n: 'x' }), true);
  });

  it('within one server, tools reusing an $id (or a nested $id) each get their own schema', () => {
    const warnings: string[] = [];
    const c = new SchemaCompiler('s');
    const m = buildToolValidators([
      { name: 't1', inputSchema: { $id: 'https://example.test/x.json', type: 'object', properties: { n: { $ref: '#/definitions/d' } }, definitions: { d: { $id: 'https://example.test/d.json', type: 'number' } } } as never },
      { name: 't2', inputSchema: { $id: 'https://example.test/x.json', type: 'object', properties: { n: { $ref: '#/definitions/d' } }, definitions: { d: { $id: 'https://example.test/d.json', type: 'string' } } } as never },
      { name: 't3', inputSchema: { type: 'object', properties: { n: { $ref: 'https://example.test/x.json' } } } as never },
    ], w => warnings.push(w), c);
    assert.equal(m.get('t1')?.input?.({ n: 1 }), true);
    assert.equal(m.get('t2')?.input?.({ n: 1 }), false);
    assert.equal(m.get('t2')?.input?.({ n: 'x' }), true);
    assert.match(m.get('t3')?.invalid ?? '', /invalid inputSchema/, 'a tool cannot reach into another tool\'s schema');
  });

  it('a refused schema makes that tool unusable with the reason; the other tools are fine', () => {
    const warnings: string[] = [];
    const m = buildToolValidators([
      { name: 'ok', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '^a' } } } },
      { name: 'backref', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } } },
      { name: 'out', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(?<=x)' } } } },
    ], w => warnings.push(w), new SchemaCompiler('srv'));
    assert.ok(m.get('ok')?.input && !m.get('ok')?.invalid);
    assert.match(m.get('backref')?.unusable ?? '', /^server `srv` tool `backref` inputSchema: pattern `\(a\)\\1` uses a backreference.*; tool `backref` is unusable$/);
    assert.match(m.get('out')?.unusable ?? '', /tool `out` outputSchema: pattern .* lookbehind/);
    assert.equal(m.get('out')?.input, undefined);
    assert.equal(warnings.length, 2);
  });

  it('JSON Schema 2020-12 is the dialect when `$schema` is absent: prefixItems, $defs, unevaluatedProperties, dependentRequired', () => {
    const c = new SchemaCompiler('s');
    const v = validator(c.compile({
      type: 'object',
      $defs: { pos: { type: 'integer', minimum: 1 } },
      properties: {
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { $ref: '#/$defs/pos' }], items: false },
        card: { type: 'string' }, cvv: { type: 'string' },
      },
      dependentRequired: { card: ['cvv'] },
      unevaluatedProperties: false,
    }, 'tool `t` inputSchema'));
    assert.equal(v({ pair: ['a', 2] }), true);
    assert.equal(v({ pair: ['a', 0] }), false, '$defs reached by $ref: minimum 1');
    assert.equal(v({ pair: [1, 2] }), false, 'prefixItems: first is a string');
    assert.equal(v({ pair: ['a', 2, 'extra'] }), false, 'items: false after prefixItems');
    assert.equal(v({ card: '4111' }), false, 'dependentRequired: card needs cvv');
    assert.equal(v({ card: '4111', cvv: '123' }), true);
    assert.equal(v({ other: 1 }), false, 'unevaluatedProperties: false');
    const same = validator(c.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'number' }] }, 'x'));
    assert.equal(same(['no']), false, 'an explicit 2020-12 `$schema` is the same dialect');
  });

  it('2020-12 keywords apply to structured output without `$schema` too', () => {
    const m = buildToolValidators([{
      name: 't', inputSchema: { type: 'object' },
      outputSchema: { type: 'object', properties: { xy: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] } }, unevaluatedProperties: false } as never,
    }], () => undefined, new SchemaCompiler('s'));
    assert.equal(m.get('t')?.output?.({ xy: [1, 2] }), true);
    assert.equal(m.get('t')?.output?.({ xy: [1, 'y'] }), false);
    assert.equal(m.get('t')?.output?.({ xy: [1, 2], z: 1 }), false);
  });

  it('a draft-07 `$schema` keeps draft-07 meaning: `definitions` and `items` as an array (tuple)', () => {
    for (const uri of ['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema', 'https://json-schema.org/draft-07/schema#']) {
      const v = validator(new SchemaCompiler('s').compile({
        $schema: uri, type: 'object',
        definitions: { name: { type: 'string', pattern: '^(a+)+$' } },
        properties: { t: { type: 'array', items: [{ $ref: '#/definitions/name' }, { type: 'number' }], additionalItems: false } },
      }, 'x'));
      assert.equal(v({ t: ['aaa', 1] }), true, uri);
      assert.equal(v({ t: [`${'a'.repeat(30_000)}!`, 1] }), false, 'patterns still run on RE2');
      assert.equal(v({ t: ['aaa', 'one'] }), false, 'items array: the second is a number');
      assert.equal(v({ t: ['aaa', 1, 2] }), false, 'additionalItems: false');
    }
    // Without `$schema`, `items` as an array is not 2020-12: the tool says why instead of validating by the wrong rules.
    const m = buildToolValidators([{ name: 'old', inputSchema: { type: 'object', properties: { t: { type: 'array', items: [{ type: 'string' }] } } } as never }], () => undefined, new SchemaCompiler('s'));
    assert.match(m.get('old')?.invalid ?? '', /invalid inputSchema: schema is invalid/);
  });

  it('an unknown `$schema` dialect makes the tool unusable with a message naming it; the budget still applies to 2020-12', () => {
    const r = new SchemaCompiler('s').compile({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, 'x');
    assert.ok(r instanceof Error && /unsupported dialect.*draft-04.*2020-12/.test(r.message), String(r));
    const big = new SchemaCompiler('s', { maxSchemaNodes: 50 }).compile({ type: 'object', $defs: Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`d${i}`, { type: 'string' }])) }, 'tool `t` inputSchema');
    assert.ok(big instanceof SchemaRefusedError && /maxSchemaNodes/.test(big.message));
  });

  it('frees compiled validators with the compiler (no process-wide cache)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const refs: WeakRef<object>[] = [];
    (() => {
      for (let i = 0; i < 3; i++) {
        const c = new SchemaCompiler('s');
        const v = validator(c.compile({ $id: 'https://example.test/same.json', type: 'object', properties: { big: { enum: Array.from({ length: 500 }, (_, k) => `v${k}`) } } }, 'x'));
        refs.push(new WeakRef(v), new WeakRef(c));
        c.dispose();
      }
    })();
    for (let i = 0; i < 10 && refs.some(r => r.deref()); i++) {
      await new Promise(r => setImmediate(r));
      gc();
    }
    assert.deepEqual(refs.map(r => r.deref() === undefined), refs.map(() => true), 'every validator and compiler was collected');
  });
});

describe('server→client request bound', () => {
  it('admits at most the limit at once and refuses the rest at once, naming limit and setting', async () => {
    const p = new PendingServerRequests(() => 'srv', 3);
    const release: Array<() => void> = [];
    let admitted = 0;
    const results = Array.from({ length: 10 }, () => p.run('sampling/createMessage', () => { admitted++; return new Promise<void>(r => release.push(r)); }).then(() => 'ok', (e: unknown) => e));
    await new Promise(r => setImmediate(r));
    assert.equal(admitted, 3);
    assert.equal(p.size, 3);
    release.forEach(r => r());
    const out = await Promise.all(results);
    assert.equal(out.filter(x => x === 'ok').length, 3);
    const refused = out.filter((x): x is ProtocolError => x instanceof ProtocolError);
    assert.equal(refused.length, 7);
    assert.equal(refused[0].code, TOO_MANY_PENDING);
    assert.match(refused[0].message, /server `srv` sent too many requests at once \(sampling\/createMessage\): over the limit of 3 pending server requests \(raise it with the setting `mcpHost\.limits\.maxPendingServerRequests`\)/);
    assert.equal(p.size, 0);
    assert.equal(await p.run('roots/list', () => 'again'), 'again', 'slots are released');
  });
});

describe('tool results: malformed content blocks', () => {
  it('a malformed block becomes a one-line error in its place; valid blocks are kept', () => {
    const { result, problems } = parseToolResult('srv', 'tool1', {
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', mimeType: 'image/png' },
        { type: 'nonsense\nwith a newline' },
        { type: 'text', text: 'last' },
      ],
      structuredContent: { a: 1 },
    });
    assert.equal(result.content.length, 4);
    assert.deepEqual(result.content[0], { type: 'text', text: 'first' });
    assert.deepEqual(result.content[3], { type: 'text', text: 'last' });
    assert.equal(problems.length, 2);
    assert.match(problems[0], /^content block 2 \(image\) from tool `tool1` on server `srv` is malformed and was left out: /);
    for (const p of problems) assert.ok(!p.includes('\n'), 'one line');
    assert.equal((result.content[1] as { text: string }).text, `[${problems[0]}]`);
    assert.deepEqual(result.structuredContent, { a: 1 });
  });

  it('a result that is not a tool result is still an error', () => {
    assert.throws(() => parseToolResult('s', 't', { content: 'nope' }), /`content` that is not a list/);
    assert.throws(() => parseToolResult('s', 't', { content: [], isError: 'yes' }), /returned an invalid result: isError/);
    assert.deepEqual(parseToolResult('s', 't', {}).result.content, []);
  });
});

describe('names a server chooses are data (editor-free parts)', () => {
  it('elicitation fields named constructor, __proto__, toString; a field pattern runs on RE2', () => {
    const fields = fieldsOf(JSON.parse('{"properties":{"constructor":{"type":"string"},"__proto__":{"type":"string","pattern":"^(a+)+$"},"toString":{"type":"integer"}},"required":["__proto__"]}'));
    assert.deepEqual(fields.map(f => [f.name, f.required]), [['constructor', false], ['__proto__', true], ['toString', false]]);
    const proto = fields[1];
    assert.deepEqual(coerce(proto, `${'a'.repeat(30_000)}!`), { error: 'Must match ^(a+)+$' });
    assert.deepEqual(coerce(proto, 'aaa'), { value: 'aaa' });
    const backref = fieldsOf({ properties: { w: { type: 'string', pattern: '(a)\\1' } } })[0];
    assert.deepEqual(coerce(backref, 'b'), { value: 'b' }, 'a pattern RE2 cannot run is left to the server');
    assert.deepEqual(fieldsOf({ properties: { a: { type: 'string' } }, required: 'a' as never }).map(f => f.required), [false]);
  });

  it('prompt arguments named constructor or __proto__ bind as own properties', () => {
    const declared = [{ name: 'constructor', required: true }, { name: '__proto__', required: true }, { name: 'toString' }];
    const r = bindArguments({ named: {}, positional: ['c', 'p'] }, declared);
    assert.deepEqual(Object.entries(r.args), [['constructor', 'c'], ['__proto__', 'p']]);
    assert.deepEqual(r.missing, []);
    assert.deepEqual(bindArguments({ named: {}, positional: [] }, declared).missing, ['constructor', '__proto__']);
    const named = parseInvocation('/s.p __proto__=x constructor=y');
    assert.deepEqual(Object.entries(bindArguments(named, declared).args), [['__proto__', 'x'], ['constructor', 'y']]);
    assert.deepEqual(Object.entries(parsePromptArgs(['__proto__=1', 'toString=2'])), [['__proto__', '1'], ['toString', '2']]);
  });
});
