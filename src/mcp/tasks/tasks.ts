/**
 * Tasks, what the host keeps of them in both eras: the `TaskInfo` snapshot the views, chat and the CLI see
 * (redacted and bounded), the options of a task call, the face of a session's tracker (`TaskRunner`; the
 * one tracker is extTaskTracker.ts, on an ext-tasks session for a 2025-11-25 server's `tasks` capability and a
 * 2026-07-28 server's `io.modelcontextprotocol/tasks` extension alike), the listing order and the running
 * task bound they share, and readable error codes.
 *
 * Bounded: at most `maxTasksPerServer` running tasks, `TASK_BOUNDS.maxFinished` finished ones kept for
 * "Show Result", status messages cut after redaction (the connection's redactor, the one path).
 */
import { ProtocolError } from '@modelcontextprotocol/client';
import type { Disposable, Event } from '../events';
import { McpHostError } from '../errors';
import { limitMessage } from '../limits';
import { isTerminal, type TaskStatus } from './taskPolicy';

export * from './taskPolicy';

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

export interface TaskRunOptions {
  signal?: AbortSignal;
  timeout?: number;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** Called once the server created the task (the task id is known). */
  onCreated?: (info: TaskInfo) => void;
  /** Called on every change of this task. */
  onUpdate?: (info: TaskInfo) => void;
  userStarted?: boolean;
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
    throw new McpHostError(limitMessage(server, max, { kind: 'tooManyTasks' }));
  }
}

/** What a connection needs of a session's tasks, in either era (ExtTaskTracker, extTaskTracker.ts). */
export interface TaskRunner extends Disposable {
  /** True for a tracker of the 2026-07-28 `io.modelcontextprotocol/tasks` extension (false: 2025-11-25 `tasks`). */
  readonly extension?: boolean;
  readonly tasks: TaskInfo[];
  readonly onDidChange: Event<TaskInfo>;
  get(taskId: string): TaskInfo | undefined;
  callTool(tool: string, args: Record<string, unknown>, opts?: TaskRunOptions): Promise<Record<string, unknown>>;
  result(taskId: string): Promise<Record<string, unknown>>;
  cancel(taskId: string): Promise<void>;
  dispose(reason?: string): void;
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
