/**
 * Issue 41: the meta-schema check of a dialect is prepared a turn at a time (prepareSchemaChecks, schema/compiler.ts)
 * before a tools list's first schema check, so loading ajv and compiling the meta-schema (~50 ms of CPU at once) do
 * not hold the thread in one turn while servers start; the checks answer as before.
 */
import * as assert from 'node:assert/strict';
import { SchemaCompiler, SchemaRefusedError, prepareSchemaChecks } from '../../src/mcp/schema/compiler';

describe('schema: the meta-schema check is prepared in turns', () => {
  it('H654: prepareSchemaChecks yields to the event loop between its steps, once per dialect; checks answer as before', async () => {
    // Measured on 2019-09, which only this test prepares (the catalogue prepares 2020-12, so in a whole unit run that
    // one may be prepared already): whatever an earlier test loaded (ajv, the dialect's checker), each of the
    // dialect's meta-schemas (its vocabularies' and its own) is compiled in a turn of its own.
    let turns = 0;
    let done = false;
    const tick = () => { turns++; if (!done) setImmediate(tick); };
    setImmediate(tick);
    const first = prepareSchemaChecks('2019-09');
    assert.equal(prepareSchemaChecks('2019-09'), first, 'one preparation per dialect');
    await first;
    done = true;
    assert.ok(turns >= 6, `the event loop ran ${turns} turns during the preparation`);
    await prepareSchemaChecks();

    const c = new SchemaCompiler('prep');
    assert.equal(c.precheck({ type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' } } }, 'tool `ok` inputSchema'), undefined, 'the bystander: a valid schema passes');
    assert.match(c.precheck({ type: 'nope' }, 'tool `bad` inputSchema')?.message ?? '', /schema is invalid/);
    assert.match(c.precheck({ properties: { a: { minimum: 'x' } } }, 'tool `bad2` inputSchema')?.message ?? '', /schema is invalid/);
    assert.match(c.precheck({ $schema: 'https://json-schema.org/draft/2019-09/schema', type: 7 }, 'tool `old` inputSchema')?.message ?? '', /schema is invalid/);
    assert.ok(c.precheck({ type: 'string', pattern: '(a)\\1' }, 'tool `re` inputSchema') instanceof SchemaRefusedError, 'a pattern RE2 cannot run is still refused');
    const v = c.compile({ type: 'object', properties: { n: { type: 'integer', maximum: 3 } } }, 'tool `n` inputSchema');
    assert.ok(typeof v === 'function');
    assert.equal(v({ n: 2 }), true);
    assert.equal(v({ n: 4 }), false);
  });
});
