/**
 * The one parser of external URLs (src/mcp/features/externalUrl.ts) on hostile input, and the bounds of an MCP App
 * view as a requester (src/mcp/apps/bounds.ts, the view transport's caps): plain Node, no editor.
 */
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { checkAuthorizationUrl, externalUrlPrompt, headlineOrigin, OneAtATime, parseExternalUrl, RateBudget, RefusedUrl, VIEW_LIMITS, type ExternalUrl } from '../../src/mcp';
import { ViewTransport } from '../../src/extension/apps/transport';
import { shownOrigin } from '../../src/mcp/features/externalUrl';

function ok(raw: string): ExternalUrl {
  const t = parseExternalUrl(raw);
  if (t instanceof Error) assert.fail(`${raw}: ${t.message}`);
  return t;
}
function refused(raw: unknown, why: RegExp): void {
  const t = parseExternalUrl(raw);
  assert.ok(t instanceof RefusedUrl, `${JSON.stringify(raw)} was accepted as ${JSON.stringify(t)}`);
  assert.match(t.message, why, JSON.stringify(raw));
}

describe('H62: external URLs are parsed once; what is shown is what is opened', () => {
  it('https and loopback http: one normalised URL, the origin shown, nothing re-parsed', () => {
    assert.deepEqual(ok('HTTPS://Good.Example:443/a/./b/../login?q=1#f'), { url: 'https://good.example/a/login?q=1#f', origin: 'https://good.example', asciiOrigin: undefined });
    assert.equal(ok('http://127.0.0.1:8080/cb').url, 'http://127.0.0.1:8080/cb');
    assert.equal(ok('http://localhost/cb').origin, 'http://localhost');
    assert.equal(ok('http://[::1]:3000/').origin, 'http://[::1]:3000');
  });

  it('the user-info trick (good.example\\@evil.example, good.example@evil.example) is refused, never shown as good.example', () => {
    refused('https://good.example\\@evil.example/login', /backslash/);
    refused('https://good.example@evil.example/login', /user name or password/);
    refused('https://good.example:pw@evil.example/', /user name or password/);
    refused('https://a%40good.example@evil.example/', /user name or password/);
    // An empty user info is dropped by the parser: shown and opened as the host it really is.
    assert.equal(ok('https://@evil.example/x').url, 'https://evil.example/x');
  });

  it('backslashes anywhere are refused (programs disagree where they end the host)', () => {
    for (const raw of ['https://good.example\\evil.example', 'https:\\\\evil.example/', 'https://good.example/path\\x']) refused(raw, /backslash/);
  });

  it('white space, control and invisible characters anywhere are refused (the WHATWG parser would drop some silently)', () => {
    for (const raw of [' https://good.example/', 'https://good.example/\n', 'https://good.\nexample/', 'https://good.ex\tample/', 'https://good.example/a b',
      'https://good.example/\u0000', 'https://good.example/\u007f', 'https://good.example/\u0085', 'https://good.example/\u202e', 'https://good\u200b.example/', '\ufeffhttps://good.example/']) {
      refused(raw, /white space, control or invisible/);
    }
  });

  it('javascript:, data:, file:, vscode:, command: and remote http: are refused; so are non-strings and over-long text', () => {
    refused('javascript:alert(1)', /`javascript:` URL; only https:/);
    refused('JaVaScRiPt:alert(1)', /`javascript:` URL/);
    refused('data:text/html,<script>alert(1)</script>', /`data:` URL/);
    refused('file:///etc/passwd', /`file:` URL/);
    refused('vscode://settings/x', /`vscode:` URL/);
    refused('command:workbench.action.quit', /`command:` URL/);
    refused('http://evil.example/login', /http: URL of another machine \(http:\/\/evil\.example\)/);
    refused('http://127.0.0.1.evil.example/', /another machine/);
    refused('not-a-url', /not a URL/);
    refused(42, /not a URL/);
    refused(`https://good.example/${'a'.repeat(9000)}`, /longer than 8192/);
  });

  it('H356: a mixed-script or other IDN domain: the headline shows its ASCII (punycode) form, the detail the decoded one beside it', () => {
    const t = ok('https://xn--pple-43d.com/login');
    assert.equal(t.origin, 'https://аpple.com', 'the Cyrillic а is shown decoded');
    assert.equal(t.asciiOrigin, 'https://xn--pple-43d.com');
    assert.equal(t.url, 'https://xn--pple-43d.com/login', 'what is opened is the ASCII URL');
    const raw = ok('https://аpple.com/login');
    assert.equal(raw.url, 'https://xn--pple-43d.com/login', 'typed in Unicode, opened as its punycode');
    assert.equal(raw.asciiOrigin, 'https://xn--pple-43d.com');
    const p = externalUrlPrompt('MCP server "s"', t);
    assert.equal(p.question, 'MCP server "s" wants to open https://xn--pple-43d.com', 'the homograph never reads as apple.com in the headline');
    assert.equal(headlineOrigin(t), 'https://xn--pple-43d.com');
    assert.match(p.detail, /^Full address: https:\/\/xn--pple-43d\.com\/login\nThe domain has international characters: https:\/\/аpple\.com is written https:\/\/xn--pple-43d\.com/);
    // The well-behaved bystander: a plain ASCII host reads as itself.
    assert.equal(externalUrlPrompt('x', ok('https://example.com/')).question, 'x wants to open https://example.com');
    assert.equal(headlineOrigin(ok('https://xn--r8jz45g.jp/')), 'https://xn--r8jz45g.jp');
    assert.doesNotMatch(externalUrlPrompt('x', ok('https://example.com/')).detail, /international/);
  });

  it('H363: a remote server\'s URL (any http(s), remote http included) gets the same origin and ASCII headline as a link', () => {
    const o = shownOrigin(new URL('http://аpple.example:8443/mcp?key=x'));
    assert.deepEqual(o, { origin: 'http://аpple.example:8443', asciiOrigin: 'http://xn--pple-43d.example:8443' });
    assert.equal(headlineOrigin(o), 'http://xn--pple-43d.example:8443');
    // The bystander: an ASCII host with the default port reads as its WHATWG origin, and nothing is added.
    assert.deepEqual(shownOrigin(new URL('https://mcp.example.com/mcp')), { origin: 'https://mcp.example.com', asciiOrigin: undefined });
    assert.equal(headlineOrigin(shownOrigin(new URL('http://127.0.0.1:3000/mcp'))), 'http://127.0.0.1:3000');
  });

  it('OAuth authorization URLs go through the same parser (user info now refused too)', () => {
    assert.equal(checkAuthorizationUrl('srv', 'https://auth.example/authorize?a=1').toString(), 'https://auth.example/authorize?a=1');
    assert.throws(() => checkAuthorizationUrl('srv', 'https://auth.example@evil.example/authorize'), /server `srv` asked to open an authorization URL \(a URL with a user name or password.*refused/);
    assert.throws(() => checkAuthorizationUrl('srv', 'https://auth.example\\@evil.example/'), /backslash.*refused/);
  });
});

describe('H64: an MCP App view is a bounded requester', () => {
  it('RateBudget: bursts up to twice the rate, then the rate', () => {
    let now = 0;
    const b = new RateBudget(10, () => now);
    let passed = 0;
    for (let i = 0; i < 100; i++) if (b.take()) passed++;
    assert.equal(passed, 20);
    now += 500;
    passed = 0;
    for (let i = 0; i < 100; i++) if (b.take()) passed++;
    assert.equal(passed, 5);
    assert.equal(b.take(1000), false, 'more than the bucket holds never passes');
  });

  it('OneAtATime: one dialog at a time, in order; closing denies what waits and the one on screen at once', async () => {
    const q = new OneAtATime();
    let open = 0;
    let most = 0;
    const shown: number[] = [];
    const signals: AbortSignal[] = [];
    const answers: ((v: boolean) => void)[] = [];
    const ask = (i: number) => q.run(signal => {
      open++; most = Math.max(most, open); shown.push(i); signals.push(signal);
      return new Promise<boolean>(resolve => answers.push(v => { open--; resolve(v); }));
    }, false);
    const all = Array.from({ length: 5 }, (_, i) => ask(i));
    await new Promise(r => setImmediate(r));
    assert.deepEqual(shown, [0]);
    answers[0](true);
    assert.equal(await all[0], true);
    await new Promise(r => setImmediate(r));
    assert.deepEqual(shown, [0, 1]);
    assert.equal(q.waiting, 4);
    q.close();
    assert.deepEqual(await Promise.all(all.slice(1)), [false, false, false, false], 'the one on screen and the waiting ones are denied at once');
    assert.equal(signals[1].aborted, true, 'the dialog on screen is told to close');
    await new Promise(r => setImmediate(r));
    assert.deepEqual(shown, [0, 1], 'nothing more is shown after close');
    assert.equal(q.waiting, 0);
    assert.equal(most, 1);
    assert.equal(await ask(9), false, 'after close: denied without asking');
  });

  it('the view transport refuses requests over the pending cap with a JSON-RPC error, drops a flood over the rate with one log line', async () => {
    const posted: { text: string }[] = [];
    const logs: string[] = [];
    const t = new ViewTransport({ postMessage: async m => { posted.push(m as { text: string }); return true; } }, m => logs.push(m), 'the view of tool "x"', () => 0);
    const got: JSONRPCMessage[] = [];
    t.onmessage = m => got.push(m);
    // 2,000 tools/call as fast as possible: the rate lets a burst through, of which 16 wait and the rest are refused.
    for (let i = 0; i < 2000; i++) t.receive(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'x' } }));
    assert.equal(got.length, VIEW_LIMITS.maxPendingViewRequests);
    const errors = posted.map(p => JSON.parse(p.text)).filter(m => m.error);
    assert.equal(errors.length, 2 * VIEW_LIMITS.maxViewMessagesPerSecond - VIEW_LIMITS.maxPendingViewRequests);
    assert.match(errors[0].error.message, /the view of tool "x" sent request "tools\/call": over the limit of 16 pending requests/);
    assert.equal(t.counts.dropped, 2000 - 2 * VIEW_LIMITS.maxViewMessagesPerSecond);
    assert.equal(logs.filter(l => /pending requests/.test(l)).length, 1, logs.join('\n'));
    assert.equal(logs.filter(l => /messages per second/.test(l)).length, 1, logs.join('\n'));
    // An answer frees a slot; a reused pending id is refused.
    await t.send({ jsonrpc: '2.0', id: 0, result: {} } as JSONRPCMessage);
    t.close();
  });

  it('large messages: characters per second are budgeted too', () => {
    const logs: string[] = [];
    const t = new ViewTransport({ postMessage: async () => true }, m => logs.push(m), 'the view', () => 0);
    let got = 0;
    t.onmessage = () => got++;
    const big = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/x', params: { pad: 'x'.repeat(4 * 1024 * 1024 - 100) } });
    for (let i = 0; i < 50; i++) t.receive(big);
    assert.equal(got, Math.floor((2 * VIEW_LIMITS.maxViewCharsPerSecond) / big.length));
    assert.equal(logs.length, 1, logs.join('\n'));
    assert.ok(logs[0].includes(`over the limit of ${VIEW_LIMITS.maxViewCharsPerSecond / 1048576} MiB per second`), logs[0]);
  });
});
