import * as vscode from 'vscode';
import { isTerminal, type HostApi, type ServerHandle, type TaskInfo, quoted, shownName } from '../../mcp';
import { shownError } from './args';
import { renderToolResult } from './render';
import { resultDocuments } from '../documents/results';

/** What the task commands accept: a task node of the Servers view, or (server, taskId) from code, or nothing (then they ask). */
function taskOf(host: HostApi, arg: unknown, taskId?: string): { h: ServerHandle; t: TaskInfo } | undefined {
  const server = typeof arg === 'string' ? arg : (arg as { server?: unknown } | undefined)?.server;
  const id = taskId ?? (arg as { taskId?: unknown } | undefined)?.taskId;
  if (typeof server !== 'string' || typeof id !== 'string') return undefined;
  const h = host.get(server);
  const t = h?.tasks.find(x => x.taskId === id);
  return h && t ? { h, t } : undefined;
}

async function pickTask(host: HostApi, filter: (t: TaskInfo) => boolean, none: string, placeHolder: string): Promise<{ h: ServerHandle; t: TaskInfo } | undefined> {
  const all = host.servers.flatMap(h => h.tasks.filter(filter).map(t => ({ h, t })));
  if (!all.length) {
    void vscode.window.showInformationMessage(none);
    return undefined;
  }
  if (all.length === 1) return all[0];
  const pick = await vscode.window.showQuickPick(
    all.map(x => ({ label: x.t.tool, description: `${x.h.name} · ${x.t.status}`, detail: x.t.statusMessage, x })),
    { placeHolder },
  );
  return pick?.x;
}

/** MCP Host: Cancel Task. Resolves true when a task was cancelled. */
export async function cancelTaskCommand(host: HostApi, arg?: unknown, taskId?: string): Promise<boolean> {
  const target = taskOf(host, arg, taskId) ?? await pickTask(host, t => !isTerminal(t.status), vscode.l10n.t('No MCP task is running.'), vscode.l10n.t('Cancel which task?'));
  if (!target) return false;
  if (isTerminal(target.t.status)) {
    void vscode.window.showInformationMessage(vscode.l10n.t('MCP task of {0} on {1} has already ended ({2}).', quoted(target.t.tool), quoted(target.h.name), target.t.status));
    return false;
  }
  try {
    await target.h.cancelTask(target.t.taskId);
    return true;
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not cancel the task of {0} on {1}: {2}', quoted(target.t.tool), quoted(target.h.name), shownError(err)));
    return false;
  }
}

/**
 * MCP Host: Show Task Result. A finished task's result opens as a markdown document; a running one is waited
 * for with a cancellable progress notification. Resolves the document's text (undefined when there is none).
 */
export async function showTaskResultCommand(host: HostApi, arg?: unknown, taskId?: string): Promise<string | undefined> {
  const target = taskOf(host, arg, taskId) ?? await pickTask(host, t => t.hasResult || !isTerminal(t.status), vscode.l10n.t('No MCP task has a result to show.'), vscode.l10n.t('Show the result of which task?'));
  if (!target) return undefined;
  const { h, t } = target;
  if (isTerminal(t.status) && !t.hasResult) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The task of {0} on {1} has no result: {2}', quoted(t.tool), quoted(h.name), shownName(t.error ?? t.status, 1000)));
    return undefined;
  }
  try {
    const result = isTerminal(t.status) ? await h.taskResult(t.taskId) : await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('MCP Host: {0} › {1} (task)', h.name, t.tool), cancellable: true },
      (progress, token) => {
        token.onCancellationRequested(() => { void h.cancelTask(t.taskId).catch(() => undefined); });
        const sub = h.onDidChangeTasks(i => { if (i.taskId === t.taskId) progress.report({ message: taskMessage(i) }); });
        return h.taskResult(t.taskId).finally(() => sub.dispose());
      },
    );
    const rendered = renderToolResult(h.name, `${t.tool} (task ${t.taskId})`, t.arguments, result);
    await resultDocuments.openResult(h.name, `${t.tool} task`, rendered);
    return rendered.markdown;
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('The task of {0} on {1} has no result: {2}', quoted(t.tool), quoted(h.name), shownError(err)));
    return undefined;
  }
}

/** The line a progress notification shows for a task. */
export function taskMessage(t: TaskInfo): string {
  const what = t.status === 'input_required' ? vscode.l10n.t('needs your input') : t.status;
  return t.statusMessage ? vscode.l10n.t('{0} — {1}', what, t.statusMessage) : what;
}
