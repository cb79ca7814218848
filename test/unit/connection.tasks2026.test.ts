/**
 * Tasks on MCP 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, H125–H129) through the host's own
 * Connection, against the raw 2026-07-28 Tasks fixture (test/fixtures/servers/tasks-2026.mjs): a task that
 * completes, one that needs input (answered through the connection's elicitation and sampling paths and
 * sent back with `tasks/update`), one cancelled; and hostile servers (a task working forever, a flood of
 * status notifications, a bogus task id, a task the server forgets), each bounded with a message naming the
 * server, beside a plain tool of the same server that must keep working.
 */
import * as assert from 'node:assert/strict';
import { Connection } from '../../src/mcp/server/connection';
import { isTerminal, type TaskInfo } from '../../src/mcp/tasks/tasks';
import { TaskEndNotices } from '../../src/mcp/tasks/taskNotices';
import type { SamplingService } from '../../src/mcp/features/sampling';
import { TaskMemory, type RememberedTask } from '../../src/mcp/tasks/taskMemory';
import { ephemeralKeyer } from '../../src/mcp/config/definitionKey';
import { FAST_STOP, collectLogs, http, nodeFixture } from '../support/connection';
import { startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';
import { textOf, until } from '../support/wait';

const EXT = 'io.modelcontextprotocol/tasks';

describe('tasks on 2026-07-28 (the io.modelcontextprotocol/tasks extension)', function () {
  this.timeout(30_000);
  let c: Connection | undefined;
  afterEach(async () => { await c?.dispose(); c = undefined; });

  async function start(opts: ConstructorParameters<typeof Connection>[1] = {}, args: string[] = []): Promise<Connection> {
    c = new Connection(nodeFixture('t26', 'tasks-2026', args), { pingIntervalMs: 0, stopGrace: FAST_STOP, ...opts });
    await c.start();
    return c;
  }

  async function stats(conn: Connection): Promise<{ requests: Record<string, number>; lastCallMeta: Record<string, unknown>; undeclaredCalls: number; cancels: number; updates: number }> {
    return JSON.parse(textOf(await conn.callTool('stats', {})));
  }

  it('H125/H176: a tool (no taskSupport) the server answers with a task is followed to its end; every call declares the extension, and one the server answers at once is a plain result', async () => {
    const conn = await start();
    const s = conn.state;
    assert.equal(s.kind === 'running' && s.protocolVersion, '2026-07-28');
    const updates: TaskInfo[] = [];
    const r = await conn.callTool('slow', { ms: 300 }, { onTask: t => updates.push(t), userStarted: true });
    assert.equal(textOf(r), 'slow done');
    assert.equal(conn.tasks.length, 1);
    assert.equal(conn.tasks[0].status, 'completed');
    assert.equal(conn.tasks[0].tool, 'slow');
    assert.equal(conn.tasks[0].userStarted, true);
    assert.ok(conn.tasks[0].pollMs >= 250, `polling at ${conn.tasks[0].pollMs} ms`);
    assert.ok(updates.some(t => t.status === 'working'));
    assert.equal(textOf(await conn.taskResult(conn.tasks[0].taskId)), 'slow done');
    assert.equal(conn.catalogue.tools.find(t => t.name === 'slow')?.execution, undefined, 'the fixture lists no taskSupport (SEP-2663)');
    // The bystander: a tool the server answers at once; the same tool, when the server decides to answer at once.
    assert.equal(textOf(await conn.callTool('echo', { text: 'still here' })), 'still here');
    assert.equal(textOf(await conn.callTool('slow', { ms: 10 })), 'slow done');
    assert.equal(conn.tasks.length, 1, 'an answer at once is no task');
    const st = await stats(conn);
    assert.ok(st.requests['tasks/get'] >= 1);
    assert.equal(st.undeclaredCalls, 0, 'every tools/call declared the extension');
    const caps = st.lastCallMeta['io.modelcontextprotocol/clientCapabilities'] as { extensions?: Record<string, unknown> } | undefined;
    assert.deepEqual(caps?.extensions?.[EXT], {}, 'the call declares the extension (ext-tasks withTaskCapabilityV2)');
  });

  it('H126: input_required is answered through the elicitation callback and sent back with tasks/update', async () => {
    const asked: { server: string; req: unknown }[] = [];
    const conn = await start({ features: { elicit: async (server, req) => { asked.push({ server, req }); return { action: 'accept', content: { answer: 'teal' } }; } } });
    const statuses: string[] = [];
    const r = await conn.callTool('ask', { question: 'Colour?' }, { onTask: t => statuses.push(t.status) });
    assert.equal(textOf(r), 'answer: teal');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].server, 't26');
    assert.match(JSON.stringify(asked[0].req), /Colour\?/);
    assert.ok(statuses.includes('input_required'), statuses.join(','));
    assert.equal((await stats(conn)).updates, 1);
  });

  it('H126: a sampling input request goes through the sampling service', async () => {
    const sampling = {
      enabled: true,
      handle: async (server: string, _policy: unknown, params: { messages: { content: { text: string } }[] }) => ({
        role: 'assistant', model: 'fake', content: { type: 'text', text: `${server} heard ${params.messages[0].content.text}` },
      }),
    } as unknown as SamplingService;
    const conn = await start({ sampling });
    assert.equal(textOf(await conn.callTool('sample', { prompt: 'ping' })), 'model: t26 heard ping');
  });

  it('H127: cancelTask cancels a running task on the server (tasks/cancel); an aborted call does too; a stop ends the rest', async () => {
    const conn = await start();
    const created = new Promise<TaskInfo>(resolve => { void conn.callTool('wait', {}, { onTask: resolve }).catch(() => undefined); });
    const first = await created;
    await conn.cancelTask(first.taskId);
    assert.equal(conn.tasks.find(t => t.taskId === first.taskId)?.status, 'cancelled');
    const ac = new AbortController();
    let id = '';
    const aborted = conn.callTool('wait', {}, { signal: ac.signal, onTask: t => { id = t.taskId; } }).then(() => 'resolved', (e: Error) => e.message);
    while (!id) await new Promise(r => setTimeout(r, 20));
    ac.abort();
    assert.match(await aborted, /was cancelled/);
    assert.equal((await stats(conn)).cancels, 2);
    let third = '';
    const running = conn.callTool('wait', {}, { onTask: t => { third = t.taskId; } }).then(() => 'resolved', (e: Error) => e.message);
    while (!third) await new Promise(r => setTimeout(r, 20));
    await conn.stop();
    assert.match(await running, new RegExp(`server \`t26\` stopped while task \`${third}\` of tool \`wait\` was running`));
    assert.deepEqual(conn.tasks, []);
  });

  it('H128: a task working forever is given up after its ttl, with a message naming the server; the server keeps working', async () => {
    const conn = await start({}, ['--ttl-ms', '1200']);
    await assert.rejects(conn.callTool('hostile_endless', {}), /task `task-1` of tool `hostile_endless` on server `t26` did not finish within its ttl/);
    assert.equal(conn.tasks[0].status, 'failed');
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
    assert.equal((await stats(conn)).cancels, 1);
  });

  it('H128: a flood of status notifications completes the task; the views see a bounded number of changes', async () => {
    const conn = await start();
    let changes = 0;
    conn.onDidChangeTasks(() => { changes++; });
    const r = await conn.callTool('hostile_flood', { n: 3000 });
    assert.equal(textOf(r), 'flood done after 3000');
    assert.ok(changes < 100, `${changes} changes reached the views`);
    assert.ok((conn.tasks[0].statusMessage ?? '').length <= 1024);
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
  });

  it('H128: a bogus task id (10,000 characters) is refused with a message naming the server', async () => {
    const conn = await start();
    await assert.rejects(conn.callTool('hostile_long_id', {}), /server `t26` answered the task call of tool `hostile_long_id` with a bad task: the task id is 10000 characters long/);
    assert.deepEqual(conn.tasks, []);
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
  });

  it('H128: a task the server forgets (tasks/get -32602) fails with a message naming the server', async () => {
    const conn = await start();
    await assert.rejects(conn.callTool('hostile_forget', {}), /task `task-1` of tool `hostile_forget` on server `t26` failed/);
    assert.equal(conn.tasks[0].status, 'failed');
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
  });

  it('H390: only answers that are tasks count against maxTasksPerServer: 40 plain calls in flight and a task beside them all succeed under a limit of 32', async () => {
    const conn = await start({ limits: { maxTasksPerServer: 32 } });
    const plain = Array.from({ length: 40 }, (_, i) => conn.callTool('echo', { text: `p${i}` }));
    // The same tool the server answers at once for a short job counts no more than echo does.
    const quick = Array.from({ length: 10 }, () => conn.callTool('slow', { ms: 10 }));
    const task = conn.callTool('slow', { ms: 400 });
    assert.deepEqual((await Promise.all(plain)).map(r => textOf(r)), Array.from({ length: 40 }, (_, i) => `p${i}`));
    assert.deepEqual((await Promise.all(quick)).map(r => textOf(r)), Array(10).fill('slow done'));
    assert.equal(textOf(await task), 'slow done');
    assert.equal(conn.tasks.length, 1, 'one task, the only answer that was a task');
    assert.equal((await stats(conn)).undeclaredCalls, 0, 'every call declared the extension all the same');
  });

  it('H390: with the task limit reached, plain calls still work; an answer that is one task too many is refused naming the setting and cancelled on the server', async () => {
    const conn = await start({ limits: { maxTasksPerServer: 1 } });
    const running = await new Promise<TaskInfo>(resolve => { void conn.callTool('wait', {}, { onTask: resolve }).catch(() => undefined); });
    assert.equal(textOf(await conn.callTool('echo', { text: 'plain' })), 'plain');
    assert.equal(textOf(await conn.callTool('slow', { ms: 10 })), 'slow done');
    await assert.rejects(conn.callTool('slow', { ms: 5000 }), /server `t26` has too many running tasks: over the limit of 1 tasks? per server \(raise it with the setting `mcpHost\.limits\.maxTasksPerServer`\)/);
    await until(async () => (await stats(conn)).cancels === 1, 'the refused task cancelled on the server', 10_000);
    assert.deepEqual(conn.tasks.map(t => [t.taskId, t.status]), [[running.taskId, 'working']]);
    await conn.cancelTask(running.taskId);
    assert.equal(textOf(await conn.callTool('slow', { ms: 100 })), 'slow done', 'room again once the running task ended');
  });

  it('H394: a task a model started ends ONE time in the views, with its result attached (the one notice offers Show Result)', async () => {
    const conn = await start();
    const notices = new TaskEndNotices();
    const shown: { text: string; showResult: boolean }[] = [];
    const ends: TaskInfo[] = [];
    conn.onDidChangeTasks(t => { if (isTerminal(t.status)) ends.push(t); const n = notices.changed(t); if (n) shown.push(n); });
    assert.equal(textOf(await conn.callTool('slow_report', { ms: 600 }, { userStarted: false })), 'report ready');
    assert.deepEqual(ends.map(t => [t.status, t.hasResult]), [['completed', true]], 'the end is shown once, with its result');
    assert.deepEqual(shown, [{ text: 'The task of slow_report on t26 has completed.', showResult: true }]);
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
  });

  it('H140: a 2026-07-28 task\'s progress reaches the task (Tasks group, chat and CLI waiting) and the call\'s onProgress', async () => {
    const conn = await start();
    const seen: TaskInfo[] = [];
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const r = await conn.callTool('progress', { steps: 4, ms: 300 }, { onTask: t => seen.push(t), onProgress: p => progress.push(p) });
    assert.equal(textOf(r), 'progress done');
    const shown = seen.filter(t => t.progress).map(t => `${t.progress!.progress}/${t.progress!.total} ${t.progress!.message}`);
    assert.ok(shown.includes('4/4 step 4 of 4'), shown.join(', '));
    assert.ok(shown.length >= 2, `progress seen ${shown.length} times`);
    assert.deepEqual(conn.tasks[0].progress, { progress: 4, total: 4, message: 'step 4 of 4' });
    assert.ok(progress.some(p => p.progress === 4 && p.total === 4 && p.message === 'step 4 of 4'), JSON.stringify(progress));
  });

  it('H141: 10,000 progress notifications, progress for tokens never given and a 1 MB status message stay bounded; a well-behaved task beside them keeps its progress', async () => {
    const conn = await start();
    let changes = 0;
    conn.onDidChangeTasks(() => { changes++; });
    const calls: number[] = [];
    const flood = conn.callTool('hostile_progress_flood', { n: 10_000 }, { onProgress: p => calls.push(p.progress) });
    const stray = conn.callTool('hostile_progress_stray', {});
    const big = conn.callTool('hostile_big_status', {});
    const good: TaskInfo[] = [];
    const bystander = conn.callTool('progress', { steps: 3, ms: 300 }, { onTask: t => good.push(t) });
    assert.equal(textOf(await flood), 'progress flood done after 10000');
    assert.equal(textOf(await stray), 'stray done');
    assert.equal(textOf(await big), 'big status done');
    assert.equal(textOf(await bystander), 'progress done');
    assert.ok(changes < 200, `${changes} changes reached the views`);
    assert.ok(calls.length < 100, `${calls.length} onProgress calls`);
    const floodTask = conn.tasks.find(t => t.tool === 'hostile_progress_flood')!;
    assert.equal(floodTask.progress?.total, 10_000);
    // The stray task never shows progress that was not its own; the bystander shows its own.
    assert.equal(conn.tasks.find(t => t.tool === 'hostile_progress_stray')!.progress, undefined);
    assert.deepEqual(conn.tasks.find(t => t.tool === 'progress')!.progress, { progress: 3, total: 3, message: 'step 3 of 3' });
    assert.ok(good.every(t => !t.progress || /^step \d of 3$/.test(t.progress.message ?? '')), 'the bystander saw only its own progress');
    assert.match(conn.tasks.find(t => t.tool === 'hostile_big_status')!.statusMessage ?? '', /^big x+… \(\d+ more bytes\)$/);
    for (const t of conn.tasks) assert.ok(Buffer.byteLength(t.statusMessage ?? '') <= 1100, `status message of ${t.tool}: ${Buffer.byteLength(t.statusMessage ?? '')} bytes`);
    assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
  });

  describe('over Streamable HTTP (the same fixture, --http)', () => {
    let fixture: HttpFixture | undefined;
    afterEach(async () => { await fixture?.stop(); fixture = undefined; });

    it('H125/H126/H127: a task completes, one needs input, one is cancelled; the plain tool keeps working', async () => {
      fixture = await startHttpFixture(['--http'], 'tasks-2026.mjs');
      c = new Connection(http('t26h', fixture.url), {
        pingIntervalMs: 0,
        features: { elicit: async () => ({ action: 'accept', content: { answer: 'over http' } }) },
      });
      await c.start();
      const conn = c;
      assert.equal(textOf(await conn.callTool('slow', { ms: 200 })), 'slow done');
      assert.equal(textOf(await conn.callTool('ask', {})), 'answer: over http');
      const created = new Promise<TaskInfo>(resolve => { void conn.callTool('wait', {}, { onTask: resolve }).catch(() => undefined); });
      const t = await created;
      await conn.cancelTask(t.taskId);
      assert.equal(conn.tasks.find(x => x.taskId === t.taskId)?.status, 'cancelled');
      assert.equal(textOf(await conn.callTool('echo', { text: 'ok' })), 'ok');
      assert.equal((await stats(conn)).cancels, 1);
    });

    it('H392: running tasks outlive a reload where the server keeps them: listed again and followed to their end; one the server forgot is dropped with one log line; nothing is cancelled by the reload', async () => {
      fixture = await startHttpFixture(['--http'], 'tasks-2026.mjs');
      const def = http('t26h', fixture.url);
      const definitionKey = ephemeralKeyer();
      const key = definitionKey(def);
      let saved: unknown;
      const first = c = new Connection(def, { pingIntervalMs: 0, definitionKey, taskMemory: new TaskMemory(undefined, d => { saved = d; }) });
      await first.start();
      const waiting = await new Promise<TaskInfo>(resolve => { void first.callTool('wait', {}, { onTask: resolve }).catch(() => undefined); });
      const slow = await new Promise<TaskInfo>(resolve => { void first.callTool('slow', { ms: 4000 }, { onTask: resolve }).catch(() => undefined); });
      assert.equal(textOf(await first.callTool('echo', { text: 'plain' })), 'plain');
      // The window reloads: this connection goes, the server stays with its tasks.
      await first.dispose();
      c = undefined;
      const stored = JSON.parse(JSON.stringify(saved)) as Record<string, RememberedTask[]>;
      assert.deepEqual(Object.keys(stored), [key], 'kept under the definition key only');
      assert.deepEqual(stored[key].map(t => t.taskId).sort(), [waiting.taskId, slow.taskId].sort());
      assert.ok(stored[key].every(t => t.generation === 'v2' && t.ttl === 60_000), JSON.stringify(stored));
      // What the next window loads, with a task the server does not know (it forgot it).
      stored[key].push({ taskId: 'task-gone', tool: 'wait', generation: 'v2', startedAt: Date.now() });
      const memory = new TaskMemory(stored);
      const second = c = new Connection(def, { pingIntervalMs: 0, definitionKey, taskMemory: memory });
      const logs = collectLogs(second);
      await second.start();
      await until(() => second.tasks.some(t => t.taskId === waiting.taskId && t.status === 'working') && second.tasks.some(t => t.taskId === slow.taskId), 'both tasks listed again', 10_000);
      const again = second.tasks.find(t => t.taskId === waiting.taskId)!;
      assert.equal(again.tool, 'wait');
      assert.equal(again.startedAt, waiting.startedAt, 'its start is the original one');
      assert.equal(again.userStarted, false, 'its caller is gone: its end raises the one notice');
      assert.equal(textOf(await second.callTool('echo', { text: 'ok' })), 'ok', 'the bystander tool answers meanwhile');
      await until(() => second.tasks.find(t => t.taskId === slow.taskId)?.status === 'completed', 'the slow task completed', 15_000);
      assert.equal(textOf(await second.taskResult(slow.taskId)), 'slow done');
      await until(() => logs.filter(l => /task-gone .*from before the reload is dropped: the server no longer knows it/.test(l.message)).length === 1, 'one log line for the forgotten task', 10_000);
      assert.ok(!second.tasks.some(t => t.taskId === 'task-gone'));
      assert.deepEqual(memory.list(key).map(t => t.taskId), [waiting.taskId], 'the completed and the forgotten task are no longer kept');
      assert.equal((await stats(second)).cancels, 0, 'the reload cancelled nothing on the server');
      await second.cancelTask(waiting.taskId);
      assert.deepEqual(memory.list(key), []);
      assert.equal((await stats(second)).cancels, 1);
    });
  });
});
