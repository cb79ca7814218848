/**
 * Tasks through the host's own Connection (the wiring of tasks.ts): `callTool` decides task vs plain,
 * the task's elicitation goes through the connection's elicitation callback, `tasks` / `onDidChangeTasks` /
 * `cancelTask` / `taskResult` on the handle, and a stop ends the running tasks.
 */
import * as assert from 'node:assert/strict';
import { Connection } from '../../src/mcp/server/connection';
import type { TaskInfo } from '../../src/mcp/tasks/tasks';
import { FAST_STOP, http, nodeFixture, startEverythingHttp, type RunningServer } from '../support/connection';
import { textOf } from '../support/wait';


describe('tasks through the Connection', function () {
  this.timeout(30_000);
  let c: Connection | undefined;
  afterEach(async () => { await c?.dispose(); c = undefined; });

  it('runs a required tool as a task, answering its input_required round through the elicitation callback', async () => {
    const asked: unknown[] = [];
    c = new Connection(nodeFixture('fx', 'tasks', ['--notify']), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
      features: { elicit: async (server, req) => { asked.push({ server, req }); return { action: 'accept', content: { colour: 'teal' } }; } },
    });
    await c.start();
    const seen: TaskInfo[] = [];
    c.onDidChangeTasks(t => seen.push(t));
    const updates: TaskInfo[] = [];
    const r = await c.callTool('elicit', {}, { onTask: t => updates.push(t), userStarted: true });
    assert.match(textOf(r), /answer: .*"colour":"teal"/);
    assert.equal(asked.length, 1);
    assert.equal((asked[0] as { server: string }).server, 'fx');
    assert.ok(updates.some(t => t.status === 'input_required'));
    assert.equal(c.tasks[0].status, 'completed');
    assert.equal(c.tasks[0].userStarted, true);
    assert.ok(seen.length >= 2);
    assert.match(textOf(await c.taskResult(c.tasks[0].taskId)), /teal/);
  });

  it('H140: a task\'s progress (notifications/progress for the call\'s token) reaches the task and the call\'s onProgress', async () => {
    c = new Connection(nodeFixture('fx', 'tasks'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    const progress: number[] = [];
    const r = await c.callTool('progress', { steps: 4, ms: 300 }, { onProgress: p => progress.push(p.progress) });
    assert.equal(textOf(r), 'progress done');
    assert.deepEqual(c.tasks[0].progress, { progress: 4, total: 4, message: 'step 4 of 4' });
    assert.ok(progress.includes(4), progress.join(','));
    assert.equal(textOf(await c.callTool('plain', {})), 'plain');
  });

  it('plain tools stay plain; an optional tool runs as a task when asked', async () => {
    c = new Connection(nodeFixture('fx', 'tasks', ['--notify']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    assert.equal(textOf(await c.callTool('plain', {})), 'plain');
    assert.equal(textOf(await c.callTool('optional', { ms: 10 })), 'plain');
    assert.equal(textOf(await c.callTool('optional', { ms: 10 }, { task: 'task' })), 'task');
    assert.equal(c.tasks.length, 1);
  });

  it('cancelTask cancels a running task; stop ends the others and empties the list', async () => {
    c = new Connection(nodeFixture('fx', 'tasks'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    const conn = c;
    const created = new Promise<TaskInfo>(resolve => { void conn.callTool('never', {}, { onTask: resolve }).catch(() => undefined); });
    const first = await created;
    await c.cancelTask(first.taskId);
    assert.equal(c.tasks.find(t => t.taskId === first.taskId)?.status, 'cancelled');
    let id = '';
    const second = c.callTool('never', {}, { onTask: t => { id = t.taskId; } }).then(() => 'resolved', (e: Error) => e.message);
    while (!id) await new Promise(r => setTimeout(r, 20));
    await c.stop();
    assert.match(await second, /server `fx` stopped while task `task-2` of tool `never` was running/);
    assert.deepEqual(c.tasks, []);
  });

  it('a required tool on a server without the tasks capability fails with a message naming the capability', async () => {
    c = new Connection(nodeFixture('fx', 'tasks', ['--no-task-cap']), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    await assert.rejects(c.callTool('finish', {}), /tool `finish` on server `fx` must run as a task, but the server does not declare task tool calls/);
  });

  it('a server that requires the 2026-07-28 Tasks extension (-32021) gets a message naming it', async () => {
    c = new Connection(nodeFixture('fx', 'tasks'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    await assert.rejects(c.callTool('needs_ext', {}), /tool `needs_ext` on server `fx` only runs as a task of the `io.modelcontextprotocol\/tasks` extension/);
  });

  describe('over Streamable HTTP (server-everything)', () => {
    let server: RunningServer | undefined;
    afterEach(async () => { await server?.stop(); server = undefined; });

    it('simulate-research-query with its elicitation round', async () => {
      server = await startEverythingHttp('streamableHttp');
      const asked: unknown[] = [];
      c = new Connection(http('everything', server.url), {
        pingIntervalMs: 0,
        features: { elicit: async (_s, req) => { asked.push(req); return { action: 'accept', content: { interpretation: 'comedy' } }; } },
      });
      await c.start();
      const statuses: string[] = [];
      const r = await c.callTool('simulate-research-query', { topic: 'python', ambiguous: true }, { onTask: t => statuses.push(t.status) });
      assert.match(textOf(r), /Research Report: python \(comedy\)/);
      assert.equal(asked.length, 1);
      assert.ok(statuses.includes('input_required'), statuses.join(','));
    });
  });
});
