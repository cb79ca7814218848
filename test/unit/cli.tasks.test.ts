/**
 * `mcp-host call` of tools that run as MCP tasks, on the production dist/cli.js: server-everything's
 * `simulate-research-query` (status lines on stderr, the report on stdout), the tasks fixture for --task /
 * --no-task and for Ctrl+C, which must reach the server as tasks/cancel before the server is stopped.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { interruptTaskCall, useShippedCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/tasks.mjs');

describe('mcp-host call: tools that run as tasks (dist/cli.js)', function () {
  this.timeout(120_000);
  let record: string;
  const ws = useShippedCli('mcp-host-cli-tasks-', ({ dir, serverCwd }) => {
    record = path.join(dir, 'record.txt');
    return {
      everything: { type: 'stdio', command: path.join(ROOT, 'node_modules/.bin/mcp-server-everything'), args: ['stdio'], cwd: serverCwd },
      fx: { type: 'stdio', command: process.execPath, args: [FIXTURE, '--notify', '--record', record], cwd: serverCwd },
    };
  });
  const cli = (args: string[]) => ws.run(args);

  it('waits for simulate-research-query, prints its status lines to stderr and the report to stdout', async () => {
    const r = await cli(['call', 'everything', 'simulate-research-query', '--args', '{"topic":"tides"}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /Research Report: tides/);
    assert.doesNotMatch(r.stdout, /mcp-host: task/);
    assert.match(r.stderr, /mcp-host: task \S+ \(simulate-research-query\): working — Gathering sources\.\.\./);
    assert.match(r.stderr, /mcp-host: task \S+ \(simulate-research-query\): completed/);
  });

  it('--json prints the task\'s CallToolResult like a plain call', async () => {
    const r = await cli(['call', 'fx', 'finish', '--args', '{"ms":100,"text":"all done"}', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).content, [{ type: 'text', text: 'all done' }]);
  });

  it('--task runs an optional tool as a task, --no-task (and the default) as a plain call', async () => {
    const task = await cli(['call', 'fx', 'optional', '--task']);
    assert.equal(task.code, 0, task.stdout + task.stderr);
    assert.match(task.stdout, /^task$/m);
    assert.match(task.stderr, /mcp-host: task task-\d+ \(optional\)/);
    const plain = await cli(['call', 'fx', 'optional', '--no-task']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^plain$/m);
    assert.doesNotMatch(plain.stderr, /mcp-host: task/);
    assert.match((await cli(['call', 'fx', 'optional'])).stdout, /^plain$/m);
  });

  it('says why a tool cannot run as asked (exit 1) and contradicting flags are a usage error (exit 2)', async () => {
    const forbidden = await cli(['call', 'fx', 'plain', '--task']);
    assert.equal(forbidden.code, 1, forbidden.stderr);
    assert.match(forbidden.stderr, /tool `plain` on server `fx` cannot run as a task/);
    const required = await cli(['call', 'fx', 'finish', '--no-task']);
    assert.equal(required.code, 1, required.stderr);
    assert.match(required.stderr, /tool `finish` on server `fx` must run as a task/);
    const both = await cli(['call', 'fx', 'finish', '--task', '--no-task']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--task and --no-task contradict each other/);
  });

  it('a failed task exits 1 with the server\'s error', async () => {
    const r = await cli(['call', 'fx', 'fail']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /task `task-\d+` of tool `fail` on server `fx` failed: .*the job broke/);
  });

  it('Ctrl+C cancels the running task on the server (tasks/cancel) before stopping it', async () => {
    fs.rmSync(record, { force: true });
    const r = await interruptTaskCall(ws.cli, 'fx', 'never', { cwd: ws.dir, config: ws.config });
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /cancelling task task-\d+ \(never\) on server "fx"/);
    assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-\d+$/m);
  });
});
