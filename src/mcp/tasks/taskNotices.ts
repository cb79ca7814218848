/**
 * What the editor says about tasks outside the Servers view (editor-free, so the rules are tested in plain Node):
 * the status bar's line for the running tasks (their count, and the newest one's tool and status message), and
 * the ONE notice a task raises when it ends — started by a model (chat, the language-model tools, the gateway) or by the
 * user from the palette (issue 36) — with "Show Result" when there is a result. Texts are the core's snapshots:
 * already redacted and cut.
 */
import { firstLine, iconFreeText } from '../logging/humanText';
import { isTerminal } from './taskPolicy';
import type { TaskInfo } from './tasks';
import * as l10n from '@vscode/l10n';

/** "$(sync~spin) report_tool: report 2 of 3 (+1)" and a tooltip listing each running task; undefined when none runs. */
export function runningTasksLine(tasks: readonly TaskInfo[]): { text: string; tooltip: string } | undefined {
  const running = tasks.filter(t => !isTerminal(t.status)).sort((a, b) => b.updatedAt - a.updatedAt);
  if (!running.length) return undefined;
  const say = (t: TaskInfo) => `${t.tool}: ${t.status === 'input_required' ? l10n.t('needs your input') : firstLine(t.statusMessage ?? t.progress?.message ?? t.status, 40)}`;
  const more = running.length > 1 ? ` (+${running.length - 1})` : '';
  return {
    // The status bar draws `$(name)` as an icon: the server's words go in with it escaped.
    text: `$(sync~spin) ${iconFreeText(say(running[0]))}${more}`,
    tooltip: running.slice(0, 10).map(t => `${t.server} › ${say(t)}`).join('\n') + (running.length > 10 ? `\n${l10n.t('… and {0} more', running.length - 10)}` : ''),
  };
}

/** At most this many tasks remembered as seen running or already noticed (oldest forgotten first). */
export const MAX_NOTICED_TASKS = 256;

/**
 * Decides the one notice per task: a task seen running that ends (completed, failed, cancelled by the server)
 * gives one notice, never two, and a task never seen running (restored, or already over) gives none. A task the user
 * started from the palette (Call Tool) gives its one notice too (issue 36: its result tab may be behind others by the
 * time it ends); the CLI shows no notices.
 */
export class TaskEndNotices {
  private readonly running = new Set<string>();
  private readonly noticed = new Set<string>();

  /** Feed every task change; returns the notice to show, once, when a watched task ends. */
  changed(t: TaskInfo): { text: string; showResult: boolean } | undefined {
    const key = `${t.server}\n${t.taskId}`;
    if (!isTerminal(t.status)) {
      if (!this.noticed.has(key)) remember(this.running, key);
      return undefined;
    }
    if (!this.running.delete(key) || this.noticed.has(key)) return undefined;
    remember(this.noticed, key);
    const what = l10n.t('The task of {0} on {1}', t.tool, t.server);
    if (t.status === 'completed') return { text: l10n.t('{0} has completed.', what), showResult: t.hasResult };
    const text = t.status === 'cancelled'
      ? t.error ? l10n.t('{0} was cancelled: {1}', what, firstLine(t.error, 200)) : l10n.t('{0} was cancelled.', what)
      : t.error ? l10n.t('{0} failed: {1}', what, firstLine(t.error, 200)) : l10n.t('{0} failed.', what);
    return { text, showResult: false };
  }
}

function remember(set: Set<string>, key: string): void {
  set.add(key);
  if (set.size > MAX_NOTICED_TASKS) set.delete(set.values().next().value as string);
}
