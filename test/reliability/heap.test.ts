/**
 * Reliability: what a replaced tools list compiled is released (issue 21, "Bounded": an input over a cap, or a
 * stream of inputs within the caps, costs memory that is given back). 300 `tools/list_changed`, each with a new
 * 200-property schema (test/fixtures/servers/edges.mjs `relist`), are each fetched and compiled in turn; the heap
 * after a full collection is then measured against the heap before them, next to a bystander that keeps answering.
 * The full collection is the one a heap snapshot forces (it also clears V8's compilation cache, which holds the
 * source of every `new Function` ajv made until it ages out): what survives that is held by the host.
 */
import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import { marked, startHost, until, type TestHost } from './helpers';

/** The heap after the full collection a heap snapshot forces, in MB (the snapshot itself is read and dropped). */
async function heapAfterFullCollection(): Promise<number> {
  const snapshot = v8.getHeapSnapshot();
  for await (const chunk of snapshot) void chunk;
  return process.memoryUsage().heapUsed / 1e6;
}

describe('Reliability: the heap after many list_changed', function () {
  this.timeout(300_000);
  let t: TestHost | undefined;

  after(async () => {
    await t?.close();
    t = undefined;
  });

  it('H76: 300 list_changed with new 200-property schemas, each compiled in turn: what the replaced lists compiled is released', async () => {
    t = await startHost([marked('edges', 'edges')]);
    const edges = t.get('edges');
    // Warm up (the first lists, ajv's dialect and formats, the fixture's first generations).
    for (let i = 1; i <= 10; i++) {
      await edges.callTool('relist', { n: 1, props: 200 });
      await until(() => edges.catalogue.tools.some(x => x.name === `gen_${i}`), `gen_${i} listed`, 60_000);
    }
    const before = await heapAfterFullCollection();
    for (let i = 11; i <= 310; i++) {
      await edges.callTool('relist', { n: 1, props: 200 });
      await until(() => edges.catalogue.tools.some(x => x.name === `gen_${i}`), `gen_${i} listed`, 60_000);
    }
    const after = await heapAfterFullCollection();
    // 300 lists of one 200-property schema each: about 60 MB were compiled on the way (measured with ordinary
    // collections); what remains is the current list's.
    assert.ok(after - before < 15, `the heap grew by ${(after - before).toFixed(1)} MB over 300 replaced lists (before ${before.toFixed(1)} MB, after ${after.toFixed(1)} MB)`);
    // The newest list's tool validates (its validator is the one kept) and the bystander answers.
    await assert.rejects(edges.callTool('gen_310', { g310_p0: '' }), /must NOT have fewer than 1 characters/);
    await t.assertBystanderUndisturbed();
  });
});
