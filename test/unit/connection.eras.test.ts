/**
 * Both protocol eras through SDK v2 (issue 13), against a real server on the SDK v2 server package
 * (test/fixtures/servers/modern-stdio.mjs): era negotiation on stdio, `input_required` rounds for elicitation,
 * sampling and roots reaching the same callbacks as server→client requests do on a legacy session,
 * list changes through `subscriptions/listen`, and the generic `request` / `onNotification` hooks.
 */
import * as assert from 'node:assert/strict';
import { Connection } from '../../src/mcp/server/connection';
import type { ServerNotification } from '../../src/mcp/server/connection';
import type { ConnectionOptions } from '../../src/mcp/server/connection';
import { FAST_STOP, http, nodeFixture } from '../support/connection';
import { startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';
import { until } from '../support/wait';

function text(r: { content: unknown[] }): string {
  return (r.content[0] as { text: string }).text;
}


const asked: string[] = [];
const sampled: string[] = [];
const options: ConnectionOptions = {
  pingIntervalMs: 0,
  stopGrace: FAST_STOP,
  roots: () => [{ uri: 'file:///work/project', name: 'project' }],
  features: {
    elicit: async (_server, req) => { asked.push(req.message); return { action: 'accept', content: { answer: 'forty-two' } }; },
    listModels: async () => [{ id: 'm-1', name: 'Model One' }],
    sample: async ctx => {
      const c = ctx.request.messages[0].content as { text: string };
      sampled.push(c.text);
      return { role: 'assistant', content: { type: 'text', text: `echo ${c.text}` }, model: ctx.model.id };
    },
  },
};

for (const era of ['modern', 'legacy'] as const) {
  describe(`Connection (${era} era, SDK v2 server over stdio)`, function () {
    this.timeout(30_000);
    let c: Connection;
    before(async () => {
      c = new Connection(nodeFixture(`mod-${era}`, 'modern-stdio'), { ...options, ...(era === 'legacy' ? { negotiation: 'legacy' } : {}) });
      await c.start();
    });
    after(async () => { await c?.dispose(); });

    it('runs with the negotiated era and protocol version in its state', () => {
      assert.equal(c.state.kind, 'running');
      if (c.state.kind !== 'running') return;
      assert.equal(c.state.era, era);
      assert.equal(c.era, era);
      if (era === 'modern') assert.equal(c.state.protocolVersion, '2026-07-28');
      else assert.match(c.state.protocolVersion, /^2025-/);
      assert.deepEqual(c.catalogue.tools.map(t => t.name).sort(), ['add_tool', 'ask', 'echo', 'roots', 'sample']);
    });

    it('calls a tool; an elicitation round reaches the elicit callback and its answer goes back', async () => {
      assert.equal(text(await c.callTool('echo', { text: 'hi' })), 'hi');
      const before = asked.length;
      assert.equal(text(await c.callTool('ask', { question: 'what is the answer?' })), 'answer: forty-two');
      assert.deepEqual(asked.slice(before), ['what is the answer?']);
    });

    it('a sampling round reaches the sample callback with a chosen model', async () => {
      const before = sampled.length;
      assert.equal(text(await c.callTool('sample', { prompt: 'ping' })), 'model: echo ping');
      assert.deepEqual(sampled.slice(before), ['ping']);
    });

    it('a roots round is answered with the roots this server may see', async () => {
      assert.equal(text(await c.callTool('roots', {})), 'roots: file:///work/project');
    });

    it(`list changes refresh the catalogue (${era === 'modern' ? 'subscriptions/listen' : 'unsolicited notifications'}) and reach onNotification`, async () => {
      const seen: ServerNotification[] = [];
      const sub = c.onNotification('notifications/tools/list_changed', n => seen.push(n));
      try {
        await c.callTool('add_tool', { name: `fresh_${era}` });
        await until(() => c.catalogue.tools.some(t => t.name === `fresh_${era}`), 'the new tool in the catalogue');
        await until(() => seen.length > 0, 'the list_changed notification at the listener');
        assert.equal(seen[0].method, 'notifications/tools/list_changed');
      } finally {
        sub.dispose();
      }
    });

    it('request() runs any method with the server\'s timeouts and readable errors', async () => {
      const r = await c.request('tools/list', {});
      assert.ok(Array.isArray(r.tools));
      await assert.rejects(c.request('no/such-method', {}), /server `mod-(?:modern|legacy)`.*-32601/);
    });

    it('ping proves the server answers (server/discover on a modern session, which has no ping)', async () => {
      await c.ping();
    });

    it('roots changes are announced only on a legacy session (a modern server asks per request)', async () => {
      assert.equal(await c.notifyRootsChanged(), false, 'unchanged roots are not announced');
    });
  });
}

describe('Connection (modern era, SDK v2 server over Streamable HTTP)', function () {
  this.timeout(30_000);
  let f: HttpFixture;
  let c: Connection;
  before(async () => {
    f = await startHttpFixture([], 'modern-http.mjs');
    c = new Connection(http('mod-http', f.url), { ...options, pingIntervalMs: 400 });
    await c.start();
  });
  after(async () => {
    await c?.dispose();
    await f?.stop();
  });

  it('negotiates 2026-07-28 over Streamable HTTP and shows it in its state', () => {
    assert.equal(c.state.kind, 'running');
    if (c.state.kind !== 'running') return;
    assert.equal(c.state.era, 'modern');
    assert.equal(c.state.protocolVersion, '2026-07-28');
    assert.equal(c.state.transport, 'streamableHttp');
  });

  it('calls tools, and an elicitation round reaches the elicit callback', async () => {
    assert.equal(text(await c.callTool('echo', { text: 'over http' })), 'over http');
    assert.equal(text(await c.callTool('ask', { question: 'http?' })), 'answer: forty-two');
  });

  it('a call that times out ends only its own HTTP request: a call in flight next to it still gets its answer', async () => {
    const bystander = c.callTool('sleep', { ms: 1200 });
    await assert.rejects(c.callTool('sleep', { ms: 5000 }, { timeout: 300 }), /did not answer tools\/call within 300 ms/);
    assert.equal(text(await bystander), 'slept 1200');
    assert.equal(text(await c.callTool('echo', { text: 'after' })), 'after');
  });

  it('health checks use server/discover (the revision has no ping): the periodic check keeps it running', async () => {
    await c.ping();
    await new Promise(r => setTimeout(r, 1000));
    assert.equal(c.state.kind, 'running');
  });
});
