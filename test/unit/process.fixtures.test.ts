/**
 * Smoke tests for the fixture servers: each one does what its header says, driven by the bare SDK
 * client, so that tests of the host can rely on them. Every process started here is stopped with
 * its whole tree, and checked to be gone by the pids we recorded.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEFAULT_LIMITS } from '../../src/mcp/limits';
import { isAlive } from '../../src/mcp/process/processTree';
import { connectFixture, startHttpFixture, type FixtureConnection, type HttpFixture } from '../fixtures/servers/harness';
import { textOf, until } from '../support/wait';

const posix = process.platform !== 'win32';



describe('process: fixture servers (smoke)', function () {
  this.timeout(60_000);
  const open: Array<{ close(): Promise<unknown> }> = [];
  const pids = new Set<number>();
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-fixture-')); });
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close();
    const alive = [...pids].filter(isAlive);
    for (const p of alive) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    pids.clear();
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.deepEqual(alive, [], 'no fixture process survives its test');
  });

  async function connect(file: string, args: string[] = [], opts: Parameters<typeof connectFixture>[2] = {}): Promise<FixtureConnection> {
    const c = await connectFixture(file, args, opts);
    open.push(c);
    pids.add(c.pid);
    return c;
  }

  async function http(args: string[] = []): Promise<HttpFixture> {
    const h = await startHttpFixture(args);
    open.push({ close: () => h.stop() });
    pids.add(h.child.pid!);
    return h;
  }

  it('echo.mjs: lists and calls echo, answers ping, and exits on stdin EOF', async () => {
    const c = await connect('echo.mjs');
    assert.deepEqual((await c.client.listTools()).tools.map(t => t.name), ['echo']);
    assert.equal(textOf(await c.client.callTool({ name: 'echo', arguments: { text: 'héllo' } })), 'héllo');
    await c.client.ping();
    assert.equal((await c.close()).phase, 'eof');
  });

  it('paged.mjs: serves every page of tools, resources, prompts and templates, each tool with an outputSchema', async () => {
    const c = await connect('paged.mjs', ['--resources', '2345', '--page', '100']);
    const tools = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      // One page at a time (SDK v2's listTools() without a cursor walks every page itself).
      const page = await c.client.request({ method: 'tools/list', params: cursor ? { cursor } : {} });
      pages++;
      assert.ok(page.tools.every(t => t.outputSchema || !t.name.startsWith('tool_')), 'outputSchema on every page');
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(tools.length, 256);
    assert.equal(pages, 3);
    assert.equal(tools[0].name, 'bad_output', 'the bad tool sits on the first page');

    const resources = [];
    cursor = undefined;
    do {
      const page: { resources: Array<{ uri: string }>; nextCursor?: string } = await c.client.request({ method: 'resources/list', params: cursor ? { cursor } : {} });
      resources.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor);
    assert.equal(resources.length, 2345);
    assert.equal(new Set(resources.map(r => r.uri)).size, 2345);

    const prompts = await c.client.request({ method: 'prompts/list', params: {} });
    assert.equal(prompts.prompts.length, 100);
    assert.ok(prompts.nextCursor);
    const templates = await c.client.request({ method: 'resources/templates/list', params: {} });
    assert.equal(templates.resourceTemplates.length, 100);

    await assert.rejects(c.client.listResources({ cursor: 'bogus' }), /invalid cursor/);
    const read = await c.client.readResource({ uri: 'paged://resource/2344' });
    assert.equal((read.contents[0] as { text: string }).text, 'resource_2344');
    const got = await c.client.getPrompt({ name: 'prompt_0003', arguments: { topic: 'tests' } });
    assert.match(JSON.stringify(got.messages), /prompt_0003 about tests/);
    const completion = await c.client.complete({ ref: { type: 'ref/prompt', name: 'prompt_0001' }, argument: { name: 'topic', value: 'del' } });
    assert.deepEqual(completion.completion.values, ['delta', 'deltoid']);
  });

  it('paged.mjs: bad_output violates its outputSchema (SDK v2 checks it against the whole tools list), the others pass', async () => {
    const c = await connect('paged.mjs', ['--resources', '10']);
    assert.equal((await c.client.listTools()).tools.length, 256, 'every page, aggregated and cached by the SDK');
    await assert.rejects(c.client.callTool({ name: 'bad_output', arguments: {} }), /does not match the tool's output schema/);
    const raw = await c.client.request({ method: 'tools/call', params: { name: 'bad_output', arguments: {} } });
    assert.deepEqual(raw.structuredContent, { n: 'not a number' });
    const good = await c.client.callTool({ name: 'tool_0249', arguments: {} });
    assert.equal((good.structuredContent as { n: number }).n, 255);
  });

  it('paged.mjs: add_resource/add_tool send list_changed, touch_resource sends resources/updated when subscribed', async () => {
    const c = await connect('paged.mjs', ['--resources', '10']);
    let resourcesChanged = 0;
    let toolsChanged = 0;
    const updated: string[] = [];
    c.client.setNotificationHandler('notifications/resources/list_changed', () => { resourcesChanged++; });
    c.client.setNotificationHandler('notifications/tools/list_changed', () => { toolsChanged++; });
    c.client.setNotificationHandler('notifications/resources/updated', n => { updated.push(n.params.uri); });
    assert.equal(textOf(await c.client.callTool({ name: 'add_resource', arguments: {} })), 'paged://resource/10');
    await c.client.callTool({ name: 'add_tool', arguments: { name: 'fresh' } });
    await until(() => resourcesChanged === 1 && toolsChanged === 1, 'list_changed notifications', 15_000);
    assert.equal((await c.client.listResources()).resources.length, 11);
    await c.client.subscribeResource({ uri: 'paged://resource/3' });
    await c.client.callTool({ name: 'touch_resource', arguments: { uri: 'paged://resource/3' } });
    await until(() => updated.length === 1, 'resources/updated', 15_000);
    assert.deepEqual(updated, ['paged://resource/3']);
  });

  it('crash-at-start.mjs: exits with its stderr message before initialize', async () => {
    await assert.rejects(connectFixture('crash-at-start.mjs', ['--lines', '3']), (e: Error & { stderr?: string }) => {
      assert.match(e.stderr ?? '', /stderr line 3\nfatal: missing configuration FIXTURE_API_KEY/);
      return true;
    });
  });

  it('crash-after.mjs: answers initialize, then exits (and counts its starts)', async () => {
    const countFile = path.join(tmp, 'starts');
    const c = await connect('crash-after.mjs', ['--after', '300', '--count-file', countFile]);
    let closed = false;
    c.transport.onclose = () => { closed = true; };
    assert.deepEqual((await c.client.listTools()).tools.map(t => t.name), ['noop']);
    await until(() => closed, 'the crash', 15_000);
    assert.equal(isAlive(c.pid), false);
    assert.match(c.stderr(), /exiting with code 1/);
    assert.equal(fs.readFileSync(countFile, 'utf8').trim().split('\n').length, 1);
  });

  it('never-init.mjs: never answers initialize (the client times out) and records what it got', async () => {
    const logFile = path.join(tmp, 'seen');
    await assert.rejects(connectFixture('never-init.mjs', ['--log-file', logFile], { timeoutMs: 1000 }), (e: Error & { pid?: number }) => {
      assert.match(e.message, /timed out/i);
      assert.ok(e.pid && !isAlive(e.pid), 'the server was stopped');
      return true;
    });
    assert.match(fs.readFileSync(logFile, 'utf8'), /"method":"initialize"/);
  });

  it('garbage.mjs: junk on stdout (non-JSON, invalid UTF-8, partial lines) is survivable, then it serves', async () => {
    const c = await connectFixture('garbage.mjs', ['--interleave', '20'], {});
    open.push(c);
    pids.add(c.pid);
    const errors: Error[] = [];
    c.transport.onerror = e => errors.push(e);
    for (let i = 0; i < 5; i++) {
      assert.equal(textOf(await c.client.callTool({ name: 'echo', arguments: { text: `ok ${i}` } })), `ok ${i}`);
      await new Promise(r => setTimeout(r, 30));
    }
    // SDK v2's stdio reader skips lines that are not JSON without a word (the host reports each: stdioTransport.ts);
    // JSON that is not JSON-RPC still surfaces as a transport error.
    assert.ok(errors.every(e => e instanceof Error));
  });

  it('garbage.mjs --then exit: junk, then exit 3 before answering', async () => {
    await assert.rejects(connectFixture('garbage.mjs', ['--then', 'exit'], { timeoutMs: 5000 }));
  });

  it('big.mjs: returns a 20 MB tool result (with a large enough maxBufferSize) and a blob resource', async () => {
    const c = await connect('big.mjs', ['--size', '20'], { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, linearReadBuffer: true });
    const result = await c.client.callTool({ name: 'big', arguments: {} });
    const t = textOf(result);
    assert.equal(t.length, 20 * 1024 * 1024);
    assert.ok(t.endsWith('END'));
    const small = await c.client.callTool({ name: 'big', arguments: { size: 0.001 } });
    assert.ok(textOf(small).endsWith('END'));
  });

  it('big.mjs: a payload over the SDK\'s default 10 MB stdio buffer breaks the bare client (why the host raises it)', async () => {
    const c = await connect('big.mjs', ['--size', '11']);
    await assert.rejects(c.client.callTool({ name: 'big', arguments: {} }, { timeout: 5000 }));
  });

  it('big.mjs: reads the blob resource', async () => {
    const c = await connect('big.mjs', ['--size', '1']);
    const read = await c.client.readResource({ uri: 'big://blob' });
    const blob = (read.contents[0] as { blob: string }).blob;
    assert.equal(Buffer.from(blob, 'base64').length, 1024 * 1024);
  });

  it('H11: grandchild.mjs: the server and its grandchild are gone after stopProcessTree', async function () {
    if (!posix) this.skip();
    const c = await connect('grandchild.mjs');
    const p = (await c.client.callTool({ name: 'pids', arguments: {} })).structuredContent as { server: number; grandchild: number };
    pids.add(p.grandchild);
    assert.equal(p.server, c.pid);
    assert.ok(isAlive(p.grandchild));
    const result = await c.close();
    assert.ok(result.pids.includes(p.grandchild));
    assert.equal(isAlive(p.grandchild), false);
  });

  it('slow.mjs: reports progress, and a cancelled call is recorded as notifications/cancelled', async () => {
    const record = path.join(tmp, 'record');
    const c = await connect('slow.mjs', ['--record', record]);
    let progress = 0;
    const done = await c.client.callTool({ name: 'slow', arguments: { ms: 700 } }, { onprogress: () => { progress++; } });
    assert.match(textOf(done), /done after/);
    assert.ok(progress >= 1, 'progress arrived');

    const ac = new AbortController();
    const call = c.client.callTool({ name: 'slow', arguments: { ms: 30_000 } }, {
      signal: ac.signal,
      onprogress: () => ac.abort('user cancelled'),
    });
    await assert.rejects(call);
    const lines = await until(() => {
      const l = fs.existsSync(record) ? fs.readFileSync(record, 'utf8') : '';
      return /aborted/.test(l) && l;
    }, 'the server to record the cancellation', 15_000);
    assert.match(lines, /cancelled-notification \d+ user cancelled/);
    assert.match(lines, /finished \d+/);
  });

  it('H11: ignore-signals.mjs --serve: serves, then needs SIGKILL', async () => {
    const c = await connect('ignore-signals.mjs', ['--serve']);
    await until(() => /READY/.test(c.stderr()), 'READY', 15_000);
    assert.equal(textOf(await c.client.callTool({ name: 'echo', arguments: { a: 1 } })), '{"a":1}');
    assert.equal((await c.close()).phase, 'kill');
  });

  describe('http-fixture.mjs', () => {
    async function client(url: string, headers?: Record<string, string>): Promise<Client> {
      const c = new Client({ name: 'fixture-test', version: '0.0.0' });
      await c.connect(new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : {}));
      open.push({ close: () => c.close() });
      return c;
    }

    it('H12: Streamable HTTP with a session id; stats count what happened', async () => {
      const h = await http();
      const c = await client(h.url);
      assert.equal(textOf(await c.callTool({ name: 'echo', arguments: { text: 'over http' } })), 'over http');
      const who = await c.callTool({ name: 'whoami', arguments: {} });
      assert.match(String((who.structuredContent as { sessionId: string }).sessionId), /^[0-9a-f-]{36}$/);
      const stats = await h.stats();
      assert.equal(stats.initializes, 1);
      assert.ok((stats.posts as number) >= 3);
      assert.ok(stats.lastProtocolVersion);
    });

    it('H15: --token demands a bearer token (401 without it)', async () => {
      const h = await http(['--token', 's3cret']);
      const bare = new Client({ name: 'fixture-test', version: '0.0.0' });
      await assert.rejects(bare.connect(new StreamableHTTPClientTransport(new URL(h.url))), /401|invalid_token/);
      const c = await client(h.url, { Authorization: 'Bearer s3cret' });
      await c.ping();
      assert.equal((await h.stats()).lastAuthorization, 'Bearer s3cret');
    });

    it('H12: --expire-after answers 404 once the session has expired', async () => {
      const h = await http(['--expire-after', '2']);
      const c = await client(h.url); // notifications/initialized = POST 1
      await c.listTools(); // POST 2
      await assert.rejects(c.listTools(), /404|not found|expired/i);
      assert.equal((await h.stats()).expired, 1);
      const again = await client(h.url);
      await again.ping();
    });

    it('--fail-500 fails the first N POSTs with HTTP 500', async () => {
      const h = await http(['--fail-500', '1']);
      const first = new Client({ name: 'fixture-test', version: '0.0.0' });
      await assert.rejects(first.connect(new StreamableHTTPClientTransport(new URL(h.url))), /500/);
      const c = await client(h.url);
      await c.ping();
      assert.equal((await h.stats()).failed500, 1);
    });

    it('H13: --sse-only is a legacy HTTP+SSE server (POST to the endpoint is 405, SSE works)', async () => {
      const h = await http(['--sse-only']);
      const res = await fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 405);
      const c = new Client({ name: 'fixture-test', version: '0.0.0' });
      await c.connect(new SSEClientTransport(new URL(h.url)));
      open.push({ close: () => c.close() });
      assert.equal(textOf(await c.callTool({ name: 'echo', arguments: { text: 'legacy' } })), 'legacy');
    });

    it('H12: --drop-get-stream-after ends the GET stream; notifications arrive after the client reconnects', async () => {
      const h = await http(['--drop-get-stream-after', '300']);
      const c = await client(h.url);
      let changed = 0;
      c.setNotificationHandler('notifications/tools/list_changed', () => { changed++; });
      await until(async () => { const s = await h.stats(); return (s.droppedStreams as number) >= 1 && (s.gets as number) >= 2; }, 'a dropped and reopened GET stream', 15_000);
      await c.callTool({ name: 'notify_later', arguments: { ms: 50 } });
      await until(() => changed >= 1, 'tools/list_changed over the GET stream', 15_000);
    });
  });
});
