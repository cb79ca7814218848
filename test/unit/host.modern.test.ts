/**
 * The host against a 2026-07-28 server (test/fixtures/servers/modern.mjs, on the SDK v2 server package), over stdio
 * and Streamable HTTP, real processes: the era and protocol version it reports, the catalogue over every page,
 * calls, reads, prompts, completion, list refresh through subscriptions/listen, the input_required rounds reaching
 * the same sampling/elicitation/roots callbacks the 2025 era uses, ttl-driven refresh, the x-mcp-header header, and
 * logging. modern-fixture.test.ts proves the fixture itself with a bare SDK v2 client.
 */
import * as assert from 'node:assert/strict';
import type { CreateMessageResult, ElicitRequest } from '@modelcontextprotocol/client';
import { McpHost } from '../../src/mcp/host';
import type { Connection } from '../../src/mcp/server/connection';
import type { LogEntry, SamplingContext, ServerDefinition, ServerState } from '../../src/mcp/types';
import { startHttpFixture, type HttpFixture, type ModernFixtureStats as Stats } from '../fixtures/servers/harness';
import { FAST_STOP, http, nodeFixture } from '../support/connection';
import { until } from '../support/wait';

type Kind = 'stdio' | 'http';
type Running = Extract<ServerState, { kind: 'running' }>;

const text = (r: { content?: unknown }) => ((r.content as { type: string; text?: string }[])[0]?.text ?? '');

/** A host with the client features wired to recorders; `start` adds the fixture as server `modern`. */
function modernHost() {
  const seen = { sampling: [] as SamplingContext[], elicitation: [] as { server: string; message: string }[] };
  const logs: LogEntry[] = [];
  const host = new McpHost({
    pingIntervalMs: 0, stopGrace: FAST_STOP, rootsDebounceMs: 10,
    // The stdio server/discover probe waits 3 s by default before taking a silent server for a legacy one; on a busy
    // machine the fixture's start alone can take that long, and these tests are about the features, not the probe.
    probeTimeoutMs: 30_000,
    features: {
      listModels: async () => [{ id: 'model-a', name: 'Model A' }],
      sample: async ctx => {
        seen.sampling.push(ctx);
        return { role: 'assistant', content: { type: 'text', text: 'sampled by the host' }, model: ctx.model.id, stopReason: 'endTurn' } as CreateMessageResult;
      },
      elicit: async (server: string, req: ElicitRequest['params']) => {
        seen.elicitation.push({ server, message: req.message });
        return { action: 'accept', content: { name: 'Host User', agree: true } };
      },
    },
  });
  host.onLog(e => logs.push(e));
  host.setRoots([{ uri: 'file:///work/alpha', name: 'alpha' }, { uri: 'file:///work/beta', name: 'beta' }]);
  return { host, seen, logs };
}

async function startModern(kind: Kind, args: string[] = []): Promise<{ def: ServerDefinition; fixture?: HttpFixture }> {
  if (kind === 'stdio') return { def: nodeFixture('modern', 'modern', args) };
  const fixture = await startHttpFixture(['--http', ...args], 'modern.mjs');
  return { def: http('modern', fixture.url), fixture };
}

