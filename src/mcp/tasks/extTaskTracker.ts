/**
 * The task tracker, the host's part of tasks in both eras (the protocol side is ext-tasks', through
 * extTaskSession.ts): the `TaskInfo` snapshots for the Tasks group, chat and the CLI, the bounds (running tasks per
 * server, finished ones kept, status messages redacted and cut, task ids at most 256 characters, the task's ttl),
 * readable errors naming the server, the running tasks kept across a reload (taskMemory.ts). Polling follows the
 * server's hint within the host's bounds (clamped on the transport, rawRequests.ts). On 2025-11-25 it keeps one
 * thing ext-tasks 0.2.2 does not do: a `tasks/result` wait while the task is `input_required` (legacyResultWait).
 *
 * Progress, in both eras: each task call carries a progress token of its own (`_meta.progressToken`, one of
 * TASK_PROGRESS_PREFIX); the server's `notifications/progress` for it (routed by the request coordinator)
 * become the task's `progress`, checked, redacted and cut like a status message, and shown in the Tasks
 * group, chat and CLI waiting and Call Tool's notification. Progress and message-only changes reach the
 * views at most every MESSAGE_EMIT_MS, so a flood of them costs a bounded number of updates.
 */
import type { TaskEnabledSession, TaskExecutionEvent, TaskView, ToolExecution } from '@modelcontextprotocol/ext-tasks/client' with { 'resolution-mode': 'import' };
import { Emitter, type Disposable, type Event } from '../events';
import { McpHostError, messageOf } from '../errors';
import * as l10n from '@vscode/l10n';
import type { Redactor } from '../logging/redact';
import { TASK_BOUNDS, TASK_PROGRESS_PREFIX, isTerminal, pollDelay, type TaskStatus } from './taskPolicy';
import { assertTaskRoom, listedTasks, type TaskInfo, type TaskRunOptions, type TaskRunner } from './tasks';
import type { BoundTaskMemory } from './taskMemory';
import { ANY_OBJECT, readableTaskError, schemaProblem, serverAnswered, taskFailure } from './extTaskSession';

export interface ExtTaskTrackerOptions {
  server: string;
  session: TaskEnabledSession;
  /**
   * Set for a 2025-11-25 session (its `tasks` capability): sends `tasks/result` for a task that needs input.
   * ext-tasks (0.2.2) asks for a 2025-11-25 task's result only once the task has ended, but a server's
   * requests for an `input_required` task (its elicitation, say) travel on the `tasks/result` stream
   * (SEP-1686; server-everything's `simulate-research-query` does this), so without this wait the task would
   * stay `input_required` until its ttl. The answer is not used: ext-tasks fetches the result itself.
   */
  legacyResultWait?: (taskId: string, signal: AbortSignal) => Promise<unknown>;
  redactor: Redactor;
  maxTasks: number;
  requestTimeout: () => number;
  log?: (level: 'info' | 'warning' | 'debug', message: string) => void;
  /** Hands the params of `notifications/progress` carrying `token` to `handler` until disposed (rawRequests.ts). */
  progress?: (token: string, handler: (params: Record<string, unknown>) => void) => Disposable;
  /**
   * The running tasks of this definition kept across a reload (taskMemory.ts, bound to its definition key): each
   * task is kept while it runs and forgotten when it ends (not when the session ends: then it is asked about again
   * by the next session, `resume`).
   */
  memory?: BoundTaskMemory;
}

type Execution = ToolExecution<Record<string, unknown>>;

interface Entry {
  info: TaskInfo;
  exec: Execution;
  finished: boolean;
  result?: Record<string, unknown>;
  done: Promise<Record<string, unknown>>;
  settle: { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void };
  opts: TaskRunOptions;
  ttlTimer?: ReturnType<typeof setTimeout>;
  /** A status-message change waiting to be shown (message-only changes are shown at most every 250 ms). */
  lastEmit: number;
  pendingEmit?: ReturnType<typeof setTimeout>;
  /** The progress last handed to the call's own `onProgress`. */
  progressSent?: TaskInfo['progress'];
  /** The progress route of this call (disposed when the task ends). */
  progressRoute?: Disposable;
  /** A 2025-11-25 `tasks/result` wait is open (legacyResultWait); aborted when the task ends. */
  waiting: boolean;
  /** The task could not be kept for after a reload (said once in the log). */
  notKept?: boolean;
  abort: AbortController;
}

