/**
 * Reliability: what the gateway forwards besides tools, prompts and resources (templates, completions, progress), and
 * the tool budget's progressive discovery through it, end to end in plain Node: the real host runs server-everything
 * (templates with completions, a prompt with completions, a tool with progress), the hostile gateway-hostile.mjs
 * (huge and never-ending completions, a progress flood) and the bystander; the gateway's loopback HTTP listener
 * (src/mcp/gateway/http.ts, issue 41) is spoken to over Streamable HTTP by an SDK v2 client, as VS Code does.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { GatewayHttpListener } from '../../src/mcp/gateway/http';
import { gatewaySession } from '../../src/mcp/gateway/httpSession';
import { type GatewayServer, MAX_COMPLETION_CHARS } from '../../src/mcp/gateway/server';
import { templateUri } from '../../src/mcp/gateway/gatewayUris';
import { MAX_PROGRESS_MESSAGE_CHARS, MAX_PROGRESS_PER_CALL } from '../../src/mcp/gateway/progress';
import { DISCOVERY_TOOL_NAMES, MAX_ACTIVE_TOOLS, type ToolBudget } from '../../src/mcp/catalogue/modelTools';
import { newSecret } from '../../src/mcp/gateway/wire';
import { BYSTANDER, MARK, MARK_NAME, marked, startHost, textOf, until, type TestHost } from './helpers';

const EVERYTHING = path.join(__dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

describe('Reliability: templates, completions, progress and the tool budget through the gateway', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  let listener: GatewayHttpListener | undefined;
  let budget: ToolBudget = {};
  let secret = '';
  const clients: Client[] = [];
  const gateways: GatewayServer[] = [];

  before(async () => {
    t = await startHost([
      { name: 'everything', type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env: { [MARK_NAME]: MARK } },
      marked('hostile', 'gateway-hostile'),
    ], { limits: { maxMessageBytes: 4 * 1024 * 1024 } });
    await until(() => (t!.host.get('everything')?.catalogue.resourceTemplates.length ?? 0) > 0 && (t!.host.get('hostile')?.catalogue.resourceTemplates.length ?? 0) > 0, 'templates listed', 20_000);
    secret = newSecret();
    listener = new GatewayHttpListener({
      secret: () => secret,
      newSession: max => gatewaySession({ host: t!.host, version: 'test', budget: () => budget, completionTimeoutMs: 1_000 }, max, g => gateways.push(g)),
    });
    await listener.listen();
  });
  after(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    listener?.close();
    await t?.close();
  });
  afterEach(() => { budget = {}; });

  async function connect(): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(listener!.url!), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } });
    const client = new Client({ name: 'vscode-stand-in', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  it('H116: lists the servers\' resource templates under gateway URIs; a read of an expanded one reaches the owning server', async () => {
    const c = await connect();
    const { resourceTemplates } = await c.listResourceTemplates();
    const text = resourceTemplates.find(x => x.uriTemplate === templateUri('everything', 'demo://resource/dynamic/text/{resourceId}'));
    assert.ok(text, JSON.stringify(resourceTemplates.map(x => x.uriTemplate)));
    assert.match(text.uriTemplate, /^mcp-host-gateway:\/\/everything\/demo%3A%2F%2Fresource%2Fdynamic%2Ftext%2F\{resourceId\}$/);
    assert.ok(resourceTemplates.some(x => x.uriTemplate === templateUri('hostile', 'hostile://item/{id}')));
    const uri = text.uriTemplate.replace('{resourceId}', '3');
    const read = await c.readResource({ uri });
    assert.equal(read.contents[0].uri, uri, 'the answer names the gateway URI that was asked for');
    assert.match(JSON.stringify(read.contents), /Resource 3/);
    const item = await c.readResource({ uri: templateUri('hostile', 'hostile://item/{id}').replace('{id}', 'x7') });
    assert.match(JSON.stringify(item.contents), /item x7/);
    const h = t!.host.get('everything')!;
    assert.ok(h.history.some(e => e.method === 'resources/read' && e.target === 'demo://resource/dynamic/text/3'), 'History has the read by its original URI');
  });

  it('H116: completion/complete for a prompt argument and a template variable goes to the owning server', async () => {
    const c = await connect();
    const { prompts } = await c.listPrompts();
    const p = prompts.find(x => x.name.endsWith('completable-prompt'))!;
    assert.ok(p);
    const dept = await c.complete({ ref: { type: 'ref/prompt', name: p.name }, argument: { name: 'department', value: 'E' } });
    assert.deepEqual(dept.completion.values, ['Engineering']);
    const who = await c.complete({ ref: { type: 'ref/prompt', name: p.name }, argument: { name: 'name', value: '' }, context: { arguments: { department: 'Sales' } } });
    assert.deepEqual(who.completion.values, ['David', 'Eve', 'Frank'], 'the context reaches the server');
    const id = await c.complete({ ref: { type: 'ref/resource', uri: templateUri('everything', 'demo://resource/dynamic/text/{resourceId}') }, argument: { name: 'resourceId', value: '4' } });
    assert.deepEqual(id.completion.values, ['4']);
    const made = await c.complete({ ref: { type: 'ref/resource', uri: templateUri('everything', 'file:///{x}') }, argument: { name: 'x', value: 'a' } });
    assert.deepEqual(made.completion.values, [], 'a template no server listed asks nothing');
  });

  it('H116: a hostile server\'s completions are bounded (huge values dropped, at most 100, one that never answers ends) and the others keep answering', async () => {
    const c = await connect();
    const ref = { type: 'ref/resource' as const, uri: templateUri('hostile', 'hostile://item/{id}') };
    const huge = await c.complete({ ref, argument: { name: 'id', value: 'o' } });
    assert.ok(huge.completion.values.length <= 100);
    assert.ok(huge.completion.values.every(v => v.length <= MAX_COMPLETION_CHARS), 'no value over the cap');
    const started = Date.now();
    const loop = await c.complete({ ref, argument: { name: 'id', value: 'loop' } });
    assert.deepEqual(loop.completion.values, []);
    assert.ok(Date.now() - started < 30_000);
    const bystander = await c.complete({ ref: { type: 'ref/resource', uri: templateUri('everything', 'demo://resource/dynamic/text/{resourceId}') }, argument: { name: 'resourceId', value: '9' } });
    assert.deepEqual(bystander.completion.values, ['9']);
    await t!.assertBystanderUndisturbed();
  });

  it('H117: progress of a forwarded tool call reaches the client under its own token', async () => {
    const c = await connect();
    const seen: { progress: number; total?: number }[] = [];
    const r = await c.callTool({ name: 'everything_trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } }, { onprogress: p => seen.push(p) });
    assert.match(textOf(r), /Long running operation completed/);
    assert.ok(seen.length >= 1 && seen.length <= 3, JSON.stringify(seen));
    assert.equal(seen.at(-1)!.total, 3);
    assert.ok(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress));
  });

  it('H117: a progress flood is bounded (increasing only, capped per call, messages cut) and a bystander call at the same time answers', async () => {
    const c = await connect();
    const seen: { progress: number; message?: string }[] = [];
    const [flood, echo] = await Promise.all([
      c.callTool({ name: 'hostile_flood', arguments: { n: 5000 } }, { onprogress: p => seen.push(p) }),
      c.callTool({ name: `${BYSTANDER}_echo`, arguments: { text: 'beside the flood' } }),
    ]);
    assert.equal(textOf(flood), 'flooded');
    assert.match(textOf(echo), /beside the flood/);
    assert.ok(seen.length >= 1 && seen.length <= MAX_PROGRESS_PER_CALL, `${seen.length} forwarded`);
    assert.ok(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), 'increasing only');
    assert.ok(seen.every(p => (p.message ?? '').length <= MAX_PROGRESS_MESSAGE_CHARS));
    await t!.assertBystanderUndisturbed();
  });

  it('H114/H115: over the budget the gateway offers search and activate; activation announces tools/list_changed and the tool becomes callable; bounded', async () => {
    budget = { tools: 5 };
    const c = await connect();
    let changed = 0;
    c.setNotificationHandler('notifications/tools/list_changed', () => { changed++; });
    const names = (await c.listTools()).tools.map(x => x.name);
    assert.deepEqual(names, [DISCOVERY_TOOL_NAMES.search, DISCOVERY_TOOL_NAMES.activate]);
    const refused = await c.callTool({ name: `${BYSTANDER}_echo`, arguments: { text: 'x' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /not active/);
    const found = JSON.parse(textOf(await c.callTool({ name: DISCOVERY_TOOL_NAMES.search, arguments: { query: 'echo' } }))) as { tools: { name: string; server: string; description: string }[] };
    const hit = found.tools.find(x => x.server === BYSTANDER);
    assert.ok(hit, JSON.stringify(found));
    for (let i = 0; i < 50; i++) {
      const r = JSON.parse(textOf(await c.callTool({ name: DISCOVERY_TOOL_NAMES.search, arguments: { query: `e ${i}` } }))) as { tools: unknown[] };
      assert.ok(r.tools.length <= 10);
    }
    const act = await c.callTool({ name: DISCOVERY_TOOL_NAMES.activate, arguments: { names: [hit.name] } });
    assert.match(textOf(act), /Activated/);
    await until(() => changed > 0, 'tools/list_changed', 5_000);
    assert.ok((await c.listTools()).tools.some(x => x.name === hit.name));
    assert.match(textOf(await c.callTool({ name: hit.name, arguments: { text: 'activated' } })), /activated/);
    // Activating every tool: bounded, and said.
    const every = JSON.parse(textOf(await c.callTool({ name: DISCOVERY_TOOL_NAMES.search, arguments: { query: '' } }))) as { matches: number };
    assert.ok(every.matches > MAX_ACTIVE_TOOLS);
    let last = '';
    for (let i = 0; i < 10; i++) {
      const q = JSON.parse(textOf(await c.callTool({ name: DISCOVERY_TOOL_NAMES.search, arguments: { query: ['trigger', 'get', 'toggle', 'echo', 'flood', 'simulate', 'gzip', 'sum', 'env', 'roots'][i] } }))) as { tools: { name: string }[] };
      last += textOf(await c.callTool({ name: DISCOVERY_TOOL_NAMES.activate, arguments: { names: q.tools.map(x => x.name) } }));
    }
    assert.ok(gateways.at(-1)!.discovery.size <= MAX_ACTIVE_TOOLS);
    assert.ok((await c.listTools()).tools.length <= MAX_ACTIVE_TOOLS + 2);
    assert.match(last, new RegExp(`at most ${MAX_ACTIVE_TOOLS} tools may be active at once`));
    // Under the budget nothing changes: every tool again, no discovery tools.
    budget = {};
    const all = (await c.listTools()).tools.map(x => x.name);
    assert.ok(!all.includes(DISCOVERY_TOOL_NAMES.search));
    assert.ok(all.length > MAX_ACTIVE_TOOLS);
  });
});