for (const kind of ['stdio', 'http'] as Kind[]) {
  describe(`Host against a 2026-07-28 server (modern.mjs, ${kind})`, function () {
    this.timeout(60_000);
    let h: ReturnType<typeof modernHost>;
    let fixture: HttpFixture | undefined;
    let server: Connection;
    const stats = async (): Promise<Stats> => (await server.callTool('stats', {})).structuredContent as unknown as Stats;

    before(async () => {
      h = modernHost();
      const started = await startModern(kind);
      fixture = started.fixture;
      await h.host.reconcile([started.def]);
      server = h.host.get('modern')!;
      assert.equal(server.state.kind, 'running', JSON.stringify(server.state));
    });
    after(async () => {
      await h?.host.shutdown();
      await fixture?.stop();
    });

    it('H38/H42: runs in the modern era on 2026-07-28, found through server/discover without initialize', async () => {
      const s = server.state as Running;
      assert.equal(s.era, 'modern');
      assert.equal(s.protocolVersion, '2026-07-28');
      assert.equal(s.serverInfo.name, 'fixture-modern');
      assert.equal(s.transport, kind === 'stdio' ? 'stdio' : 'streamableHttp');
      assert.ok(s.capabilities.tools && s.capabilities.prompts && s.capabilities.resources);
      if (fixture) {
        const st = await fixture.stats() as unknown as Stats;
        assert.ok((st.requests['server/discover'] ?? 0) >= 1, JSON.stringify(st.requests));
        assert.equal(st.requests.initialize, undefined, 'no initialize on the modern era');
        assert.equal(st.lastHeaders['tools/list']?.['mcp-method'], 'tools/list', 'H38: Mcp-Method header');
        assert.equal(st.lastHeaders['tools/list']?.['mcp-session-id'], undefined, 'H39: no session id');
      }
      assert.deepEqual((await stats()).protocolVersions, ['2026-07-28'], 'H38: every request carried the version in _meta');
      assert.ok(h.logs.some(e => e.source === 'lifecycle' && /2026-07-28/.test(e.message)), 'the log names the protocol version');
    });

    it('H20: the catalogue holds every page of tools, prompts, resources and templates', () => {
      const c = server.catalogue;
      assert.equal(c.tools.length, 19);
      assert.ok(c.tools.some(t => t.name === 'filler_06'), 'the last page is there');
      assert.equal(c.prompts.length, 8);
      assert.equal(c.resources.length, 8);
      assert.equal(c.resourceTemplates.length, 8);
    });

    it('H40: within the lists\' ttlMs (60 s here) reading the catalogue fetches nothing', async () => {
      const before = (await stats()).requests;
      for (let i = 0; i < 5; i++) assert.equal(server.catalogue.tools.length, 19);
      const after = (await stats()).requests;
      for (const m of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) assert.equal(after[m], before[m], m);
    });

    it('H22/H23/H24: calls a tool, reads text/blob/template resources, gets a prompt with arguments, completes arguments', async () => {
      assert.equal(text(await server.callTool('echo', { text: 'hello modern' })), 'hello modern');
      await assert.rejects(server.callTool('echo', {}), /text/, 'arguments validated against the inputSchema');
      const counter = await server.readResource('modern://counter');
      assert.match((counter.contents[0] as { text: string }).text, /^count=\d+$/);
      const blob = await server.readResource('modern://binary');
      assert.deepEqual([...Buffer.from((blob.contents[0] as { blob: string }).blob, 'base64')], [0, 1, 2, 3, 254, 255]);
      const item = await server.readResource('modern://items/42');
      assert.equal((item.contents[0] as { text: string }).text, '{"id":"42"}');
      const prompt = await server.getPrompt('greet', { name: 'Ada', style: 'casual' });
      assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Hello Ada (casual)' });
      const names = await server.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'name', value: 'al' });
      assert.deepEqual(names.values, ['alice', 'albert', 'alfred']);
      const ids = await server.complete({ type: 'ref/resource', uri: 'modern://items/{id}' }, { name: 'id', value: '2' });
      assert.deepEqual(ids.values, ['2', '20']);
    });

    it('H25/H31: structured output validates against a 2020-12 outputSchema without $schema', async () => {
      const r = await server.callTool('structured', { n: 2 });
      assert.deepEqual(r.structuredContent, { kind: 'structured', pair: ['n', 2], total: 2, items: [{ id: 1, label: 'item 1' }, { id: 2, label: 'item 2' }] });
    });

    it('H39/H18: an input_required sampling round reaches the host\'s sampling callback (model chosen) and the call returns the final result', async () => {
      const before = h.seen.sampling.length;
      const r = await server.callTool('ask_sampling', { prompt: 'Say hi' });
      assert.deepEqual(r.structuredContent, { answer: 'sampled by the host', model: 'model-a' });
      assert.equal(h.seen.sampling.length, before + 1);
      const ctx = h.seen.sampling.at(-1)!;
      assert.equal(ctx.server, 'modern');
      assert.deepEqual(ctx.request.messages[0].content, { type: 'text', text: 'Say hi' });
    });

    it('H39: an input_required elicitation round reaches the host\'s elicitation callback', async () => {
      const r = await server.callTool('ask_elicitation', { message: 'Who is there?' });
      assert.deepEqual(r.structuredContent, { action: 'accept', content: { name: 'Host User', agree: true } });
      assert.deepEqual(h.seen.elicitation.at(-1), { server: 'modern', message: 'Who is there?' });
    });

    it('H39/H16: an input_required roots round is answered with the host\'s roots', async () => {
      const r = await server.callTool('ask_roots', {});
      assert.deepEqual(r.structuredContent, { roots: ['file:///work/alpha', 'file:///work/beta'] });
      h.host.setRoots([{ uri: 'file:///work/gamma', name: 'gamma' }]);
      const again = await server.callTool('ask_roots', {});
      assert.deepEqual(again.structuredContent, { roots: ['file:///work/gamma'] }, 'each round asks afresh: the new roots');
    });

    it('H39: sampling, elicitation and roots in one round all reach their callbacks', async () => {
      const [s, e] = [h.seen.sampling.length, h.seen.elicitation.length];
      const r = await server.callTool('ask_all', {});
      assert.equal(text(r), 'all: sampled by the host / accept / 1 root(s)');
      assert.equal(h.seen.sampling.length, s + 1);
      assert.equal(h.seen.elicitation.length, e + 1);
    });

    it('H21/H40: a tool added on the server reaches the catalogue through subscriptions/listen', async () => {
      const changed: string[] = [];
      const d = h.host.onDidChangeCatalogue(e => changed.push(e.server));
      try {
        await server.callTool('add_tool', { name: 'fresh' });
        await until(() => server.catalogue.tools.some(t => t.name === 'extra_fresh'), 'extra_fresh in the catalogue', 10_000);
        await server.callTool('add_prompt', { name: 'fresh' });
        await until(() => server.catalogue.prompts.some(p => p.name === 'extra_fresh'), 'extra_fresh prompt in the catalogue', 10_000);
        await server.callTool('add_resource', { name: 'fresh' });
        await until(() => server.catalogue.resources.some(r => r.uri === 'modern://extra/fresh'), 'extra resource in the catalogue', 10_000);
        assert.ok(changed.includes('modern'));
        if (fixture) assert.ok(((await fixture.stats() as unknown as Stats).requests['subscriptions/listen'] ?? 0) >= 1, 'a listen stream is open');
      } finally {
        d.dispose();
      }
    });

    it('H22/H40: a subscribed resource\'s update arrives through subscriptions/listen', async () => {
      const updated: string[] = [];
      const d = h.host.onDidUpdateResource(e => updated.push(`${e.server} ${e.uri}`));
      try {
        await server.subscribe('modern://counter');
        const now = text(await server.callTool('touch', {}));
        await until(() => updated.includes('modern modern://counter'), 'resources/updated for modern://counter', 10_000);
        assert.equal(((await server.readResource('modern://counter')).contents[0] as { text: string }).text, now);
      } finally {
        d.dispose();
        await server.unsubscribe('modern://counter');
      }
    });

    it(`H38: the x-mcp-header parameter ${kind === 'http' ? 'travels as the Mcp-Param-Region header, with Mcp-Method and Mcp-Name' : 'needs no header over stdio'}`, async () => {
      const r = await server.callTool('header_echo', { region: 'eu-central', level: 1 });
      const got = r.structuredContent as { headers: Record<string, string | null> | null; region: string };
      assert.equal(got.region, 'eu-central');
      if (kind === 'http') assert.deepEqual(got.headers, { region: 'eu-central', method: 'tools/call', name: 'header_echo', protocolVersion: '2026-07-28' });
      else assert.equal(got.headers, null);
    });

    it('H29: a tool\'s notifications/message shows in the log with its level and logger', async () => {
      await server.callTool('log', { level: 'warning', message: 'modern says careful' });
      await until(() => h.logs.some(e => e.source === 'server' && e.message.includes('modern says careful')), 'the log entry', 10_000);
      const e = h.logs.find(x => x.source === 'server' && x.message.includes('modern says careful'))!;
      assert.equal(e.server, 'modern');
      assert.equal(e.logger, 'modern');
      assert.equal(e.mcpLevel, 'warning');
    });
  });
}

