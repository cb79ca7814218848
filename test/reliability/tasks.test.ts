/**
 * Reliability: servers whose tasks misbehave (the tasks fixture through the real host, next to a bystander):
 * a flood of status notifications for tasks that do not exist, a task that never ends and has no ttl, and
 * more task calls than `maxTasksPerServer`. Nothing grows without bound, the user can always cancel, a stop
 * ends every task, and nothing is left running.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TaskInfo } from '../../src/mcp/tasks/tasks';
import { marked, startHost, textOf, tmpDirPerTest, type TestHost } from './helpers';

describe('Reliability: tasks that misbehave', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-reliability-tasks-', async () => { await t?.close(); t = undefined; });

  it('10,000 status notifications for unknown tasks change nothing; the real task completes', async () => {
    t = await startHost([marked('fx', 'tasks', ['--notify'])]);
    const events: TaskInfo[] = [];
    t.host.onDidChangeTasks(e => events.push(e));
    const r = await t.get('fx').callTool('flood', { n: 10_000 });
    assert.equal(textOf(r), 'flood done');
    assert.equal(t.get('fx').tasks.length, 1);
    assert.ok(events.every(e => e.taskId === 'task-1'), 'no event for a task the host did not start');
    assert.ok(events.length < 20, `${events.length} events`);
    await t.assertBystanderUndisturbed();
  });

  it('a task that never ends (ttl null) is polled at its bounded interval and ends when the caller cancels', async () => {
    const record = path.join(scratch.dir, 'rec');
    t = await startHost([marked('fx', 'tasks', ['--poll', '0', '--record', record])]);
    const ac = new AbortController();
    let started = 0;
    const call = t.get('fx').callTool('forever', {}, { signal: ac.signal, onTask: () => { started ||= Date.now(); } }).then(() => 'resolved', (e: Error) => e.message);
    while (!started) await new Promise(r => setTimeout(r, 20));
    await new Promise(r => setTimeout(r, 1500));
    const polls = fs.readFileSync(record, 'utf8').split('\n').filter(l => l.startsWith('tasks/get')).length;
    assert.ok(polls >= 1 && polls <= Math.ceil((Date.now() - started) / 250) + 1, `${polls} polls`);
    ac.abort();
    assert.match(await call, /task `task-1` of tool `forever` on server `fx` was cancelled/);
    await new Promise(r => setTimeout(r, 300));
    assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-1$/m);
    await t.assertBystanderUndisturbed();
  });

  it('more task calls than maxTasksPerServer are refused naming the setting; a stop ends the running ones', async () => {
    t = await startHost([marked('fx', 'tasks')], { limits: { maxTasksPerServer: 3 } });
    const fx = t.get('fx');
    const calls = [0, 1, 2].map(() => fx.callTool('never', {}).then(() => 'resolved', (e: Error) => e.message));
    while (fx.tasks.length < 3) await new Promise(r => setTimeout(r, 20));
    await assert.rejects(fx.callTool('never', {}), /server `fx` has too many running tasks: over the limit of 3 tasks per server \(raise it with the setting `mcpHost.limits.maxTasksPerServer`\)/);
    await fx.stop();
    for (const m of await Promise.all(calls)) assert.match(m, /server `fx` stopped while task `task-\d` of tool `never` was running/);
    assert.deepEqual(fx.tasks, []);
    await t.assertBystanderUndisturbed();
  });
});
