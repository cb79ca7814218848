/**
 * The 2026-07-28 fixture (test/fixtures/servers/modern.mjs, on the SDK v2 server package) proved with a bare SDK v2
 * client, over stdio and Streamable HTTP: the fixture negotiates the modern era and every feature answers. The host's
 * own tests against it (test/unit/host.modern.test.ts, the CLI tests) rely on what is proved here.
 */
import * as assert from 'node:assert/strict';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fixtureServer, repoRoot, startHttpFixture, type HttpFixture, type ModernFixtureStats as Stats } from '../fixtures/servers/harness';
import { isAlive, stopProcessTree } from '../../src/mcp/process/processTree';
import { until } from '../support/wait';

/** A v2 client with the three client features, counting how often each callback ran. */
function newClient(mode: 'auto' | 'legacy') {
  const calls = { sampling: 0, elicitation: 0, roots: 0 };
  const notes: { method: string; params: unknown }[] = [];
  const client = new Client({ name: 'modern-fixture-test', version: '0.0.0' }, {
    versionNegotiation: { mode },
    capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } },
  });
  client.setRequestHandler('sampling/createMessage', () => {
    calls.sampling++;
    return { role: 'assistant', model: 'test-model', content: { type: 'text', text: 'sampled text' }, stopReason: 'endTurn' };
  });
  client.setRequestHandler('elicitation/create', () => {
    calls.elicitation++;
    return { action: 'accept', content: { name: 'Ann', agree: true } };
  });
  client.setRequestHandler('roots/list', () => {
    calls.roots++;
    return { roots: [{ uri: 'file:///work/a', name: 'a' }, { uri: 'file:///work/b', name: 'b' }] };
  });
  for (const method of ['notifications/message', 'notifications/tools/list_changed', 'notifications/prompts/list_changed',
    'notifications/resources/list_changed', 'notifications/resources/updated'] as const) {
    client.setNotificationHandler(method, n => { notes.push({ method, params: n.params }); });
  }
  return { client, calls, notes };
}

type Kind = 'stdio' | 'http';

