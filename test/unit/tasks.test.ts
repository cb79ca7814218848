/**
 * The 2025-11-25 task tracker (an ExtTaskTracker on an ext-tasks session, src/mcp/tasks/extTaskTracker.ts) against
 * real servers: server-everything's `simulate-research-query` (2025-11-25 tasks, with and without its
 * elicitation round) and the tasks fixture for what a reference server does not do on demand (failures,
 * cancellation, ttl, hostile answers).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redactor } from '../../src/mcp/logging/redact';
import { TASK_BOUNDS, offeredAsTask, pollDelay, runAsTask, serverDeclaresTasksExtension, LongRunningTools, LONG_RUNNING_MS, type TaskInfo, type TaskDecisionInput } from '../../src/mcp/tasks/tasks';
import { McpHostError } from '../../src/mcp/errors';
import type { ExtTaskTracker } from '../../src/mcp/tasks/extTaskTracker';
import { ROOT, fixture } from '../support/connection';
import { connectTasks, type TaskTestClient } from '../support/tasks';
import { textOf } from '../support/wait';

const everything = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const SECRET = 'sk-test-SECRET-9f8e7d';

async function tracker(c: TaskTestClient, server: string, maxTasks = 32): Promise<{ t: ExtTaskTracker; seen: TaskInfo[]; logs: string[] }> {
  const seen: TaskInfo[] = [];
  const logs: string[] = [];
  const t = await c.tracker({ server, redactor: new Redactor([SECRET]), maxTasks, log: (_l, m) => logs.push(m) });
  t.onDidChange(i => seen.push(i));
  return { t, seen, logs };
}


describe('tasks: server-everything simulate-research-query', function () {
  this.timeout(60_000);
  let c: TaskTestClient | undefined;
  afterEach(async () => { await c?.close(); c = undefined; });

  it('runs the required-task tool to its result, with each stage as a status message', async () => {
    c = await connectTasks(process.execPath, [everything, 'stdio']);
    const tools = await c.client.listTools();
    const tool = tools.tools.find(x => x.name === 'simulate-research-query');
    assert.equal((tool as { execution?: { taskSupport?: string } }).execution?.taskSupport, 'required');
    assert.equal(runAsTask({ server: 'everything', tool: 'simulate-research-query', taskSupport: 'required', capabilities: c.capabilities, protocolVersion: c.protocolVersion, mode: 'auto', longRunning: false }), true);
    const { t, seen } = await tracker(c, 'everything');
    let created: TaskInfo | undefined;
    const result = await t.callTool('simulate-research-query', { topic: 'tides', ambiguous: false }, { onCreated: i => { created = i; }, userStarted: true });
    assert.match(textOf(result), /Research Report: tides/);
    assert.ok(created && created.taskId.length > 0);
    const messages = new Set(seen.map(i => i.statusMessage));
    assert.ok(messages.has('Gathering sources...'), [...messages].join(' | '));
    const final = t.get(created.taskId)!;
    assert.equal(final.status, 'completed');
    assert.equal(final.hasResult, true);
    assert.equal(final.userStarted, true);
    assert.equal(final.pollMs, 1000);
    assert.deepEqual(await t.result(created.taskId), result);
    t.dispose();
  });

  it('answers the input_required round through the elicitation callback and gets the clarified report', async () => {
    c = await connectTasks(process.execPath, [everything, 'stdio'], () => ({ action: 'accept', content: { interpretation: 'snake' } }));
    const { t, seen } = await tracker(c, 'everything');
    const result = await t.callTool('simulate-research-query', { topic: 'python', ambiguous: true });
    assert.match(textOf(result), /Research Report: python \(snake\)/);
    assert.ok(seen.some(i => i.status === 'input_required'), 'the task went through input_required');
    assert.equal(c.elicitations.length, 1);
    const meta = (c.elicitations[0] as { _meta?: Record<string, { taskId?: string }> })._meta;
    assert.equal(meta?.['io.modelcontextprotocol/related-task']?.taskId, seen[0].taskId);
    t.dispose();
  });
});

describe('tasks: the fixture (failures, cancellation, ttl, hostile answers)', function () {
  this.timeout(30_000);
  let c: TaskTestClient | undefined;
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tasks-')); });
  afterEach(async () => { await c?.close(); c = undefined; fs.rmSync(dir, { recursive: true, force: true }); });
  const start = async (...args: string[]) => { c = await connectTasks(process.execPath, [fixture('tasks'), ...args]); return c; };
  const recorded = (): string[] => fs.existsSync(path.join(dir, 'rec')) ? fs.readFileSync(path.join(dir, 'rec'), 'utf8').trim().split('\n') : [];

  it('a failed task rejects with the server\'s error and shows as failed', async () => {
    const { t } = await tracker(await start(), 'fx');
    await assert.rejects(t.callTool('fail', {}), (e: Error) => e instanceof McpHostError && /server `fx` failed: .*the job broke/.test(e.message));
    const info = t.tasks[0];
    assert.equal(info.status, 'failed');
    assert.equal(info.hasResult, false);
    assert.match(info.error ?? '', /the job broke/);
  });

  it('cancel sends tasks/cancel, stops polling and rejects the waiter', async () => {
    const { t } = await tracker(await start('--record', path.join(dir, 'rec')), 'fx');
    let id = '';
    const call = t.callTool('never', {}, { onCreated: i => { id = i.taskId; void t.cancel(i.taskId); } });
    await assert.rejects(call, /task `task-1` of tool `never` on server `fx` was cancelled/);
    assert.equal(t.get(id)?.status, 'cancelled');
    await new Promise(r => setTimeout(r, 400));
    assert.ok(recorded().includes('tasks/cancel task-1'), recorded().join(','));
    const polls = recorded().filter(l => l.startsWith('tasks/get')).length;
    await new Promise(r => setTimeout(r, 600));
    assert.equal(recorded().filter(l => l.startsWith('tasks/get')).length, polls, 'no polling after cancel');
  });

  it('aborting the call cancels its task', async () => {
    const { t } = await tracker(await start('--record', path.join(dir, 'rec')), 'fx');
    const ac = new AbortController();
    const call = t.callTool('never', {}, { signal: ac.signal, onCreated: () => ac.abort() });
    await assert.rejects(call, /was cancelled/);
    await new Promise(r => setTimeout(r, 300));
    assert.ok(recorded().includes('tasks/cancel task-1'));
  });

  it('a task the server cancels ends as cancelled', async () => {
    const { t } = await tracker(await start('--notify'), 'fx');
    await assert.rejects(t.callTool('selfcancel', {}), /server `fx` cancelled task `task-1` of tool `selfcancel`: the server gave up/);
  });

  it('a task past its ttl ends with a message naming the ttl or the expiry', async () => {
    const { t } = await tracker(await start(), 'fx');
    await assert.rejects(t.callTool('expire', { ttl: 400 }), /did not finish within its ttl|no longer knows task/);
    assert.equal(t.tasks[0].status, 'failed');
  });

  for (const poll of ['0', '-5', '"abc"', 'null']) {
    it(`a bogus pollInterval (${poll}) polls at the bounded default, not in a loop`, async () => {
      assert.equal(pollDelay(JSON.parse(poll)), TASK_BOUNDS.defaultPollMs);
      const { t } = await tracker(await start('--poll', poll, '--record', path.join(dir, 'rec')), 'fx');
      const r = await t.callTool('finish', { ms: 1500 });
      assert.equal(textOf(r), 'done');
      assert.ok(recorded().filter(l => l.startsWith('tasks/get')).length <= 4, recorded().join(','));
    });
  }

  it('a year-long pollInterval is bounded, and status notifications finish the task without waiting for it', async () => {
    assert.equal(pollDelay(365 * 24 * 3600 * 1000), TASK_BOUNDS.maxPollMs);
    assert.equal(pollDelay(1), TASK_BOUNDS.minPollMs);
    const { t } = await tracker(await start('--poll', '31536000000', '--notify'), 'fx');
    assert.equal(textOf(await t.callTool('finish', { ms: 200 })), 'done');
  });

  it('keeps status messages bounded and redacted', async () => {
    const { t, seen } = await tracker(await start('--notify'), 'fx');
    assert.equal(textOf(await t.callTool('chatty', { n: 10 })), 'chatty done');
    assert.ok(seen.every(i => Buffer.byteLength(i.statusMessage ?? '') <= TASK_BOUNDS.maxStatusBytes + 64));
    const r = await t.callTool('finish', { ms: 100, status: `token ${SECRET} here` });
    assert.equal(textOf(r), 'done');
    assert.ok(seen.every(i => !(i.statusMessage ?? '').includes(SECRET)));
    assert.ok(seen.some(i => (i.statusMessage ?? '').includes('token ***')));
  });

  it('refuses an oversized task id and an unknown status', async () => {
    const { t } = await tracker(await start(), 'fx');
    await assert.rejects(t.callTool('badid', {}), /bad task: the task id is 5000 characters long/);
    // ext-tasks checks each tasks/get answer: an unknown status fails the task at once, saying which field is wrong.
    await assert.rejects(t.callTool('badstatus', {}), /task `task-2` of tool `badstatus` on server `fx` failed: the server's answer about it is malformed: `status`: Invalid option/);
  });

  it('refuses a plain answer to a task call with a message naming the server (ext-tasks wants a CreateTaskResult)', async () => {
    const { t } = await tracker(await start(), 'fx');
    await assert.rejects(t.callTool('ignore', {}), /server `fx` answered the task call of tool `ignore` with a bad task: `task`: /);
    assert.equal(t.tasks.length, 0);
    assert.equal(textOf(await t.callTool('finish', { ms: 50 })), 'done');
  });

  it('bounds running tasks per server (maxTasksPerServer) and rejects waiters when the session ends', async () => {
    const { t } = await tracker(await start(), 'fx', 2);
    const a = t.callTool('never', {});
    const b = t.callTool('never', {});
    while (t.tasks.length < 2) await new Promise(r => setTimeout(r, 20));
    await assert.rejects(t.callTool('never', {}), /server `fx` has too many running tasks: over the limit of 2 tasks per server \(raise it with the setting `mcpHost.limits.maxTasksPerServer`\)/);
    t.dispose();
    await assert.rejects(a, /server `fx` stopped while task `task-\d` of tool `never` was running/);
    await assert.rejects(b, /stopped while task/);
    await assert.rejects(t.callTool('finish', {}), /is not running/);
  });

  it('keeps only the newest finished tasks', async () => {
    const { t } = await tracker(await start('--notify'), 'fx');
    for (let i = 0; i < TASK_BOUNDS.maxFinished + 3; i++) await t.callTool('finish', { ms: 1 });
    assert.equal(t.tasks.length, TASK_BOUNDS.maxFinished);
    await assert.rejects(t.result('task-1'), /has no task `task-1` here/);
  });
});

describe('tasks: when a tool runs as a task', () => {
  const caps = { tasks: { requests: { tools: { call: {} } } } };
  const d = (over: Partial<TaskDecisionInput>): TaskDecisionInput => ({ server: 's', tool: 't', taskSupport: 'optional', capabilities: caps, protocolVersion: '2025-11-25', mode: 'auto', longRunning: false, ...over });

  it('required always, optional when asked or known long-running, forbidden never', () => {
    assert.equal(runAsTask(d({ taskSupport: 'required' })), true);
    assert.equal(runAsTask(d({})), false);
    assert.equal(runAsTask(d({ mode: 'task' })), true);
    assert.equal(runAsTask(d({ longRunning: true })), true);
    assert.equal(runAsTask(d({ longRunning: true, mode: 'plain' })), false);
    assert.equal(runAsTask(d({ taskSupport: undefined })), false);
    assert.equal(runAsTask(d({ taskSupport: 'bogus' })), false);
    assert.throws(() => runAsTask(d({ taskSupport: 'forbidden', mode: 'task' })), /tool `t` on server `s` cannot run as a task/);
    assert.throws(() => runAsTask(d({ taskSupport: 'required', mode: 'plain' })), /must run as a task .*without --no-task/);
  });

  it('never without the server\'s task capability, and says why when the tool requires it', () => {
    assert.equal(runAsTask(d({ capabilities: {}, longRunning: true })), false);
    assert.throws(() => runAsTask(d({ capabilities: { tasks: {} }, taskSupport: 'required' })), /does not declare task tool calls \(`capabilities.tasks.requests.tools.call`\)/);
  });

  it('H125/H176: on a 2026-07-28 session every call goes through the task session when the server declares the extension, whatever taskSupport says; the errors say what to do', () => {
    // Without the extension: plain, and --task is refused with the one thing to do.
    assert.equal(runAsTask(d({ protocolVersion: '2026-07-28', longRunning: true })), false);
    assert.equal(runAsTask(d({ protocolVersion: '2026-07-28', taskSupport: 'required' })), false, 'taskSupport is the 2025-11-25 field: not read on 2026-07-28');
    assert.equal(runAsTask(d({ protocolVersion: '2026-07-28', mode: 'plain' })), false);
    assert.throws(() => runAsTask(d({ protocolVersion: '2026-07-28', mode: 'task' })), /extension `io.modelcontextprotocol\/tasks`, which the server does not declare .*; call it without --task$/);
    // With it: every call (server-directed, SEP-2663), no taskSupport needed, --task changes nothing.
    for (const taskSupport of [undefined, 'forbidden', 'optional', 'required']) {
      assert.equal(runAsTask(d({ protocolVersion: '2026-07-28', taskSupport, extension: true })), true);
      assert.equal(runAsTask(d({ protocolVersion: '2026-07-28', taskSupport, extension: true, mode: 'task' })), true);
    }
    const noTask = (() => { try { runAsTask(d({ protocolVersion: '2026-07-28', extension: true, mode: 'plain' })); } catch (e) { return (e as Error).message; } return ''; })();
    assert.match(noTask, /--no-task applies to protocol 2025-11-25 servers only; .*the server decides per call.*call it without --no-task$/);
    assert.doesNotMatch(noTask, /--task[^-]|Call Tool as Task/, 'no circular advice');
    // The 2025-11-25 capability does not count on 2026-07-28, and the extension does not on 2025-11-25.
    assert.throws(() => runAsTask(d({ capabilities: {}, taskSupport: 'required', extension: true })), /does not declare task tool calls/);
  });

  it('H176: which tools Call Tool as Task offers: every tool of a 2026-07-28 server declaring the extension; taskSupport on 2025-11-25', () => {
    const ext = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    assert.equal(serverDeclaresTasksExtension('2026-07-28', ext), true);
    assert.equal(serverDeclaresTasksExtension('2025-11-25', ext), false);
    assert.equal(serverDeclaresTasksExtension('2026-07-28', { extensions: { 'io.modelcontextprotocol/tasks': true } }), false);
    assert.equal(offeredAsTask(undefined, '2026-07-28', ext), true);
    assert.equal(offeredAsTask('required', '2026-07-28', {}), false);
    assert.equal(offeredAsTask('optional', '2025-11-25', {}), true);
    assert.equal(offeredAsTask(undefined, '2025-11-25', ext), false);
  });

  it('a plain call that took at least LONG_RUNNING_MS makes the tool long-running (bounded memory)', () => {
    const l = new LongRunningTools(2);
    l.record('quick', LONG_RUNNING_MS - 1);
    l.record('slow', LONG_RUNNING_MS);
    l.record('timedout', Infinity);
    l.record('third', LONG_RUNNING_MS * 2);
    assert.equal(l.has('quick'), false);
    assert.equal(l.has('slow'), false, 'the oldest is dropped at the bound');
    assert.equal(l.has('timedout'), true);
    assert.equal(l.has('third'), true);
  });
});
