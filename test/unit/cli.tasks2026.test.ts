/**
 * `mcp-host call` of tools that run as tasks of the 2026-07-28 Tasks extension (H129), on the production
 * dist/cli.js against the raw 2026-07-28 Tasks fixture: status lines on stderr and the result on stdout as
 * for 2025-11-25 tasks, a hostile task bounded with a message naming the server, and Ctrl+C reaching the
 * server as tasks/cancel before the server is stopped; a plain tool of the same server is the bystander.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shippedCliCopy } from '../support/shipped';
import { assertNoProcessesIn, finishCli, runCli, startCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/tasks-2026.mjs');

describe('mcp-host call: tasks on 2026-07-28 (dist/cli.js)', function () {
  this.timeout(120_000);
  let copy: ReturnType<typeof shippedCliCopy>;
  let serverCwd: string;
  let config: string;
  let record: string;

  before(() => {
    copy = shippedCliCopy('mcp-host-cli-tasks2026-');
    serverCwd = path.join(copy.dir, 'servers');
    fs.mkdirSync(serverCwd);
    record = path.join(copy.dir, 'record.txt');
    config = path.join(copy.dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({
      servers: { t26: { type: 'stdio', command: process.execPath, args: [FIXTURE, '--record', record, '--ttl-ms', '1500'], cwd: serverCwd } },
    }));
  });
  afterEach(async () => { await assertNoProcessesIn(serverCwd); });
  after(() => copy.dispose());

  const cli = (args: string[]) => runCli(copy.cli, [...args, '--config', config], { cwd: copy.dir });

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
    const child = startCli(copy.cli, ['call', 't26', 'wait', '--config', config], { cwd: copy.dir });
    let stderr = '';
    child.stderr!.on('data', d => { stderr += d; });
    for (const end = Date.now() + 30_000; !/mcp-host: task task-\d+ \(wait\): working/.test(stderr) && Date.now() < end;) await new Promise(r => setTimeout(r, 50));
    child.kill('SIGINT');
    const r = await finishCli(child);
    assert.equal(r.code, 130, stderr + r.stderr);
    assert.match(stderr + r.stderr, /cancelling task task-\d+ \(wait\) on server "t26"/);
    assert.match(fs.readFileSync(record, 'utf8'), /^tasks\/cancel task-\d+$/m);
  });
});