for (const kind of ['stdio', 'http'] as Kind[]) {
  describe(`modern.mjs fixture with a bare SDK v2 client (${kind})`, function () {
    this.timeout(60_000);
    let http: HttpFixture | undefined;
    let transport: StdioClientTransport | undefined;
    let pid: number | undefined;
    let c: ReturnType<typeof newClient>;
    const stats = async (): Promise<Stats> =>
      (await c.client.callTool({ name: 'stats', arguments: {} })).structuredContent as unknown as Stats;
    const text = (r: { content?: unknown }) => ((r.content as { type: string; text?: string }[])[0]?.text ?? '');

    before(async () => {
      c = newClient('auto');
      if (kind === 'http') {
        http = await startHttpFixture(['--http'], 'modern.mjs');
        await c.client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      } else {
        transport = new StdioClientTransport({ command: process.execPath, args: [fixtureServer('modern.mjs')], cwd: repoRoot, stderr: 'pipe' });
        await c.client.connect(transport);
        pid = transport.pid ?? undefined;
      }
    });

    after(async () => {
      await c.client.close().catch(() => {});
      if (pid && isAlive(pid)) await stopProcessTree(pid, () => {}, { eofGraceMs: 500, termGraceMs: 1000 });
      await http?.stop();
    });

    it('H38/H42: negotiates the modern era, 2026-07-28, through server/discover (no initialize)', async () => {
      assert.equal(c.client.getProtocolEra(), 'modern');
      assert.equal(c.client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(c.client.getServerVersion()?.name, 'fixture-modern');
      assert.ok(c.client.getDiscoverResult(), 'server/discover answered');
      if (http) {
        const s = await http.stats() as unknown as Stats;
        assert.equal(s.requests['server/discover'], 1);
        assert.equal(s.requests.initialize, undefined);
      }
    });

    it('H20/H40: every list is paged (page size 4) and carries ttlMs/cacheScope; a fresh list is served from the cache', async () => {
      const before = (await stats()).requests['tools/list'] ?? 0;
      const tools = await c.client.listTools(undefined, { cacheMode: 'refresh' });
      assert.equal(tools.tools.length, 19);
      assert.equal(tools.ttlMs, 60_000);
      assert.equal(tools.cacheScope, 'public');
      assert.equal((await stats()).requests['tools/list'], before + 5, 'five pages of four');
      await c.client.listTools();
      assert.equal((await stats()).requests['tools/list'], before + 5, 'within ttlMs the list is not fetched again');
      assert.equal((await c.client.listPrompts()).prompts.length, 8);
      assert.equal((await c.client.listResources()).resources.length, 8);
      assert.equal((await c.client.listResourceTemplates()).resourceTemplates.length, 8);
      const s = await stats();
      for (const m of ['prompts/list', 'resources/list', 'resources/templates/list']) assert.equal(s.requests[m], 2, m);
      assert.deepEqual(s.protocolVersions, ['2026-07-28'], 'every request carried the version in _meta');
    });

    it('H22/H23: reads text, blob and template resources; gets a prompt with arguments; completes arguments', async () => {
      const counter = await c.client.readResource({ uri: 'modern://counter' });
      assert.match((counter.contents[0] as { text: string }).text, /^count=\d+$/);
      const blob = await c.client.readResource({ uri: 'modern://binary' });
      assert.deepEqual([...Buffer.from((blob.contents[0] as { blob: string }).blob, 'base64')], [0, 1, 2, 3, 254, 255]);
      const item = await c.client.readResource({ uri: 'modern://items/7' });
      assert.equal((item.contents[0] as { text: string }).text, '{"id":"7"}');
      const prompt = await c.client.getPrompt({ name: 'greet', arguments: { name: 'Bo', style: 'formal' } });
      assert.deepEqual(prompt.messages[0].content, { type: 'text', text: 'Hello Bo (formal)' });
      const names = await c.client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'al' } });
      assert.deepEqual(names.completion.values, ['alice', 'albert', 'alfred']);
      const ids = await c.client.complete({ ref: { type: 'ref/resource', uri: 'modern://items/{id}' }, argument: { name: 'id', value: '1' } });
      assert.deepEqual(ids.completion.values, ['1', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19']);
    });

    it('H39: input_required rounds reach the sampling, elicitation and roots callbacks; the call returns the final result', async () => {
      const sampled = await c.client.callTool({ name: 'ask_sampling', arguments: { prompt: 'Say hi' } });
      assert.deepEqual(sampled.structuredContent, { answer: 'sampled text', model: 'test-model' });
      const form = await c.client.callTool({ name: 'ask_elicitation', arguments: { message: 'Who?' } });
      assert.deepEqual(form.structuredContent, { action: 'accept', content: { name: 'Ann', agree: true } });
      const roots = await c.client.callTool({ name: 'ask_roots', arguments: {} });
      assert.deepEqual(roots.structuredContent, { roots: ['file:///work/a', 'file:///work/b'] });
      assert.deepEqual(c.calls, { sampling: 1, elicitation: 1, roots: 1 });
      const all = await c.client.callTool({ name: 'ask_all', arguments: {} });
      assert.equal(text(all), 'all: sampled text / accept / 2 root(s)');
      assert.deepEqual(c.calls, { sampling: 2, elicitation: 2, roots: 2 });
    });

    it('H40: subscriptions/listen delivers list changes and resource updates; the lists then show the additions', async () => {
      const sub = await c.client.listen({
        toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['modern://counter'],
      });
      try {
        assert.equal(sub.honoredFilter.toolsListChanged, true);
        assert.deepEqual(sub.honoredFilter.resourceSubscriptions, ['modern://counter']);
        const seen = (m: string) => c.notes.some(n => n.method === m);
        await c.client.callTool({ name: 'add_tool', arguments: { name: 'one' } });
        await until(() => seen('notifications/tools/list_changed'), 'tools/list_changed', 10_000);
        await c.client.callTool({ name: 'add_prompt', arguments: { name: 'one' } });
        await until(() => seen('notifications/prompts/list_changed'), 'prompts/list_changed', 10_000);
        await c.client.callTool({ name: 'add_resource', arguments: { name: 'one' } });
        await until(() => seen('notifications/resources/list_changed'), 'resources/list_changed', 10_000);
        const touched = text(await c.client.callTool({ name: 'touch', arguments: {} }));
        await until(() => seen('notifications/resources/updated'), 'resources/updated', 10_000);
        assert.equal((c.notes.find(n => n.method === 'notifications/resources/updated')!.params as { uri: string }).uri, 'modern://counter');
        assert.equal(((await c.client.readResource({ uri: 'modern://counter' })).contents[0] as { text: string }).text, touched);
        // list_changed evicted the cached lists: the next list fetches and shows the addition
        assert.ok((await c.client.listTools()).tools.some(t => t.name === 'extra_one'));
        assert.ok((await c.client.listPrompts()).prompts.some(p => p.name === 'extra_one'));
        assert.ok((await c.client.listResources()).resources.some(r => r.uri === 'modern://extra/one'));
      } finally {
        await sub.close();
      }
    });

    it(`H38: the x-mcp-header parameter ${kind === 'http' ? 'arrives as Mcp-Param-Region, beside Mcp-Method/Mcp-Name' : 'has no header over stdio'}`, async () => {
      const r = await c.client.callTool({ name: 'header_echo', arguments: { region: 'eu-west', level: 3 } });
      const got = r.structuredContent as { headers: Record<string, string | null> | null; region: string };
      assert.equal(got.region, 'eu-west');
      if (kind === 'http') {
        assert.deepEqual(got.headers, { region: 'eu-west', method: 'tools/call', name: 'header_echo', protocolVersion: '2026-07-28' });
        const s = await http!.stats() as unknown as Stats;
        assert.ok(s.paramHeaders.includes('eu-west'));
        assert.equal(s.lastHeaders['tools/list']?.['mcp-method'], 'tools/list');
        // the SDK server checks the declaration: a tools/call with a region but without the header is refused
        await assert.rejects(c.client.request({ method: 'tools/call', params: { name: 'header_echo', arguments: { region: 'eu-west' } } }),
          (e: unknown) => e instanceof ProtocolError && e.code === -32020 && /Mcp-Param-Region header is absent/.test(e.message));
      } else {
        assert.equal(got.headers, null);
      }
    });

    it('H25/H31: structured output validates against a 2020-12 outputSchema ($defs/$ref, prefixItems, unevaluatedProperties)', async () => {
      const tool = (await c.client.listTools()).tools.find(t => t.name === 'structured')!;
      assert.ok(tool.outputSchema && '$defs' in tool.outputSchema && !('$schema' in tool.outputSchema));
      const r = await c.client.callTool({ name: 'structured', arguments: { n: 3 } });
      assert.deepEqual(r.structuredContent, {
        kind: 'structured', pair: ['n', 3], total: 3,
        items: [{ id: 1, label: 'item 1' }, { id: 2, label: 'item 2' }, { id: 3, label: 'item 3' }],
      });
    });

    it('H29: a tool\'s notifications/message reaches the client before its result', async () => {
      const r = await c.client.callTool({ name: 'log', arguments: { level: 'warning', message: 'careful' } });
      assert.equal(text(r), 'logged warning');
      assert.ok(c.notes.some(n => n.method === 'notifications/message'
        && JSON.stringify(n.params) === JSON.stringify({ level: 'warning', logger: 'modern', data: 'careful' })));
    });
  });
}

