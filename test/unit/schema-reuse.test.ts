import * as assert from 'node:assert/strict';
import type { ValidateFunction } from 'ajv';
import { SchemaCompiler, SchemaRefusedError } from '../../src/mcp/schema/compiler';

function validator(v: ValidateFunction | Error): ValidateFunction {
  if (v instanceof Error) assert.fail(v.message);
  return v;
}

const schema = (max: number) => ({ type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer', maximum: max } }, required: ['q'] });

describe('schema: a refreshed tools list compiles only what changed', () => {
  it('takes over the previous list\'s validator for a byte-identical schema, compiles a changed one anew', () => {
    const first = new SchemaCompiler('s');
    const same = validator(first.compile(schema(5), 'tool `a` inputSchema'));
    const old = validator(first.compile(schema(5), 'tool `b` inputSchema'));
    const next = new SchemaCompiler('s', {}, first);
    first.dispose();
    assert.equal(validator(next.compile(JSON.parse(JSON.stringify(schema(5))), 'tool `a` inputSchema')), same, 'same text: the same validator');
    const changed = validator(next.compile(schema(7), 'tool `b` inputSchema'));
    assert.notEqual(changed, old);
    assert.equal(changed({ q: 'x', n: 6 }), true, 'the new schema is the one applied');
    assert.equal(same({ q: 'x', n: 6 }), false);
    assert.equal(same({ n: 1 }), false, 'the reused validator still validates (the old compiler was disposed)');
  });

  it('only from the one previous list, and not across budgets; refusals are worked out again (they name the tool)', () => {
    const a = new SchemaCompiler('s');
    const v = validator(a.compile(schema(1), 'x'));
    const b = new SchemaCompiler('s', {}, a);
    b.compile({ type: 'string' }, 'x');
    b.forgetPrevious();
    const c = new SchemaCompiler('s', {}, b);
    assert.notEqual(validator(c.compile(schema(1), 'x')), v, 'a schema absent from the previous list is compiled anew');
    const tight = new SchemaCompiler('s', { maxSchemaNodes: 3 }, c);
    assert.ok(tight.compile(schema(1), 'tool `t` inputSchema') instanceof SchemaRefusedError, 'a smaller budget refuses what a larger one compiled');
    const refused = { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } };
    const d = new SchemaCompiler('s');
    assert.match((d.compile(refused, 'tool `one` inputSchema') as Error).message, /tool `one`/);
    const e = new SchemaCompiler('s', {}, d);
    assert.match((e.compile(refused, 'tool `two` inputSchema') as Error).message, /tool `two`/);
  });
});
