import * as vscode from 'vscode';
import { showFailureNotifications } from '../settings';
import { runningTasksLine, TaskEndNotices, type HostApi, type ServerState, countOf } from '../../mcp';
import { CommandIds, ContextKeys } from '../../views/commandIds';
import { failureKey, failureNotice, type FailureNotice, type SeenFailures } from './failureNotice';

/** A status bar item with running/failed counts that opens the server list; also sets the `mcpHost.anyRunning` and `mcpHost.anyTask` context keys. */
export function createStatusItem(host: HostApi): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('mcpHost.status', vscode.StatusBarAlignment.Left, 50);
  item.name = vscode.l10n.t('MCP Servers');
  item.command = CommandIds.listServers;
  // The running tasks have an item of their own (the newest one's tool and status message); a click lists them.
  const tasksItem = vscode.window.createStatusBarItem('mcpHost.tasks', vscode.StatusBarAlignment.Left, 49);
  tasksItem.name = vscode.l10n.t('MCP Tasks');
  tasksItem.command = CommandIds.showTaskResult;
  const updateTaskLine = () => {
    const line = runningTasksLine(host.servers.flatMap(h => h.tasks));
    if (!line) { tasksItem.hide(); return; }
    tasksItem.text = line.text;
    tasksItem.tooltip = vscode.l10n.t('MCP tasks running:\n{0}\nClick to wait for one\'s result.', line.tooltip);
    tasksItem.show();
  };
  const update = () => {
    const all = host.servers;
    const runningCount = all.filter(h => h.state.kind === 'running').length;
    const failed = all.filter(h => h.state.kind === 'error').length;
    const starting = all.filter(h => h.state.kind === 'starting').length;
    item.text = vscode.l10n.t('$({0}) MCP {1}/{2}{3}', starting ? 'loading~spin' : 'plug', runningCount, all.length, failed ? ` $(error) ${failed}` : '');
    item.tooltip = vscode.l10n.t('MCP Host: {0} running, {1} starting, {2} failed of {3}. Click to list them.', runningCount, starting, failed, countOf(all.length, 'server'));
    item.backgroundColor = failed ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    if (all.length) item.show(); else item.hide();
    void vscode.commands.executeCommand('setContext', ContextKeys.anyRunning, runningCount > 0);
  };
  // `mcpHost.anyTask`: the task commands show in the palette only when there is a task to act on.
  let anyTask: boolean | undefined;
  const updateTasks = () => {
    const now = host.servers.some(h => h.tasks.length > 0);
    if (now !== anyTask) void vscode.commands.executeCommand('setContext', ContextKeys.anyTask, anyTask = now);
  };
  const subs = [
    host.onDidChangeServers(update), host.onDidChangeState(update), host.onDidChangeTasks(updateTasks), host.onDidChangeServers(updateTasks),
    host.onDidChangeTasks(updateTaskLine), host.onDidChangeServers(updateTaskLine),
  ];
  update();
  updateTasks();
  updateTaskLine();
  return new vscode.Disposable(() => { subs.forEach(s => s.dispose()); item.dispose(); tasksItem.dispose(); });
}

/**
 * ONE notification when a task ends — one a model started (chat, the language-model tools, the gateway) or one the
 * user started from the palette (issue 36) — with "Show Result" when there is one (TaskEndNotices decides).
 */
export function watchTaskEnds(host: HostApi, shown?: { text: string; actions: string[] }[]): vscode.Disposable {
  const notices = new TaskEndNotices();
  return host.onDidChangeTasks(t => {
    const n = notices.changed(t);
    if (!n) return;
    const showResult = vscode.l10n.t('Show Result');
    const show = n.showResult ? [showResult] : [];
    // Tests read what was shown (bounded: the newest 100).
    if (shown) { shown.push({ text: n.text, actions: show }); if (shown.length > 100) shown.shift(); }
    const say = t.status === 'completed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void say(n.text, ...show).then(pick => {
      if (pick === showResult) void vscode.commands.executeCommand(CommandIds.showTaskResult, { kind: 'task', server: t.server, taskId: t.taskId });
    });
  });
}

/**
 * Window progress while a server starts, and a notification only when a server failed for good (no automatic
 * restart pending), never on every restart attempt, and not again after a reload for a failure already shown
 * (failureNotice.ts): "Open Settings" / "Show Logs" for a failure in the settings, "Show Logs" / "Restart" for a crash.
 */
export function watchFailures(host: HostApi, actions: {
  showLogs(server: string): void;
  restart(server: string): Thenable<unknown>;
  openSettings(): Thenable<unknown>;
  log(server: string, message: string): void;
  seen: SeenFailures;
  /** Every notice shown (tests read it). */
  shown?: FailureNotice[];
}): vscode.Disposable {
  const starting = new Map<string, () => void>();
  const notified = new Set<string>();
  const sub = host.onDidChangeState(({ server, state }) => {
    if (state.kind === 'starting' && !starting.has(server)) {
      void vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('MCP Host: starting {0}', server) },
        () => new Promise<void>(resolve => starting.set(server, resolve)));
    } else if (state.kind !== 'starting') {
      starting.get(server)?.();
      starting.delete(server);
    }
    if (state.kind === 'running') void actions.seen.forget(server);
    if (state.kind === 'running' || state.kind === 'stopped') notified.delete(server);
    if (isFinalFailure(state) && !notified.has(server)
      && showFailureNotifications()) {
      notified.add(server);
      const notice = failureNotice(server, state.message, state.crashLoop, state.fromSettings);
      actions.log(server, `failed for good: ${notice.logText}`);
      const key = failureKey(server, state.message);
      if (actions.seen.has(key)) return;
      void actions.seen.add(key);
      actions.shown?.push(notice);
      void vscode.window.showErrorMessage(notice.text, ...notice.actions).then(pick => {
        if (pick === notice.labels.showLogs) actions.showLogs(server);
        if (pick === notice.labels.restart) void actions.restart(server);
        if (pick === notice.labels.openSettings) void actions.openSettings();
      });
    }
  });
  // A server removed while starting never reports its next state: end its progress too.
  const gone = host.onDidChangeServers(() => {
    for (const [name, done] of starting) if (!host.get(name)) { done(); starting.delete(name); }
  });
  return new vscode.Disposable(() => { sub.dispose(); gone.dispose(); for (const r of starting.values()) r(); });
}

function isFinalFailure(s: ServerState): s is Extract<ServerState, { kind: 'error' }> {
  return s.kind === 'error' && (s.crashLoop || s.retryAt === undefined);
}
