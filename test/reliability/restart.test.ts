/**
 * Reliability: a server that crashes on a tool call (issue 41). While it waits for its automatic restart its tools
 * stay offered (the one gate, modelTools.ts, and the gateway into VS Code's chat) and a call waits for the restart,
 * starting it at once instead of after the backoff; a failed restart and a crash loop fail calls at once with a message
 * naming the server and the fix, and then its tools are withdrawn. Every case runs beside the bystander (echo.mjs).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { GatewayServer } from '../../src/mcp/gateway/server';
import { modelTools, serverOffered } from '../../src/mcp/catalogue/modelTools';
import { awaitsRestart, type ServerState } from '../../src/mcp/types';
import { BYSTANDER, marked, startHost, textOf, tmpDirPerTest, until, waitForState, type TestHost } from './helpers';

describe('Reliability: a crashed server\'s tools work again at once (issue 41)', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-restart-', async () => { await t?.close(); t = undefined; });

  const starts = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').length : 0);
  const toolNames = (server: string) => modelTools(t!.host.servers, {}).filter(m => m.server === server).map(m => m.tool.name);

  it('H585: a call made while the crashed server waits for its backoff restarts it at once and answers; its tools stay offered throughout', async () => {
    const count = path.join(scratch.dir, 'starts');
    // A 20 s backoff: the call must not wait for it.
    t = await startHost([marked('crashy', 'crash-on-call', ['--count-file', count])], { restart: { initialDelayMs: 20_000 } });
    const crashy = t.get('crashy');
    const offered: boolean[] = [];
    t.host.onDidChangeState(e => { if (e.server === 'crashy') offered.push(serverOffered(crashy, {})); });
    assert.deepEqual(toolNames('crashy'), ['echo', 'crash']);
    assert.equal(textOf(await crashy.callTool('crash', {})), 'bye');
    const waiting = await waitForState(crashy, s => s.kind === 'error', 10_000);
    assert.ok(awaitsRestart(waiting) && waiting.kind === 'error' && waiting.retryAt !== undefined, JSON.stringify(waiting));
    assert.deepEqual(toolNames('crashy'), ['echo', 'crash'], 'the tools stay offered while the restart is awaited');
    const began = Date.now();
    assert.equal(textOf(await crashy.callTool('echo', { text: 'back again' })), 'back again');
    assert.ok(Date.now() - began < 15_000, `answered after the restart, not after the 20 s backoff (${Date.now() - began} ms)`);
    assert.equal(crashy.state.kind, 'running');
    assert.equal(starts(count), 2, 'one restart');
    assert.ok(offered.every(Boolean), `offered in every state from the crash to running again: ${JSON.stringify(offered)}`);
    assert.deepEqual(toolNames('crashy'), ['echo', 'crash']);
    assert.ok(t.logs.some(l => l.server === 'crashy' && /restarting it now instead of after the backoff/.test(l.message)));
    await t.assertBystanderUndisturbed();
  });

  it('H586: a crash-looping server is restarted at most maxCrashes times whatever the call rate, then calls fail at once and its tools are withdrawn', async () => {
    const count = path.join(scratch.dir, 'starts');
    t = await startHost([marked('loop', 'crash-on-call', ['--count-file', count])], { restart: { initialDelayMs: 20_000, maxCrashes: 3, windowMs: 120_000 } });
    const loop = t.get('loop');
    // Each call finds the server waiting for its restart, restarts it and crashes it again; 50 calls, 3 crashes at most.
    for (let i = 0; i < 50 && !(loop.state.kind === 'error' && loop.state.crashLoop); i++) {
      await loop.callTool('crash', {}).catch(() => undefined);
      await until(() => loop.state.kind === 'error', 'the crash recorded', 10_000);
    }
    const final = await waitForState(loop, s => s.kind === 'error' && s.crashLoop, 10_000);
    assert.match((final as Extract<ServerState, { kind: 'error' }>).message, /^server `loop` exited unexpectedly \(exit code 1\)\. It crashed 3 times in 120 s, so it will not be restarted automatically; fix the problem and start it again$/);
    assert.equal(starts(count), 3, 'three starts: the first and two restarts, none after the guard tripped');
    const began = Date.now();
    await assert.rejects(loop.callTool('echo', { text: 'x' }), /^McpHostError: server `loop` is not running: .*will not be restarted automatically; fix the problem and start it again$/);
    assert.ok(Date.now() - began < 1000, `failed at once (${Date.now() - began} ms)`);
    assert.equal(serverOffered(loop, {}), false);
    assert.deepEqual(toolNames('loop'), []);
    assert.equal(starts(count), 3, 'the failed call started nothing');
    await t.assertBystanderUndisturbed();
  });

  it('H587: a restart that fails: the waiting call fails naming the server, the reason and the fix, and the tools are withdrawn', async () => {
    const failFile = path.join(scratch.dir, 'fail');
    t = await startHost([marked('fragile', 'crash-on-call', ['--fail-restart-file', failFile])], { restart: { initialDelayMs: 20_000 } });
    const fragile = t.get('fragile');
    fs.writeFileSync(failFile, 'x');
    await fragile.callTool('crash', {});
    await waitForState(fragile, s => awaitsRestart(s) && s.kind === 'error', 10_000);
    await assert.rejects(fragile.callTool('echo', { text: 'x' }), (err: Error) => {
      assert.match(err.message, /^server `fragile` crashed and its automatic restart failed: server `fragile` exited during startup \(exit code 2\): crash-on-call: the restart fails: FIXTURE_STATE is corrupt\. See the server's log in MCP Host, fix the problem and start the server again$/);
      return true;
    });
    const s = fragile.state;
    assert.ok(s.kind === 'error' && !awaitsRestart(s), JSON.stringify(s));
    assert.equal(serverOffered(fragile, {}), false, 'withdrawn after the failed restart');
    assert.deepEqual(toolNames('fragile'), []);
    await t.assertBystanderUndisturbed();
  });

  it('H588: a waiting call ends when its caller cancels it; the restart goes on and the next call answers', async () => {
    t = await startHost([marked('crashy', 'crash-on-call')], { restart: { initialDelayMs: 20_000 } });
    const crashy = t.get('crashy');
    await crashy.callTool('crash', {});
    await waitForState(crashy, s => awaitsRestart(s) && s.kind === 'error', 10_000);
    const ac = new AbortController();
    const call = crashy.callTool('echo', { text: 'x' }, { signal: ac.signal });
    ac.abort();
    await assert.rejects(call, /^McpHostError: the call to server `crashy` was cancelled while the server was restarting$/);
    await waitForState(crashy, s => s.kind === 'running', 20_000);
    assert.equal(textOf(await crashy.callTool('echo', { text: 'after' })), 'after');
    await t.assertBystanderUndisturbed();
  });

  it('H589: through the gateway into VS Code\'s chat: the tool list does not change across the crash (no tools/list_changed), and a call made right after it answers once the server is back', async () => {
    t = await startHost([marked('crashy', 'crash-on-call')], { restart: { initialDelayMs: 20_000 } });
    const off = new Set<string>();
    const gateway = new GatewayServer({ host: t.host, version: 'test', gate: { enabled: (s, tool) => !off.has(`${s}/${tool}`) } });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gateway.connect(a);
    const client = new Client({ name: 'vscode-stand-in', version: '1.0.0' });
    let toolListChanged = 0;
    try {
      await client.connect(b);
      client.setNotificationHandler('notifications/tools/list_changed', () => { toolListChanged++; });
      const before = (await client.listTools()).tools.map(x => x.name).sort();
      assert.ok(before.some(n => /crash/.test(n)) && before.some(n => new RegExp(BYSTANDER).test(n)), before.join(', '));
      const crashName = before.find(n => /crashy.*crash$/.test(n))!;
      const echoName = before.find(n => /crashy.*echo$/.test(n))!;
      assert.equal(textOf(await client.callTool({ name: crashName, arguments: {} })), 'bye');
      await until(() => t!.get('crashy').state.kind === 'error', 'the crash recorded', 10_000);
      assert.deepEqual((await client.listTools()).tools.map(x => x.name).sort(), before, 'the same tools while the restart is awaited');
      const r = await client.callTool({ name: echoName, arguments: { text: 'through the gateway' } });
      assert.equal(r.isError, undefined, textOf(r));
      assert.equal(textOf(r), 'through the gateway');
      // The restart took longer than the gateway's debounce (150 ms), so a change of the list would have been told by now.
      assert.equal(toolListChanged, 0, 'no tools/list_changed across the crash and restart');
      assert.deepEqual((await client.listTools()).tools.map(x => x.name).sort(), before);
      await waitForState(t.get('crashy'), s => s.kind === 'running', 20_000);
      // A real change (the user turns a tool off) is announced; the crash and the restart were not.
      off.add('crashy/crash');
      gateway.listsChanged();
      await until(() => toolListChanged > 0, 'the tools/list_changed of a real change', 10_000);
      assert.equal(toolListChanged, 1, 'one tools/list_changed: the tool turned off, none for the crash and restart');
      assert.deepEqual((await client.listTools()).tools.map(x => x.name).sort(), before.filter(n => n !== crashName));
    } finally {
      await client.close().catch(() => undefined);
      gateway.dispose();
    }
    await t.assertBystanderUndisturbed();
  });
});
