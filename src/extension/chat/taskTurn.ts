/**
 * A chat turn never waits out a long MCP task: once the call became a task and it has not ended within
 * TASK_TURN_GRACE_MS, the turn gets "running as a task; you will be notified" at once and the user keeps
 * chatting, while the task goes on (the status bar and the Servers view show it; its end raises one
 * notification with "Show Result", status.ts `watchTaskEnds`). Stop cancels the task only while the turn still
 * waits for it; afterwards MCP: Cancel Task does.
 */
import type * as vscode from 'vscode';
import type { CallToolResult } from '@modelcontextprotocol/client';
import type { RequestOptions, TaskInfo } from '../../mcp';

/** How long a turn waits for a task it started before it returns (a short task still answers in the turn). */
export const TASK_TURN_GRACE_MS = 3_000;

export type TaskTurnOutcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'detached'; task: TaskInfo; later: Promise<CallToolResult> };

/**
 * Runs `call` with a signal that follows `token` while the turn waits; resolves with the result, or with
 * `detached` once a task of the call ran TASK_TURN_GRACE_MS without ending (the call goes on; `later` settles
 * with it). Rejects as the call does, before that.
 */
export function callInTurn(
  call: (opts: Pick<RequestOptions, 'signal' | 'onTask'>) => Promise<CallToolResult>,
  token: vscode.CancellationToken,
  onTask: (t: TaskInfo) => void,
  graceMs = TASK_TURN_GRACE_MS,
): Promise<TaskTurnOutcome> {
  const abort = new AbortController();
  const cancel = token.onCancellationRequested(() => abort.abort());
  if (token.isCancellationRequested) abort.abort();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let task: TaskInfo | undefined;
  return new Promise<TaskTurnOutcome>((resolve, reject) => {
    const later = call({
      signal: abort.signal,
      onTask: t => {
        task = t;
        onTask(t);
        timer ??= setTimeout(() => {
          // The turn returns; the task goes on, no longer tied to the turn's Stop.
          cancel.dispose();
          resolve({ kind: 'detached', task: task!, later });
        }, graceMs);
      },
    });
    later.then(
      result => { clearTimeout(timer); cancel.dispose(); resolve({ kind: 'result', result }); },
      err => { clearTimeout(timer); cancel.dispose(); reject(err); },
    );
  });
}
