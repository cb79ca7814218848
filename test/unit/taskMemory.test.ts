/**
 * The running tasks kept across a window reload (issue 36, src/mcp/tasks/taskMemory.ts): bounded per definition by
 * the server's maxTasksPerServer and in definitions, a task id longer than TASK_BOUNDS.maxTaskIdChars is not kept
 * (and `remember` says why), a task whose ttl passed is dropped on load and on read, anything malformed in what was
 * stored is dropped; a well-behaved task beside each bad one is kept.
 */
import * as assert from 'node:assert/strict';
import { MAX_TASK_MEMORY_KEYS, TaskMemory, bindTaskMemory, type RememberedTask } from '../../src/mcp/tasks/taskMemory';
import { TASK_BOUNDS } from '../../src/mcp/tasks/taskPolicy';

const KEY = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const task = (taskId: string, extra: Partial<RememberedTask> = {}): RememberedTask => ({ taskId, tool: 'slow', generation: 'v2', startedAt: 1_000, ...extra });

describe('the running tasks kept across a reload (TaskMemory)', () => {
  it('H391: keeps a running task per definition key, saves it as plain JSON, and forgets it when it ends', () => {
    let saved: unknown;
    const m = new TaskMemory(undefined, d => { saved = d; }, () => 2_000);
    assert.equal(m.remember(KEY, task('t-1', { ttl: 60_000 }), 32), undefined);
    assert.equal(m.remember(OTHER, task('t-9'), 32), undefined);
    assert.deepEqual(m.list(KEY), [task('t-1', { ttl: 60_000 })]);
    // What a reload loads: the same tasks.
    const again = new TaskMemory(JSON.parse(JSON.stringify(saved)), () => undefined, () => 3_000);
    assert.deepEqual(again.list(KEY).map(t => t.taskId), ['t-1']);
    assert.deepEqual(again.list(OTHER).map(t => t.taskId), ['t-9']);
    m.forget(KEY, 't-1');
    assert.deepEqual(m.list(KEY), []);
    assert.deepEqual(saved, { [OTHER]: [task('t-9')] });
    m.forget(OTHER, 't-9');
    assert.equal(saved, undefined, 'nothing left: the state entry is removed');
  });

  it('H391: at most maxTasksPerServer tasks per definition; the same task again replaces itself (its ttl learned later)', () => {
    const m = new TaskMemory(undefined, () => undefined, () => 2_000);
    for (let i = 0; i < 3; i++) assert.equal(m.remember(KEY, task(`t-${i}`), 3), undefined);
    assert.match(m.remember(KEY, task('t-3'), 3) ?? '', /3 tasks of this server are kept already \(mcpHost\.limits\.maxTasksPerServer\)/);
    assert.equal(m.remember(KEY, task('t-1', { ttl: 5_000 }), 3), undefined);
    assert.deepEqual(m.list(KEY).map(t => [t.taskId, t.ttl]), [['t-0', undefined], ['t-2', undefined], ['t-1', 5_000]]);
    // The bystander definition is not affected by the full one.
    assert.equal(m.remember(OTHER, task('t-0'), 3), undefined);
  });

  it(`H391: a task id longer than ${TASK_BOUNDS.maxTaskIdChars} characters (10,000) is not kept, saying why; the one beside it is`, () => {
    let saves = 0;
    const m = new TaskMemory(undefined, () => { saves++; }, () => 2_000);
    assert.equal(m.remember(KEY, task('x'.repeat(10_000)), 32), `its task id is 10000 characters long (at most ${TASK_BOUNDS.maxTaskIdChars} are kept)`);
    assert.equal(saves, 0);
    assert.equal(m.remember(KEY, task('x'.repeat(TASK_BOUNDS.maxTaskIdChars)), 32), undefined);
    assert.equal(m.list(KEY).length, 1);
    assert.match(m.remember('not-a-key', task('t-1'), 32) ?? '', /no definition key/);
  });

  it('H391: a task whose ttl passed is dropped on read and on load; one without a ttl and one still in it stay', () => {
    let now = 2_000;
    const m = new TaskMemory(undefined, () => undefined, () => now);
    m.remember(KEY, task('short', { ttl: 5_000 }), 32);
    m.remember(KEY, task('long', { ttl: 600_000 }), 32);
    m.remember(KEY, task('none', { ttl: null }), 32);
    now = 10_000;
    assert.deepEqual(m.list(KEY).map(t => t.taskId), ['long', 'none']);
    const loaded = new TaskMemory({ [KEY]: [task('short', { ttl: 5_000 }), task('long', { ttl: 600_000 })] }, () => undefined, () => 10_000);
    assert.deepEqual(loaded.list(KEY).map(t => t.taskId), ['long']);
  });

  it('H391: malformed stored state is dropped entry by entry; the well-formed task beside it is kept', () => {
    const stored = {
      [KEY]: [
        task('good'),
        { ...task('bad-gen'), generation: 'v3' },
        { ...task('bad-start'), startedAt: 'yesterday' },
        { ...task(''), taskId: '' },
        { ...task('long-tool'), tool: 't'.repeat(10_000) },
        task('x'.repeat(10_000)),
        null, 7, 'text',
      ],
      'not-a-key': [task('nope')],
      [OTHER]: 'not a list',
    };
    const m = new TaskMemory(stored, () => undefined, () => 2_000);
    assert.deepEqual(m.list(KEY).map(t => t.taskId), ['good']);
    assert.deepEqual(m.toJSON(), { [KEY]: [task('good')] });
    assert.deepEqual(new TaskMemory('garbage').toJSON(), {});
    assert.deepEqual(new TaskMemory([1, 2]).toJSON(), {});
  });

  it(`H391: at most ${MAX_TASK_MEMORY_KEYS} definitions are kept (the oldest go first); a re-keying keeps only mapped keys`, () => {
    const m = new TaskMemory(undefined, () => undefined, () => 2_000);
    const keys = Array.from({ length: MAX_TASK_MEMORY_KEYS + 5 }, (_, i) => i.toString(16).padStart(64, '0'));
    for (const k of keys) m.remember(k, task('t'), 32);
    assert.equal(Object.keys(m.toJSON()).length, MAX_TASK_MEMORY_KEYS);
    assert.deepEqual(m.list(keys[0]), []);
    assert.equal(m.list(keys[keys.length - 1]).length, 1);
    m.rekey(new Map([[keys[keys.length - 1], KEY]]));
    assert.deepEqual(Object.keys(m.toJSON()), [KEY]);
  });

  it('H391: bound to one definition, the limit is read at each remember (a lowered setting applies)', () => {
    const m = new TaskMemory(undefined, () => undefined, () => 2_000);
    let max = 2;
    const bound = bindTaskMemory(m, KEY, () => max);
    assert.equal(bound.remember(task('t-1')), undefined);
    max = 1;
    assert.match(bound.remember(task('t-2')) ?? '', /1 tasks of this server are kept already/);
    bound.forget('t-1');
    assert.deepEqual(bound.list(), []);
  });
});
