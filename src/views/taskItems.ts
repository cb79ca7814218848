import * as vscode from 'vscode';
import { assertNever, type TaskInfo, type TaskStatus, firstLine } from '../mcp';
import { CommandIds } from './commandIds';

/** Command id a finished task item runs when clicked (kept in sync with src/views/commandIds.ts). */
export const SHOW_TASK_RESULT_COMMAND = CommandIds.showTaskResult;

export function taskIcon(status: TaskStatus): vscode.ThemeIcon {
  switch (status) {
    case 'working': return new vscode.ThemeIcon('loading~spin');
    case 'input_required': return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('notificationsWarningIcon.foreground'));
    case 'completed': return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'failed': return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'cancelled': return new vscode.ThemeIcon('circle-slash');
    default: return assertNever(status, 'task status');
  }
}

/** "working · Gathering sources… · 40%" (the status message and progress are the server's, already redacted and cut by the core). */
export function taskDescription(t: TaskInfo): string {
  const status = t.status === 'input_required' ? vscode.l10n.t('needs input') : t.status;
  const pct = t.progress?.total ? ` · ${Math.round((t.progress.progress / t.progress.total) * 100)}%` : '';
  const message = t.error ?? t.statusMessage ?? t.progress?.message;
  return `${status}${pct}${message ? ` · ${firstLine(message, 100)}` : ''}`;
}

/** A task under its server: running ones can be cancelled, finished ones show their result when clicked. */
export function taskItem(t: TaskInfo, mask: (s: string) => string): vscode.TreeItem {
  const item = new vscode.TreeItem(t.tool);
  item.id = `task/${t.server}/${t.taskId}`;
  item.description = mask(taskDescription(t));
  item.iconPath = taskIcon(t.status);
  const md = new vscode.MarkdownString();
  md.appendMarkdown(vscode.l10n.t('**{0}** — task `{1}`\n\n', esc(t.tool), esc(mask(t.taskId))));
  md.appendMarkdown(vscode.l10n.t('Status: {0}{1}\n\n', esc(t.status), t.statusMessage ? ` — ${esc(mask(t.statusMessage))}` : ''));
  if (t.error) md.appendMarkdown(`${esc(mask(t.error))}\n\n`);
  md.appendMarkdown(vscode.l10n.t('Started {0}{1} · polled every {2} ms{3}', new Date(t.startedAt).toLocaleTimeString(), t.userStarted ? ' by you' : ' by a model', t.pollMs, typeof t.ttl === 'number' ? ` · ttl ${Math.round(t.ttl / 1000)} s` : ''));
  item.tooltip = md;
  const running = t.status === 'working' || t.status === 'input_required';
  item.contextValue = running ? 'task.running' : t.hasResult ? 'task.result' : 'task.ended';
  if (t.hasResult) item.command = { command: SHOW_TASK_RESULT_COMMAND, title: vscode.l10n.t('Show Result'), arguments: [{ kind: 'task', server: t.server, taskId: t.taskId }] };
  return item;
}

function esc(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, m => `\\${m}`);
}
