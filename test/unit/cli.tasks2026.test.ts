/**
 * `mcp-host call` of tools that run as tasks of the 2026-07-28 Tasks extension (H129), on the production
 * dist/cli.js against the raw 2026-07-28 Tasks fixture: status lines on stderr and the result on stdout as
 * for 2025-11-25 tasks, a hostile task bounded with a message naming the server, and Ctrl+C reaching the
 * server as tasks/cancel before the server is stopped; a plain tool of the same server is the bystander.
 * H176: the fixture is server-directed (SEP-2663: no taskSupport): a call with no flag follows a task to its
 * result, --elicit answers its mid-task input, and the hostile tasks (never ending, a flood, a 10,000-character id,
 * forgotten) end with clear messages next to a well-behaved bystander server.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { interruptTaskCall, useShippedCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/tasks-2026.mjs');

describe('mcp-host call: tasks on 2026-07-28 (dist/cli.js)', function () {
  this.timeout(120_000);
  let record: string;
  const ws = useShippedCli('mcp-host-cli-tasks2026-', ({ dir, serverCwd }) => {
    record = path.join(dir, 'record.txt');
    return {
      t26: { type: 'stdio', command: process.execPath, args: [FIXTURE, '--record', record, '--ttl-ms', '1500'], cwd: serverCwd },
      // The bystander: a well-behaved server of the same kind, in the same run.
      calm: { type: 'stdio', command: process.execPath, args: [FIXTURE], cwd: serverCwd },
    };
  });
  const cli = (args: string[]) => ws.run(args);

  it('waits for the task, prints its status lines to stderr and the result to stdout; a plain tool stays plain', async () => {
    const r = await cli(['call', 't26', 'slow', '--args', '{"ms":400}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^slow done$/m);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(slow\): working/);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(slow\): completed/);
    const plain = await cli(['call', 't26', 'echo', '--args', '{"text":"plain"}']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^plain$/m);
    assert.doesNotMatch(plain.stderr, /mcp-host: task/);
  });

  it('H176: a tool the server answers with a task (no taskSupport, no flag) prints its result; --task changes nothing, --no-task says it is for 2025-11-25 only', async () => {
    const r = await cli(['call', 't26', 'slow_report', '--args', '{"ms":600}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^report ready$/m);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(slow_report\): working/);
    assert.doesNotMatch(r.stderr, /--task|Call Tool as Task|taskSupport/, 'no advice to use a flag');
    const flagged = await cli(['call', 't26', 'slow_report', '--args', '{"ms":200}', '--task']);
    assert.equal(flagged.code, 0, flagged.stdout + flagged.stderr);
    assert.match(flagged.stdout, /^report ready$/m);
    const noTask = await cli(['call', 't26', 'slow_report', '--no-task']);
    assert.equal(noTask.code, 1, noTask.stdout + noTask.stderr);
    assert.match(noTask.stderr, /--no-task applies to protocol 2025-11-25 servers only; on protocol 2026-07-28 the server decides per call whether it answers with a task .*so call it without --no-task/);
    // The same tool answered at once by the server's own decision (a short run): a plain result, no task line.
    const quick = await cli(['call', 't26', 'slow', '--args', '{"ms":10}']);
    assert.equal(quick.code, 0, quick.stderr);
    assert.match(quick.stdout, /^slow done$/m);
    assert.doesNotMatch(quick.stderr, /mcp-host: task/);
  });

  it('H176: --elicit answers the input a task asks for mid-task (tasks/update)', async () => {
    const r = await cli(['call', 't26', 'ask', '--args', '{"question":"Colour?"}', '--elicit', '{"answer":"teal"}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^answer: teal$/m);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(ask\): input required — waiting for an answer/);
  });

  it('H176 hostile: a task that never ends (ttl unlimited) is bounded by --timeout with a clear message, and tasks/cancel is sent; the bystander answers in the same run', async () => {
    fs.rmSync(record, { force: true });
    const r = await cli(['call', 't26', 'hostile_never', '--timeout', '2000']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /server "t26": the task of tool "hostile_never" did not end within --timeout 2000 ms, so it was cancelled \(tasks\/cancel\); give a larger --timeout, or none to wait until the task ends/);
    assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-\d+$/m);
    const calm = await cli(['call', 'calm', 'slow_report', '--args', '{"ms":200}', '--timeout', '20000']);
    assert.equal(calm.code, 0, calm.stdout + calm.stderr);
    assert.match(calm.stdout, /^report ready$/m);
  });

  it('H176 hostile: a flood of status notifications, a task id of 10,000 characters and a task the server forgets each end with a message naming the server', async () => {
    const flood = await cli(['call', 't26', 'hostile_flood', '--args', '{"n":5000}']);
    assert.equal(flood.code, 0, flood.stdout + flood.stderr);
    assert.match(flood.stdout, /^flood done after 5000$/m);
    const lines = flood.stderr.split('\n').filter(l => l.includes('(hostile_flood)'));
    assert.ok(lines.length < 60, `${lines.length} status lines for 5000 notifications`);
    const longId = await cli(['call', 't26', 'hostile_long_id']);
    assert.equal(longId.code, 1, longId.stdout + longId.stderr);
    assert.match(longId.stderr, /server `t26` answered the task call of tool `hostile_long_id` with a bad task: the task id is 10000 characters long \(at most 256\)/);
    assert.ok(longId.stderr.length < 4000, 'the 10,000-character id is not printed');
    const forget = await cli(['call', 't26', 'hostile_forget']);
    assert.equal(forget.code, 1, forget.stdout + forget.stderr);
    assert.match(forget.stderr, /task `task-\d+` of tool `hostile_forget` on server `t26` failed/);
    const calm = await cli(['call', 'calm', 'echo', '--args', '{"text":"calm"}']);
    assert.equal(calm.code, 0, calm.stderr);
    assert.match(calm.stdout, /^calm$/m);
  });

  it('H140: the waiting line shows a 2026-07-28 task\'s progress; a flood of 10,000 progress notifications stays a few lines', async () => {
    const r = await cli(['call', 't26', 'progress', '--args', '{"steps":4,"ms":300}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^progress done$/m);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(progress\): working 50%/);
    assert.match(r.stderr, /mcp-host: task task-\d+ \(progress\): completed 100% — step 4 of 4/);
    const flood = await cli(['call', 't26', 'hostile_progress_flood', '--args', '{"n":10000}']);
    assert.equal(flood.code, 0, flood.stdout + flood.stderr);
    assert.match(flood.stdout, /^progress flood done after 10000$/m);
    const lines = flood.stderr.split('\n').filter(l => l.includes('(hostile_progress_flood)'));
    assert.ok(lines.length < 50, `${lines.length} status lines`);
  });

  it('a task working forever ends after its ttl, exit 1 with a message naming the server', async () => {
    const r = await cli(['call', 't26', 'hostile_endless']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /task `task-\d+` of tool `hostile_endless` on server `t26` did not finish within its ttl/);
  });

  it('Ctrl+C cancels the running task on the server (tasks/cancel) before stopping it', async () => {
    fs.rmSync(record, { force: true });
    const r = await interruptTaskCall(ws.cli, 't26', 'wait', { cwd: ws.dir, config: ws.config });
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /cancelling task task-\d+ \(wait\) on server "t26"/);
    assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-\d+$/m);
  });
});
