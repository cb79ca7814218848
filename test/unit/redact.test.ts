/** The one redaction path (src/mcp/logging/redact.ts) and what variable resolution records for it. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redactor, cutBytes, environmentSecrets, redactorFor } from '../../src/mcp/logging/redact';
import { parseInputs, parseServers, resolveServer } from '../../src/mcp/config';
import { describeValue } from '../../src/mcp/config/paths';
import { shellQuote } from '../../src/mcp/config/commandLine';
import type { ServerDefinition, StdioServerDefinition } from '../../src/mcp/types';
import { prepareStdio } from '../../src/mcp/launch/stdio';
import { DEFAULT_LIMITS } from '../../src/mcp/limits';

const SECRET = 'sk-"live"\\Zq8mW3 rT9/vXy';

describe('Redactor', () => {
  it('hides a value raw, JSON-escaped (once and twice) and percent-encoded', () => {
    const r = new Redactor([SECRET]);
    const json = JSON.stringify({ a: SECRET });
    const twice = JSON.stringify({ log: json });
    for (const text of [SECRET, json, twice, encodeURIComponent(SECRET), new URLSearchParams({ q: SECRET }).toString(), `x=${encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, m => m.toLowerCase())}`]) {
      const out = r.text(`before ${text} after`);
      assert.ok(!out.includes('Zq8mW3'), `${text} → ${out}`);
      assert.match(out, /^before .*\*\*\*.* after$/);
    }
  });

  it('H505: hides a value inside a shell-quoted word (a \' written \'\\\'\'), as the consent, install and import dialogs show command lines; a plain word beside it stays', () => {
    const secret = "pa'ss word 4455";
    const line = ['node', 'server.js', secret, 'plain'].map(shellQuote).join(' ');
    assert.equal(line, "node server.js 'pa'\\''ss word 4455' plain");
    assert.equal(new Redactor([secret]).text(line), "node server.js '***' plain");
  });

  it('hides Bearer/Basic credentials and values under secret keys of structured data', () => {
    assert.equal(Redactor.none.text('Authorization: Bearer abc.def-ghi'), 'Authorization: Bearer ***');
    assert.equal(Redactor.none.text('Authorization: Basic dXNlcjpwYXNz'), 'Authorization: Basic ***');
    assert.equal(Redactor.none.text('Authorization: Bearer abcdefghijklmnopqrstuvwxyz'), 'Authorization: Bearer ***');
    // Prose is not a credential: a server named "Basic MCP App Server" keeps its name.
    assert.equal(Redactor.none.text('Basic MCP App Server; a Bearer token; Basic authentication'), 'Basic MCP App Server; a Bearer token; Basic authentication');
    // H191 (issue 37): a hyphenated prose word after "basic"/"bearer" is not a credential; a real one beside it still is.
    for (const prose of ['use the basic built-in router', 'Bearer-like words', 'a basic well-known form', 'bearer short-lived tokens']) assert.equal(Redactor.none.text(prose), prose);
    assert.equal(Redactor.none.text('use the basic built-in router; Authorization: Bearer abc.def-ghi'), 'use the basic built-in router; Authorization: Bearer ***');
    assert.equal(Redactor.none.text('Authorization: Bearer eyJhbGciOiJIUzI1NiJ9-x'), 'Authorization: Bearer ***');
    const v = Redactor.none.value({ headers: { Authorization: 'x' }, api_key: 'k', nested: { token: 't' }, ok: 1 });
    assert.equal(v, '{"headers":{"Authorization":"***"},"api_key":"***","nested":{"token":"***"},"ok":1}');
  });

  it('never hides values shorter than four characters', () => {
    assert.equal(new Redactor(['abc', '']).text('abc abc'), 'abc abc');
  });

  it('redacts before it cuts: a secret straddling the cut leaves no part of itself', () => {
    const secret = 'TOPSECRET-0123456789';
    const r = new Redactor([secret]);
    for (let at = 90; at < 110; at++) {
      const text = 'a'.repeat(at) + secret + 'b'.repeat(200);
      const { text: out, cut } = r.cap(text, 100);
      assert.ok(cut);
      assert.ok(!/TOP|0123/.test(out), out);
      assert.match(out, /… \(\d+ more bytes\)$/);
    }
  });

  it('cuts a huge text near the cap without redacting all of it, and still hides a secret at the window edge', () => {
    const secret = 'WINDOW-SECRET-XYZ';
    const r = new Redactor([secret]);
    const max = 1000;
    const text = 'x'.repeat(max - 5) + secret + 'y'.repeat(10 * max);
    const { text: out, cut } = r.cap(text, max);
    assert.ok(cut);
    assert.ok(!out.includes('WIND'), out.slice(-60));
    assert.match(out, new RegExp(`\\(${text.length - Buffer.byteLength(out.replace(/… \(\d+ more bytes\)$/, ''))} more bytes\\)$`));
  });

  it('cuts at a UTF-8 character boundary and counts bytes', () => {
    const s = 'é'.repeat(100);
    const head = cutBytes(s, 51);
    assert.equal(Buffer.byteLength(head), 50);
    assert.equal(Redactor.none.cap(s, 51).text, `${head}… (150 more bytes)`);
    assert.deepEqual(Redactor.none.cap('short', 51), { text: 'short', cut: false });
  });

  it('a line cut by someone else (with a "(N more bytes)" marker) hides the beginning of a secret at the cut', () => {
    const r = new Redactor(['ABCDEFGHIJKLMNOP']);
    assert.equal(r.line('token=ABCDEFG… (999 more bytes)'), 'token=***… (999 more bytes)');
    assert.equal(r.line('token=ABCDEFG and more'), 'token=ABCDEFG and more');
  });

  it('H70: a 1 MB secret (and a periodic one): text, line, fragment and cap never throw, stay linear and show no part of it', () => {
    let huge = '';
    for (let i = 0; huge.length < 1024 * 1024; i++) huge += `Huge${i.toString(36)}-`;
    const periodic = 'Q'.repeat(1024 * 1024);
    const r = new Redactor([huge, periodic, 'bystander-secret']);
    const text = `a ${huge} b ${JSON.stringify(huge)} c bystander-secret d ${'Q'.repeat(3 * 1024 * 1024 + 7)} e`;
    const out = r.text(text);
    assert.equal(out, 'a *** b "***" c *** d *** e');
    // Cut by someone else mid-secret: the beginning at the cut is hidden (KMP over the kept end, not a loop per length).
    assert.equal(r.line(`x ${huge.slice(0, 500_000)}… (99 more bytes)`), 'x ***… (99 more bytes)');
    assert.equal(r.fragment(`y ${periodic.slice(0, 700_000)}`), 'y ***');
    const capped = r.cap(`${'z'.repeat(1000)}${huge}${huge}`, 64 * 1024);
    assert.ok(capped.cut && !capped.text.includes('Huge1'), capped.text.slice(0, 1100));
    // A redactor merged from it (the CLI's) too.
    assert.equal(Redactor.merge([r, new Redactor(['other-secret'])]).text(`${huge} other-secret`), '*** ***');
  });

  it('H70: overlapping occurrences of secrets are hidden as one, with nothing of either left', () => {
    const r = new Redactor(['abcabcX', 'cabcY1', 'ZZZZ']);
    assert.equal(r.text('-abcabcabcX-'), '-abc***-');
    assert.equal(r.text('-abcabcX1-'), '-***1-');
    assert.equal(r.text('-abcabcabcY1-'), '-abcab***-');
    assert.equal(r.text('-ZZZZZZZZZZ- ZZZ'), '-***- ZZZ');
    assert.equal(r.text('abcabcXabcabcX abcabcX'), '*** ***');
  });

  it('shows URLs with credentials and query values hidden, parameter names kept', () => {
    assert.equal(Redactor.none.url('https://u:p@api.example.com/mcp?key=abc123&x=1#frag'), 'https://***@api.example.com/mcp?key=***&x=***#…');
    assert.equal(Redactor.none.url('not a url?key=abc'), 'not a url?***');
    assert.equal(describeValue('url', 'https://h/p?key=abc123'), '`"https://h/p?key=***"`');
  });

  it('rewrites the messages of an error and its causes', () => {
    const r = new Redactor(['hunter2-secret']);
    const inner = new Error('server said: hunter2-secret');
    const outer = new Error('failed (hunter2-secret)', { cause: inner });
    assert.equal(r.error(outer), outer);
    assert.ok(!outer.message.includes('hunter2') && !inner.message.includes('hunter2') && !String(outer.stack).includes('hunter2'));
  });

  it('a definition built by hand still hides its header values, URL query values and secret-named env values', () => {
    const http: ServerDefinition = { name: 'h', type: 'http', url: 'https://h/mcp?key=query-secret-1', headers: { Authorization: 'Bearer header-secret-1', Accept: 'application/json' } };
    const r = redactorFor(http);
    assert.equal(r.text('query-secret-1 header-secret-1 application/json'), '*** *** application/json');
    const stdio: ServerDefinition = { name: 's', type: 'stdio', command: 'x', args: [], env: { API_TOKEN: 'env-secret-1', PORT: '300000' } };
    assert.equal(redactorFor(stdio).text('env-secret-1 300000'), '*** 300000');
  });

  it('environmentSecrets takes secret-named values that the configuration added, not the user environment', () => {
    assert.deepEqual(environmentSecrets({ API_TOKEN: 'from-file', HOME_TOKEN: 'same', PATH: '/bin' }, { HOME_TOKEN: 'same' }), ['from-file']);
  });
});

describe('variable resolution records every secret-bearing value', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-redact-')); });
  afterEach(() => { fs.rmSync(dir, { recursive: true, force: true }); });

  async function resolve(settings: Record<string, unknown>, env: Record<string, string> = {}): Promise<ServerDefinition> {
    const parsed = parseServers(settings);
    assert.deepEqual(parsed.errors, []);
    const inputs = parseInputs([{ id: 'pw', type: 'promptString', password: true }]);
    const r = await resolveServer(parsed.servers[0], {
      workspaceFolders: [{ name: 'w', path: dir }], userHome: '/home/someone', env, inputs: inputs.inputs, resolveInput: async () => 'input-secret-1',
    });
    assert.ok(r.definition, JSON.stringify(r.error));
    return r.definition;
  }

  it('stdio: ${input:}, ${env:} in args (not short plain values, not the home folder)', async () => {
    const def = await resolve({
      s: { command: 'node', args: ['--pw=${input:pw}', '--gh=${env:GH}', '${env:HOME}/x', '--v=${env:VERBOSE}', '--k=${env:MY_KEY}'] },
    }, { GH: 'env-arg-secret-1', HOME: '/home/someone', VERBOSE: 'true', MY_KEY: 'k3y9' });
    assert.deepEqual(new Set(def.secrets), new Set(['input-secret-1', 'env-arg-secret-1', 'k3y9']));
  });

  it('envFile: its secret-named values (not others) are the definition\'s secrets when resolving (doctor and inspect hide them), and the launch\'s', async () => {
    const envFile = path.join(dir, '.env');
    fs.writeFileSync(envFile, 'API_TOKEN=envfile-secret-1\nPLAIN=not-a-secret-value\n');
    const def = await resolve({ s: { command: process.execPath, args: ['--gh=${env:GH}'], envFile } }, { GH: 'env-arg-secret-1' });
    assert.deepEqual([...def.secrets ?? []].sort(), ['env-arg-secret-1', 'envfile-secret-1']);
    const launch = await prepareStdio(def as StdioServerDefinition, { name: 's', baseEnv: {}, limits: DEFAULT_LIMITS, warn: () => undefined, aborted: () => false }, {
      stderr: () => undefined, spawn: () => undefined, exit: () => undefined, stdoutEnd: () => undefined, stderrEnd: () => undefined, dropped: () => undefined,
    });
    assert.deepEqual([...launch.secrets], ['envfile-secret-1']);
    assert.equal(redactorFor(def).text('token envfile-secret-1, plain not-a-secret-value'), 'token ***, plain not-a-secret-value');
  });

  it('http: header values, URL query values, ${env:} in the URL', async () => {
    const def = await resolve({
      h: { url: 'https://api.example.com/mcp?key=${env:K}&plain=query-value-2', headers: { 'X-Api-Key': '${input:pw}', Authorization: 'Bearer literal-token-1', 'Content-Type': 'application/json' } },
    }, { K: 'url-env-secret-1' });
    const secrets = new Set(def.secrets);
    for (const v of ['url-env-secret-1', 'query-value-2', 'input-secret-1', 'Bearer literal-token-1', 'literal-token-1']) assert.ok(secrets.has(v), `${v} in ${[...secrets].join(', ')}`);
    assert.ok(!secrets.has('application/json'));
  });
});
