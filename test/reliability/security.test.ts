/**
 * Reliability: security cases that the core decides (the editor-only ones — Restricted Mode, launch
 * consent, the sampling dialog, secrets in output channels and settings files — are editor tests,
 * listed in the README's Reliability table). Secrets from `${input:}` never reach a log line, trace or
 * error state; roots are only file:// URIs of open folders; resource links are never followed on
 * their own; a server's headers (tokens) only ever go to its own origin.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseInputs, parseServers, resolveServer } from '../../src/mcp/config';
import { renderToolResult } from '../../src/extension/commands/render';
import type { ServerDefinition, ServerState } from '../../src/mcp/types';
import { startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';
import { BYSTANDER, MARK, MARK_NAME, fixture, http as httpDef, marked, startHost, textOf, tmpDir, tmpDirPerTest, until, type TestHost } from './helpers';
import { ROOT } from '../support/connection';

/** A plain HTTP server on 127.0.0.1 that records every request's headers and answers with `handler`. */
async function recorder(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_q, r) => { r.writeHead(404); r.end(); }) {
  const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    handler(req, res);
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()); }) };
}

describe('Reliability: security', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const cleanups: Array<() => Promise<unknown>> = [];
  const scratch = tmpDirPerTest('mcp-reliability-sec-', async () => {
    await t?.close();
    t = undefined;
    for (const c of cleanups.splice(0)) await c();
  });

  it('a secret given through ${input:} (in args and an innocently named env variable) appears in no log line, trace, stderr tail or error state', async () => {
    const SECRET = 'sk-live-Zq8mW3rT9vXy';
    const settings = {
      careless: { command: process.execPath, args: [fixture('hostile'), '--leak', 'GREETING', '--api-key=${input:api-key}'], env: { GREETING: '${input:api-key}', [MARK_NAME]: MARK } },
      crashing: { command: process.execPath, args: [fixture('crash-at-start'), '--message', 'fatal: key ${input:api-key} was rejected'], env: { [MARK_NAME]: MARK } },
    };
    const inputs = parseInputs([{ id: 'api-key', type: 'promptString', password: true }]);
    const parsed = parseServers(settings);
    assert.deepEqual(parsed.errors, []);
    const defs: ServerDefinition[] = [];
    for (const raw of parsed.servers) {
      const r = await resolveServer(raw, { workspaceFolders: [], userHome: scratch.dir, env: {}, platform: process.platform, inputs: inputs.inputs, resolveInput: async () => SECRET });
      assert.ok(r.definition, JSON.stringify(r.error));
      defs.push(r.definition);
    }
    const states: ServerState[] = [];
    t = await startHost([]);
    t.host.onDidChangeState(e => states.push(e.state));
    for (const d of defs) t.host.get(d.name)?.setTrace(true);
    await t.host.reconcile([marked(BYSTANDER, 'echo'), ...defs]);
    const careless = t.get('careless');
    careless.setTrace(true);
    await careless.restart();
    // The server really has the secret, and says so everywhere it can.
    const r = await careless.callTool('leak', {});
    assert.ok(textOf(r).includes(SECRET), 'the server got the secret');
    await careless.setLogLevel('debug');
    await until(() => t!.logs.some(l => l.server === 'careless' && l.source === 'server' && l.logger === 'cfg'), 'the object log message', 10_000);
    assert.equal(t.get('crashing').state.kind, 'error');

    const everything = [
      ...t.logs.map(l => `${l.server} ${l.source} ${l.logger ?? ''} ${l.message}`),
      ...states.map(s => JSON.stringify(s)),
      ...t.host.servers.map(s => JSON.stringify(s.state) + s.stderrTail.join('\n')),
    ].join('\n');
    assert.ok(t.logs.some(l => l.source === 'trace' && l.server === 'careless' && l.message.includes('leak')), 'the trace was on');
    assert.ok(t.logs.some(l => l.source === 'stderr' && l.message.includes('--api-key=***')), 'stderr lines are kept, redacted');
    assert.ok(everything.includes('was rejected'), 'the crash message is kept');
    assert.equal(everything.includes(SECRET), false, `the secret leaked:\n${everything.split('\n').filter(l => l.includes(SECRET)).join('\n')}`);
  });

  it('roots are only file:// URIs of open folders: other schemes, traversal and relative paths are dropped with a warning, and a server limited to one folder sees only it', async () => {
    const a = tmpDir('mcp-root-a-');
    const b = tmpDir('mcp-root-b-');
    cleanups.push(async () => { fs.rmSync(a, { recursive: true, force: true }); fs.rmSync(b, { recursive: true, force: true }); });
    t = await startHost([marked('all', 'hostile'), marked('only-a', 'hostile', [], { roots: [path.basename(a)] })]);
    const good = [{ uri: pathToFileURL(a).href, name: path.basename(a) }, { uri: pathToFileURL(b).href, name: path.basename(b) }];
    const bad = ['https://example.com/repo', 'vscode-remote://ssh-remote+host/home/me', 'untitled:Untitled-1', `${pathToFileURL(a).href}/../../etc`,
      'file:///home/me/%2e%2e/etc', 'relative/folder', ''];
    t.host.setRoots([...good.slice(0, 1), ...bad.map(uri => ({ uri })), ...good.slice(1)]);
    const seen = async (n: string) => (JSON.parse(textOf(await t!.get(n).callTool('roots_seen', {}))) as { last: Array<{ uri: string }> | null }).last;
    await until(async () => JSON.stringify(await seen('all')) === JSON.stringify(good), 'all sees the two folders', 10_000);
    await until(async () => JSON.stringify(await seen('only-a')) === JSON.stringify(good.slice(0, 1)), 'only-a sees its folder', 10_000);
    for (const uri of bad) assert.ok(t.logs.some(l => l.level === 'warning' && l.message.startsWith(`ignored root \`${uri}\``)), `warned about ${uri}`);
    for (const roots of [await seen('all'), await seen('only-a')]) for (const r of roots ?? []) assert.match(r.uri, /^file:\/\//);
    await t.assertBystanderUndisturbed();
  });

  it('resource links in a tool result are not followed: no resources/read, nothing opened; they are shown as text for the user to choose', async () => {
    const record = path.join(scratch.dir, 'record');
    t = await startHost([marked('linker', 'hostile', ['--record', record])]);
    const result = await t.get('linker').callTool('links', {});
    await new Promise(r => setTimeout(r, 300));
    const received = fs.readFileSync(record, 'utf8').split('\n').filter(Boolean);
    assert.deepEqual(received.filter(m => !['server/discover', 'initialize', 'notifications/initialized', 'tools/list', 'logging/setLevel'].includes(m)), ['tools/call'], 'the host asked for nothing after the call');
    const md = renderToolResult('linker', 'links', {}, result).markdown;
    assert.match(md, /Resource link: \[passwd\]\(file:\/\/\/etc\/passwd\)/);
    assert.match(md, /Resource link: \[run\]\(command:workbench\.action\.terminal\.new\)/);
    // The one place the extension opens a URI outside the editor, after asking: the confirm-and-open path
    // (src/extension/ui/externalUrl.ts), which the OAuth sign-in, URL-mode elicitation and an MCP App view's ui/open-link
    // all go through (https:, loopback http: only, parsed once: src/mcp/features/externalUrl.ts).
    const sources = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' }).filter(f => f.endsWith('.ts'));
    const openers = sources.filter(f => /openExternal\(/.test(fs.readFileSync(path.join(ROOT, 'src', f), 'utf8')));
    assert.deepEqual(openers.sort(), [path.join('extension', 'ui', 'externalUrl.ts')]);
  });

  it('HTTP headers (tokens, API keys, cookies) only go to the server\'s own origin: a redirect to another origin is not followed, and the error says so', async () => {
    const other = await recorder((_q, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{}'); });
    cleanups.push(other.close);
    const redirector = await recorder((_q, res) => { res.writeHead(307, { location: `${other.base}/mcp` }); res.end(); });
    cleanups.push(redirector.close);
    for (const type of ['http', 'sse'] as const) {
      t = await startHost([httpDef('redirected', `${redirector.base}/mcp`, type, {
        headers: { Authorization: 'Bearer tok-AAAA-1111', 'X-Api-Key': 'key-BBBB-2222', Cookie: 'session=cookie-CCCC' },
      })]);
      const s = t.get('redirected').state;
      assert.ok(s.kind === 'error' && s.message.includes('server `redirected`') && /Redirect to http:\/\/127\.0\.0\.1:\d+\/mcp not followed/.test(s.message), JSON.stringify(s));
      assert.ok(redirector.seen.length >= 1 && redirector.seen.every(x => x.headers['x-api-key'] === 'key-BBBB-2222'), 'its own origin gets the headers');
      assert.deepEqual(other.seen, [], `${type}: a request reached another origin`);
      await t.assertBystanderUndisturbed();
      await t.close();
      t = undefined;
    }
  });

  it('two HTTP servers with their own tokens: each token reaches only its own server', async () => {
    const fixtures: HttpFixture[] = [await startHttpFixture(['--token', 'token-for-one']), await startHttpFixture(['--token', 'token-for-two'])];
    cleanups.push(async () => { for (const f of fixtures) await f.stop(); });
    const rec = await recorder();
    cleanups.push(rec.close);
    t = await startHost([
      httpDef('one', fixtures[0].url, 'http', { headers: { Authorization: 'Bearer token-for-one' } }),
      httpDef('two', fixtures[1].url, 'http', { headers: { Authorization: 'Bearer token-for-two' } }),
      httpDef('stranger', `${rec.base}/mcp`, 'http'),
    ]);
    assert.equal(textOf(await t.get('one').callTool('echo', { text: '1' })), '1');
    assert.equal(textOf(await t.get('two').callTool('echo', { text: '2' })), '2');
    const [s1, s2] = await Promise.all(fixtures.map(f => f.stats()));
    assert.equal(s1.unauthorized, 0);
    assert.equal(s2.unauthorized, 0);
    assert.equal(s1.lastAuthorization, 'Bearer token-for-one');
    assert.equal(s2.lastAuthorization, 'Bearer token-for-two');
    assert.ok(rec.seen.length >= 1 && rec.seen.every(s => s.headers.authorization === undefined), 'the stranger got no token');
    await t.assertBystanderUndisturbed();
  });
});
