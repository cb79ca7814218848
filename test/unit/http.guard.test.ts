/**
 * The guarded fetch's parts (origins, redirects, the SSE event splitter) and the authorization-URL
 * rules (which URLs may be opened; the Windows opener's command line).
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeldResponse, SseScanner, strictResponses } from '../../src/mcp/http/responseBodies';
import { createGuardedFetch, headersFor } from '../../src/mcp/http/guardedFetch';
import { checkAuthorizationUrl, isLoopbackHost, windowsOpenCommand } from '../../src/mcp/oauth/urls';
import { McpOAuthProvider } from '../../src/mcp/oauth/provider';
import { browserCommand } from '../../src/cli/oauth';

async function server(handler: http.RequestListener) {
  const s = http.createServer(handler);
  await new Promise<void>(r => s.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, close: () => new Promise<void>(r => { s.closeAllConnections(); s.close(() => r()); }) };
}

describe('guarded fetch', () => {
  const headers = { Authorization: 'Bearer configured', 'X-Api-Key': 'k1' };

  it('keeps configured headers for the server origin and drops them (and a Bearer token) for any other', () => {
    const own = headersFor(new URL('https://api.example.com/x'), { ...headers, Accept: 'a' }, { headers }, 'https://api.example.com');
    assert.equal(own.get('x-api-key'), 'k1');
    const other = headersFor(new URL('https://evil.example.com/x'), { 'x-api-key': 'k1', authorization: 'Bearer from-provider', Accept: 'a' }, { headers: { 'X-Api-Key': 'k1' } }, 'https://api.example.com');
    assert.equal(other.get('x-api-key'), null);
    assert.equal(other.get('authorization'), null);
    assert.equal(other.get('accept'), 'a');
    // A port is another origin.
    assert.equal(headersFor(new URL('https://api.example.com:444/'), headers, { headers }, 'https://api.example.com').get('x-api-key'), null);
    // Client authentication for a token endpoint (Basic) is not the server's header: kept.
    assert.equal(headersFor(new URL('https://as.example.com/token'), { authorization: 'Basic abc' }, { headers: {} }, 'https://api.example.com').get('authorization'), 'Basic abc');
  });

  it('follows a redirect within the origin (headers kept), hands back one to another origin unfollowed; the other origin sees nothing', async () => {
    const seenOther: http.IncomingHttpHeaders[] = [];
    const other = await server((req, res) => { seenOther.push(req.headers); res.end('other'); });
    const seenOwn: Array<{ url?: string; key?: string | string[] }> = [];
    const own = await server((req, res) => {
      seenOwn.push({ url: req.url, key: req.headers['x-api-key'] });
      if (req.url === '/a') { res.writeHead(307, { location: '/b' }).end(); return; }
      if (req.url === '/away') { res.writeHead(302, { location: `${other.base}/x` }).end(); return; }
      res.end('own');
    });
    try {
      const f = createGuardedFetch(() => ({ server: 's', url: `${own.base}/mcp`, headers, maxMessageBytes: 1024 }));
      const r = await f(`${own.base}/a`, { headers });
      assert.equal(await r.text(), 'own');
      assert.deepEqual(seenOwn, [{ url: '/a', key: 'k1' }, { url: '/b', key: 'k1' }]);
      const away = await f(`${own.base}/away`, { headers });
      assert.equal(away.status, 302);
      assert.deepEqual(seenOther, []);
      // A request to the other origin itself (e.g. resource metadata) goes without the configured headers.
      await (await f(`${other.base}/meta`, { headers })).text();
      assert.equal(seenOther.length, 1);
      const got = seenOther[0] as http.IncomingHttpHeaders;
      assert.equal(got['x-api-key'], undefined);
      assert.equal(got.authorization, undefined);
    } finally {
      await own.close();
      await other.close();
    }
  });

  it('fails a JSON body over the cap with the limit message, and passes one under it whole', async () => {
    const s = await server((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ pad: 'x'.repeat(req.url === '/big' ? 5000 : 100) })); });
    try {
      const f = createGuardedFetch(() => ({ server: 'capped', url: s.base, maxMessageBytes: 1024 }));
      assert.equal(((await (await f(`${s.base}/small`)).json()) as { pad: string }).pad.length, 100);
      await assert.rejects((await f(`${s.base}/big`)).json(), /server `capped` sent an HTTP body: over the limit of 1 KiB \(raise it with the setting `mcpHost\.limits\.maxMessageBytes`\)/);
    } finally {
      await s.close();
    }
  });

  it('a JSON answer to a request is read whole before it is handed on: with a declared length or chunked, under the cap whole, over it refused with the limit message, one with both result and error rewritten', async () => {
    const answer = (id: number, pad: number, both = false) => JSON.stringify({ jsonrpc: '2.0', id, result: { pad: 'x'.repeat(pad) }, ...(both ? { error: { code: 1, message: 'm' } } : {}) });
    const s = await server((req, res) => {
      let body = '';
      req.on('data', d => { body += d; });
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id: number };
        const [, how, size] = /^\/(length|chunked)\/(small|big|both)$/.exec(req.url ?? '') ?? [];
        const text = answer(id, size === 'big' ? 5000 : 100, size === 'both');
        if (how === 'length') { res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text); return; }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write(text.slice(0, 10));
        res.end(text.slice(10));
      });
    });
    try {
      const f = createGuardedFetch(() => ({ server: 'held', url: s.base, maxMessageBytes: 1024 }));
      const post = (path: string, id: number) => f(`${s.base}${path}`, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: {} }), headers: { 'content-type': 'application/json' } });
      let id = 0;
      for (const how of ['length', 'chunked']) {
        const small = await (await post(`/${how}/small`, ++id)).json() as { id: number; result: { pad: string } };
        assert.equal(small.id, id);
        assert.equal(small.result.pad.length, 100, how);
        await assert.rejects(post(`/${how}/big`, ++id), /server `held` sent an HTTP body: over the limit of 1 KiB \(raise it with the setting `mcpHost\.limits\.maxMessageBytes`\)/, how);
        const both = await (await post(`/${how}/both`, ++id)).json() as { id: number; result?: unknown; error?: { message: string } };
        assert.equal(both.id, id);
        assert.equal(both.result, undefined, how);
        assert.match(both.error?.message ?? '', /server `held`/, how);
      }
    } finally {
      await s.close();
    }
  });

  it('the held answer is a Response like any other: read once by json(), text(), arrayBuffer(), bytes(), blob() or body; clone() before; headers and status kept', async () => {
    const text = '{"jsonrpc":"2.0","id":1,"result":{"é":"ü"}}';
    const init = { status: 200, statusText: 'OK', headers: new Headers({ 'content-type': 'application/json', 'mcp-session-id': 's1' }) };
    const held = () => new HeldResponse(Buffer.from(text, 'utf8'), init);
    const r = held();
    assert.ok(r instanceof Response);
    assert.equal(r.status, 200);
    assert.equal(r.ok, true);
    assert.equal(r.headers.get('mcp-session-id'), 's1');
    assert.equal(r.bodyUsed, false);
    const copy = r.clone();
    assert.deepEqual(await r.json(), JSON.parse(text));
    assert.equal(r.bodyUsed, true);
    await assert.rejects(r.text(), TypeError);
    assert.throws(() => r.clone(), TypeError);
    assert.equal(await copy.text(), text);
    assert.equal(new TextDecoder().decode(await held().arrayBuffer()), text);
    assert.equal(new TextDecoder().decode(await held().bytes()), text);
    assert.equal(await (await held().blob()).text(), text);
    // A leading byte-order mark is dropped, as Response.text() drops it.
    assert.deepEqual(await new HeldResponse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), init).json(), JSON.parse(text));
    // The body as a stream, for a reader that wants one: the same bytes; read through it, the body is used.
    const streamed = held();
    const body = streamed.body!;
    assert.equal(streamed.bodyUsed, false);
    assert.equal(streamed.body, body);
    assert.equal(await new Response(body).text(), text);
    assert.equal(streamed.bodyUsed, true);
    await assert.rejects(streamed.json(), TypeError);
    // Asked for its body first, then read whole: still the same bytes.
    const both = held();
    void both.body;
    assert.equal(await both.text(), text);
    assert.equal(both.bodyUsed, true);
    // Asked for its body, then cloned: the original and the clone each read the whole body.
    const split = held();
    void split.body;
    const twin = split.clone();
    assert.equal(await twin.text(), text);
    assert.equal(await split.text(), text);
  });

  it('a request\'s own signal aborts that request only (SDK v2 gives each its own); a signal shared by several aborts each of them', async () => {
    // Each answer comes after `ms`; two requests are in flight when one is aborted.
    const s = await server((req, res) => {
      const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms'));
      const t = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ms })), ms);
      res.on('close', () => clearTimeout(t));
    });
    try {
      const f = createGuardedFetch(() => ({ server: 'signals', url: s.base, maxMessageBytes: 1024 }));
      const own = new AbortController();
      const bystander = f(`${s.base}/?ms=400`, { signal: new AbortController().signal }).then(r => r.json());
      const aborted = f(`${s.base}/?ms=5000`, { signal: own.signal });
      setTimeout(() => own.abort(new Error('this request only')), 100);
      await assert.rejects(aborted, /this request only/);
      assert.deepEqual(await bystander, { ms: 400 });
      // One signal for both (a session's): aborting it ends both.
      const session = new AbortController();
      const both = [f(`${s.base}/?ms=5000`, { signal: session.signal }), f(`${s.base}/?ms=5000`, { signal: session.signal })];
      setTimeout(() => session.abort(new Error('session closed')), 100);
      for (const r of await Promise.allSettled(both)) assert.match(String(r.status === 'rejected' && r.reason), /session closed/);
    } finally {
      await s.close();
    }
  });

  it('SseScanner splits events on blank lines (LF, CRLF, CR), across chunk borders, and counts the open event', () => {
    const enc = new TextEncoder();
    const dec = (parts: Uint8Array[]) => parts.map(p => Buffer.from(p).toString()).join('');
    const s = new SseScanner();
    assert.deepEqual(s.push(enc.encode('data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d')).map(e => dec(e.parts)), ['data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r']);
    assert.equal(s.pendingBytes, 7);
    assert.deepEqual(s.push(enc.encode('ef\n')).map(e => dec(e.parts)), []);
    assert.deepEqual(s.push(enc.encode('\nid: 1\n')).map(e => dec(e.parts)), ['data: def\n\n']);
    assert.equal(s.pendingBytes, 6);
    // A line of data that only looks blank across a border is not an event end.
    const t = new SseScanner();
    assert.deepEqual(t.push(enc.encode('data: x')), []);
    assert.deepEqual(t.push(enc.encode('\n')), []);
    assert.equal(t.push(enc.encode('\n')).length, 1);
  });
});

describe('authorization URLs', () => {
  it('opens only https:, and http: on loopback; refuses every other scheme naming the server', () => {
    for (const ok of ['https://auth.example.com/authorize?x=1', 'http://127.0.0.1:3000/a', 'http://localhost/a', 'http://[::1]:8080/a']) {
      assert.equal(checkAuthorizationUrl('srv', ok).toString(), new URL(ok).toString());
    }
    for (const bad of ['file:///etc/passwd', 'smb://host/share', 'vscode://ext/x', 'javascript:alert(1)', 'http://auth.example.com/a', 'data:text/html,x', 'not a url']) {
      assert.throws(() => checkAuthorizationUrl('srv', bad), /server `srv` asked to open an authorization URL .*refused/, bad);
    }
    assert.ok(isLoopbackHost('127.1.2.3') && !isLoopbackHost('127.0.0.1.evil.com'));
  });

  it('the core provider refuses a file: authorization URL without calling the browser step', async () => {
    const opened: string[] = [];
    const p = new McpOAuthProvider({ storage: { get: () => undefined, set: () => undefined, delete: () => undefined }, openBrowser: async u => { opened.push(u); }, redirectUrl: 'http://127.0.0.1:1/cb', clientName: 'c', server: 'remote' });
    await assert.rejects(p.redirectToAuthorization(new URL('file:///C:/Windows/System32/calc.exe')), /server `remote`.*file:/);
    await p.redirectToAuthorization(new URL('https://auth.example.com/authorize'));
    assert.deepEqual(opened, ['https://auth.example.com/authorize']);
  });

  it('the Windows opener quotes the URL and escapes cmd metacharacters (& | % ^ " …)', () => {
    const url = 'https://auth.example.com/authorize?a=1&b=%PATH%|x^"y';
    const { command, args } = windowsOpenCommand(url);
    assert.equal(command, 'cmd.exe');
    assert.deepEqual(args.slice(0, 3), ['/d', '/s', '/c']);
    assert.equal(args[3], '"start "" ^"https://auth.example.com/authorize^?a=1^&b=^%PATH^%^|x^^\\^"y^""');
    // Undo cmd's caret escapes and /s outer quotes: `start`, an empty title, then the URL as one quoted argument.
    const seen = args[3].slice(1, -1).replace(/\^(.)/g, '$1');
    assert.equal(seen, 'start "" "https://auth.example.com/authorize?a=1&b=%PATH%|x^\\"y"');
    assert.deepEqual(browserCommand(url, 'win32'), { command, args, verbatim: true });
    assert.deepEqual(browserCommand(url, 'linux'), { command: 'xdg-open', args: [url], verbatim: false });
    assert.deepEqual(browserCommand(url, 'darwin'), { command: 'open', args: [url], verbatim: false });
  });
});

describe('strict JSON-RPC answers over HTTP', () => {
  it('replaces a response with both result and error by an error for the same id, naming the server; leaves the rest alone', () => {
    assert.equal(strictResponses({ jsonrpc: '2.0', id: 1, result: {} }, 's'), undefined);
    assert.equal(strictResponses({ jsonrpc: '2.0', method: 'x', params: { result: 1, error: 2 } }, 's'), undefined);
    const out = JSON.parse(strictResponses({ jsonrpc: '2.0', id: 'a', result: {}, error: { code: 1, message: 'm' } }, 'srv')!);
    assert.equal(out.id, 'a');
    assert.equal(out.result, undefined);
    assert.match(out.error.message, /server `srv` answered request "a" with both result and error, which JSON-RPC forbids/);
    const batch = JSON.parse(strictResponses([{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {}, error: {} }], 's')!);
    assert.deepEqual(batch[0], { jsonrpc: '2.0', id: 1, result: {} });
    assert.ok(batch[1].error && batch[1].result === undefined);
  });
});
