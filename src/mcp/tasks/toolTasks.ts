/**
 * A connection's tasks across its sessions: one tracker per running session (an ExtTaskTracker, made when
 * the session starts, disposed when it ends), the "known long-running" memory of the `optional` policy, and
 * the one decision per tool call (taskPolicy.ts) between a task and a plain call. The connection owns one of these
 * and forwards `callTool`, `tasks`, `cancelTask` and `taskResult` to it.
 */
import { Emitter, type Disposable, type Event } from '../events';
import { McpHostError, messageOf } from '../errors';
import { LongRunningTools, TASKS_EXTENSION, codeOf, errorDataOf, isTerminal, runAsTask, type TaskInfo, type TaskMode, type TaskRunOptions, type TaskRunner } from './tasks';
import * as l10n from '@vscode/l10n';

export interface ToolCallContext {
  /** The tool as listed (its `execution.taskSupport` decides). */
  tool: { name: string; execution?: { taskSupport?: unknown } };
  capabilities: Record<string, unknown> | undefined;
  protocolVersion: string | undefined;
  mode?: TaskMode;
}

export class ConnectionTasks implements Disposable {
  private tracker: TaskRunner | undefined;
  private trackerEvents: Disposable | undefined;
  private readonly longRunning = new LongRunningTools();
  private readonly _onDidChange = new Emitter<TaskInfo>();
  /** Any change of a task of this server (also fired with the last state of each task when a session ends). */
  readonly onDidChange: Event<TaskInfo> = this._onDidChange.event;

  constructor(private readonly server: () => string) {}

  /**
   * A session started: tasks run on `tracker` (its ExtTaskTracker) from now on. Dispose the result when that
   * session ends (its running tasks fail, the list empties); disposing it after another session attached
   * does nothing.
   */
  attachRunner(tracker: TaskRunner): Disposable {
    this.detach();
    this.trackerEvents = tracker.onDidChange(i => this._onDidChange.fire(i));
    this.tracker = tracker;
    return { dispose: () => { if (this.tracker === tracker) this.detach(); } };
  }

  /** The session ended: its running tasks fail, and the list empties. */
  detach(reason?: string): void {
    const t = this.tracker;
    if (!t) return;
    this.tracker = undefined;
    t.dispose(reason);
    this.trackerEvents?.dispose();
    this.trackerEvents = undefined;
    this.longRunning.clear();
    for (const info of t.tasks) this._onDidChange.fire(info);
  }

  get tasks(): readonly TaskInfo[] {
    return this.tracker?.tasks ?? [];
  }

  /** True when the call should go as a task (throws a readable error when it cannot go at all). */
  decide(ctx: ToolCallContext): boolean {
    return runAsTask({
      server: this.server(), tool: ctx.tool.name, taskSupport: ctx.tool.execution?.taskSupport,
      capabilities: ctx.capabilities, protocolVersion: ctx.protocolVersion, mode: ctx.mode ?? 'auto',
      longRunning: this.longRunning.has(ctx.tool.name), extension: this.tracker?.extension === true,
    });
  }

  /** Runs the call as a task on the current session. */
  runTask(tool: string, args: Record<string, unknown>, opts: TaskRunOptions): Promise<Record<string, unknown>> {
    if (!this.tracker) return Promise.reject(new McpHostError(l10n.t('server `{0}` is not running', this.server())));
    return this.tracker.callTool(tool, args, opts);
  }

  /** Runs a plain call, remembering a tool that took long (or timed out) for the `optional` policy. */
  async timed<T>(tool: string, plain: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      const r = await plain();
      this.longRunning.record(tool, Date.now() - started);
      return r;
    } catch (err) {
      const code = codeOf(err);
      if (code === -32001) this.longRunning.record(tool, Infinity);
      // A 2026-07-28 server that will only answer with a task: "Missing required client capability" naming the extension.
      if (code === -32021 && JSON.stringify(errorDataOf(err) ?? messageOf(err)).includes(TASKS_EXTENSION)) {
        // Every call of a server that declares the extension declares it too (taskPolicy.ts), so this server asks
        // for an extension it did not declare in server/discover: only its author can fix that.
        throw new McpHostError(l10n.t('tool `{0}` on server `{1}` only runs as a task of the `{2}` extension (protocol 2026-07-28), but the server does not declare that extension (`capabilities.extensions` of server/discover), so the host cannot call it; this is a server bug: tell its author', tool, this.server(), TASKS_EXTENSION), code, { cause: err });
      }
      throw err;
    }
  }

  async cancel(taskId: string): Promise<void> {
    const info = this.tracker?.get(taskId);
    if (!info) throw new McpHostError(l10n.t('server `{0}` has no task `{1}` running', this.server(), taskId));
    if (!isTerminal(info.status)) await this.tracker!.cancel(taskId);
  }

  result(taskId: string): Promise<Record<string, unknown>> {
    if (!this.tracker) return Promise.reject(new McpHostError(l10n.t('server `{0}` is not running, and its tasks went with its session', this.server())));
    return this.tracker.result(taskId);
  }

  dispose(): void {
    this.detach();
    this._onDidChange.dispose();
  }
}
