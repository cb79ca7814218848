/**
 * Issue 41: a refreshed tools list keeps the previous list's object for each unchanged tool (so the page's copy dies
 * young and a refresh of 10,000 unchanged tools leaves nothing for the scavenges to copy), compared by `jsonEqual`
 * (jsonWalks.ts) without serialising either.
 */
import * as assert from 'node:assert/strict';
import { jsonEqual } from '../../src/mcp/jsonWalks';
import { SchemaCompiler } from '../../src/mcp/schema/compiler';
import { checkToolsSliced, type ToolReuse, type ToolValidators } from '../../src/mcp/catalogue/toolSchemas';
import { Connection } from '../../src/mcp/server/connection';
import { FAST_STOP, nodeFixture } from '../support/connection';
import { until } from '../support/wait';

type Tool = Parameters<typeof checkToolsSliced>[0][number];

const schema = (max: number) => ({ type: 'object', properties: { q: { type: 'string', pattern: '^[a-z]+$' }, n: { type: 'integer', maximum: max } }, required: ['q'] });

describe('jsonEqual: the same JSON value, key order aside', () => {
  it('H651: equal across key order and copies; unequal on any value, type, key or length; own keys only', () => {
    const a = { name: 't', inputSchema: schema(5), list: [1, 'x', null, true, { k: [] }] };
    assert.equal(jsonEqual(a, JSON.parse(JSON.stringify(a))), true);
    assert.equal(jsonEqual({ x: 1, y: { p: 2, q: 3 } }, { y: { q: 3, p: 2 }, x: 1 }), true, 'key order aside');
    assert.equal(jsonEqual({ x: 1 }, { x: '1' }), false, 'a number is not its text');
    assert.equal(jsonEqual({ x: null }, { x: {} }), false);
    assert.equal(jsonEqual({ x: 1 }, { x: 1, y: 2 }), false, 'a key more');
    assert.equal(jsonEqual({ x: 1, y: 2 }, { x: 1 }), false, 'a key fewer');
    assert.equal(jsonEqual({ x: 1, y: 2 }, { x: 1, z: 2 }), false, 'another key');
    assert.equal(jsonEqual([1, 2], [2, 1]), false, 'arrays keep their order');
    assert.equal(jsonEqual([1, 2], [1, 2, 3]), false);
    assert.equal(jsonEqual(['a'], { 0: 'a' }), false, 'an array is not an object with index keys');
    assert.equal(jsonEqual({ 0: 'a' }, ['a']), false);
    assert.equal(jsonEqual({ ...a, inputSchema: schema(6) }, a), false, 'a difference deep inside');
    // A key `__proto__` from JSON.parse is an own key like any other (data); the bystander key beside it still counts.
    const hostile = JSON.parse('{"__proto__": {"polluted": 1}, "ok": 1}') as object;
    assert.equal(jsonEqual(hostile, JSON.parse('{"ok": 1, "__proto__": {"polluted": 1}}')), true);
    assert.equal(jsonEqual(hostile, JSON.parse('{"__proto__": {"polluted": 2}, "ok": 1}')), false);
    assert.equal(jsonEqual(hostile, { ok: 1 }), false, 'an inherited property is not an own key');
    assert.equal(jsonEqual({ ok: 1 }, { ok: 2 }), false, 'the bystander: plain values still compare');
  });
});