/** How long a session that ends waits for its detached task executions to let go before it closes. */
const DETACH_WAIT_MS = 1_000;

/** Message-only changes (same status) reach the views at most this often; a flood of them costs nothing more. */
const MESSAGE_EMIT_MS = 250;

let progressTokens = 0;

export class ExtTaskTracker implements TaskRunner {
  /** A tracker of the 2026-07-28 extension (not of a 2025-11-25 session's `tasks` capability). */
  readonly extension: boolean;
  private readonly entries = new Map<string, Entry>();
  private disposed = false;
  private readonly _onDidChange = new Emitter<TaskInfo>();
  readonly onDidChange: Event<TaskInfo> = this._onDidChange.event;

  constructor(private readonly o: ExtTaskTrackerOptions) {
    this.extension = !o.legacyResultWait;
  }

  get tasks(): TaskInfo[] {
    return listedTasks(this.entries.values());
  }

  get(taskId: string): TaskInfo | undefined {
    return this.entries.get(taskId)?.info;
  }

  async callTool(tool: string, args: Record<string, unknown>, opts: TaskRunOptions = {}): Promise<Record<string, unknown>> {
    if (this.disposed) throw new McpHostError(l10n.t('server `{0}` is not running', this.o.server));
    // A 2025-11-25 call asks for a task, so the bound is checked first. A 2026-07-28 call only allows one (every call
    // of such a server does, SEP-2663) and most are answered at once: only an answer that is a task counts, below.
    if (!this.extension) assertTaskRoom(this.o.server, this.entries.values(), this.o.maxTasks);
    // The call's own signal stops the request that creates the task; once there is a task, aborting cancels it.
    const creating = new AbortController();
    const onAbortCreate = () => creating.abort(opts.signal?.reason);
    if (opts.signal?.aborted) onAbortCreate();
    else opts.signal?.addEventListener('abort', onAbortCreate, { once: true });
    // Progress that comes before the task exists is kept (the last one) and shown once it does.
    const token = `${TASK_PROGRESS_PREFIX}${++progressTokens}`;
    const box: { entry?: Entry; early?: TaskInfo['progress'] } = {};
    const route = this.o.progress?.(token, p => {
      const progress = this.readProgress(p);
      if (!progress) return;
      if (box.entry) this.setProgress(box.entry, progress);
      else box.early = progress;
    });
    let exec: Execution;
    try {
      exec = await this.o.session.callTool<Record<string, unknown>>(tool, args as never, {
        // The host's policy already chose a task (taskPolicy.ts); a 2025-11-25 call names the tool as one that
        // takes tasks (ext-tasks asks for one only then) and asks for the host's ttl.
        ...(this.extension
          ? { task: { preference: 'allow' } }
          : { task: { preference: 'require', retentionMs: TASK_BOUNDS.requestedTtlMs }, declaration: { name: tool, inputSchema: { type: 'object' }, taskSupport: 'optional' } }),
        resultCodec: ANY_OBJECT,
        requestTimeoutMs: opts.timeout ?? this.o.requestTimeout(),
        signal: creating.signal,
        ...(route && { metadata: { progressToken: token } }),
      });
    } catch (err) {
      route?.dispose();
      const bad = schemaProblem(err);
      if (bad) throw new McpHostError(l10n.t('server `{0}` answered the task call of tool `{1}` with a bad task: {2}', this.o.server, tool, this.o.redactor.cap(bad, 300).text), undefined, { cause: err });
      throw readableTaskError(err, `calling tool \`${tool}\` on server \`${this.o.server}\``, this.o.redactor);
    } finally {
      opts.signal?.removeEventListener('abort', onAbortCreate);
    }
    if (exec.kind !== 'task') route?.dispose();
    if (exec.kind === 'immediate') {
      const { outcome } = await exec.settle();
      if (outcome.status === 'completed') return outcome.result;
      throw new McpHostError(outcome.status === 'failed'
        ? l10n.t('tool `{0}` on server `{1}` failed: {2}', tool, this.o.server, this.o.redactor.text(outcome.error.message))
        : l10n.t('tool `{0}` on server `{1}` was cancelled', tool, this.o.server), outcome.status === 'cancelled' ? -32800 : outcome.error.code);
    }
    const taskId = exec.handle.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > TASK_BOUNDS.maxTaskIdChars) {
      route?.dispose();
      void exec.cancel().catch(() => undefined).finally(() => { void exec.close().catch(() => undefined); });
      throw new McpHostError(typeof taskId === 'string'
        ? l10n.t('server `{0}` answered the task call of tool `{1}` with a bad task: the task id is {2} characters long (at most {3})', this.o.server, tool, taskId.length, TASK_BOUNDS.maxTaskIdChars)
        : l10n.t('server `{0}` answered the task call of tool `{1}` with a bad task: the task id is not a string', this.o.server, tool));
    }
    if (this.extension) {
      try {
        assertTaskRoom(this.o.server, this.entries.values(), this.o.maxTasks);
      } catch (err) {
        // The server made a task the host has no room for: it is cancelled at once, and the call says why.
        route?.dispose();
        void exec.cancel().catch(() => undefined).finally(() => { void exec.close().catch(() => undefined); });
        throw err;
      }
    }
    const entry = box.entry = this.track(tool, args, exec, opts, route);
    if (box.early) this.setProgress(entry, box.early);
    opts.onCreated?.(entry.info);
    if (opts.signal) {
      const onAbort = () => { void this.cancel(taskId); };
      if (opts.signal.aborted) onAbort();
      else opts.signal.addEventListener('abort', onAbort, { once: true });
      void entry.done.catch(() => undefined).finally(() => opts.signal?.removeEventListener('abort', onAbort));
    }
    this.drive(entry);
    return entry.done;
  }

  /**
   * The tasks a previous session of this definition had running (`memory`, taskMemory.ts), asked about again
   * through ext-tasks' `resumeTask` (its `tasks/get`; a 2025-11-25 or 2026-07-28 task by its generation): each
   * the server still knows is listed and followed to its end like a new one (not started by the user here, so
   * its end raises the one notice); each it no longer knows (an error) is forgotten, one log line each. Tasks
   * beyond the bound of running tasks are not asked about (they stay kept until their ttl).
   */
  async resume(): Promise<void> {
    const memory = this.o.memory;
    if (!memory) return;
    const generation = this.extension ? 'v2' : 'v1';
    for (const t of memory.list()) {
      if (this.disposed) return;
      if (this.entries.has(t.taskId)) continue;
      const what = `task ${this.redacted(t.taskId)} of tool \`${t.tool}\` from before the reload`;
      if (t.generation !== generation) {
        memory.forget(t.taskId);
        this.o.log?.('info', `${what} is dropped: it is a ${t.generation === 'v2' ? '2026-07-28' : '2025-11-25'} task and the server now speaks the other protocol`);
        continue;
      }
      try {
        assertTaskRoom(this.o.server, this.entries.values(), this.o.maxTasks);
      } catch (err) {
        this.o.log?.('info', `the tasks from before the reload not asked about yet stay kept until their ttl: ${messageOf(err)}`);
        return;
      }
      let exec: Execution;
      try {
        exec = await this.o.session.resumeTask<Record<string, unknown>>(
          { endpointId: this.o.session.endpointId, generation, taskId: t.taskId, originalOperation: 'tools/call' } as never,
          { resultCodec: ANY_OBJECT, requestTimeoutMs: this.o.requestTimeout() },
        );
      } catch (err) {
        if (this.disposed) return;
        memory.forget(t.taskId);
        this.o.log?.('info', `${what} is dropped: the server no longer knows it (${this.o.redactor.cap(messageOf(err), 300).text})`);
        continue;
      }
      if (this.disposed || exec.kind !== 'task') { void exec.detach().catch(() => undefined); continue; }
      this.o.log?.('info', `${what} is running again`);
      this.drive(this.track(t.tool, {}, exec, { userStarted: false }, undefined, t.startedAt, t.ttl));
    }
  }

  result(taskId: string): Promise<Record<string, unknown>> {
    const e = this.entries.get(taskId);
    if (!e) return Promise.reject(new McpHostError(l10n.t('server `{0}` has no task `{1}` here (finished tasks are kept until {2} newer ones ended)', this.o.server, taskId, TASK_BOUNDS.maxFinished)));
    return e.done;
  }

  async cancel(taskId: string): Promise<void> {
    const e = this.entries.get(taskId);
    if (!e || e.finished) return;
    this.finish(e, 'cancelled', `task \`${this.redacted(taskId)}\` of tool \`${e.info.tool}\` on server \`${this.o.server}\` was cancelled`);
    try {
      await withTimeout(e.exec.cancel(), this.o.requestTimeout());
      this.o.log?.('info', `task ${this.redacted(taskId)} cancelled`);
    } catch (err) {
      this.o.log?.('warning', `tasks/cancel for task ${this.redacted(taskId)}: ${messageOf(err)}`);
    }
  }

  dispose(reason = `server \`${this.o.server}\` stopped`): void {
    if (this.disposed) return;
    this.disposed = true;
    const executions = [...this.entries.values()].map(e => e.exec.result().then(() => undefined, () => undefined));
    for (const e of this.entries.values()) {
      // Kept for after a reload: the next session of this definition asks the server about it (`resume`).
      if (!e.finished) this.finish(e, 'failed', `${reason} while task \`${this.redacted(e.info.taskId)}\` of tool \`${e.info.tool}\` was running`, false);
    }
    // The session closes once the executions let go of their tasks (ext-tasks' close would otherwise cancel the
    // unsettled ones on the server): a task the server keeps outlives this session, and the next one asks about it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const letGo = new Promise<void>(resolve => { timer = setTimeout(resolve, DETACH_WAIT_MS); timer.unref?.(); });
    void Promise.race([Promise.all(executions), letGo]).finally(() => {
      clearTimeout(timer);
      void this.o.session.close().catch(() => undefined);
    });
    this._onDidChange.dispose();
  }

  // -------------------------------------------------------------------------------------------

  /** Follows a tracked task to its end through ext-tasks (its polling, notifications, input and result). */
  private drive(entry: Entry): void {
    const { taskId, tool } = entry.info;
    void entry.exec.settle({ onEvent: ev => this.onEvent(entry, ev) }).then(
      ({ outcome, lastTask }) => {
        if (lastTask) this.apply(entry, lastTask);
        if (outcome.status === 'completed') {
          entry.result = outcome.result;
          this.finish(entry, 'completed');
        } else if (outcome.status === 'cancelled') {
          this.finish(entry, 'cancelled', `server \`${this.o.server}\` cancelled task \`${this.redacted(taskId)}\` of tool \`${tool}\`${entry.info.statusMessage ? `: ${entry.info.statusMessage}` : ''}`);
        } else {
          this.finish(entry, 'failed', `task \`${this.redacted(taskId)}\` of tool \`${tool}\` on server \`${this.o.server}\` failed: ${taskFailure(outcome.error, this.o.redactor)}`);
        }
      },
      // The server's own error answer about the task (it forgot it) ends it for good; a session that closes under
      // it (a reload) does not: the next session asks again (`resume`).
      err => this.finish(entry, 'failed', `task \`${this.redacted(taskId)}\` of tool \`${tool}\` on server \`${this.o.server}\` failed: ${taskFailure(err, this.o.redactor)}`, !this.disposed && serverAnswered(err)),
    );
  }

  private track(tool: string, args: Record<string, unknown>, exec: Execution & { kind: 'task' }, opts: TaskRunOptions, progressRoute: Disposable | undefined, startedAt = Date.now(), ttl?: number | null): Entry {
    let settle!: Entry['settle'];
    const done = new Promise<Record<string, unknown>>((resolve, reject) => { settle = { resolve, reject }; });
    done.catch(() => undefined);
    const now = Date.now();
    const info: TaskInfo = {
      server: this.o.server, taskId: exec.handle.taskId, tool, arguments: args, status: 'working', startedAt, updatedAt: now,
      pollMs: TASK_BOUNDS.defaultPollMs, hasResult: false, userStarted: opts.userStarted ?? false, ...(ttl !== undefined && { ttl }),
    };
    const e: Entry = { info, exec, finished: false, settle, done, opts, lastEmit: 0, progressRoute, waiting: false, abort: new AbortController() };
    this.entries.set(info.taskId, e);
    this.prune();
    this.keep(e);
    if (typeof ttl === 'number') this.armTtl(e, ttl);
    this.emit(e);
    return e;
  }

  /** Keeps a running task for after a reload (`memory`); says once in the log when it cannot be kept. */
  private keep(e: Entry): void {
    const why = this.o.memory?.remember({
      taskId: e.info.taskId, tool: e.info.tool, generation: this.extension ? 'v2' : 'v1', startedAt: e.info.startedAt,
      ...(e.info.ttl !== undefined && { ttl: e.info.ttl }),
    });
    if (why && !e.notKept) {
      e.notKept = true;
      this.o.log?.('info', `task ${this.redacted(e.info.taskId)} of tool \`${e.info.tool}\` is not kept for after a reload: ${why}`);
    }
  }

  private onEvent(e: Entry, ev: TaskExecutionEvent<Record<string, unknown>>): void {
    if (ev.type !== 'task') return;
    this.apply(e, ev.task);
    if (ev.task.status === 'input_required') this.waitForInput(e);
  }

  /** 2025-11-25: one `tasks/result` wait while the task needs input, so that the server's requests reach the host. */
  private waitForInput(e: Entry): void {
    const wait = this.o.legacyResultWait;
    if (!wait || e.waiting || e.finished) return;
    e.waiting = true;
    wait(e.info.taskId, e.abort.signal).then(
      () => { e.waiting = false; },
      err => {
        e.waiting = false;
        if (!e.finished) this.o.log?.('debug', `tasks/result for task ${this.redacted(e.info.taskId)}: ${messageOf(err)}`);
      },
    );
  }

  private apply(e: Entry, t: TaskView): void {
    if (e.finished) return;
    // An end is shown only by `finish`, with its result or error attached: a terminal snapshot shown before it
    // would reach the views (and the one end notice) without the result.
    const status = isTerminal(t.status as TaskStatus) ? e.info.status : t.status as TaskStatus;
    const patch: Partial<TaskInfo> = { status, pollMs: pollDelay(t.suggestedPollIntervalMs ?? e.info.pollMs) };
    if (typeof t.statusMessage === 'string') Object.assign(patch, { statusMessage: this.cap(t.statusMessage) });
    if (t.retentionMs !== undefined) Object.assign(patch, { ttl: t.retentionMs });
    const statusChanged = status !== e.info.status;
    const changed = statusChanged || patch.statusMessage !== e.info.statusMessage;
    e.info = { ...e.info, ...patch, ...(changed && { updatedAt: Date.now() }) };
    if (e.ttlTimer === undefined && typeof e.info.ttl === 'number') {
      this.armTtl(e, e.info.ttl);
      this.keep(e);
    }
    if (!changed) return;
    if (statusChanged) this.emit(e);
    else this.emitSoon(e);
  }

  /** A progress notification's params as the host shows them (undefined when they are not progress). */
  private readProgress(p: Record<string, unknown>): TaskInfo['progress'] | undefined {
    const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
    if (!finite(p.progress)) return undefined;
    return {
      progress: p.progress,
      ...(finite(p.total) && { total: p.total }),
      ...(typeof p.message === 'string' && { message: this.cap(p.message) }),
    };
  }

  private setProgress(e: Entry, progress: NonNullable<TaskInfo['progress']>): void {
    if (e.finished) return;
    e.info = { ...e.info, progress, updatedAt: Date.now() };
    this.emitSoon(e);
  }

  /** Message-only and progress changes: shown now if nothing was shown for MESSAGE_EMIT_MS, else once that has passed. */
  private emitSoon(e: Entry): void {
    if (Date.now() - e.lastEmit >= MESSAGE_EMIT_MS) {
      this.emit(e);
    } else if (!e.pendingEmit) {
      e.pendingEmit = setTimeout(() => { e.pendingEmit = undefined; if (!e.finished) this.emit(e); }, MESSAGE_EMIT_MS);
      e.pendingEmit.unref?.();
    }
  }

  /** A task that outlives its ttl is given up (and cancelled on the server). */
  private armTtl(e: Entry, ttl: number): void {
    const left = e.info.startedAt + ttl - Date.now();
    e.ttlTimer = setTimeout(() => {
      if (e.finished || isTerminal(e.info.status)) return;
      this.finish(e, 'failed', `task \`${this.redacted(e.info.taskId)}\` of tool \`${e.info.tool}\` on server \`${this.o.server}\` did not finish within its ttl of ${Math.round(ttl / 1000)} s`);
      void withTimeout(e.exec.cancel(), this.o.requestTimeout()).catch(() => undefined);
    }, Math.max(0, Math.min(left, 2 ** 31 - 1)));
    e.ttlTimer.unref?.();
  }

  private emit(e: Entry): void {
    e.lastEmit = Date.now();
    if (e.pendingEmit) { clearTimeout(e.pendingEmit); e.pendingEmit = undefined; }
    const progress = e.info.progress;
    if (progress && progress !== e.progressSent) {
      e.progressSent = progress;
      e.opts.onProgress?.(progress);
    }
    e.opts.onUpdate?.(e.info);
    this._onDidChange.fire(e.info);
  }

  /** Ends a task here; `forget` (default: yes) also drops it from what is kept for after a reload. */
  private finish(e: Entry, status: TaskStatus, error?: string, forget = true): void {
    if (e.finished) return;
    e.finished = true;
    if (forget) this.o.memory?.forget(e.info.taskId);
    clearTimeout(e.ttlTimer);
    e.progressRoute?.dispose();
    e.abort.abort();
    const hasResult = error === undefined && e.result !== undefined;
    e.info = { ...e.info, status, hasResult, updatedAt: Date.now(), ...(error !== undefined && { error: this.o.redactor.text(error) }) };
    this.emit(e);
    if (hasResult) e.settle.resolve(e.result!);
    else e.settle.reject(new McpHostError(e.info.error ?? l10n.t('task {0} ended', e.info.taskId), status === 'cancelled' ? -32800 : undefined));
    // Stop driving locally (a cancel already went to the server when the host ended the task).
    if (status !== 'completed') void e.exec.detach().catch(() => undefined);
    this.prune();
  }

  private prune(): void {
    const finished = [...this.entries.values()].filter(e => e.finished);
    for (const e of finished.slice(0, Math.max(0, finished.length - TASK_BOUNDS.maxFinished))) this.entries.delete(e.info.taskId);
  }

  private cap(text: string): string {
    return this.o.redactor.cap(text, TASK_BOUNDS.maxStatusBytes).text;
  }

  private redacted(id: string): string {
    return this.o.redactor.cap(id, TASK_BOUNDS.maxTaskIdChars).text;
  }
}

/** `p`, or a rejection once `ms` have passed without an answer. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([p, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms); })])
    .finally(() => clearTimeout(timer));
}