for (const kind of ['stdio', 'http'] as Kind[]) {
  describe(`Host against a 2026-07-28 server with short-lived lists (modern.mjs --ttl-ms 1000, ${kind})`, function () {
    this.timeout(60_000);
    let h: ReturnType<typeof modernHost> | undefined;
    let fixture: HttpFixture | undefined;
    afterEach(async () => {
      await h?.host.shutdown();
      await fixture?.stop();
      h = undefined;
      fixture = undefined;
    });

    /** The fixture with lists of `ttlMs` 1000, running in a new host; `toolLists` is how many tools/list it answered. */
    async function startShortLived() {
      h = modernHost();
      const started = await startModern(kind, ['--ttl-ms', '1000']);
      fixture = started.fixture;
      await h.host.reconcile([started.def]);
      const server = h.host.get('modern')!;
      const toolLists = async () => ((await server.callTool('stats', {})).structuredContent as unknown as Stats).requests['tools/list'];
      return { server, toolLists };
    }

    it('H40: a list whose ttlMs ran out is fetched again: a change the server never announced shows up', async () => {
      const { server, toolLists } = await startShortLived();
      assert.equal((server.state as Running).era, 'modern');
      const listsBefore = await toolLists();
      await server.callTool('add_tool', { name: 'quiet', silent: true });
      await until(() => server.catalogue.tools.some(t => t.name === 'extra_quiet'), 'the refetch after ttlMs', 20_000);
      const listsAfter = await toolLists();
      assert.ok(listsAfter > listsBefore, `tools/list fetched again (${listsBefore} → ${listsAfter})`);
    });

    it('H40: tool calls alone do not fetch a list whose ttlMs ran out (a call is not a read of the list); the next read of the list does', async () => {
      const { server, toolLists } = await startShortLived();
      const before = await toolLists();
      // Calls for well past the list's ttlMs (1 s): the host used to refetch the whole list about once a second.
      let calls = 0;
      for (const end = Date.now() + 2500; Date.now() < end; calls++) await server.callTool('stats', {});
      const during = await toolLists();
      assert.equal(during, before, `${calls} calls over 2.5 s fetched the tools list ${during - before} times`);
      // Reading the list (what the views, the model's tool set and the CLI do) fetches it again, once.
      assert.ok(server.catalogue.tools.length > 0);
      await until(async () => (await toolLists()) > during, 'the refetch on the first read after ttlMs', 20_000);
    });
  });
}
