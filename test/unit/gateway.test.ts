/**
 * The gateway into VS Code's chat, its plain parts: the names it gives tools and prompts, the resource URIs, the
 * secret comparison, the minimal environment, and the gateway process's own bounds (run in this process on streams,
 * against a stand-in for the extension's end of the channel on a private socket).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { PassThrough } from 'node:stream';
import { GatewayNames, gatewayName, MAX_GATEWAY_NAME, sanitiseName } from '../../src/mcp/gateway/names';
import { parseResourceUri, resourceUri } from '../../src/mcp/gateway/server';
import { classify, HELLO_OK, minimalEnv, newSecret, parseHello, privateEndpoint, secretsEqual, type PrivateEndpoint } from '../../src/mcp/gateway/wire';
import { runGateway } from '../../src/mcp/gateway/main';
import { until } from '../support/wait';

describe('Gateway: names, URIs, secret, environment', () => {
  it('H97: names are <server>_<name> in the tool-name charset, at most 48 characters, unique across servers', () => {
    assert.equal(gatewayName('files', 'read_file'), 'files_read_file');
    assert.equal(sanitiseName('weird name/ü.x'), 'weird_name_x');
    const long = gatewayName('server', 'x'.repeat(100));
    assert.equal(long.length, MAX_GATEWAY_NAME);
    assert.match(long, /^server_x+_[0-9a-f]{6}$/);
    assert.notEqual(gatewayName('server', `${'x'.repeat(100)}a`), long, 'two long names cut alike stay apart (hash)');
    const names = new GatewayNames();
    const a = names.assign('a_b', 'c');
    const b = names.assign('a', 'b_c');
    const c = names.assign('a', 'b.c');
    assert.deepEqual([a, b, c], ['a_b_c', 'a_b_c_2', 'a_b_c_3']);
    assert.deepEqual(names.lookup('a_b_c_2'), { server: 'a', name: 'b_c' });
    assert.deepEqual(names.lookup('A_B_C_3'), { server: 'a', name: 'b.c' }, 'case-insensitive lookup');
    for (const n of [a, b, c, long]) assert.match(n, /^[A-Za-z0-9_-]{1,48}$/);
  });

  it('H97: resource URIs name their server and survive any original URI', () => {
    for (const [server, uri] of [['files', 'file:///a b/c?d#e'], ['x/y', 'note://one'], ['ü', 'mcp-host-gateway://z/w']]) {
      assert.deepEqual(parseResourceUri(resourceUri(server, uri)), { server, uri });
    }
    assert.equal(parseResourceUri('file:///etc/passwd'), undefined);
    assert.equal(parseResourceUri('mcp-host-gateway://%E0%A4%A/x'), undefined, 'a malformed escape is no resource');
  });

  it('H101: the secret is compared in constant time over digests; a hello carries it and nothing else counts', () => {
    const s = newSecret();
    assert.ok(s.length >= 40);
    assert.ok(secretsEqual(s, s));
    assert.ok(!secretsEqual(s, `${s}x`));
    assert.ok(!secretsEqual(s, ''));
    assert.equal(parseHello(Buffer.from(JSON.stringify({ mcpHostGateway: 1, secret: s }))), s);
    assert.equal(parseHello(Buffer.from(JSON.stringify({ mcpHostGateway: 2, secret: s }))), undefined);
    assert.equal(parseHello(Buffer.from('{"jsonrpc":"2.0","method":"initialize","id":1}')), undefined);
    assert.equal(parseHello(Buffer.from(JSON.stringify({ mcpHostGateway: 1, secret: 'x'.repeat(2000) }))), undefined, 'over the hello cap');
  });

  it('H104: the gateway process gets a minimal environment: every extension-host variable removed but SystemRoot', () => {
    const env = minimalEnv({ PATH: '/bin', HOME: '/home/u', GITHUB_TOKEN: 'secret', SystemRoot: 'C:\\Windows' }, { MCP_HOST_GATEWAY_SOCKET: '/s' });
    assert.deepEqual(env, { PATH: null, HOME: null, GITHUB_TOKEN: null, ELECTRON_RUN_AS_NODE: '1', MCP_HOST_GATEWAY_SOCKET: '/s' });
  });

  it('classifies requests, responses and cancellations for the pending bound', () => {
    assert.deepEqual(classify('{"jsonrpc":"2.0","id":"5","method":"tools/call"}'), { kind: 'request', id: '"5"' });
    assert.deepEqual(classify('{"jsonrpc":"2.0","id":5,"result":{}}'), { kind: 'response', id: '5' });
    assert.deepEqual(classify('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}'), { kind: 'cancelled', id: '5' });
    assert.deepEqual(classify('{"jsonrpc":"2.0","method":"notifications/initialized"}'), { kind: 'other' });
    assert.deepEqual(classify('not json'), { kind: 'invalid' });
  });

  it('H101: the channel lives in a folder only the user can open', function () {
    if (process.platform === 'win32') this.skip();
    const e = privateEndpoint();
    try {
      const dir = e.path.slice(0, e.path.lastIndexOf('/'));
      assert.equal(fs.statSync(dir).mode & 0o777, 0o700);
    } finally {
      e.dispose();
    }
  });
});

describe('Gateway process: its own bounds and its end', function () {
  this.timeout(20_000);
  let endpoint: PrivateEndpoint | undefined;
  let server: net.Server | undefined;
  afterEach(() => { server?.close(); endpoint?.dispose(); server = endpoint = undefined; });

  /** A stand-in for the extension: accepts the hello, then records what arrives and answers nothing. */
  async function standIn(onLine: (line: string, socket: net.Socket) => void = () => undefined): Promise<{ path: string; sockets: net.Socket[] }> {
    endpoint = privateEndpoint();
    const sockets: net.Socket[] = [];
    server = net.createServer(s => {
      sockets.push(s);
      let buf = '';
      let hello = false;
      s.on('data', d => {
        buf += d.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!hello) { hello = true; s.write(HELLO_OK); continue; }
          onLine(line, s);
        }
      });
    });
    await new Promise<void>(r => server!.listen(endpoint!.path, r));
    return { path: endpoint.path, sockets };
  }

  function run(path: string, o: { maxPending?: number; maxMessageBytes?: number } = {}) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const out: string[] = [];
    const logs: string[] = [];
    let exitCode: number | undefined;
    stdout.on('data', d => out.push(...String(d).split('\n').filter(Boolean)));
    runGateway({ socket: path, secret: 's', stdin, stdout, log: l => logs.push(l), exit: c => { exitCode = c; }, ...o });
    return { stdin, out, logs, exited: () => exitCode };
  }

  it('H102: answers a request over its pending bound with an error at once, and counts cancelled ones as done', async () => {
    const got: string[] = [];
    const { path } = await standIn(l => got.push(l));
    const g = run(path, { maxPending: 2 });
    for (const id of [1, 2, 3]) g.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"hang"}}\n`);
    await until(() => g.out.length === 1 && got.length === 2, 'the third request refused, two forwarded', 5_000);
    assert.match(g.out[0], /"id":3,"error":\{"code":-32000,"message":"MCP Host gateway: 2 requests are already waiting/);
    g.stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n');
    g.stdin.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await until(() => got.length === 4, 'the cancellation and the next request forwarded', 5_000);
    assert.equal(g.out.length, 1);
    g.stdin.end();
  });

  it('H102: drops a message over the cap either way and keeps going', async () => {
    const got: string[] = [];
    const { path, sockets } = await standIn(l => got.push(l));
    const g = run(path, { maxMessageBytes: 1024 });
    g.stdin.write(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"${'a'.repeat(5000)}"}}\n`);
    g.stdin.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    await until(() => got.length === 1 && sockets.length === 1, 'the small request forwarded', 5_000);
    assert.match(got[0], /"id":2/);
    sockets[0].write(`{"jsonrpc":"2.0","id":2,"result":{"big":"${'b'.repeat(5000)}"}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n`);
    await until(() => g.out.length === 1, 'the small answer delivered', 5_000);
    assert.equal(g.out[0], '{"jsonrpc":"2.0","id":2,"result":{}}');
    assert.ok(g.logs.some(l => /dropped a message from VS Code over 1024 bytes/.test(l)), g.logs.join('\n'));
    assert.ok(g.logs.some(l => /dropped a message from MCP Host over 1024 bytes/.test(l)), g.logs.join('\n'));
    g.stdin.end();
  });

  it('H104: exits when the channel closes, and when its stdin ends', async () => {
    const { path, sockets } = await standIn();
    const a = run(path);
    await until(() => sockets.length === 1, 'connected', 5_000);
    await new Promise(r => setTimeout(r, 50));
    sockets[0].destroy();
    await until(() => a.exited() !== undefined, 'the gateway exits', 5_000);
    assert.equal(a.exited(), 0);
    const b = run(path);
    await until(() => sockets.length === 2, 'connected again', 5_000);
    b.stdin.end();
    await until(() => b.exited() !== undefined, 'the gateway exits on stdin EOF', 5_000);
  });
});
