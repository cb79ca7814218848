/** The host: reconcile, roots (server-filesystem sees the change), shutdown, isolation between servers. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpHost, isValidRoot } from '../../src/mcp/host';
import { isAlive } from '../../src/mcp/process/processTree';
import type { Connection } from '../../src/mcp/server/connection';
import { FAST_STOP, bin, nodeFixture, stdio, tmpDir } from '../support/connection';
import { until } from '../support/wait';

const rootOf = (dir: string, name?: string) => ({ uri: pathToFileURL(dir).href, name: name ?? path.basename(dir) });

describe('Host', function () {
  this.timeout(60_000);

  it('reconcile starts added, restarts only changed, stops removed, leaves unchanged alone', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      const a = nodeFixture('a', 'echo');
      const b = nodeFixture('b', 'echo');
      const c = nodeFixture('c', 'echo');
      let serverEvents = 0;
      host.onDidChangeServers(() => serverEvents++);
      await host.reconcile([a, b, c]);
      assert.deepEqual(host.servers.map(s => s.state.kind), ['running', 'running', 'running']);
      const pid = (n: string) => (host.get(n) as Connection).pid!;
      const [pa, pb, pc] = [pid('a'), pid('b'), pid('c')];

      // a unchanged (same content, different key order), b changed, c removed, d added.
      const aReordered = JSON.parse(JSON.stringify({ env: a.env, args: a.args, command: a.command, type: a.type, name: a.name }));
      await host.reconcile([aReordered, { ...b, env: { CHANGED: '1' } }, nodeFixture('d', 'echo')]);
      assert.deepEqual(host.servers.map(s => s.name).sort(), ['a', 'b', 'd']);
      assert.equal(pid('a'), pa, 'unchanged server keeps its process');
      assert.notEqual(pid('b'), pb, 'changed server restarted');
      assert.equal(isAlive(pb), false);
      assert.equal(isAlive(pc), false, 'removed server stopped');
      assert.equal(host.get('d')?.state.kind, 'running');
      assert.ok(serverEvents >= 2);
    } finally {
      await host.shutdown();
    }
  });

  it('settings that need no new process (timeout, disabled) are adopted without a restart, or stop/start the server', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      const e = nodeFixture('e', 'echo');
      await host.reconcile([e]);
      const pid = (host.get('e') as Connection).pid;
      await host.reconcile([{ ...e, timeout: { request: 1234 } }]);
      assert.equal((host.get('e') as Connection).pid, pid, 'no restart for a timeout change');
      assert.equal(host.get('e')!.definition.timeout?.request, 1234);
      await host.reconcile([{ ...e, timeout: { request: 1234 }, disabled: true }]);
      assert.equal(host.get('e')!.state.kind, 'stopped');
      await host.reconcile([{ ...e, timeout: { request: 1234 } }]);
      assert.equal(host.get('e')!.state.kind, 'running');
    } finally {
      await host.shutdown();
    }
  });

  it('H610: disabled and autoStart:false servers are registered but not started (a request starts the autoStart:false one, never the disabled one); one failing server does not affect others', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await host.reconcile([
        nodeFixture('ok', 'echo'),
        nodeFixture('broken', 'crash-at-start'),
        stdio('missing', 'no-such-binary-anywhere'),
        nodeFixture('off', 'echo', [], { disabled: true }),
        nodeFixture('lazy', 'echo', [], { autoStart: false }),
      ]);
      const kind = (n: string) => host.get(n)!.state.kind;
      assert.equal(kind('ok'), 'running');
      assert.equal(kind('broken'), 'error');
      assert.equal(kind('missing'), 'error');
      assert.equal(kind('off'), 'stopped');
      assert.equal(kind('lazy'), 'stopped');
      // First use starts a lazy server.
      const lazy = host.get('lazy')!;
      await lazy.ping();
      assert.equal(kind('lazy'), 'running');
      // H610: a request never starts a server turned off, whoever asks; it fails saying how to turn it on.
      await assert.rejects(host.get('off')!.ping(), /server `off` is turned off \("disabled": true in its settings\): turn it on to use it/);
      await assert.rejects(host.get('off')!.callTool('echo', { text: 'x' }), /turned off/);
      assert.equal(kind('off'), 'stopped');
    } finally {
      await host.shutdown();
    }
  });

  it('a server with a configuration error shows up in an error state naming the problem; the others start', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await host.reconcile([nodeFixture('good', 'echo')], [
        { server: 'bad', path: 'mcpHost.servers.bad.command', message: 'Server "bad": mcpHost.servers.bad.command is missing.' },
        { path: 'mcpHost.servers', message: 'a document-level problem' },
      ]);
      assert.equal(host.get('good')!.state.kind, 'running');
      const bad = host.get('bad')!;
      assert.ok(bad.state.kind === 'error' && /command is missing/.test(bad.state.message));
      await assert.rejects(bad.start(), /command is missing/);
      // Fixed on the next reconcile.
      await host.reconcile([nodeFixture('good', 'echo'), nodeFixture('bad', 'echo')]);
      assert.equal(host.get('bad')!.state.kind, 'running');
    } finally {
      await host.shutdown();
    }
  });

  it('shutdown stops every server and leaves no process behind', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    await host.reconcile([nodeFixture('x', 'echo'), nodeFixture('y', 'grandchild')]);
    const y = host.get('y')!;
    const r = await y.callTool('pids', {});
    const { server, grandchild } = r.structuredContent as { server: number; grandchild: number };
    const x = (host.get('x') as Connection).pid!;
    await host.shutdown();
    for (const p of [x, server, grandchild]) assert.equal(isAlive(p), false);
    assert.equal(host.servers.length, 0);
  });

  it('H16/H42: server-filesystem (legacy era) is given a root, then another root, and sees the change (roots/list_changed)', async () => {
    const one = tmpDir('mcp-root-one-');
    const two = tmpDir('mcp-root-two-');
    fs.writeFileSync(path.join(two, 'hello.txt'), 'hi');
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      host.setRoots([rootOf(one)]);
      await host.reconcile([stdio('fs', bin('mcp-server-filesystem'))]);
      const fsServer = host.get('fs')!;
      const st = fsServer.state;
      assert.ok(st.kind === 'running' && st.era === 'legacy' && st.protocolVersion === '2025-11-25', JSON.stringify(st));
      const allowed = async () => JSON.stringify((await fsServer.callTool('list_allowed_directories', {})).content);
      await until(async () => (await allowed()).includes(one), 'first root visible', 10_000);
      host.setRoots([rootOf(two)]);
      await until(async () => { const a = await allowed(); return a.includes(two) && !a.includes(one); }, 'second root replaces the first', 10_000);
      const listing = await fsServer.callTool('list_directory', { path: two });
      assert.match(JSON.stringify(listing.content), /hello\.txt/);
    } finally {
      await host.shutdown();
      fs.rmSync(one, { recursive: true, force: true });
      fs.rmSync(two, { recursive: true, force: true });
    }
  });

  it('H16/H17: roots/list answers file:// URIs only, filtered per server, list_changed debounced and only when a server\'s view changed', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP, rootsDebounceMs: 50 });
    const ev = (name: string, roots?: string[]) => stdio(name, bin('mcp-server-everything'), ['stdio'], roots ? { roots } : {});
    try {
      host.setRoots([{ uri: 'file:///work/alpha', name: 'alpha' }, { uri: 'file:///work/beta', name: 'beta' }]);
      await host.reconcile([ev('all'), ev('only-beta', ['beta'])]);
      const rootsSeen = async (n: string) => JSON.stringify((await host.get(n)!.callTool('get-roots-list', {})).content);
      assert.match(await rootsSeen('all'), /alpha[\s\S]*beta/);
      const ob = await rootsSeen('only-beta');
      assert.match(ob, /file:\/\/\/work\/beta/);
      assert.doesNotMatch(ob, /alpha/);

      const all = host.get('all') as Connection;
      const onlyBeta = host.get('only-beta') as Connection;
      const sent = { all: 0, beta: 0 };
      const origAll = all.notifyRootsChanged.bind(all);
      const origBeta = onlyBeta.notifyRootsChanged.bind(onlyBeta);
      all.notifyRootsChanged = async () => { const r = await origAll(); if (r) sent.all++; return r; };
      onlyBeta.notifyRootsChanged = async () => { const r = await origBeta(); if (r) sent.beta++; return r; };

      // A burst of changes (and invalid roots, which are dropped): one notification, last state wins.
      host.setRoots([{ uri: 'file:///work/alpha' }]);
      host.setRoots([{ uri: 'file:///work/gamma', name: 'gamma' }, { uri: 'file:///work/beta', name: 'beta' }, { uri: 'https://example.com/x' }, { uri: 'file:///work/../etc' }]);
      await until(() => sent.all === 1, 'all notified once', 5000);
      await new Promise(r => setTimeout(r, 200));
      assert.equal(sent.all, 1, 'debounced');
      assert.equal(sent.beta, 0, 'only-beta saw no change in its view');
      assert.deepEqual(host.roots.map(r => r.uri), ['file:///work/gamma', 'file:///work/beta']);
      await until(async () => /gamma/.test(await rootsSeen('all')), 'server re-read roots', 5000);
    } finally {
      await host.shutdown();
    }
  });

  it('H17: root validation accepts file URIs only and rejects traversal', () => {
    assert.equal(isValidRoot('file:///home/me/project'), true);
    assert.equal(isValidRoot('file:///C:/Users/me/project'), true);
    assert.equal(isValidRoot('http://example.com/'), false);
    assert.equal(isValidRoot('file:///home/me/../etc'), false);
    assert.equal(isValidRoot('file:///home/me/%2E%2E/etc'), false);
    assert.equal(isValidRoot('not a uri'), false);
  });

  it('forwards state, catalogue and log events with the server name', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    const states: string[] = [];
    const catalogues: string[] = [];
    const logs: string[] = [];
    host.onDidChangeState(e => states.push(`${e.server}:${e.state.kind}`));
    host.onDidChangeCatalogue(e => catalogues.push(e.server));
    host.onLog(e => logs.push(e.server));
    try {
      await host.reconcile([nodeFixture('e', 'echo')]);
      assert.deepEqual(states.slice(0, 2), ['e:starting', 'e:running']);
      assert.ok(catalogues.includes('e'));
      assert.ok(logs.includes('e'));
    } finally {
      await host.shutdown();
    }
  });
});
