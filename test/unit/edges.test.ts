/**
 * Hostile edges of the core (issue 21) against the `edges.mjs` fixture, with its `echo` tool and a second,
 * well-behaved server as bystanders: results nested 100,000 levels deep, `$ref` loops in an inputSchema,
 * responses whose id has the wrong type, and a resource the server does not have. What the extension and the
 * CLI both get from the core: a rejected promise with a readable message, never an uncaught exception.
 */
import * as assert from 'node:assert/strict';
import { McpHost } from '../../src/mcp/host';
import { approxJsonSize, nestsDeeperThan } from '../../src/mcp/jsonWalks';
import { FAST_STOP, http, nodeFixture } from '../support/connection';
import { startHttpFixture } from '../fixtures/servers/harness';

describe('core edges: deep results, $ref loops (edges.mjs)', function () {
  this.timeout(60_000);
  let host: McpHost;
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => { uncaught.push(e); };

  before(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { enabled: false } });
    await host.reconcile([nodeFixture('edges', 'edges'), nodeFixture('bystander', 'echo')]);
    assert.equal(host.get('edges')?.state.kind, 'running');
    assert.equal(host.get('bystander')?.state.kind, 'running');
  });

  after(async () => {
    await host?.shutdown();
    host?.dispose();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  });

  it('H72: a result nested 100,000 levels (structuredContent, _meta, a content block) is refused naming server and tool; 900 levels pass', async () => {
    const edges = host.get('edges')!;
    for (const where of ['structured', 'meta', 'content']) {
      await assert.rejects(edges.callTool('deep', { where }), (e: Error) => {
        assert.equal(e.message, 'server `edges`, tool `deep`: the result nests deeper than 1,000 levels; the host does not take it');
        return true;
      });
    }
    const ok = await edges.callTool('deep', { depth: 900 });
    assert.ok(nestsDeeperThan(ok.structuredContent, 800) && !nestsDeeperThan(ok.structuredContent, 1000));
    assert.deepEqual((await edges.callTool('echo', { text: 'still here' })).content, [{ type: 'text', text: 'echo: still here' }]);
    const by = host.get('bystander')!;
    assert.equal(by.state.kind, 'running');
    assert.ok(edges.history.some(e => e.status === 'error' && /nests deeper/.test(e.error ?? '')), 'the history records the refusal');
    assert.deepEqual(uncaught, []);
  });

  it('H72: an inputSchema whose $refs loop makes that one tool unusable with a readable reason; the others are called', async () => {
    const edges = host.get('edges')!;
    await assert.rejects(edges.callTool('cycle', { x: 1 }), (e: Error) => {
      assert.match(e.message, /^server `edges` tool `cycle` inputSchema: its `\$ref`s refer to each other in a loop/);
      assert.doesNotMatch(e.message, /Maximum call stack/);
      return true;
    });
    assert.ok(edges.catalogue.tools.some(t => t.name === 'echo'));
    assert.deepEqual((await edges.callTool('echo', { text: 'after cycle' })).content, [{ type: 'text', text: 'echo: after cycle' }]);
    assert.deepEqual(uncaught, []);
  });

  it('H72: size estimates and depth checks walk 100,000 levels without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    assert.equal(approxJsonSize(deep), 299_999);
    assert.equal(nestsDeeperThan(deep), true);
    assert.equal(nestsDeeperThan({ a: [1, { b: 2 }] }, 3), false);
  });
  it('H1: a response whose id is the string "5" does not answer request 5: the call times out, the next call is answered', async () => {
    const edges = host.get('edges')!;
    const logs: string[] = [];
    const sub = host.onLog(e => { if (e.server === 'edges') logs.push(e.message); });
    try {
      await assert.rejects(edges.callTool('stringid', {}, { timeout: 1500 }), (e: Error) => {
        assert.match(e.message, /did not answer tools\/call within 1\.5 s/);
        return true;
      });
      assert.ok(logs.some(l => /ignored a response with an unknown message ID "\d+"/.test(l)), logs.join('\n'));
    } finally {
      sub.dispose();
    }
    assert.deepEqual((await edges.callTool('echo', { text: 'next' })).content, [{ type: 'text', text: 'echo: next' }]);
    assert.equal(host.get('bystander')?.state.kind, 'running');
  });
});

describe('core edges over HTTP: exact response ids (hostile-http.mjs)', function () {
  this.timeout(60_000);

  it('H1: a JSON answer whose id is the string form of ours does not answer the request; echo on the same server is answered', async () => {
    const fx = await startHttpFixture([], 'hostile-http.mjs');
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { enabled: false } });
    try {
      await host.reconcile([http('remote', fx.url)]);
      const remote = host.get('remote')!;
      assert.equal(remote.state.kind, 'running');
      await assert.rejects(remote.callTool('string_id', {}, { timeout: 1500 }), /did not answer tools\/call within 1\.5 s/);
      assert.deepEqual((await remote.callTool('echo', { text: 'exact' })).content, [{ type: 'text', text: 'exact' }]);
    } finally {
      await host.shutdown();
      host.dispose();
      await fx.stop();
    }
  });
});
