/**
 * Reliability, hostile HTTP servers (hostile-http.mjs on 127.0.0.1, the real host, a stdio bystander):
 * bodies and SSE events are capped while read and the memory is given back; a dropped stream fails its
 * request at once; a timed-out request stops reading its body; configured headers never reach another
 * origin (a 401's resource_metadata, an SSE endpoint); a server-chosen authorization URL of another
 * scheme is never opened.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { AddressInfo } from 'node:net';
import { McpOAuthProvider } from '../../src/mcp/oauth/provider';
import { startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';
import { MESSAGE_CAP_HINT, MESSAGE_CAP_TEXT } from '../support/messageCap';
import { http as httpDef, startHost, textOf, until, type TestHost } from './helpers';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const MB = 1024 * 1024;

/** Host memory (RSS, and heap + array buffers) sampled while `work` runs: the peak growth, and the growth left after it and a GC. */
async function measure<T>(work: () => Promise<T>): Promise<{ result: T; peakRss: number; peakUsed: number; left: number }> {
  const used = () => { const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };
  gc();
  const rss0 = process.memoryUsage().rss;
  const used0 = used();
  let peakRss = 0;
  let peakUsed = 0;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss - rss0);
    peakUsed = Math.max(peakUsed, used() - used0);
  }, 5);
  try {
    const result = await work();
    // Buffers are freed over a few collections (the body's chunks, then their backing stores).
    for (let i = 0; i < 4; i++) {
      await new Promise(r => setTimeout(r, 50));
      gc();
    }
    return { result, peakRss, peakUsed, left: used() - used0 };
  } finally {
    clearInterval(timer);
  }
}

/** A plain HTTP server on 127.0.0.1 (another port: another origin) that records every request's headers. */
async function recorder(handler: (req: http.IncomingMessage, res: http.ServerResponse, base: string) => void) {
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }> = [];
  let base = '';
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => handler(req, res, base));
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()); }) };
}

const SECRET_HEADERS = { Authorization: 'Bearer tok-AAAA-1111', 'X-Api-Key': 'key-BBBB-2222', Cookie: 'session=cookie-CCCC' };
const LEAKED = /tok-AAAA-1111|key-BBBB-2222|cookie-CCCC/;

