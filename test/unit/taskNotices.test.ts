/**
 * H177: what the editor says about tasks outside the Servers view (src/mcp/tasks/taskNotices.ts): the status bar's
 * line for the running tasks, and ONE notice when a task a model or the user started ends ("Show Result" when it has one).
 * Hostile: a flood of status changes of one task, and 10,000 tasks of a server, next to a well-behaved bystander
 * task that still gets its one notice.
 */
import * as assert from 'node:assert/strict';
import { MAX_NOTICED_TASKS, TaskEndNotices, runningTasksLine } from '../../src/mcp/tasks/taskNotices';
import type { TaskInfo } from '../../src/mcp/tasks/tasks';

const task = (o: Partial<TaskInfo>): TaskInfo => ({
  server: 's', taskId: 't1', tool: 'slow_report', arguments: {}, status: 'working', startedAt: 1, updatedAt: 1, pollMs: 1000, hasResult: false, userStarted: false, ...o,
});

describe('tasks outside the Servers view: the status bar line and one notice at the end (H177)', () => {
  it('the status bar shows the newest running task\'s tool and status message, and how many more run', () => {
    assert.equal(runningTasksLine([task({ status: 'completed' })]), undefined);
    const line = runningTasksLine([
      task({ taskId: 'a', statusMessage: 'report: 1 of 3', updatedAt: 5 }),
      task({ taskId: 'b', tool: 'ask', status: 'input_required', updatedAt: 9 }),
      task({ taskId: 'c', status: 'failed', updatedAt: 20 }),
    ]);
    assert.equal(line?.text, '$(sync~spin) ask: needs your input (+1)');
    assert.match(line!.tooltip, /s › slow_report: report: 1 of 3/);
    assert.equal(runningTasksLine([task({ statusMessage: `long ${'x'.repeat(500)}\nsecond line` })])!.text.length < 80, true);
    // Hostile: a status message dressed up with the editor's icons stays text; the bystander's plain one is unchanged.
    assert.equal(runningTasksLine([task({ statusMessage: '$(error) sign-in expired $(lock)' })])!.text, '$(sync~spin) slow_report: \\$(error) sign-in expired \\$(lock)');
    assert.equal(runningTasksLine([task({ statusMessage: 'report: 2 of 3' })])!.text, '$(sync~spin) slow_report: report: 2 of 3');
  });

  it('H506: a task a model or the user (the palette) started that ends gives one notice ("Show Result" with a result); a restored one none', () => {
    const n = new TaskEndNotices();
    assert.equal(n.changed(task({})), undefined);
    assert.deepEqual(n.changed(task({ status: 'completed', hasResult: true })), { text: 'The task of slow_report on s has completed.', showResult: true });
    assert.equal(n.changed(task({ status: 'completed', hasResult: true })), undefined, 'never twice');
    n.changed(task({ taskId: 'f' }));
    assert.deepEqual(n.changed(task({ taskId: 'f', status: 'failed', error: 'task `f` … failed: boom' })), { text: 'The task of slow_report on s failed: task `f` … failed: boom', showResult: false });
    n.changed(task({ taskId: 'u', userStarted: true }));
    assert.deepEqual(n.changed(task({ taskId: 'u', userStarted: true, status: 'completed', hasResult: true })), { text: 'The task of slow_report on s has completed.', showResult: true }, 'the palette\'s own task (issue 36)');
    assert.equal(n.changed(task({ taskId: 'u', userStarted: true, status: 'completed', hasResult: true })), undefined, 'never twice');
    assert.equal(n.changed(task({ taskId: 'old', status: 'completed', hasResult: true })), undefined, 'never seen running: no notice');
  });

  it('hostile: a flood of 10,000 status changes gives one notice; 10,000 tasks stay bounded; the bystander still gets its one', () => {
    const n = new TaskEndNotices();
    n.changed(task({ server: 'calm', taskId: 'bystander' }));
    let notices = 0;
    for (let i = 0; i < 10_000; i++) if (n.changed(task({ server: 'bad', taskId: 'flood', statusMessage: `step ${i}` }))) notices++;
    if (n.changed(task({ server: 'bad', taskId: 'flood', status: 'completed', hasResult: true }))) notices++;
    for (let i = 0; i < 10; i++) if (n.changed(task({ server: 'bad', taskId: 'flood', status: 'completed', hasResult: true }))) notices++;
    assert.equal(notices, 1);
    for (let i = 0; i < 10_000; i++) n.changed(task({ server: 'bad', taskId: `many-${i}` }));
    const sets = Object.values(n as unknown as Record<string, Set<string>>);
    for (const s of sets) assert.ok(s.size <= MAX_NOTICED_TASKS, `${s.size} remembered`);
    // The bystander was pushed out of memory by the flood of tasks: it gives no notice rather than a wrong one, and a
    // bystander that starts after the flood gets its one.
    n.changed(task({ server: 'calm', taskId: 'after' }));
    assert.ok(n.changed(task({ server: 'calm', taskId: 'after', status: 'completed', hasResult: true }))?.showResult);
  });
});
