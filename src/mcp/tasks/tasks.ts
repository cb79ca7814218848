/**
 * Tasks (MCP 2025-11-25, experimental): one tracker per server session. It creates a task for a tool call
 * (`tools/call` with `task`), polls `tasks/get` at the server's `pollInterval` (bounded, taskPolicy.ts),
 * listens to `notifications/tasks/status`, fetches `tasks/result` once the task needs input or has ended
 * (server requests that arrive meanwhile, like the elicitation of an `input_required` task, go through the
 * connection's normal elicitation/sampling callbacks), cancels with `tasks/cancel`, gives up after the
 * task's ttl, and rejects every waiter when the session ends. It talks to the server only through
 * `TaskChannel`: the two members of a connection it needs.
 *
 * Bounded: at most `maxTasksPerServer` running tasks, `TASK_BOUNDS.maxFinished` finished ones kept for
 * "Show Result", status messages cut after redaction (the connection's redactor, the one path).
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { Emitter, type Disposable, type Event } from '../events';
import { McpHostError, messageOf } from '../errors';
import { limitMessage } from '../limits';
import type { Redactor } from '../logging/redact';
import { TASK_BOUNDS, isTerminal, pollDelay, readTask, type TaskStatus, type WireTask } from './taskPolicy';

export * from './taskPolicy';

/** Request options a channel takes (the connection's own RequestOptions have this shape). */
export interface TaskRequestOptions {
  signal?: AbortSignal;
  timeout?: number;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

/** A result schema in the Standard Schema shape (what the SDK v2 `request` takes). */
export interface ResultSchema<T> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => { value: T; issues?: undefined } | { issues: readonly { message: string }[] };
  };
}

/** The narrow part of a connection the tracker uses. */
export interface TaskChannel {
  /** Sends a request on the running session; rejects with a readable error naming the server. */
  request<T>(method: string, params: Record<string, unknown>, resultSchema?: ResultSchema<T>, opts?: TaskRequestOptions): Promise<T>;
  /** Handles a notification by method (params as sent); dispose to stop. */
  onNotification(method: string, handler: (params: unknown) => void): Disposable;
}

/** Any JSON object; the tracker checks task shapes itself (a server's task is untrusted). */
export const OBJECT_RESULT: ResultSchema<Record<string, unknown>> = {
  '~standard': {
    version: 1,
    vendor: 'mcp-host',
    validate: (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value)
      ? { value: value as Record<string, unknown> }
      : { issues: [{ message: 'the result is not an object' }] }),
  },
};

/** What the views and the CLI see of one task (a snapshot; redacted and bounded). */
export interface TaskInfo {
  readonly server: string;
  readonly taskId: string;
  readonly tool: string;
  /** The arguments the call was made with (the host's own input). */
  readonly arguments: Record<string, unknown>;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Local clock, ms. */
  readonly startedAt: number;
  readonly updatedAt: number;
  /** The server's ttl (ms; null = unlimited; undefined = not said). */
  readonly ttl?: number | null;
  /** The polling interval in use (ms). */
  readonly pollMs: number;
  /** The last progress notification of the call, if the server sent any. */
  readonly progress?: { progress: number; total?: number; message?: string };
  /** Why the task ended without a result (failed, cancelled, expired, server stopped). */
  readonly error?: string;
  /** A result is there to show. */
  readonly hasResult: boolean;
  /** The user started it (a command or the CLI), as opposed to a model's tool call. */
  readonly userStarted: boolean;
}

export interface TaskRunOptions extends TaskRequestOptions {
  /** Called once the server created the task (the task id is known). */
  onCreated?: (info: TaskInfo) => void;
  /** Called on every change of this task. */
  onUpdate?: (info: TaskInfo) => void;
  userStarted?: boolean;
}

export interface TaskTrackerOptions {
  server: string;
  channel: TaskChannel;
  redactor: Redactor;
  /** Running tasks at once (the limit `maxTasksPerServer`). */
  maxTasks: number;
  /** The server's request timeout (ms) for tasks/get and tasks/cancel. */
  requestTimeout: () => number;
  log?: (level: 'info' | 'warning' | 'debug', message: string) => void;
}

/** Running tasks first (newest first), then finished ones (newest first): the order of both trackers' lists. */
export function listedTasks(entries: Iterable<{ info: TaskInfo }>): TaskInfo[] {
  const all = [...entries].map(e => e.info).reverse();
  return [...all.filter(t => !isTerminal(t.status)), ...all.filter(t => isTerminal(t.status))];
}