describe('Reliability: hostile HTTP servers', function () {
  this.timeout(120_000);
  let t: TestHost | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  const hostile = async (args: string[] = []): Promise<HttpFixture> => {
    const f = await startHttpFixture(args, 'hostile-http.mjs');
    cleanups.push(() => f.stop());
    return f;
  };
  afterEach(async () => {
    await t?.close();
    t = undefined;
    for (const c of cleanups.splice(0)) await c();
  });

  for (const [tool, what] of [['huge_json', 'sent an HTTP body'], ['huge_sse', 'sent an SSE event']] as const) {
    it(`${tool}: an endless answer is cut at ${MESSAGE_CAP_TEXT} (limits.maxMessageBytes) with a message naming server, limit and setting; memory grows < 200 MB and is given back`, async () => {
      const f = await hostile();
      t = await startHost([httpDef('hostile', f.url)]);
      assert.equal(t.get('hostile').state.kind, 'running');
      const m = await measure(() => t!.get('hostile').callTool(tool, {}, { timeout: 600_000 }).then(() => undefined, (e: Error) => e));
      assert.ok(m.result instanceof Error, 'the call failed');
      assert.match(m.result.message, new RegExp(`server \`hostile\` ${what}: ${MESSAGE_CAP_HINT}`));
      assert.ok(m.peakRss < 200 * MB && m.peakUsed < 200 * MB, `peak growth rss ${Math.round(m.peakRss / MB)} MB, heap+buffers ${Math.round(m.peakUsed / MB)} MB`);
      assert.ok(m.left < 32 * MB, `left after the call: ${Math.round(m.left / MB)} MB`);
      await until(async () => ((await f.stats()).closedEarly as number) >= 1, 'the server saw the read stop', 10_000);
      const sent = (await f.stats()).bytesSent as number;
      assert.ok(sent < 400 * MB, `the read stopped (${Math.round(sent / MB)} MB sent)`);
      assert.equal(textOf(await t.get('hostile').callTool('echo', { text: 'still usable' })), 'still usable');
      await t.assertBystanderUndisturbed();
    });
  }

  it('an endless event on the GET stream is cut at the configured limit (1 MiB here), logged with the limit message, and the server stays usable', async () => {
    const f = await hostile(['--endless-get']);
    t = await startHost([httpDef('hostile', f.url)], {
      limits: { maxMessageBytes: MB },
      reconnection: { initialReconnectionDelay: 50, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 2 },
    });
    await until(() => t!.logs.some(l => l.server === 'hostile' && /sent an SSE event: over the limit of 1 MiB .*mcpHost\.limits\.maxMessageBytes/.test(l.message)), 'the limit logged', 15_000);
    assert.equal(textOf(await t.get('hostile').callTool('echo', { text: 'fine' })), 'fine');
    await t.assertBystanderUndisturbed();
  });

  for (const tool of ['drop_sse', 'drop_json']) {
    it(`${tool}: a stream dropped mid-answer fails the request at once (the request timeout is 10 minutes), and the next call works`, async () => {
      const f = await hostile();
      t = await startHost([httpDef('hostile', f.url)]);
      await assert.rejects(t.get('hostile').callTool(tool, {}, { timeout: 600_000 }), (e: Error) => {
        assert.doesNotMatch(e.message, /did not answer|timed out/);
        if (tool === 'drop_sse') assert.match(e.message, /server `hostile`: the HTTP stream was dropped before the answer came/);
        return true;
      });
      assert.equal(textOf(await t.get('hostile').callTool('echo', { text: 'next' })), 'next');
      await t.assertBystanderUndisturbed();
    });
  }

  for (const tool of ['both_json', 'both_sse']) {
    it(`${tool}: an answer with both result and error fails the request at once, naming the server (the request timeout is 10 minutes); the next call works`, async () => {
      const f = await hostile();
      t = await startHost([httpDef('hostile', f.url)]);
      await assert.rejects(t.get('hostile').callTool(tool, {}, { timeout: 600_000 }), (e: Error) => {
        assert.match(e.message, /server `hostile` answered request \d+ with both result and error, which JSON-RPC forbids/);
        return true;
      });
      assert.equal(textOf(await t.get('hostile').callTool('echo', { text: 'next' })), 'next');
      await t.assertBystanderUndisturbed();
    });
  }

  it('legacy SSE: the stream that was to carry an answer is dropped; the pending request fails at once (request timeout 10 minutes)', async () => {
    const f = await startHttpFixture(['--sse-only', '--drop-get-stream-after', '300']);
    cleanups.push(() => f.stop());
    t = await startHost([httpDef('legacy', f.url, 'sse')]);
    assert.equal(t.get('legacy').state.kind, 'running');
    await assert.rejects(t.get('legacy').callTool('slow', { ms: 60_000 }, { timeout: 600_000 }), /server `legacy`: the HTTP stream (was dropped|ended) before the answer came/);
    assert.equal((await f.stats()).droppedStreams, 1);
    await t.assertBystanderUndisturbed();
  });

  it('a request that times out stops reading its (stalled) SSE answer: the server sees the connection closed', async () => {
    const f = await hostile();
    t = await startHost([httpDef('hostile', f.url)]);
    await assert.rejects(t.get('hostile').callTool('stall_sse', {}, { timeout: 300 }), /did not answer|timed out/);
    await until(async () => ((await f.stats()).closedEarly as number) >= 1, 'the stalled answer closed', 10_000);
    assert.equal(textOf(await t.get('hostile').callTool('echo', { text: 'after' })), 'after');
    await t.assertBystanderUndisturbed();
  });

  it('a 401 naming another origin\'s resource_metadata: the sign-in discovery goes there without the configured headers; a file: authorization URL is refused, never opened', async () => {
    const opened: string[] = [];
    const other = await recorder((req, res, base) => {
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
      if (req.url?.startsWith('/.well-known/oauth-protected-resource')) return send(200, { resource: hostileUrl, authorization_servers: [base] });
      if (req.url?.startsWith('/.well-known/oauth-authorization-server')) {
        return send(200, { issuer: base, authorization_endpoint: 'file:///etc/passwd', token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`, response_types_supported: ['code'], code_challenge_methods_supported: ['S256'] });
      }
      if (req.url === '/register') return send(201, { client_id: 'client-1', redirect_uris: ['http://127.0.0.1:1/cb'] });
      send(404, {});
    });
    cleanups.push(other.close);
    const f = await hostile(['--auth-elsewhere', `${other.base}/.well-known/oauth-protected-resource`]);
    const hostileUrl = f.url;
    const store = new Map<string, string>();
    const provider = new McpOAuthProvider({
      storage: { get: k => store.get(k), set: (k, v) => { store.set(k, v); }, delete: k => { store.delete(k); } },
      openBrowser: async url => { opened.push(url); },
      redirectUrl: 'http://127.0.0.1:1/cb', clientName: 'test', key: f.url, server: 'hostile',
    });
    t = await startHost([httpDef('hostile', f.url, 'http', { headers: SECRET_HEADERS })], { authProvider: provider });
    const s = t.get('hostile').state;
    assert.equal(s.kind, 'error');
    assert.ok(other.seen.length >= 2, `discovery reached the other origin: ${JSON.stringify(other.seen.map(x => x.url))}`);
    for (const x of other.seen) assert.doesNotMatch(JSON.stringify(x.headers), LEAKED, `headers sent to ${x.url}`);
    assert.match(JSON.stringify((await f.stats()).lastHeaders), /key-BBBB-2222/, 'its own origin gets the headers');
    assert.deepEqual(opened, [], 'nothing was opened');
    assert.ok(s.kind === 'error' && /server `hostile`/.test(s.message) && /file:/.test(s.message), JSON.stringify(s));
    await t.assertBystanderUndisturbed();
  });

  it('a legacy SSE server naming an endpoint on another origin: nothing with the configured headers reaches it', async () => {
    const other = await recorder((_q, res) => { res.writeHead(202); res.end(); });
    cleanups.push(other.close);
    const f = await hostile(['--sse-endpoint', `${other.base}/messages`]);
    t = await startHost([httpDef('hostile', f.url, 'sse', { headers: SECRET_HEADERS })]);
    assert.equal(t.get('hostile').state.kind, 'error');
    for (const x of other.seen) assert.doesNotMatch(JSON.stringify(x.headers), LEAKED, `headers sent to ${x.url}`);
    assert.match(JSON.stringify((await f.stats()).lastHeaders), /key-BBBB-2222/, 'its own origin gets the headers');
    await t.assertBystanderUndisturbed();
  });
});
