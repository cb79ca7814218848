/**
 * The gateway's loopback HTTP listener (issue 41, src/mcp/gateway/http.ts) against the real listener on 127.0.0.1 and
 * a real host running the echo fixture, spoken to by the SDK v2 client over Streamable HTTP as VS Code does. Each
 * hostile request (wrong or missing secret, a foreign Host, an Origin header, an oversize body, floods) is sent while a
 * well-behaved client is connected, and that client's tool call still works afterwards.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpHost } from '../../src/mcp/host';
import { GatewayHttpListener } from '../../src/mcp/gateway/http';
import { gatewaySession } from '../../src/mcp/gateway/httpSession';
import { newSecret } from '../../src/mcp/gateway/wire';
import { FAST_STOP, nodeFixture } from '../support/connection';
import { textOf, until } from '../support/wait';

const CAP = 64 * 1024;
const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

interface Raw { status: number; body: string }

/** One request with exactly the given headers (Node's own fetch would set Host and more itself). */
function raw(port: number, headers: Record<string, string>, body = INIT, method = 'POST'): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, agent: false }, res => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(method === 'GET' ? undefined : body);
  });
}

describe('Gateway over loopback HTTP: the SDK transport in this process, behind its wall', function () {
  this.timeout(60_000);
  let host: McpHost;
  let listener: GatewayHttpListener;
  let secret: string | undefined;
  let good: Client;
  let port: number;

  const connect = async (withSecret: string | undefined) => {
    const c = new Client({ name: 'editor', version: '1' });
    const headers: Record<string, string> = withSecret === undefined ? {} : { Authorization: `Bearer ${withSecret}` };
    await c.connect(new StreamableHTTPClientTransport(new URL(listener.url!), { requestInit: { headers } }), { timeout: 10_000 });
    return c;
  };
  const goodStillWorks = async (text: string) => {
    const r = await good.callTool({ name: 'echo_echo', arguments: { text } });
    assert.equal(textOf(r), text);
  };
  const auth = () => ({ authorization: `Bearer ${secret}`, host: `127.0.0.1:${port}` });

  before(async () => {
    host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    await host.reconcile([nodeFixture('echo', 'echo')]);
    await until(() => host.get('echo')?.state.kind === 'running' && host.get('echo')!.catalogue.tools.length > 0, 'echo running');
  });
  after(async () => { await host.dispose(); });
  beforeEach(async () => {
    secret = newSecret();
    listener = new GatewayHttpListener({
      secret: () => secret,
      newSession: max => gatewaySession({ host, version: 'test' }, max),
      maxMessageBytes: CAP, maxSessions: 4, maxRequests: 16, idleMs: 400,
    });
    await listener.listen();
    port = listener.port!;
    good = await connect(secret);
    await goodStillWorks('hello');
  });
  afterEach(async () => {
    await good.close().catch(() => undefined);
    listener.close();
  });

  it('H575: VS Code\'s client reaches the host\'s tools over 127.0.0.1 with the window\'s secret, one session, no process', async () => {
    assert.match(listener.url!, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { tools } = await good.listTools();
    assert.deepEqual(tools.map(t => t.name), ['echo_echo']);
    await goodStillWorks('über 127.0.0.1');
    assert.equal(listener.connections, 1);
    assert.equal(host.get('echo')!.history.at(-1)!.by, 'model');
  });

  it('H576: a wrong or missing secret gets 403 (never 401), before any session; the good client keeps working', async () => {
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer nope' }, { authorization: `Bearer ${secret}x` }, { authorization: `Basic ${secret}` }, { authorization: `bearer ${secret}` }]) {
      const r = await raw(port, { host: `127.0.0.1:${port}`, ...headers });
      assert.equal(r.status, 403, JSON.stringify(headers));
      assert.match(r.body, /secret is missing or wrong/);
    }
    await assert.rejects(connect('wrong'), 'the SDK client with a wrong secret does not connect');
    await assert.rejects(connect(undefined), 'the SDK client without a secret does not connect');
    assert.equal(listener.refused.secret >= 5, true);
    assert.equal(listener.connections, 1, 'no session for a refused client');
    await goodStillWorks('after wrong secrets');
    // Turned off: no secret at all, every request refused, even one with the old secret.
    const old = secret!;
    secret = undefined;
    assert.equal((await raw(port, { authorization: `Bearer ${old}`, host: `127.0.0.1:${port}` })).status, 403);
    secret = old;
  });

  it('H577: a foreign Host (DNS rebinding) or any Origin header (a web page) gets 403; the good client keeps working', async () => {
    for (const h of ['localhost:' + port, `evil.example:${port}`, '127.0.0.1', `127.0.0.1:${port + 1}`, `[::1]:${port}`]) {
      const r = await raw(port, { authorization: `Bearer ${secret}`, host: h });
      assert.equal(r.status, 403, h);
      assert.match(r.body, /Host header/);
    }
    for (const o of [`http://127.0.0.1:${port}`, 'http://evil.example', 'null', 'vscode-file://vscode-app']) {
      const r = await raw(port, { ...auth(), origin: o });
      assert.equal(r.status, 403, o);
      assert.match(r.body, /web pages/);
    }
    assert.equal(listener.connections, 1);
    await goodStillWorks('after rebinding');
  });

  it('H578: a body over the one message cap gets 413, declared or streamed, unread; the good client keeps working', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', pad: 'x'.repeat(CAP) });
    const declared = await raw(port, { ...auth(), 'content-length': String(Buffer.byteLength(big)) }, big);
    assert.equal(declared.status, 413);
    assert.match(declared.body, /a message over 65536 bytes \(the gateway's own cap/);
    const streamed = await raw(port, { ...auth(), 'transfer-encoding': 'chunked' }, big);
    assert.equal(streamed.status, 413);
    assert.equal(listener.connections, 1);
    await goodStillWorks('after oversize');
  });

  it('H579: a flood (1,000 unauthenticated requests, 100 sessions, 200 calls at once) is refused within bounds; the good client keeps working', async () => {
    const before = process.memoryUsage().heapUsed;
    const noSecret = await Promise.all(Array.from({ length: 1000 }, () => raw(port, { host: `127.0.0.1:${port}` }).catch(() => ({ status: 0, body: '' }))));
    assert.ok(noSecret.every(r => r.status === 403 || r.status === 0), 'every unauthenticated request refused');
    const sessions = await Promise.all(Array.from({ length: 100 }, () => raw(port, auth()).catch(() => ({ status: 0, body: '' }))));
    // Over the cap a new session takes the place of the one idle longest (the flood's own: the good client's event
    // stream is open), or is refused with 503 while every session is in use.
    assert.ok(sessions.every(r => r.status === 200 || r.status === 503), sessions.map(r => r.status).join());
    assert.ok(listener.connections <= 4, `${listener.connections} sessions open`);
    await goodStillWorks('during the flood');
    const calls = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => good.callTool({ name: 'echo_echo', arguments: { text: `n${i}` } })));
    assert.ok(calls.some(c => c.status === 'fulfilled'), 'calls within the bound are answered');
    assert.ok(calls.some(c => c.status === 'rejected'), 'calls over the bound are refused at once');
    assert.ok(process.memoryUsage().heapUsed - before < 64 * 1024 * 1024, 'the flood did not pile up memory');
    await goodStillWorks('after the flood');
  });

  it('H580: a session with no open request is dropped when idle; a connected client keeps its own', async () => {
    const r = await raw(port, auth());
    assert.equal(r.status, 200);
    await until(() => listener.connections === 2, 'the raw session opened', 5000).catch(() => undefined);
    await until(() => listener.connections === 1, 'the idle raw session dropped', 10_000);
    await goodStillWorks('after the idle sweep');
  });

  it('H581: closing the listener ends every session and nothing listens any more', async () => {
    listener.close();
    assert.equal(listener.url, undefined);
    assert.equal(listener.connections, 0);
    await assert.rejects(raw(port, auth()), /ECONNREFUSED/);
    // Closed while it was still starting: the new server closes too.
    const late = new GatewayHttpListener({ secret: () => secret, newSession: max => gatewaySession({ host, version: 'test' }, max) });
    const starting = late.listen();
    late.close();
    await starting;
    assert.equal(late.url, undefined);
  });
});