/** Refuses a new task while `max` tasks of the server are still running (`mcpHost.limits.maxTasksPerServer`). */
export function assertTaskRoom(server: string, entries: Iterable<{ finished: boolean }>, max: number): void {
  let running = 0;
  for (const e of entries) if (!e.finished) running++;
  if (running >= max) {
    throw new McpHostError(`${limitMessage(server, 'maxTasksPerServer', max, 'has too many running tasks')}; cancel one (MCP: Cancel Task) or wait`);
  }
}

interface Entry {
  info: TaskInfo;
  args: { tool: string };
  result?: Record<string, unknown>;
  finished: boolean;
  /** Aborts polling and the result wait. */
  abort: AbortController;
  fetching: boolean;
  failures: number;
  wake?: () => void;
  settle: { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void };
  done: Promise<Record<string, unknown>>;
  opts: TaskRunOptions;
}

/** What a connection needs of a session's tasks, in either era (TaskTracker here, ExtTaskTracker for 2026-07-28). */
export interface TaskRunner extends Disposable {
  /** True for a tracker of the 2026-07-28 `io.modelcontextprotocol/tasks` extension. */
  readonly extension?: boolean;
  readonly tasks: TaskInfo[];
  readonly onDidChange: Event<TaskInfo>;
  get(taskId: string): TaskInfo | undefined;
  callTool(tool: string, args: Record<string, unknown>, opts?: TaskRunOptions): Promise<Record<string, unknown>>;
  result(taskId: string): Promise<Record<string, unknown>>;
  cancel(taskId: string): Promise<void>;
  dispose(reason?: string): void;
}

export class TaskTracker implements TaskRunner {
  private readonly entries = new Map<string, Entry>();
  private readonly subscription: Disposable;
  private disposed = false;
  private readonly _onDidChange = new Emitter<TaskInfo>();
  /** Every change of any task of this server. */
  readonly onDidChange: Event<TaskInfo> = this._onDidChange.event;

  constructor(private readonly o: TaskTrackerOptions) {
    this.subscription = o.channel.onNotification('notifications/tasks/status', p => this.onStatus(p));
  }

  /** Running tasks first (newest first), then finished ones (newest first). */
  get tasks(): TaskInfo[] {
    return listedTasks(this.entries.values());
  }

  get(taskId: string): TaskInfo | undefined {
    return this.entries.get(taskId)?.info;
  }

  /**
   * Calls `tool` as a task and resolves with its CallToolResult (unchecked: the caller parses it as any
   * tool result). A server that answers with a plain result instead (it ignored `task`) is taken as is.
   */
  async callTool(tool: string, args: Record<string, unknown>, opts: TaskRunOptions = {}): Promise<Record<string, unknown>> {
    if (this.disposed) throw new McpHostError(`server \`${this.o.server}\` is not running`);
    assertTaskRoom(this.o.server, this.entries.values(), this.o.maxTasks);
    let progress: TaskInfo['progress'];
    const box: { entry?: Entry } = {};
    const onProgress = (p: { progress: number; total?: number; message?: string }) => {
      progress = { progress: p.progress, ...(p.total !== undefined && { total: p.total }), ...(p.message !== undefined && { message: this.cap(p.message) }) };
      if (box.entry) this.update(box.entry, { progress });
      opts.onProgress?.(p);
    };
    const created = await this.o.channel.request('tools/call', { name: tool, arguments: args, task: { ttl: TASK_BOUNDS.requestedTtlMs } }, OBJECT_RESULT, { signal: opts.signal, timeout: opts.timeout, onProgress });
    if (created.task === undefined && Array.isArray(created.content)) return created;
    const t = readTask(created.task);
    if (typeof t === 'string') throw new McpHostError(`server \`${this.o.server}\` answered the task call of tool \`${tool}\` with a bad task: ${t}`);
    if (this.entries.has(t.taskId)) throw new McpHostError(`server \`${this.o.server}\` gave tool \`${tool}\` the id of a task it already has (${this.redacted(t.taskId)})`);
    const entry = box.entry = this.track(tool, args, t, opts, progress);
    opts.onCreated?.(entry.info);
    if (opts.signal) {
      const e = entry;
      const onAbort = () => { void this.cancel(e.info.taskId); };
      if (opts.signal.aborted) onAbort();
      else opts.signal.addEventListener('abort', onAbort, { once: true });
      void e.done.catch(() => undefined).finally(() => opts.signal?.removeEventListener('abort', onAbort));
    }
    void this.drive(entry);
    return entry.done;
  }

