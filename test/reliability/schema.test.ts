/**
 * Reliability: what a server sends cannot stall, exhaust or confuse the host (issue 12, "Never blocked" and
 * "Bounded"): catastrophic patterns in tool schemas, patterns RE2 cannot run, huge schemas, property names
 * like `__proto__`, two servers (and one before and after list_changed) sharing an `$id`, endless and
 * repeating pagination, a burst of 1,000 sampling or elicitation requests, and malformed content blocks.
 * Each case runs next to the bystander, which must keep working; the process table is checked at the end.
 */
import * as assert from 'node:assert/strict';
import type { CreateMessageResult, ElicitResult } from '@modelcontextprotocol/client';
import type { Catalogue, ClientFeatures } from '../../src/mcp/types';
import { DEFAULT_LIMITS } from '../../src/mcp/limits';
import { marked, startHost, textOf, until, type TestHost } from './helpers';

const FIXTURE = 'hostile-schema';

describe('Reliability: hostile schemas, pages and server requests', function () {
  this.timeout(180_000);
  let t: TestHost | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('a catastrophic pattern in inputSchema or outputSchema runs in linear time; the server and bystander keep working', async () => {
    t = await startHost([marked('schemas', FIXTURE)]);
    const s = t.get('schemas');
    await assert.rejects(s.callTool('redos', { x: `${'a'.repeat(50_000)}!` }), /invalid arguments for tool `redos` on server `schemas`: `arguments\.x` must match pattern/);
    assert.match(textOf(await s.callTool('redos', { x: 'a'.repeat(50_000) })), /xxy/);
    await assert.rejects(s.callTool('redos', { bad: true }), /tool `redos` on server `schemas` returned structuredContent that does not match its outputSchema/);
    assert.equal(textOf(await s.callTool('echo', { text: 'fine' })), 'fine');
    await t.assertBystanderUndisturbed();
  });

  it('a pattern RE2 cannot run, or a schema over the compile budget, makes only that tool unusable, with the reason', async () => {
    t = await startHost([marked('schemas', FIXTURE)]);
    const s = t.get('schemas');
    assert.equal(s.state.kind, 'running');
    const names = s.catalogue.tools.map(x => x.name);
    assert.ok(names.includes('backref') && names.includes('huge'), 'unusable tools stay listed');
    assert.match(s.invalidTools.get('backref') ?? '', /server `schemas` tool `backref` inputSchema: pattern `\^\(\\w\+\) \\1\$` uses a backreference/);
    await assert.rejects(s.callTool('backref', { word: 'a a' }), /server `schemas` tool `backref` inputSchema: pattern .* uses a backreference, which the host's linear-time regular expression engine does not run; tool `backref` is unusable/);
    await assert.rejects(s.callTool('huge', {}), new RegExp(`server \`schemas\` tool \`huge\` inputSchema is too large to compile: over the limit of ${DEFAULT_LIMITS.maxSchemaNodes.toLocaleString('en-US')} schema nodes \\(raise it with the setting \`mcpHost\\.limits\\.maxSchemaNodes\`\\)`));
    assert.ok(t.logs.some(l => l.server === 'schemas' && l.level === 'warning' && /tool `huge` inputSchema is too large/.test(l.message)));
    assert.equal(textOf(await s.callTool('echo', { text: 'others work' })), 'others work');
    await t.assertBystanderUndisturbed();
  });

  it('a raised maxSchemaNodes lets the huge tool be used', async () => {
    t = await startHost([marked('schemas', FIXTURE)], { limits: { maxSchemaNodes: 20_000 } });
    const s = t.get('schemas');
    assert.equal(s.invalidTools.has('huge'), false);
    await s.callTool('huge', { p1: 'x' });
    await assert.rejects(s.callTool('huge', { p1: '' }), /`arguments\.p1` must NOT have fewer than 1 characters/);
    await t.assertBystanderUndisturbed();
  });

  it('properties named constructor, __proto__ and toString are data: validated as own properties and passed through', async () => {
    t = await startHost([marked('schemas', FIXTURE)]);
    const s = t.get('schemas');
    const args = JSON.parse('{"constructor":"c","__proto__":"p","toString":"t"}') as Record<string, unknown>;
    const echoed = JSON.parse(textOf(await s.callTool('proto', args))) as Record<string, unknown>;
    assert.deepEqual(Object.entries(echoed), [['constructor', 'c'], ['__proto__', 'p'], ['toString', 't']]);
    await assert.rejects(s.callTool('proto', {}), /`arguments\.constructor` is required; `arguments\.__proto__` is required; `arguments\.toString` is required/);
    await assert.rejects(s.callTool('proto', JSON.parse('{"constructor":"c","__proto__":7,"toString":"t"}') as Record<string, unknown>), /`arguments\.__proto__` must be string/);
    await t.assertBystanderUndisturbed();
  });

  it('two servers with the same $id, and one server before and after list_changed, never share a schema', async () => {
    t = await startHost([marked('numbers', FIXTURE, ['--id-type', 'number']), marked('strings', FIXTURE, ['--id-type', 'string'])]);
    const numbers = t.get('numbers');
    const strings = t.get('strings');
    await numbers.callTool('typed', { n: 1 });
    await strings.callTool('typed', { n: 'one' });
    await assert.rejects(numbers.callTool('typed', { n: 'one' }), /`arguments\.n` must be number/);
    await assert.rejects(strings.callTool('typed', { n: 1 }), /`arguments\.n` must be string/);
    // After list_changed the new list gets a fresh compiler: the same $id now means string.
    const changed = new Promise<void>(resolve => { const d = numbers.onDidChangeCatalogue(() => { d.dispose(); resolve(); }); });
    await numbers.callTool('flip', {});
    await changed;
    await numbers.callTool('typed', { n: 'one' });
    await assert.rejects(numbers.callTool('typed', { n: 1 }), /`arguments\.n` must be string/);
    await assert.rejects(strings.callTool('typed', { n: 1 }), /`arguments\.n` must be string/);
    await t.assertBystanderUndisturbed();
  });

  it('endless pagination stops at maxCataloguePages with a warning and a partial list; the first page reaches the UI first', async () => {
    const firstEvents: Catalogue[] = [];
    t = await startHost([], { limits: { maxCataloguePages: 40 } });
    t.host.onDidChangeCatalogue(e => { if (e.server === 'endless') firstEvents.push(e.catalogue); });
    await t.host.reconcile([marked('bystander', 'echo'), marked('endless', FIXTURE, ['--pages', 'endless', '--page-size', '5', '--cursor-kb', '64'])]);
    const s = t.get('endless');
    assert.equal(s.state.kind, 'running');
    assert.equal(s.catalogue.prompts.length, 40 * 5);
    assert.equal(s.catalogue.resources.length, 40 * 5);
    assert.equal(s.catalogue.tools.length, 40 * 5 + 10);
    for (const method of ['tools/list', 'prompts/list', 'resources/list']) {
      assert.ok(t.logs.some(l => l.server === 'endless' && l.level === 'warning'
        && l.message.includes(`server \`endless\` sent more pages of ${method}; the list is partial: over the limit of 40 catalogue pages (raise it with the setting \`mcpHost.limits.maxCataloguePages\`)`)), method);
    }
    assert.ok(firstEvents.length >= 2, 'a partial catalogue was published before the whole list');
    assert.ok(firstEvents[0].tools.length <= 15 || firstEvents[0].prompts.length <= 5, 'the first event carries a first page');
    assert.equal(textOf(await s.callTool('echo', { text: 'after paging' })), 'after paging');
    await t.assertBystanderUndisturbed();
  });

  it('a server that repeats its cursor, or sends more than maxCatalogueItems, ends with a warning and a partial list', async () => {
    t = await startHost([
      marked('repeat', FIXTURE, ['--pages', 'repeat', '--page-size', '5']),
      marked('many', FIXTURE, ['--pages', '100', '--page-size', '50']),
    ], { limits: { maxCatalogueItems: 120 } });
    const repeat = t.get('repeat');
    assert.equal(repeat.catalogue.prompts.length, 10, 'two pages: the second repeats the cursor of the first');
    assert.ok(t.logs.some(l => l.server === 'repeat' && /repeated a prompts\/list cursor/.test(l.message)));
    const many = t.get('many');
    assert.equal(many.catalogue.prompts.length, 120);
    assert.equal(many.catalogue.tools.length, 120);
    assert.ok(t.logs.some(l => l.server === 'many' && l.message.includes('over the limit of 120 catalogue items (raise it with the setting `mcpHost.limits.maxCatalogueItems`)')));
    await t.assertBystanderUndisturbed();
  });

  for (const kind of ['sample', 'elicit'] as const) {
    it(`1,000 ${kind === 'sample' ? 'sampling' : 'elicitation'} requests at once: at most maxPendingServerRequests reach the approval callback, the rest are refused at once`, async () => {
      const cap = DEFAULT_LIMITS.maxPendingServerRequests;
      let calls = 0;
      let waiting: Array<() => void> = [];
      const hold = <T>(value: T) => { calls++; return new Promise<T>(resolve => waiting.push(() => resolve(value))); };
      const features: ClientFeatures = {
        listModels: async () => [{ id: 'fake-model', name: 'Fake' }],
        sample: () => hold<CreateMessageResult>({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'fake-model' }),
        elicit: () => hold<ElicitResult>({ action: 'decline' }),
      };
      t = await startHost([marked('burst', FIXTURE, [], { sampling: { maxRequestsPerMinute: 100_000 } })], { features });
      const s = t.get('burst');
      const result = s.callTool(kind, { n: 1000, reportAt: 1000 - cap }, { timeout: 120_000 });
      await until(() => t!.logs.some(l => l.server === 'burst' && l.message === `answered ${1000 - cap}`), 'the refusals', 60_000);
      assert.equal(calls, cap, 'only the cap reached the callback');
      const release = waiting;
      waiting = [];
      release.forEach(r => r());
      const out = JSON.parse(textOf(await result)) as { ok: number; errors: Record<string, number>; messages: Record<string, string> };
      assert.equal(out.ok, cap);
      assert.deepEqual(out.errors, { '-32001': 1000 - cap });
      assert.match(out.messages['-32001'], /server `burst` sent too many requests at once \((sampling\/createMessage|elicitation\/create)\): over the limit of 16 pending server requests \(raise it with the setting `mcpHost\.limits\.maxPendingServerRequests`\)/);
      assert.equal(calls, cap);
      await t.assertBystanderUndisturbed();
    });
  }

  it('a malformed content block becomes a one-line error; the valid blocks are kept', async () => {
    t = await startHost([marked('schemas', FIXTURE)]);
    const s = t.get('schemas');
    const r = await s.callTool('mixed', {});
    const blocks = r.content as Array<{ type: string; text?: string }>;
    assert.equal(blocks.length, 4);
    assert.deepEqual([blocks[0], blocks[3]], [{ type: 'text', text: 'before' }, { type: 'text', text: 'after' }]);
    assert.match(blocks[1].text ?? '', /^\[content block 2 \(image\) from tool `mixed` on server `schemas` is malformed and was left out: [^\n]+\]$/);
    assert.match(blocks[2].text ?? '', /^\[content block 3 \(resource\) from tool `mixed` on server `schemas` is malformed/);
    assert.equal(t.logs.filter(l => l.server === 'schemas' && l.level === 'warning' && /is malformed and was left out/.test(l.message)).length, 2);
    await t.assertBystanderUndisturbed();
  });
});
