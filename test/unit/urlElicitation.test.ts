import * as assert from 'node:assert/strict';
import { ProtocolError, UrlElicitationRequiredError, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import {
  MAX_FOLLOWED_ELICITATIONS, UrlElicitations, callWithUrlElicitation, consentDetail, elicitationTarget, openLabel, type ElicitationTarget,
} from '../../src/mcp/features/urlElicitation';

function target(raw: unknown): ElicitationTarget {
  const t = elicitationTarget('srv', raw);
  if (t instanceof Error) assert.fail(t.message);
  return t;
}

describe('URL-mode elicitation: the target shown before consent', () => {
  it('shows the origin of http(s) URLs, the full URL beside it', () => {
    assert.deepEqual(target('https://auth.example.com/connect?state=abc#x'), { url: 'https://auth.example.com/connect?state=abc#x', origin: 'https://auth.example.com', asciiOrigin: undefined });
    assert.deepEqual(target('http://127.0.0.1:8080/p'), { url: 'http://127.0.0.1:8080/p', origin: 'http://127.0.0.1:8080', asciiOrigin: undefined });
    assert.equal(target('https://example.com:443/').origin, 'https://example.com', 'a default port is not shown');
    assert.equal(target('http://[::1]:3000/').origin, 'http://[::1]:3000');
  });

  it('decodes a punycode domain for display and keeps the ASCII form beside it (look-alike domains show as what they are)', () => {
    const t = target('https://xn--pple-43d.com/login');
    assert.equal(t.origin, 'https://аpple.com', 'the Cyrillic а is shown decoded');
    assert.equal(t.asciiOrigin, 'https://xn--pple-43d.com');
    assert.equal(target('https://例え.jp/x').origin, 'https://例え.jp');
    assert.equal(target('https://例え.jp/x').asciiOrigin, 'https://xn--r8jz45g.jp');
    assert.equal(openLabel(t), 'Open https://аpple.com');
    const detail = consentDetail('Sign in please', t);
    assert.match(detail, /^Sign in please\n\nFull address: https:\/\/xn--pple-43d\.com\/login\n/);
    assert.match(detail, /international characters: https:\/\/аpple\.com is written https:\/\/xn--pple-43d\.com, which is what opens/);
    assert.doesNotMatch(consentDetail('m', target('https://example.com/')), /international/);
  });

  it('refuses anything but https (and loopback http), URLs with credentials, and non-URLs, naming the server', () => {
    for (const [raw, why] of [
      ['javascript:alert(1)', /`javascript:` URL; only https: URLs \(and http: on this machine\)/],
      ['http://evil.example/login', /http: URL of another machine/],
      ['file:///etc/passwd', /`file:` URL/],
      ['data:text/html,<b>x</b>', /`data:` URL/],
      ['vscode://settings', /`vscode:` URL/],
      ['command:workbench.action.quit', /`command:` URL/],
      ['https://user:pw@example.com/', /user name or password/],
      ['not-a-url', /not a URL/],
      ['not a url', /white space/],
      [42, /not a URL/],
    ] as const) {
      const t = elicitationTarget('srv', raw);
      assert.ok(t instanceof Error && why.test(t.message) && t.message.startsWith('server `srv`'), `${String(raw)}: ${String(t instanceof Error ? t.message : 'accepted')}`);
    }
  });
});

describe('URL-mode elicitation: completion notifications', () => {
  it('a completion settles its follower; others, other servers and unknown ids are untouched', async () => {
    const u = new UrlElicitations();
    const a = u.follow('s1', 'a');
    const b = u.follow('s1', 'b');
    const other = u.follow('s2', 'a');
    assert.equal(u.complete('s1', 'zzz'), false, 'an unknown id is ignored');
    assert.equal(u.complete('s1', 'a'), true);
    assert.equal(await a.done, 'complete');
    assert.equal(u.size('s1'), 1);
    assert.equal(u.size('s2'), 1, 'the same id on another server is another elicitation');
    b.stop();
    assert.equal(await b.done, 'cancelled');
    u.forget('s2');
    assert.equal(await other.done, 'cancelled');
    assert.equal(u.complete('s1', 'a'), false, 'a second completion of the same id finds nobody');
  });

  it('an abort cancels; the number followed per server is bounded (the oldest is dropped)', async () => {
    const u = new UrlElicitations();
    const ac = new AbortController();
    const f = u.follow('s', 'x', ac.signal);
    ac.abort();
    assert.equal(await f.done, 'cancelled');
    const all = Array.from({ length: MAX_FOLLOWED_ELICITATIONS + 1 }, (_, i) => u.follow('s', `e${i}`));
    assert.equal(await all[0].done, 'cancelled');
    assert.equal(u.size('s'), MAX_FOLLOWED_ELICITATIONS);
    const pre = new AbortController();
    pre.abort();
    assert.equal(await u.follow('s', 'late', pre.signal).done, 'cancelled');
  });
});

describe('URL-mode elicitation: URLElicitationRequiredError (-32042)', () => {
  const needed: ElicitRequestURLParams = { mode: 'url', url: 'https://auth.example.com/c', message: 'Connect', elicitationId: 'e1' };

  it('offers each elicitation, then retries the request once when all completed', async () => {
    let calls = 0;
    const offered: string[] = [];
    const out = await callWithUrlElicitation(async () => {
      if (++calls === 1) throw new UrlElicitationRequiredError([needed, { ...needed, elicitationId: 'e2' }], 'needs a browser');
      return 'done';
    }, async e => { offered.push(e.elicitationId); return 'complete'; });
    assert.equal(out, 'done');
    assert.equal(calls, 2);
    assert.deepEqual(offered, ['e1', 'e2']);
  });

  it('decline, cancel or stopping the wait: no retry, the original error says what the user did', async () => {
    for (const [outcome, text] of [['decline', /declined opening the link/], ['cancel', /cancelled opening the link/], ['stopped', /stopped waiting/]] as const) {
      let calls = 0;
      await assert.rejects(callWithUrlElicitation(async () => { calls++; throw new UrlElicitationRequiredError([needed], 'needs a browser'); }, async () => outcome),
        (e: unknown) => e instanceof UrlElicitationRequiredError && /^needs a browser/.test(e.message) && text.test(e.message));
      assert.equal(calls, 1, outcome);
    }
  });

  it('finds the error in the cause chain of a wrapping error, and throws the wrapper', async () => {
    let calls = 0;
    const wrapped = () => Object.assign(new Error('tools/call failed', { cause: new UrlElicitationRequiredError([needed], 'needs a browser') }));
    assert.equal(await callWithUrlElicitation(async () => { if (++calls === 1) throw wrapped(); return 'ok'; }, async () => 'complete'), 'ok');
    await assert.rejects(callWithUrlElicitation(async () => { throw wrapped(); }, async () => 'decline'), (e: unknown) => e instanceof Error && /^tools\/call failed \(the user declined/.test(e.message));
  });

  it('other errors, and -32042 without a flow, pass through untouched', async () => {
    const other = new ProtocolError(-32603, 'boom');
    await assert.rejects(callWithUrlElicitation(async () => { throw other; }, async () => 'complete'), (e: unknown) => e === other);
    const required = new UrlElicitationRequiredError([needed]);
    await assert.rejects(callWithUrlElicitation(async () => { throw required; }, undefined), (e: unknown) => e === required);
  });
});
