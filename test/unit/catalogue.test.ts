/** The catalogue against the paged fixture: every page, list_changed, output schemas on every page. */
import * as assert from 'node:assert/strict';
import { Connection } from '../../src/mcp/server/connection';
import { buildToolValidators, compileSchema } from '../../src/mcp/catalogue/toolSchemas';
import { FAST_STOP, collectLogs, nodeFixture } from '../support/connection';
import { until } from '../support/wait';

describe('Catalogue (paged fixture)', function () {
  this.timeout(60_000);
  let c: Connection;
  before(async () => {
    c = new Connection(nodeFixture('paged', 'paged', ['--page', '100']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
  });
  after(async () => { await c?.dispose(); });

  it('H20: fetches every page: 5000 resources, all tools, prompts and templates', () => {
    assert.equal(c.catalogue.resources.length, 5000);
    assert.equal(new Set(c.catalogue.resources.map(r => r.uri)).size, 5000, 'no duplicates');
    assert.ok(c.catalogue.tools.length >= 250);
    assert.equal(c.catalogue.prompts.length, 150);
    assert.equal(c.catalogue.resourceTemplates.length, 150);
  });

  it('H25: validates structuredContent for tools on the first page and on the last page', async () => {
    await assert.rejects(c.callTool('bad_output', {}), /tool `bad_output` on server `paged` returned structuredContent that does not match its outputSchema: `structuredContent\.n` must be number/);
    const good = await c.callTool('good_output', {});
    assert.equal((good.structuredContent as { n: number }).n, 42);
    const last = c.catalogue.tools.filter(t => /^tool_/.test(t.name)).at(-1)!;
    const r = await c.callTool(last.name, {});
    assert.equal(typeof (r.structuredContent as { n: number }).n, 'number');
  });

  it('listResourcesPage returns one page with an opaque cursor', async () => {
    const first = await c.listResourcesPage();
    assert.equal(first.resources.length, 100);
    assert.equal(typeof first.nextCursor, 'string');
    const second = await c.listResourcesPage(first.nextCursor);
    assert.notEqual(second.resources[0].uri, first.resources[0].uri);
  });

  it('H21: refreshes a list on list_changed and fires onDidChangeCatalogue', async () => {
    const changed = new Promise<void>(resolve => {
      const d = c.onDidChangeCatalogue(cat => { if (cat.tools.some(t => t.name === 'brand_new')) { d.dispose(); resolve(); } });
    });
    await c.callTool('add_tool', { name: 'brand_new' });
    await changed;
    assert.ok(c.catalogue.tools.some(t => t.name === 'brand_new'));
    await c.callTool('add_resource', { name: 'fresh' });
    await until(() => c.catalogue.resources.length === 5001, 'resource list refreshed', 10_000);
  });

  it('H21: list_changed bursts are coalesced (no refresh per notification)', async () => {
    const logs = collectLogs(c);
    c.setTrace(true);
    const before = c.catalogue.prompts.length;
    await Promise.all([1, 2, 3, 4, 5].map(i => c.callTool('add_prompt', { name: `burst_${i}` })));
    await until(() => c.catalogue.prompts.length === before + 5, 'prompts refreshed', 10_000);
    await new Promise(r => setTimeout(r, 300));
    c.setTrace(false);
    const firstPages = logs.filter(l => l.source === 'trace' && l.message.startsWith('→') && /"method":"prompts\/list","params":\{\}/.test(l.message));
    assert.ok(firstPages.length >= 1 && firstPages.length < 5, `prompts/list restarted ${firstPages.length} times for 5 notifications`);
  });

  it('H22: subscribe and resources/updated on the fixture', async () => {
    const uri = c.catalogue.resources[3].uri;
    const got = new Promise<string>(resolve => { const d = c.onDidUpdateResource(u => { d.dispose(); resolve(u); }); });
    await c.subscribe(uri);
    await c.callTool('touch_resource', { uri });
    assert.equal(await got, uri);
    await c.unsubscribe(uri);
  });

  it('H23: completes a template variable', async () => {
    const t = c.catalogue.resourceTemplates[0];
    const r = await c.complete({ type: 'ref/resource', uri: t.uriTemplate }, { name: 'id', value: '' });
    assert.ok(r.values.length > 0 && r.values.length <= 100);
  });

  it('H20: cursors are not kept across sessions (a restart lists from the start)', async () => {
    await c.restart();
    assert.equal(c.catalogue.resources.length, 5000, 'fresh session: fixture state reset, every page fetched again');
  });
});

describe('Catalogue (schemas)', () => {
  it('a malformed inputSchema marks the tool invalid with a warning instead of crashing', () => {
    const warnings: string[] = [];
    const v = buildToolValidators([
      { name: 'ok', inputSchema: { type: 'object', properties: { a: { type: 'string' } } } },
      { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'no-such-type' } } } as never },
    ], w => warnings.push(w));
    assert.ok(v.get('ok')?.input);
    assert.match(v.get('broken')?.invalid ?? '', /tool `broken` has an invalid inputSchema/);
    assert.equal(warnings.length, 1);
  });

  it('compiles draft 2020-12 schemas too', () => {
    const f = compileSchema({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { x: { type: 'string' } }, properties: { n: { type: 'number' } } });
    assert.ok(!(f instanceof Error));
    if (!(f instanceof Error)) {
      assert.equal(f({ n: 1 }), true);
      assert.equal(f({ n: 'x' }), false);
    }
  });
});
