/**
 * H190: every declared list is loaded on its own. The spec (server/resources): "Servers that support resources MUST
 * declare the resources capability" — and a server may still answer one of its methods with -32601 Method not found
 * (server-postgres 0.6.2 does so for resources/templates/list). The hostile lists sit next to bystander lists that
 * must all arrive; a seeded random failure (test/support/rng.ts) fails one list alone.
 */
import * as assert from 'node:assert/strict';
import { ProtocolError, ProtocolErrorCode, type Client } from '@modelcontextprotocol/client';
import { CatalogueSession } from '../../src/mcp/catalogue/catalogue';
import type { Catalogue } from '../../src/mcp/types';
import { rng } from '../support/rng';

const FIELD: Record<string, keyof Catalogue> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resourceTemplates' };

/** A client answering each list after `delay(method)` turns, or throwing `fail(method)`. */
function client(fail: (method: string) => Error | undefined, delay: (method: string) => number): Client {
  return {
    async request(req: { method: string }) {
      for (let i = delay(req.method); i > 0; i--) await new Promise(r => setImmediate(r));
      const e = fail(req.method);
      if (e) throw e;
      const field = FIELD[req.method];
      const item = field === 'tools' ? { name: 'query', inputSchema: { type: 'object' } } : field === 'resourceTemplates' ? { name: 't', uriTemplate: 'x://{a}' } : field === 'resources' ? { name: 'table', uri: 'postgres://t/schema' } : { name: 'p' };
      return { [field]: [item] };
    },
  } as unknown as Client;
}

const caps = { tools: {}, prompts: {}, resources: {} };

describe('Catalogue: each list on its own (H190)', () => {
  it('a declared list answered with -32601 is empty with one log line; the others all arrive (10 runs, templates first to fail)', async () => {
    for (let run = 0; run < 10; run++) {
      const warnings: string[] = [];
      let seen: Catalogue | undefined;
      const s = new CatalogueSession({
        client: client(m => m === 'resources/templates/list' ? new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found') : undefined, m => m === 'resources/templates/list' ? 0 : 3 + run),
        capabilities: caps, timeout: 1000, server: 'pg', onChange: c => { seen = c; }, warn: m => warnings.push(m),
      });
      await s.loadAll();
      assert.deepEqual(seen && { t: seen.tools.length, r: seen.resources.length, p: seen.prompts.length, rt: seen.resourceTemplates.length }, { t: 1, r: 1, p: 1, rt: 0 });
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /server `pg` declares resources but does not implement resources\/templates\/list \(-32601\)/);
    }
  });

  it('a list that fails at random (seeded) is reported alone; the bystander lists arrive', async () => {
    const kinds = Object.keys(FIELD);
    for (const seed of [1, 2, 3, 42, 2026]) {
      const r = rng(seed);
      const failing = kinds[Math.floor(r() * kinds.length)];
      const warnings: string[] = [];
      const s = new CatalogueSession({
        client: client(m => m === failing ? new Error('connection reset by the fixture') : undefined, () => Math.floor(r() * 5)),
        capabilities: caps, timeout: 1000, server: 'flaky', onChange: () => undefined, warn: m => warnings.push(m),
      });
      await s.loadAll();
      const c = s.held;
      for (const m of kinds) assert.equal(c[FIELD[m]].length, m === failing ? 0 : 1, `seed ${seed}: ${m}`);
      assert.deepEqual(warnings, [`server \`flaky\`: could not load its ${FIELD[failing]} list: connection reset by the fixture`], `seed ${seed}`);
    }
  });
});