  /** The result of a task: at once when it has ended, else when it ends. */
  result(taskId: string): Promise<Record<string, unknown>> {
    const e = this.entries.get(taskId);
    if (!e) return Promise.reject(new McpHostError(`server \`${this.o.server}\` has no task \`${taskId}\` here (finished tasks are kept until ${TASK_BOUNDS.maxFinished} newer ones ended)`));
    return e.done;
  }

  /** Asks the server to cancel (tasks/cancel) and stops waiting at once. */
  async cancel(taskId: string): Promise<void> {
    const e = this.entries.get(taskId);
    if (!e || e.finished) return;
    this.finish(e, 'cancelled', `task \`${this.redacted(taskId)}\` of tool \`${e.args.tool}\` on server \`${this.o.server}\` was cancelled`);
    try {
      await this.o.channel.request('tasks/cancel', { taskId }, OBJECT_RESULT, { timeout: this.o.requestTimeout() });
      this.o.log?.('info', `task ${this.redacted(taskId)} cancelled`);
    } catch (err) {
      this.o.log?.('warning', `tasks/cancel for task ${this.redacted(taskId)}: ${messageOf(err)}`);
    }
  }

  /** The session ended: every waiter is told, polling stops; finished tasks stay for Show Result. */
  dispose(reason = `server \`${this.o.server}\` stopped`): void {
    if (this.disposed) return;
    this.disposed = true;
    this.subscription.dispose();
    for (const e of this.entries.values()) {
      if (!e.finished) this.finish(e, 'failed', `${reason} while task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\` was running`);
    }
    this._onDidChange.dispose();
  }

  // -------------------------------------------------------------------------------------------

  private track(tool: string, args: Record<string, unknown>, t: WireTask, opts: TaskRunOptions, progress: TaskInfo['progress']): Entry {
    let settle!: Entry['settle'];
    const done = new Promise<Record<string, unknown>>((resolve, reject) => { settle = { resolve, reject }; });
    done.catch(() => undefined);
    const now = Date.now();
    const info: TaskInfo = {
      server: this.o.server, taskId: t.taskId, tool, arguments: args, status: t.status, startedAt: now, updatedAt: now,
      pollMs: pollDelay(t.pollInterval), hasResult: false, userStarted: opts.userStarted ?? false,
      ...(t.statusMessage !== undefined && { statusMessage: this.cap(t.statusMessage) }),
      ...(t.ttl !== undefined && { ttl: t.ttl }),
      ...(progress && { progress }),
    };
    const e: Entry = { info, args: { tool }, finished: false, abort: new AbortController(), fetching: false, failures: 0, settle, done, opts };
    this.entries.set(t.taskId, e);
    this.prune();
    this.emit(e);
    return e;
  }

  /** Finished tasks beyond maxFinished go, oldest first. */
  private prune(): void {
    const finished = [...this.entries.values()].filter(e => e.finished);
    for (const e of finished.slice(0, Math.max(0, finished.length - TASK_BOUNDS.maxFinished))) this.entries.delete(e.info.taskId);
  }

  private emit(e: Entry): void {
    e.opts.onUpdate?.(e.info);
    this._onDidChange.fire(e.info);
  }

  private update(e: Entry, patch: Partial<TaskInfo>): void {
    e.info = { ...e.info, ...patch, updatedAt: Date.now() };
    this.emit(e);
  }

  private apply(e: Entry, t: WireTask): void {
    if (e.finished) return;
    // A terminal status never changes back (a server that says otherwise is ignored).
    if (isTerminal(e.info.status) && t.status !== e.info.status) return;
    const patch: Partial<TaskInfo> = { status: t.status, pollMs: pollDelay(t.pollInterval ?? e.info.pollMs) };
    if (t.statusMessage !== undefined) Object.assign(patch, { statusMessage: this.cap(t.statusMessage) });
    if (t.ttl !== undefined) Object.assign(patch, { ttl: t.ttl });
    const changed = patch.status !== e.info.status || patch.statusMessage !== e.info.statusMessage;
    e.info = { ...e.info, ...patch, ...(changed && { updatedAt: Date.now() }) };
    if (changed) this.emit(e);
    e.wake?.();
  }

  private onStatus(params: unknown): void {
    const t = readTask(params);
    if (typeof t === 'string') return;
    const e = this.entries.get(t.taskId);
    if (e) this.apply(e, t);
  }

