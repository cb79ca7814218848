import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Client } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/client';
import { CatalogueSession } from '../../src/mcp/catalogue/catalogue';
import { MIN_TTL_MS, expiryOf, fetchAll } from '../../src/mcp/catalogue/paging';
import { approxJsonSize } from '../../src/mcp/jsonWalks';
import { resolveLimits } from '../../src/mcp/limits';
import type { Catalogue } from '../../src/mcp/types';

type Page = { items: unknown[]; next?: string };

/** A client whose `request` serves pages from `pageFor(method, cursor)` and counts requests. */
function fakeClient(pageFor: (method: string, cursor: string | undefined) => Page) {
  const stats = { requests: 0 };
  const client = {
    async request(req: { method: string; params?: { cursor?: string } }) {
      stats.requests++;
      await new Promise(r => setImmediate(r));
      const field = req.method === 'tools/list' ? 'tools' : req.method === 'prompts/list' ? 'prompts' : req.method === 'resources/list' ? 'resources' : 'resourceTemplates';
      const p = pageFor(req.method, req.params?.cursor);
      return { [field]: p.items, ...(p.next !== undefined ? { nextCursor: p.next } : {}) };
    },
  } as unknown as Client;
  return { client, stats };
}

function collectGarbage(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function collected(ref: WeakRef<object>, gc: () => void): Promise<boolean> {
  for (let i = 0; i < 10 && ref.deref(); i++) {
    await new Promise(r => setImmediate(r));
    gc();
  }
  return ref.deref() === undefined;
}

describe('Catalogue limits (fake client)', () => {
  it('endless pagination stops at maxCataloguePages with one warning naming server, limit and setting', async () => {
    const bigCursor = 'c'.repeat(256 * 1024);
    let page = 0;
    const { client, stats } = fakeClient(() => { page++; return { items: [{ uri: `mem://${page}`, name: 'r' }], next: `${bigCursor}${page}` }; });
    const warnings: string[] = [];
    const items = await fetchAll(client, 'resources', undefined, { server: 'srv', limits: resolveLimits({ maxCataloguePages: 200 }), warn: w => warnings.push(w) });
    assert.equal(items.length, 200);
    assert.equal(stats.requests, 200);
    assert.deepEqual(warnings, ['server `srv` sent more pages of resources/list; the list is partial: over the limit of 200 catalogue pages (raise it with the setting `mcpHost.limits.maxCataloguePages`)']);
  });

  it('by default a server that never ends its cursors gets 10,000 pages read, then a partial list', async () => {
    let page = 0;
    const { client, stats } = fakeClient(() => { page++; return { items: [{ name: `p${page}` }], next: `cursor-${page}` }; });
    const warnings: string[] = [];
    const items = await fetchAll(client, 'prompts', undefined, { server: 'srv', limits: resolveLimits(), warn: w => warnings.push(w) });
    assert.equal(items.length, 10_000);
    assert.equal(stats.requests, 10_000);
    assert.match(warnings[0], /over the limit of 10,000 catalogue pages/);
  });

  it('stops at maxCatalogueItems (the page that crosses it is cut) and at a repeated cursor', async () => {
    const many = fakeClient((_m, cursor) => ({ items: Array.from({ length: 30 }, (_, i) => ({ name: `p${cursor ?? ''}${i}` })), next: `${Number(cursor ?? 0) + 1}` }));
    const warnings: string[] = [];
    const items = await fetchAll(many.client, 'prompts', undefined, { server: 'srv', limits: resolveLimits({ maxCatalogueItems: 100 }), warn: w => warnings.push(w) });
    assert.equal(items.length, 100);
    assert.equal(many.stats.requests, 4);
    assert.match(warnings.join('\n'), /over the limit of 100 catalogue items \(raise it with the setting `mcpHost\.limits\.maxCatalogueItems`\)/);
    const repeat = fakeClient(() => ({ items: [{ name: 'p' }], next: 'same' }));
    const w2: string[] = [];
    assert.equal((await fetchAll(repeat.client, 'prompts', undefined, { server: 'srv', limits: resolveLimits(), warn: w => w2.push(w) })).length, 2);
    assert.deepEqual(w2, ['server `srv` repeated a prompts/list cursor; the list is kept as far as it was read']);
  });

  it('stops at maxCatalogueBytes: a few huge items cannot fill the heap', async () => {
    const huge = 'x'.repeat(1024 * 1024);
    const { client, stats } = fakeClient((_m, cursor) => ({ items: [{ name: `p${cursor ?? 0}`, description: huge }, { name: `q${cursor ?? 0}`, description: huge }], next: `${Number(cursor ?? 0) + 1}` }));
    const warnings: string[] = [];
    const items = await fetchAll(client, 'prompts', undefined, { server: 'srv', limits: resolveLimits(), warn: w => warnings.push(w) });
    assert.equal(items.length, 31, '31 items of 1 MiB fit in 32 MiB');
    assert.equal(stats.requests, 16);
    assert.deepEqual(warnings, ['server `srv` sent more prompts than fit in prompts/list; the list is partial: over the limit of 32 MiB (raise it with the setting `mcpHost.limits.maxCatalogueBytes`)']);
  });

  it('the first page reaches onChange before the rest of the list is read', async () => {
    const tool = (n: string): Tool => ({ name: n, inputSchema: { type: 'object', properties: { x: { type: 'string' } } } });
    const { client } = fakeClient((_m, cursor) => {
      const page = Number(cursor ?? 0);
      return { items: [tool(`t${page}a`), tool(`t${page}b`)], ...(page < 4 ? { next: String(page + 1) } : {}) };
    });
    const events: Catalogue[] = [];
    const callableAtFirstEvent: boolean[] = [];
    const session: CatalogueSession = new CatalogueSession({
      client, capabilities: { tools: {} }, timeout: 1000, server: 'srv',
      onChange: c => { events.push(c); if (events.length === 1) callableAtFirstEvent.push(!!session.toolValidators('t0a')?.input); },
      warn: () => undefined,
    });
    await session.loadAll();
    assert.deepEqual(events.map(e => e.tools.length), [2, 10]);
    assert.deepEqual(callableAtFirstEvent, [true], 'the first page\'s tools are validated when they are shown');
    assert.ok(session.toolValidators('t4b')?.input);
  });

  it('compiled validators are freed when the tools list changes and when the session ends', async () => {
    const gc = collectGarbage();
    let version = 0;
    const { client } = fakeClient(() => ({ items: [{ name: 'typed', inputSchema: { $id: 'https://example.test/s.json', type: 'object', properties: { n: { type: version === 0 ? 'number' : 'string' } } } }] }));
    const session = new CatalogueSession({ client, capabilities: { tools: { listChanged: true } }, timeout: 1000, server: 'srv', onChange: () => undefined, warn: () => undefined });
    await session.loadAll();
    const first = new WeakRef(session.toolValidators('typed')!.input!);
    assert.equal(first.deref()!({ n: 1 }), true);
    version = 1;
    await session.refresh('tools');
    const second = new WeakRef(session.toolValidators('typed')!.input!);
    assert.equal(second.deref()!({ n: 1 }), false, 'the new list validates with its own schema under the same $id');
    assert.equal(await collected(first, gc), true, 'the old list\'s validator was freed');
    session.dispose();
    assert.equal(session.toolValidators('typed'), undefined);
    assert.equal(await collected(second, gc), true, 'the last validator was freed with the session');
  });
});

describe('Catalogue freshness (ttlMs, 2026-07-28 cache hints)', () => {
  it('a list whose ttlMs ran out is read again on next use; a list without ttlMs is not', async () => {
    let reads = 0;
    const client = {
      async request(req: { method: string }) {
        if (req.method === 'tools/list') {
          reads++;
          return { tools: [{ name: `t${reads}`, inputSchema: { type: 'object' } }], ttlMs: 0 };
        }
        return { prompts: [{ name: 'p' }] };
      },
    } as unknown as Client;
    const changes: Catalogue[] = [];
    const session = new CatalogueSession({ client, capabilities: { tools: {}, prompts: {} }, timeout: 1000, server: 'srv', onChange: c => changes.push(c), warn: () => undefined });
    await session.loadAll();
    assert.equal(reads, 1);
    assert.deepEqual(session.catalogue.tools.map(t => t.name), ['t1'], 'fresh within the minimum of MIN_TTL_MS');
    await session.refreshStale(Date.now() + MIN_TTL_MS + 1);
    assert.equal(reads, 2, 'the stale tools list was read again');
    assert.deepEqual(session.catalogue.tools.map(t => t.name), ['t2']);
    assert.deepEqual(session.catalogue.prompts.map(p => p.name), ['p'], 'prompts (no ttlMs) kept');
    assert.ok(changes.at(-1)?.tools.some(t => t.name === 't2'), 'the views hear of the reread list');
    session.dispose();
  });

  it('expiryOf clamps a server\'s ttlMs between MIN_TTL_MS and the SDK\'s 24 h cap, and ignores a missing one', () => {
    assert.equal(expiryOf(undefined, 0), undefined);
    assert.equal(expiryOf('5', 0), undefined);
    assert.equal(expiryOf(0, 0), MIN_TTL_MS);
    assert.equal(expiryOf(5000, 0), 5000);
    assert.equal(expiryOf(1e12, 0), 86_400_000);
  });
});

describe('catalogue bytes estimate', () => {
  it('is close to the JSON length for list items, and counts deep or odd values without throwing', () => {
    const items: unknown[] = [
      { uri: 'file:///a/b.txt', name: 'b.txt', mimeType: 'text/plain', description: 'x'.repeat(300) },
      { name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] } } }, _meta: { ui: { resourceUri: 'ui://t' } } },
      { name: 'ünïcödé', title: '🚀', annotations: { priority: 0.5, audience: ['user'] }, size: 12345678 },
    ];
    for (const i of items) {
      const real = JSON.stringify(i).length;
      const est = approxJsonSize(i);
      if (Math.abs(est - real) > real * 0.25 + 16) throw new Error(`estimate ${est} vs JSON ${real} for ${JSON.stringify(i)}`);
    }
    let deep: unknown = 'leaf';
    for (let d = 0; d < 200; d++) deep = { d: deep };
    if (approxJsonSize(deep) < 200 * 5) throw new Error('deep value under-counted');
    if (approxJsonSize(undefined) !== 0 || approxJsonSize(null) !== 4) throw new Error('odd values');
  });

  it('stops once over the caller\'s bound (a cycle ends), and counts a shared object each time it occurs, as JSON would', () => {
    const big = { items: Array.from({ length: 10_000 }, (_, i) => ({ uri: `file:///r/${i}`, name: `r${i}` })) };
    const whole = approxJsonSize(big);
    assert.equal(approxJsonSize(big, whole), whole, 'a bound the size does not pass changes nothing');
    const cut = approxJsonSize(big, 1000);
    assert.ok(cut > 1000 && cut < whole / 10, `stopped soon after the bound: ${cut} of ${whole}`);
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    assert.ok(approxJsonSize(cycle, 10_000) > 10_000);
    const shared = { s: 'x' };
    assert.equal(approxJsonSize([shared, shared]), approxJsonSize([{ s: 'x' }, { s: 'x' }]));
    // Own properties only: an enumerable property on the prototype chain is not the value's.
    const child = Object.create({ inherited: 'x'.repeat(100) }) as Record<string, unknown>;
    child.own = 1;
    assert.equal(approxJsonSize(child), approxJsonSize({ own: 1 }));
  });
});