describe('catalogue: an unchanged tool stays the previous list\'s object', () => {
  it('H652: a refreshed list gets the previous objects of unchanged tools, keeps a changed tool\'s new object and checks it again', async () => {
    const tools = (max: number, badPattern = false) => [
      { name: 'same', description: 'kept', inputSchema: schema(5) },
      { name: 'reordered', inputSchema: { required: ['q'], properties: schema(5).properties, type: 'object' } },
      { name: 'changes', inputSchema: badPattern ? { type: 'object', properties: { a: { type: 'string', pattern: '(a)\\1' } } } : schema(max) },
    ] as Tool[];
    const warnings: string[] = [];
    const firstPage = JSON.parse(JSON.stringify(tools(1))) as Tool[];
    const firstOut = new Map<string, ToolValidators>();
    const one: ToolReuse = { previous: new Map(), next: new Map(), previousChecked: new Map(), nextChecked: new Map() };
    await checkToolsSliced(firstPage, w => warnings.push(w), new SchemaCompiler('s'), firstOut, new Map(), () => false, one);
    const firstObjects = [...firstPage];

    // The same list again, as a new parse (the 'reordered' tool's keys in another order): every object is the previous one.
    const again = JSON.parse(JSON.stringify(tools(1))) as Tool[];
    again[1] = { inputSchema: again[1].inputSchema, name: 'reordered' } as Tool;
    const twoOut = new Map<string, ToolValidators>();
    const twoPending = new Map<string, Tool>();
    const two: ToolReuse = { previous: one.next, next: new Map(), previousChecked: one.nextChecked, nextChecked: new Map() };
    await checkToolsSliced(again, w => warnings.push(w), new SchemaCompiler('s'), twoOut, twoPending, () => false, two);
    again.forEach((t, i) => assert.equal(t, firstObjects[i], `${t.name}: the previous list's object`));
    assert.equal(twoPending.get('same'), firstObjects[0], 'what is compiled on first use is that object too');
    assert.deepEqual([...twoOut.values()].map(v => v.pending), [true, true, true]);

    // A changed tool (now with a pattern RE2 cannot run) keeps its new object and is checked again; the others are kept.
    const changed = JSON.parse(JSON.stringify(tools(1, true))) as Tool[];
    const fresh = changed[2];
    const threeOut = new Map<string, ToolValidators>();
    const three: ToolReuse = { previous: two.next, next: new Map(), previousChecked: two.nextChecked, nextChecked: new Map() };
    await checkToolsSliced(changed, w => warnings.push(w), new SchemaCompiler('s'), threeOut, new Map(), () => false, three);
    assert.equal(changed[0], firstObjects[0]);
    assert.equal(changed[1], firstObjects[1]);
    assert.equal(changed[2], fresh, 'a changed tool is its new definition');
    assert.match(threeOut.get('changes')?.unusable ?? '', /tool `changes`.*backreference|backreference.*tool `changes`/);
    assert.equal(three.nextChecked?.has('changes'), false, 'a tool with a problem is not carried over');
    assert.equal(warnings.filter(w => /backreference/.test(w)).length, 1);
  });
});

describe('catalogue: refreshing an unchanged tools list over a real connection (paged fixture)', function () {
  this.timeout(60_000);
  let c: Connection;
  before(async () => {
    c = new Connection(nodeFixture('paged', 'paged', ['--page', '50', '--resources', '10']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
  });
  after(async () => { await c?.dispose(); });

  it('H653: every tool stays the same object across a refresh and a list_changed; a called tool\'s validators still apply', async () => {
    // Compiled on first call, before the refresh: kept (validators and object) by the refresh.
    await assert.rejects(c.callTool('bad_output', {}), /tool `bad_output` on server `paged` returned structuredContent that does not match its outputSchema/);
    const before = new Map(c.catalogue.tools.map(t => [t.name, t]));
    assert.ok(before.size >= 100, `${before.size} tools over several pages`);
    await c.refreshCatalogue('tools');
    assert.equal(c.catalogue.tools.length, before.size);
    for (const t of c.catalogue.tools) assert.equal(t, before.get(t.name), `${t.name}: the same object after the refresh`);

    // A tool added by the server (list_changed): it is new; every other tool is still the same object.
    await c.callTool('add_tool', { name: 'added_h653' });
    await until(() => c.catalogue.tools.some(t => t.name === 'added_h653'), 'the added tool is listed', 10_000);
    for (const t of c.catalogue.tools) if (t.name !== 'added_h653') assert.equal(t, before.get(t.name), `${t.name}: kept`);
    await assert.rejects(c.callTool('bad_output', {}), /does not match its outputSchema/, 'the kept validators still validate');
    const good = await c.callTool('good_output', {});
    assert.equal((good.structuredContent as { n: number }).n, 42, 'the well-behaved bystander tool answers');
  });
});
