/**
 * H178: a chat turn that started an MCP task returns once the task outlives a short grace ("running as a task;
 * you will be notified"), the call going on; Stop cancels the task only while the turn waits (taskTurn.ts).
 * Hostile: a task that never ends does not hold the turn; a plain call beside it (the bystander) answers in the turn.
 */
import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { callInTurn } from '../../src/extension/chat/taskTurn';
import type { TaskInfo } from '../../src/mcp/tasks/tasks';

function fakeToken() {
  const listeners: (() => void)[] = [];
  const token = {
    isCancellationRequested: false,
    onCancellationRequested: (l: () => void) => { listeners.push(l); return { dispose: () => { listeners.splice(listeners.indexOf(l) >>> 0, 1); } }; },
  };
  return { token: token as never, cancel: () => { token.isCancellationRequested = true; for (const l of [...listeners]) l(); } };
}
const info = { server: 's', taskId: 't1', tool: 'slow_report', arguments: {}, status: 'working', startedAt: 1, updatedAt: 1, pollMs: 1000, hasResult: false, userStarted: false } as TaskInfo;
const ok = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

describe('a chat turn and a long MCP task (H178)', () => {
  it('the bystander: a plain call answers in the turn', async () => {
    const { token } = fakeToken();
    const out = await callInTurn(async () => ok('plain'), token, () => undefined, 50);
    assert.equal(out.kind, 'result');
  });

  it('a task that ends within the grace answers in the turn', async () => {
    const { token } = fakeToken();
    const out = await callInTurn(o => new Promise(r => { o.onTask!(info); setTimeout(() => r(ok('quick task')), 10); }), token, () => undefined, 500);
    assert.equal(out.kind, 'result');
  });

  it('hostile: a task that never ends returns the turn after the grace; Stop after that does not cancel it, before it does', async () => {
    const { token, cancel } = fakeToken();
    let signal: AbortSignal | undefined;
    let finish!: (r: CallToolResult) => void;
    const out = await callInTurn(o => new Promise(r => { signal = o.signal; finish = r; o.onTask!(info); }), token, () => undefined, 30);
    assert.equal(out.kind, 'detached');
    cancel();
    assert.equal(signal!.aborted, false, 'the turn ended: its Stop no longer reaches the task');
    finish(ok('later'));
    assert.equal(out.kind === 'detached' && (await out.later).content[0].type, 'text');
    const second = fakeToken();
    let aborted = false;
    const waiting = callInTurn(o => new Promise((_, reject) => { o.onTask!(info); o.signal!.addEventListener('abort', () => { aborted = true; reject(new Error('cancelled')); }); }), second.token, () => undefined, 10_000);
    second.cancel();
    await assert.rejects(waiting, /cancelled/);
    assert.equal(aborted, true, 'Stop while the turn waits cancels the task');
  });
});