describe('modern.mjs fixture with a 2025-era SDK v2 client (stdio)', function () {
  this.timeout(60_000);
  it('H42: the same fixture serves the legacy era (initialize); input_required becomes real server requests', async () => {
    const c = newClient('legacy');
    const transport = new StdioClientTransport({ command: process.execPath, args: [fixtureServer('modern.mjs')], cwd: repoRoot, stderr: 'pipe' });
    await c.client.connect(transport);
    const pid = transport.pid;
    try {
      assert.equal(c.client.getProtocolEra(), 'legacy');
      assert.equal(c.client.getNegotiatedProtocolVersion(), '2025-11-25');
      const tools = await c.client.listTools();
      assert.equal(tools.tools.length, 19);
      assert.equal(tools.ttlMs, undefined, 'no cache fields toward a 2025-era client');
      const all = await c.client.callTool({ name: 'ask_all', arguments: {} });
      assert.equal((all.content as { text: string }[])[0].text, 'all: sampled text / accept / 2 root(s)');
      assert.deepEqual(c.calls, { sampling: 1, elicitation: 1, roots: 1 });
    } finally {
      await c.client.close().catch(() => {});
      if (pid && isAlive(pid)) await stopProcessTree(pid, () => {}, { eofGraceMs: 500, termGraceMs: 1000 });
    }
  });
});
