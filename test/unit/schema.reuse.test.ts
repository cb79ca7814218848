import * as assert from 'node:assert/strict';
import type { ValidateFunction } from 'ajv';
import { SchemaCompiler, SchemaRefusedError } from '../../src/mcp/schema/compiler';
import { checkToolsSliced, type ToolReuse, type ToolValidators } from '../../src/mcp/catalogue/toolSchemas';

function validator(v: ValidateFunction | Error): ValidateFunction {
  if (v instanceof Error) assert.fail(v.message);
  return v;
}

type Tool = Parameters<typeof checkToolsSliced>[0][number];

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

describe('catalogue: a refreshed tools list rebuilds only the tools that changed', () => {
  it('an unchanged tool keeps its validators, a changed one is rebuilt, a tool with a problem is reported again', async () => {
    const tools = (max: number) => [
      { name: 'same', inputSchema: schema(5) },
      { name: 'changes', inputSchema: schema(max) },
      { name: 'bad', inputSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } } },
    ] as Tool[];
    const warnings: string[] = [];
    const first = new Map<string, ToolValidators>();
    const one: ToolReuse = { previous: new Map(), next: new Map() };
    // Compiled when listed (as the CLI's doctor does): the previous list's validators of unchanged tools carry over.
    await checkToolsSliced(JSON.parse(JSON.stringify(tools(1))), w => warnings.push(w), new SchemaCompiler('s'), first, new Map(), () => false, one, () => true);
    assert.deepEqual([...one.next.keys()], ['same', 'changes'], 'only tools without a problem carry over');
    const second = new Map<string, ToolValidators>();
    const two: ToolReuse = { previous: one.next, next: new Map() };
    await checkToolsSliced(JSON.parse(JSON.stringify(tools(2))), w => warnings.push(w), new SchemaCompiler('s'), second, new Map(), () => false, two, () => true);
    assert.equal(second.get('same'), first.get('same'));
    assert.notEqual(second.get('changes'), first.get('changes'));
    assert.equal(second.get('changes')?.input?.({ q: 'x', n: 2 }), true);
    assert.match(second.get('bad')?.unusable ?? '', /backreference/);
    assert.equal(warnings.filter(w => /backreference/.test(w)).length, 2, 'the problem is reported on each list');
  });
});
