/**
 * Reliability: stdio servers that misbehave (real fixture processes, the real host). Every case runs
 * next to a well-behaved bystander server that must keep its process and keep answering, and ends
 * with a process-table check: nothing this suite started is left running.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isAlive } from '../../src/mcp/process/processTree';
import type { ServerState } from '../../src/mcp/types';
import {
  BYSTANDER, MARK, MARK_NAME, assertNoMarkedProcesses, fixture, markedProcesses, marked, startHost, stdio, textOf, tmpDirPerTest, until,
  waitForState, type TestHost,
} from './helpers';

type ErrorState = Extract<ServerState, { kind: 'error' }>;

function errorState(s: ServerState): ErrorState {
  assert.equal(s.kind, 'error', `expected an error state, got ${JSON.stringify(s)}`);
  return s as ErrorState;
}

describe('Reliability: servers that misbehave (stdio)', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-reliability-', async () => { await t?.close(); t = undefined; });

  /** Pids of marked processes other than the bystander's. */
  const othersThanBystander = () => markedProcesses().filter(p => p !== t?.get(BYSTANDER).pid);

  it('exits at start with a message: the error state names the server and shows its stderr message', async () => {
    t = await startHost([marked('cas', 'crash-at-start', ['--code', '2', '--message', 'fatal: FIXTURE_API_KEY is not set'])]);
    const s = errorState(t.get('cas').state);
    assert.match(s.message, /^server `cas` exited during startup \(exit code 2\): fatal: FIXTURE_API_KEY is not set$/);
    assert.equal(s.stderrTail.at(-1), 'fatal: FIXTURE_API_KEY is not set');
    assert.equal(s.crashLoop, false);
    await assert.rejects(t.get('cas').callTool('x', {}), /server `cas` is not running: .*FIXTURE_API_KEY is not set/);
    await t.assertBystanderUndisturbed();
    assert.deepEqual(othersThanBystander(), []);
  });

  it('exits at start and its reason reaches stderr 1.5 s later (a process of its launch writes it): the error state still names it', async () => {
    // The exit is seen long before the reason: the start fails first, and the session is torn down only once stderr has
    // ended (at most 2 s), not 50 ms after the failure, when tearing down stopped listening to stderr.
    t = await startHost([marked('late', 'crash-at-start', ['--late-ms', '1500', '--message', 'fatal: the late reason'], { timeout: { startup: 20_000 } })]);
    const s = errorState(t.get('late').state);
    assert.match(s.message, /^server `late` exited during startup \(exit code 1\): fatal: the late reason$/, s.message);
    assert.equal(s.stderrTail.at(-1), 'fatal: the late reason');
    await t.assertBystanderUndisturbed();
    await until(() => othersThanBystander().length === 0, 'the launch\'s writer gone', 10_000);
  });

  it('crash loop: restarts with growing backoff, then stops restarting and says so', async () => {
    const countFile = path.join(scratch.dir, 'starts');
    t = await startHost([], { restart: { initialDelayMs: 50, maxDelayMs: 400, maxCrashes: 4, windowMs: 120_000 } });
    const states: ServerState[] = [];
    t.host.onDidChangeState(e => { if (e.server === 'loop') states.push(e.state); });
    await t.host.reconcile([marked(BYSTANDER, 'echo'), marked('loop', 'crash-after', ['--after', '100', '--code', '5', '--count-file', countFile])]);
    const final = errorState(await waitForState(t.get('loop'), s => s.kind === 'error' && s.crashLoop, 60_000));
    assert.match(final.message, /^server `loop` exited unexpectedly \(exit code 5\): crash-after: exiting with code 5 after 100 ms\. It crashed 4 times in 120 s, so it will not be restarted automatically; fix the problem and start it again$/);
    assert.equal(final.retryAt, undefined, 'no restart is scheduled');
    const delays = states.filter(s => s.kind === 'error' && !s.crashLoop)
      .map(s => Number(/restarting in (\d+) ms/.exec((s as ErrorState).message)?.[1]));
    assert.deepEqual(delays, [50, 100, 200], 'the backoff doubles');
    await new Promise(r => setTimeout(r, 1000));
    assert.equal(fs.readFileSync(countFile, 'utf8').trim().split('\n').length, 4, 'four starts, and none after the crash-loop stop');
    assert.equal(t.get('loop').state.kind, 'error');
    // The user fixes nothing but presses Start: it is tried again (a fresh crash count).
    await t.get('loop').start();
    await t.get('loop').stop();
    await t.assertBystanderUndisturbed();
  });

  it('never answers initialize: the start fails after timeout.startup with a message naming the fix, and the process is stopped', async () => {
    t = await startHost([marked('mute', 'never-init', [], { timeout: { startup: 1500 } })]);
    const s = errorState(t.get('mute').state);
    assert.match(s.message, /^server `mute` did not answer initialize within 1\.5 s \(timeout\.startup\); check that it is an MCP server and that it writes nothing but JSON-RPC to stdout$/);
    await until(() => othersThanBystander().length === 0, 'never-init stopped', 10_000);
    await t.assertBystanderUndisturbed();
  });

  it('answers initialize with an older protocol version it supports: runs on that version', async () => {
    t = await startHost([marked('old', 'hostile', ['--protocol-version', '2024-11-05'])]);
    const s = t.get('old').state;
    assert.ok(s.kind === 'running' && s.protocolVersion === '2024-11-05' && s.era === 'legacy', JSON.stringify(s));
    assert.equal(textOf(await t.get('old').callTool('echo', { text: 'old but fine' })), 'old but fine');
    await t.assertBystanderUndisturbed();
  });

  it('answers initialize with a protocol version nobody supports: error naming the version, the supported ones and the fix; process stopped', async () => {
    t = await startHost([marked('future', 'hostile', ['--protocol-version', '2099-01-01'])]);
    const s = errorState(t.get('future').state);
    assert.match(s.message, /^server `future` answered with protocol version 2099-01-01, which this host does not support \(supported: [\d-]+(, [\d-]+)*\); update the server or the host$/);
    assert.match(s.message, /2025-06-18/);
    await until(() => othersThanBystander().length === 0, 'the server stopped', 10_000);
    await t.assertBystanderUndisturbed();
  });

  it('writes a banner, non-JSON, invalid UTF-8, non-JSON-RPC JSON and partial lines to stdout: ignored with a warning, the session works', async () => {
    t = await startHost([marked('junk', 'garbage', ['--interleave', '20'])]);
    const junk = t.get('junk');
    assert.equal(junk.state.kind, 'running');
    for (let i = 0; i < 10; i++) assert.equal(textOf(await junk.callTool('echo', { text: `call ${i} ✓` })), `call ${i} ✓`);
    assert.ok(t.logs.some(l => l.server === 'junk' && l.level === 'warning' && /ignored a message that is not valid JSON-RPC/.test(l.message)));
    assert.equal(junk.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('writes one 50 MB line of junk before it serves: skipped, the server runs and answers', async () => {
    t = await startHost([marked('junk50', 'hostile', ['--junk-line-mb', '50'])]);
    const s = t.get('junk50');
    assert.equal(s.state.kind, 'running', JSON.stringify(s.state));
    assert.equal(textOf(await s.callTool('echo', { text: 'after the junk' })), 'after the junk');
    assert.ok(t.logs.some(l => l.server === 'junk50' && /not valid JSON-RPC/.test(l.message)));
    assert.ok(t.logs.every(l => l.message.length < 10_000), 'no log line carries the 50 MB');
    await t.assertBystanderUndisturbed();
  });

  it('answers with one 50 MB JSON-RPC message: received whole', async () => {
    t = await startHost([marked('big', 'big', ['--size', '50'])]);
    const r = await t.get('big').callTool('big', {});
    const text = textOf(r);
    assert.equal(text.length, 50 * 1024 * 1024);
    assert.ok(text.endsWith('END'));
    await t.assertBystanderUndisturbed();
  });

  it('floods 20 000 notifications (logs, list_changed, stray progress, unknown methods): the session keeps answering, refreshes are coalesced', async () => {
    const record = path.join(scratch.dir, 'flood-record');
    t = await startHost([marked('flood', 'hostile', ['--flood', '20000', '--record', record])]);
    const f = t.get('flood');
    await until(() => t!.logs.filter(l => l.server === 'flood' && l.source === 'server').length >= 5000, 'the flood arrived', 30_000);
    assert.equal(textOf(await f.callTool('echo', { text: 'through the flood' })), 'through the flood');
    const flood2 = await f.callTool('flood', { n: 20_000 });
    assert.match(textOf(flood2), /"sent":20000/);
    assert.equal(textOf(await f.callTool('echo', { text: 'and again' })), 'and again');
    assert.equal(f.state.kind, 'running');
    await new Promise(r => setTimeout(r, 500));
    const lists = fs.readFileSync(record, 'utf8').split('\n').filter(l => l === 'tools/list').length;
    assert.ok(lists >= 2 && lists <= 40, `10 000 tools/list_changed led to ${lists} tools/list requests`);
    await t.assertBystanderUndisturbed();
  });

  it('sends requests and notifications before initialized: answered, and the server runs', async () => {
    const record = path.join(scratch.dir, 'early-record');
    t = await startHost([marked('eager', 'hostile', ['--early', '--record', record])]);
    const e = t.get('eager');
    assert.equal(e.state.kind, 'running');
    const seen = JSON.parse(textOf(await e.callTool('roots_seen', {}))) as { rootsCalls: number };
    assert.equal(seen.rootsCalls, 1, 'its early roots/list was answered');
    const lines = fs.readFileSync(record, 'utf8').split('\n');
    assert.ok(lines.includes('response srv-1'), 'its early ping was answered');
    assert.ok(t.logs.some(l => l.server === 'eager' && l.message === 'talking before initialized'));
    await t.assertBystanderUndisturbed();
  });

  it('sends responses for ids it was never asked: ignored with a warning; real answers still match their requests', async () => {
    t = await startHost([marked('stray', 'hostile', ['--unknown-ids'])]);
    const s = t.get('stray');
    for (let i = 0; i < 10; i++) assert.equal(textOf(await s.callTool('echo', { text: `answer ${i}` })), `answer ${i}`);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.callTool('echo', { text: `parallel ${i}` })));
    results.forEach((r, i) => assert.equal(textOf(r), `parallel ${i}`));
    assert.ok(t.logs.some(l => l.server === 'stray' && /unknown message ID/.test(l.message)));
    assert.equal(s.state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('hangs on a tool call: cancel ends it at once and tells the server; the request timeout fires with a message naming the setting', async () => {
    const record = path.join(scratch.dir, 'hang-record');
    t = await startHost([marked('hang', 'hostile', ['--record', record])]);
    const h = t.get('hang');
    const ac = new AbortController();
    const call = h.callTool('hang', {}, { signal: ac.signal });
    await until(() => fs.existsSync(record) && fs.readFileSync(record, 'utf8').includes('tools/call'), 'the call reached the server', 10_000);
    ac.abort('the user pressed Cancel');
    await assert.rejects(call, /^McpHostError: tools\/call to server `hang` was cancelled$|tools\/call to server `hang` was cancelled/);
    await until(() => fs.readFileSync(record, 'utf8').includes('notifications/cancelled'), 'notifications/cancelled reached the server', 10_000);
    await assert.rejects(h.callTool('hang', {}, { timeout: 1000 }), /server `hang` did not answer tools\/call within 1 s/);
    assert.equal(h.state.kind, 'running', 'a hung call does not take the server down');
    assert.equal(textOf(await h.callTool('echo', { text: 'next call works' })), 'next call works');
    await t.assertBystanderUndisturbed();
  });

  it('closes stdout but keeps running: stopped, and an error state that says so (not a hang)', async () => {
    t = await startHost([], { restart: { enabled: false } });
    await t.host.reconcile([marked(BYSTANDER, 'echo'), marked('deaf', 'hostile', ['--close-stdout-after', '300'])]);
    const d = t.get('deaf');
    const pid = d.pid!;
    const s = errorState(await waitForState(d, x => x.kind === 'error', 30_000));
    assert.equal(s.message, 'server `deaf` closed its stdout but kept running, so none of its answers can arrive; it was stopped');
    assert.deepEqual(s.stderrTail, ['hostile: closed stdout, still running']);
    await until(() => !isAlive(pid), 'the process was stopped', 10_000);
    await assert.rejects(d.callTool('echo', { text: 'x' }), /server `deaf` is not running: .*closed its stdout/);
    await t.assertBystanderUndisturbed();
  });

  for (const variant of ['node', 'shell wrapper'] as const) {
    it(`spawns a grandchild (${variant}): none left after stop, restart, reconcile (changed, removed) or deactivate (process table)`, async () => {
      const pidFile = path.join(scratch.dir, 'gc');
      const def = (name: string, extra: string[] = []) => variant === 'node'
        ? marked(name, 'grandchild', ['--pid-file', pidFile, ...extra])
        : { ...stdio(name, '/bin/sh', [fixture('grandchild-wrapper.sh'), '--pid-file', pidFile, ...extra]), env: { FIXTURE_NODE: process.execPath, [MARK_NAME]: MARK } };
      t = await startHost([def('gc')]);
      const bystanderPid = t.get(BYSTANDER).pid!;
      const tree = async (name: string) => {
        const { server, grandchild } = (await t!.get(name).callTool('pids', {})).structuredContent as { server: number; grandchild: number };
        const root = t!.get(name).pid!;
        assert.ok(isAlive(server) && isAlive(grandchild) && isAlive(root));
        return [...new Set([root, server, grandchild])];
      };
      const expectOnly = async (what: string, pids: number[]) => {
        await until(() => {
          const now = markedProcesses().sort();
          return JSON.stringify(now) === JSON.stringify([...pids].sort());
        }, `${what}: process table is exactly ${JSON.stringify(pids)} (now ${JSON.stringify(markedProcesses())})`, 10_000);
      };
      let pids = await tree('gc');
      assert.equal(pids.length, variant === 'node' ? 2 : 3);
      await expectOnly('started', [bystanderPid, ...pids]);

      await t.get('gc').stop();
      await expectOnly('after stop', [bystanderPid]);

      await t.get('gc').start();
      pids = await tree('gc');
      await t.get('gc').restart();
      const afterRestart = await tree('gc');
      assert.ok(pids.every(p => !afterRestart.includes(p)));
      await expectOnly('after restart', [bystanderPid, ...afterRestart]);

      await t.host.reconcile([marked(BYSTANDER, 'echo'), def('gc', ['--grandchild-ignore-term'])]);
      const afterChange = await tree('gc');
      await expectOnly('after a changed definition', [bystanderPid, ...afterChange]);

      await t.host.reconcile([marked(BYSTANDER, 'echo')]);
      await expectOnly('after the server was removed', [bystanderPid]);

      await t.host.reconcile([marked(BYSTANDER, 'echo'), def('gc2', ['--grandchild-ignore-term'])]);
      await tree('gc2');
      await t.assertBystanderUndisturbed();
      // Deactivate: the extension disposes the host, which stops every tree.
      t.host.dispose();
      await assertNoMarkedProcesses('after deactivate (host.dispose)');
    });
  }
});