  /** Polls until the task ends; starts the result wait when the task needs input or has ended. */
  private async drive(e: Entry): Promise<void> {
    while (!e.finished) {
      const s = e.info.status;
      if (s === 'cancelled') {
        this.finish(e, 'cancelled', `server \`${this.o.server}\` cancelled task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\`${e.info.statusMessage ? `: ${e.info.statusMessage}` : ''}`);
        return;
      }
      if (s === 'input_required' || s === 'completed' || s === 'failed') this.fetchResult(e);
      const ttl = e.info.ttl;
      if (typeof ttl === 'number' && Date.now() > e.info.startedAt + ttl && !isTerminal(s)) {
        this.finish(e, 'failed', `task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\` on server \`${this.o.server}\` did not finish within its ttl of ${Math.round(ttl / 1000)} s`);
        void this.o.channel.request('tasks/cancel', { taskId: e.info.taskId }, OBJECT_RESULT, { timeout: this.o.requestTimeout() }).catch(() => undefined);
        return;
      }
      await this.sleep(e, isTerminal(s) ? TASK_BOUNDS.maxPollMs : e.info.pollMs);
      if (e.finished) return;
      try {
        const r = await this.o.channel.request('tasks/get', { taskId: e.info.taskId }, OBJECT_RESULT, { signal: e.abort.signal, timeout: this.o.requestTimeout() });
        const t = readTask(r);
        if (typeof t === 'string' || t.taskId !== e.info.taskId) throw new McpHostError(`server \`${this.o.server}\` answered tasks/get with a bad task: ${typeof t === 'string' ? t : 'another task id'}`);
        e.failures = 0;
        this.apply(e, t);
      } catch (err) {
        if (e.finished) return;
        const gone = codeOf(err) === -32602;
        if (gone || ++e.failures >= TASK_BOUNDS.maxPollFailures) {
          this.finish(e, 'failed', gone
            ? `server \`${this.o.server}\` no longer knows task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\` (expired or deleted): ${messageOf(err)}`
            : `polling task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\` failed ${e.failures} times: ${messageOf(err)}`);
          return;
        }
      }
    }
  }

  /** One `tasks/result` wait at a time; it blocks on the server until the task ends. */
  private fetchResult(e: Entry): void {
    if (e.fetching || e.finished) return;
    e.fetching = true;
    this.o.channel.request('tasks/result', { taskId: e.info.taskId }, OBJECT_RESULT, { signal: e.abort.signal, timeout: TASK_BOUNDS.resultWaitMs }).then(
      r => {
        e.fetching = false;
        if (e.finished) return;
        e.result = r;
        this.finish(e, 'completed');
      },
      err => {
        e.fetching = false;
        if (e.finished) return;
        // A wait that timed out while the task still runs is asked again on the next poll.
        if (isTimeout(err) && !isTerminal(e.info.status)) return;
        const why = e.info.statusMessage && !messageOf(err).includes(e.info.statusMessage) ? ` (${e.info.statusMessage})` : '';
        this.finish(e, 'failed', `task \`${this.redacted(e.info.taskId)}\` of tool \`${e.args.tool}\` on server \`${this.o.server}\` failed: ${messageOf(err)}${why}`);
      },
    );
  }

  private sleep(e: Entry, ms: number): Promise<void> {
    return new Promise(resolve => {
      const timer = setTimeout(done, ms);
      function done() { clearTimeout(timer); e.wake = undefined; resolve(); }
      e.wake = done;
    });
  }

  private finish(e: Entry, status: TaskStatus, error?: string): void {
    if (e.finished) return;
    e.finished = true;
    e.abort.abort();
    e.wake?.();
    const hasResult = error === undefined && e.result !== undefined;
    this.update(e, { status, hasResult, ...(error !== undefined && { error: this.o.redactor.text(error) }) });
    if (hasResult) e.settle.resolve(e.result!);
    else e.settle.reject(new McpHostError(e.info.error ?? `task ${e.info.taskId} ended`, status === 'cancelled' ? -32800 : undefined));
    this.prune();
  }

  private cap(text: string): string {
    return this.o.redactor.cap(text, TASK_BOUNDS.maxStatusBytes).text;
  }

  private redacted(id: string): string {
    return this.o.redactor.cap(id, TASK_BOUNDS.maxTaskIdChars).text;
  }
}

/** The JSON-RPC error code of a failed request (the host's readable error or the SDK's), through causes. */
export function codeOf(err: unknown): number | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof McpHostError && typeof e.code === 'number') return e.code;
    if (e instanceof ProtocolError) return e.code;
  }
  return undefined;
}

/** The `data` of a JSON-RPC error the server sent (through causes), if any. */
export function errorDataOf(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ProtocolError) return e.data;
    const data = (e as { data?: unknown }).data;
    if (data !== undefined) return data;
  }
  return undefined;
}

function isTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout) return true;
    if (e instanceof McpHostError && e.code === -32001) return true;
  }
  return false;
}
