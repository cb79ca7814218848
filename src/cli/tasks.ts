/**
 * `mcp-host call` and tasks: one stderr line per change of a task (status and the server's message),
 * and on Ctrl+C (or SIGTERM) the running tasks are cancelled (tasks/cancel) before the servers stop.
 */
import { type HostApi, type TaskInfo, isTerminal } from '../mcp';
import { ownText } from './output';

/** "mcp-host: task 3f2a… (simulate-research-query): working — Gathering sources..." */
export function taskLine(t: TaskInfo): string {
  const status = t.status === 'input_required' ? 'input required' : t.status;
  const pct = t.progress?.total ? ` ${Math.round((t.progress.progress / t.progress.total) * 100)}%` : '';
  return ownText(`mcp-host: task ${t.taskId} (${t.tool}): ${status}${pct}${t.statusMessage ? ` — ${t.statusMessage}` : ''}`);
}

/** An `onTask` callback that writes a line only when what it says changed. */
export function taskReporter(err: (line: string) => void): (t: TaskInfo) => void {
  let last = '';
  return t => {
    const line = taskLine(t);
    if (line !== last) err(last = line);
  };
}

/** Cancels every running task of these hosts, waiting at most `deadlineMs` for the servers to acknowledge. */
export async function cancelRunningTasks(hosts: Iterable<Pick<HostApi, 'servers'>>, err: (line: string) => void, deadlineMs = 3000): Promise<void> {
  const cancels: Promise<void>[] = [];
  for (const host of hosts) {
    for (const h of host.servers) {
      for (const t of h.tasks) {
        if (isTerminal(t.status)) continue;
        err(ownText(`mcp-host: cancelling task ${t.taskId} (${t.tool}) on server "${h.name}"`));
        cancels.push(h.cancelTask(t.taskId).catch(() => undefined));
      }
    }
  }
  if (!cancels.length) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(cancels), new Promise<void>(r => { timer = setTimeout(r, deadlineMs); })]);
  clearTimeout(timer);
}
