/**
 * Reliability, the OS sandbox (issue 24; H90–H94): a hostile server (sandbox-probe.mjs) marked `sandboxEnabled`
 * tries to read secrets in a fake HOME, write outside its roots, reach a loopback port and do the same from a
 * child; the OS (bubblewrap, through the sandbox runtime) refuses all of it, lets the writes inside its roots
 * and temporary folder through, and each refused write or connection reaches the server's log. The same fixture
 * without `sandboxEnabled` runs unrestricted; changing the roots moves the boundary (restart, logged); a machine
 * that cannot sandbox fails the server with the reason instead of running it unsandboxed. Each case runs next to
 * the bystander and ends with the process-table check (the sandboxed launch's whole tree ends with it).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resetSandbox } from '../../src/mcp/launch/sandboxLaunch';
import type { SandboxDenial } from '../../src/mcp/launch/sandboxPolicy';
import { skipWithoutSandbox } from '../support/sandbox';
import type { StdioServerDefinition } from '../../src/mcp/types';
import { marked, startHost, textOf, tmpDir, until, waitForState, type TestHost } from './helpers';

interface Outcome { ok: boolean; value?: unknown; code?: string; direct?: Outcome; viaProxy?: Outcome }

const SECRET = 'PRIVATE KEY 7d1c';

describe('sandboxed servers (issue 24)', function () {
  this.timeout(60_000);
  let t: TestHost | undefined;
  let base: string;
  let home: string;
  let rootA: string;
  let rootB: string;
  let outside: string;
  let listener: net.Server;
  let port: number;
  let accepted = 0;

  before(async function () {
    await skipWithoutSandbox(this);
    base = tmpDir('mcp-sandbox-');
    home = path.join(base, 'home');
    rootA = path.join(base, 'rootA');
    rootB = path.join(base, 'rootB');
    outside = path.join(base, 'outside');
    for (const d of [home, path.join(home, '.ssh'), path.join(home, '.aws'), path.join(home, 'project'), rootA, rootB, outside]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(home, '.ssh', 'id_ed25519'), SECRET);
    fs.writeFileSync(path.join(home, '.aws', 'credentials'), SECRET);
    fs.writeFileSync(path.join(home, 'project', '.env'), `TOKEN=${SECRET}`);
    fs.writeFileSync(path.join(rootA, '.env'), 'INSIDE=readable');
    listener = net.createServer(s => { accepted++; s.destroy(); });
    await new Promise<void>(r => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as net.AddressInfo).port;
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && t) console.log(t.logs.map(l => `      ${l.server} ${l.level} ${l.source}: ${l.message.slice(0, 300)}`).join('\n'));
    await t?.close();
    t = undefined;
  });
  after(async () => {
    listener?.close();
    await resetSandbox();
    if (base) fs.rmSync(base, { recursive: true, force: true });
  });

  const probe = (name: string, extra: Partial<StdioServerDefinition> = {}) =>
    marked(name, 'sandbox-probe', [], { autoStart: false, cwd: rootA, ...extra });
  const call = async (name: string, tool: string, args: Record<string, unknown>): Promise<Outcome> =>
    JSON.parse(textOf(await t!.get(name).callTool(tool, args))) as Outcome;
  const rootsOf = (...dirs: string[]) => dirs.map(d => ({ uri: pathToFileURL(d).href, name: path.basename(d) }));

  async function startWithRoots(defs: StdioServerDefinition[], roots: string[]): Promise<void> {
    t = await startHost(defs, { sandbox: { home } });
    t.host.setRoots(rootsOf(...roots));
    for (const d of defs) await t.get(d.name).start();
  }

  it('H90 H91 H92 H93: outside the boundary everything fails, inside works, each refused write and connection is logged, a child is held the same', async () => {
    await startWithRoots([probe('probe', { sandboxEnabled: true })], [rootA]);
    const denials: SandboxDenial[] = [];
    t!.host.onDidDenyInSandbox(e => { if (e.server === 'probe') denials.push(e.denial); });
    assert.equal(t!.get('probe').sandboxed, true);

    // Secrets: unreadable (the file is hidden), in the server and in its child.
    for (const secret of [path.join(home, '.ssh', 'id_ed25519'), path.join(home, '.aws', 'credentials'), path.join(home, 'project', '.env')]) {
      const r = await call('probe', 'read', { path: secret });
      assert.ok(!r.ok || !String(r.value).includes(SECRET), `${secret} must not be readable: ${JSON.stringify(r)}`);
      const c = await call('probe', 'child', { op: 'read', args: { path: secret } });
      assert.ok(!c.ok || !String(c.value).includes(SECRET), `${secret} must not be readable from a child: ${JSON.stringify(c)}`);
    }
    // A .env inside the roots is the project's own: readable.
    assert.deepEqual(await call('probe', 'read', { path: path.join(rootA, '.env') }), { ok: true, value: 'INSIDE=readable' });

    // Writes: inside the root and the launch's temporary folder work; outside fails, for the child too.
    assert.deepEqual(await call('probe', 'write', { path: path.join(rootA, 'inside.txt'), text: 'in' }), { ok: true });
    assert.equal(fs.readFileSync(path.join(rootA, 'inside.txt'), 'utf8'), 'in');
    const tmp = (await call('probe', 'env', { name: 'TMPDIR' })).value as string;
    assert.match(tmp, /mcp-host-sandbox-probe-/);
    assert.deepEqual(await call('probe', 'write', { path: path.join(tmp, 'scratch') }), { ok: true });
    const out = path.join(outside, 'escape.txt');
    const w = await call('probe', 'write', { path: out });
    assert.equal(w.ok, false, JSON.stringify(w));
    const cw = await call('probe', 'child', { op: 'write', args: { path: path.join(outside, 'child-escape.txt') } });
    assert.equal(cw.ok, false, JSON.stringify(cw));
    assert.equal(fs.existsSync(out) || fs.existsSync(path.join(outside, 'child-escape.txt')), false, 'nothing was written outside the roots');

    // Network: the host's loopback port is unreachable, directly and through the proxy; from a child too.
    const before = accepted;
    const n = await call('probe', 'connect', { port });
    assert.equal(n.ok, false, JSON.stringify(n));
    assert.equal(n.viaProxy?.ok, false, 'the proxy refuses a port that is not allowed');
    const cn = await call('probe', 'child', { op: 'connect', args: { port } });
    assert.equal(cn.ok, false, JSON.stringify(cn));
    assert.equal(accepted, before, 'no connection reached the loopback listener');

    // Each refused write and connection is in the server's log (source `sandbox`) and on the event.
    await until(() => denials.some(d => d.kind === 'write' && d.target === out) && denials.some(d => d.kind === 'network' && d.target.endsWith(`:${port}`)), 'the denials to be reported', 10_000);
    const sandboxLog = t!.logs.filter(l => l.server === 'probe' && l.source === 'sandbox').map(l => l.message);
    assert.ok(sandboxLog.some(m => m.startsWith('sandboxed: writes only in') && m.includes(rootA)), sandboxLog.join('\n'));
    // Refused reads are not reported one by one on Linux (bubblewrap hides the path; nothing monitors it): the launch
    // line says which secret paths are denied and how they look to the server.
    assert.ok(sandboxLog.some(m => m.startsWith('sandboxed: writes only in') && /reading denied for \d+ secret paths \(.*\.ssh.*they read as empty or missing/.test(m)), sandboxLog.join('\n'));
    assert.ok(sandboxLog.some(m => m.includes(`denied: write to ${out}`)), sandboxLog.join('\n'));
    assert.ok(sandboxLog.some(m => m.includes(`denied: connection to 127.0.0.1:${port}`)), sandboxLog.join('\n'));
    assert.ok(!denials.some(d => d.kind === 'write' && d.target.startsWith(rootA)), `a write inside the root is no denial: ${JSON.stringify(denials)}`);
    await t!.assertBystanderUndisturbed();
  });

  it('H90: without sandboxEnabled the same probe runs unrestricted (the sandbox is per server)', async () => {
    await startWithRoots([probe('plain')], [rootA]);
    assert.equal(t!.get('plain').sandboxed, false);
    const r = await call('plain', 'read', { path: path.join(home, '.ssh', 'id_ed25519') });
    assert.deepEqual(r, { ok: true, value: SECRET });
    const out = path.join(outside, 'plain.txt');
    assert.deepEqual(await call('plain', 'write', { path: out }), { ok: true });
    assert.ok(fs.existsSync(out));
    const before = accepted;
    const n = await call('plain', 'connect', { port });
    assert.equal(n.direct?.ok, true, JSON.stringify(n));
    await until(() => accepted > before, 'the listener to accept', 5000);
    assert.equal(t!.logs.filter(l => l.server === 'plain' && l.source === 'sandbox').length, 0);
    await t!.assertBystanderUndisturbed();
  });

  it('H91: when the roots change the server restarts inside the new boundary, and says so in its log', async () => {
    await startWithRoots([probe('moving', { sandboxEnabled: true, cwd: base })], [rootA]);
    const first = t!.get('moving').pid;
    assert.deepEqual(await call('moving', 'write', { path: path.join(rootA, 'a1.txt') }), { ok: true });
    assert.equal((await call('moving', 'write', { path: path.join(rootB, 'b1.txt') })).ok, false);
    t!.host.setRoots(rootsOf(rootB));
    await until(() => t!.logs.some(l => l.server === 'moving' && l.source === 'sandbox' && l.message.startsWith('roots changed: restarting')), 'the restart to be logged', 10_000);
    const relaunched = () => t!.logs.some(l => l.server === 'moving' && l.source === 'sandbox' && l.message.startsWith(`sandboxed: writes only in ${rootB}`));
    await until(() => relaunched() && t!.get('moving').state.kind === 'running' && t!.get('moving').pid !== undefined, 'the restart', 30_000);
    assert.notEqual(t!.get('moving').pid, first, 'a new process');
    assert.equal((await call('moving', 'write', { path: path.join(rootA, 'a2.txt') })).ok, false, 'the old root is no longer writable');
    assert.deepEqual(await call('moving', 'write', { path: path.join(rootB, 'b2.txt') }), { ok: true });
    await t!.assertBystanderUndisturbed();
  });

  it('H92: allowedDomains lets exactly that loopback port through the proxy, nothing else', async () => {
    const other = net.createServer(s => s.destroy());
    await new Promise<void>(r => other.listen(0, '127.0.0.1', r));
    const otherPort = (other.address() as net.AddressInfo).port;
    try {
      await startWithRoots([probe('allowed', { sandboxEnabled: true, sandbox: { network: { allowedDomains: [`127.0.0.1:${port}`] } } })], [rootA]);
      const n = await call('allowed', 'connect', { port });
      assert.equal(n.viaProxy?.ok, true, JSON.stringify(n));
      const o = await call('allowed', 'connect', { port: otherPort });
      assert.equal(o.ok, false, JSON.stringify(o));
      await t!.assertBystanderUndisturbed();
    } finally {
      other.close();
    }
  });

  it('H90: allowWrite adds a folder to the boundary', async () => {
    const extra = path.join(base, 'extra');
    fs.mkdirSync(extra, { recursive: true });
    await startWithRoots([probe('widened', { sandboxEnabled: true, sandbox: { filesystem: { allowWrite: [extra] } } })], [rootA]);
    assert.deepEqual(await call('widened', 'write', { path: path.join(extra, 'ok.txt') }), { ok: true });
    assert.equal((await call('widened', 'write', { path: path.join(outside, 'still-no.txt') })).ok, false);
    await t!.assertBystanderUndisturbed();
  });

  it('H94: where the sandbox cannot run, a sandboxEnabled server fails with the reason and the fix, and is not started unsandboxed', async () => {
    const marker = path.join(outside, 'started-unsandboxed.txt');
    t = await startHost([probe('cannot', { sandboxEnabled: true })], { sandbox: { home, bwrapPath: path.join(base, 'no-such-bwrap') } });
    await assert.rejects(t.get('cannot').start(), /set to run sandboxed and was not started: the sandbox needs bubblewrap .*apt-get install bubblewrap/);
    await waitForState(t.get('cannot'), s => s.kind === 'error');
    assert.equal(t.get('cannot').pid, undefined, 'no process was spawned');
    assert.equal(fs.existsSync(marker), false);
    await t.assertBystanderUndisturbed();
  });

  it('H94 H171: fail closed: with the seccomp helper missing (the runtime\'s dependency WARNING) a sandboxEnabled server does not start, naming it', async () => {
    // The check is injected (a machine of another architecture, or a package without vendor/seccomp): nothing in
    // node_modules is touched. The runtime's own words for it are in checkLinuxDependencies.
    const checkDependencies = () => ({ errors: [], warnings: ['seccomp not available - unix socket access not restricted'] });
    t = await startHost([probe('noseccomp', { sandboxEnabled: true }), probe('open')], { sandbox: { home, checkDependencies } });
    await assert.rejects(t.get('noseccomp').start(), /set to run sandboxed and was not started: the sandbox cannot start: the seccomp helper \(apply-seccomp\) for \w+ is missing .*reinstall/);
    await waitForState(t.get('noseccomp'), s => s.kind === 'error');
    assert.equal(t.get('noseccomp').pid, undefined, 'no process was spawned');
    await t.get('open').start();
    assert.equal((await call('open', 'env', { name: 'PATH' })).ok, true, 'an unsandboxed server next to it starts');
    await t.assertBystanderUndisturbed();
  });
});
