/**
 * Tasks, the decisions and the bounds (MCP 2025-11-25 "tasks", experimental, SEP-1686; and the 2026-07-28
 * Tasks extension): whether a tool call runs as a task, and the host's fixed bounds on what a server's task
 * says. Editor-free; nothing here sends a request.
 *
 * Both eras are driven by `@modelcontextprotocol/ext-tasks` (extTaskSession.ts, extTaskTracker.ts): a 2025-11-25 session whose server
 * declares task tool calls through the SDK Client, a 2026-07-28 session whose server declares the extension
 * (`io.modelcontextprotocol/tasks`, SEP-2663: server-directed `resultType: "task"`, `tasks/get` with inlined
 * results, `tasks/update`, no `tasks/result`) through the host's own request coordinator
 * (server/rawRequests.ts), since the SDK v2 (2.4.0) refuses those methods and answers. The same policy
 * decides which calls go as tasks in both eras.
 */
import { McpHostError } from '../errors';
import * as l10n from '@vscode/l10n';

export type TaskSupport = 'forbidden' | 'optional' | 'required';
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
/** How the caller wants an `optional` tool run: `auto` (the policy below), `task` (asked for), `plain`. */
export type TaskMode = 'auto' | 'task' | 'plain';

export const TASK_STATUSES: readonly TaskStatus[] = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The prefix of the progress tokens of the host's 2026-07-28 task calls (extTaskTracker.ts gives them, rawRequests.ts routes them). */
export const TASK_PROGRESS_PREFIX = 'mcp-host-task-progress-';

/** Fixed bounds on what a server's task says (the count of tasks is the limit `maxTasksPerServer`). */
export const TASK_BOUNDS = Object.freeze({
  /** Polling faster than this is never done, whatever `pollInterval` says (0, negative, NaN, a string). */
  minPollMs: 250,
  /** Polling slower than this is never done either (a year-long `pollInterval` would look like a hang). */
  maxPollMs: 30_000,
  /** When the server suggests nothing. */
  defaultPollMs: 1_000,
  /** Bytes of a status message kept (after redaction). */
  maxStatusBytes: 1_024,
  /** Longest task id accepted; a longer one fails the call. */
  maxTaskIdChars: 256,
  /** The ttl the host asks for (the server may choose another). */
  requestedTtlMs: 30 * 60_000,
  /** One `tasks/result` wait (it blocks until the task ends); a wait that times out is asked again. */
  resultWaitMs: 10 * 60_000,
  /** `tasks/get` failures in a row that end the task (a server that stopped answering for it). */
  maxPollFailures: 3,
  /** Finished tasks kept per server for "Show Result" (oldest dropped first). */
  maxFinished: 16,
});

/**
 * The policy for `optional` tools (documented in docs/FEATURES.md): run as a task when the user asked for it
 * (the "Call Tool as Task" command, `mcp-host call --task`), or when the tool is known long-running,
 * i.e. a plain call of it on this server took at least `LONG_RUNNING_MS` or timed out this session.
 * `required` always runs as a task; `forbidden` or no `execution` never does.
 */
export const LONG_RUNNING_MS = 10_000;

export interface TaskDecisionInput {
  server: string;
  tool: string;
  /** The tool's `execution.taskSupport` as the server listed it (anything else counts as forbidden). */
  taskSupport: unknown;
  /** The server's capabilities from initialize. */
  capabilities: Record<string, unknown> | undefined;
  /** The negotiated protocol version. */
  protocolVersion: string | undefined;
  mode: TaskMode;
  /** The tool is known long-running on this server (see LONG_RUNNING_MS). */
  longRunning: boolean;
  /** A 2026-07-28 session that drives the `io.modelcontextprotocol/tasks` extension (the server declared it). */
  extension?: boolean;
}

export function taskSupportOf(v: unknown): TaskSupport {
  return v === 'required' || v === 'optional' ? v : 'forbidden';
}

/** The 2026-07-28 era and later (date-shaped versions compare as strings). */
export function isModernEra(version: string | undefined): boolean {
  return typeof version === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= '2026-07-28';
}

/** The server declared task-augmented `tools/call` (`capabilities.tasks.requests.tools.call`). */
export function serverTakesToolTasks(caps: Record<string, unknown> | undefined): boolean {
  const tasks = obj(caps?.tasks);
  return obj(obj(obj(tasks?.requests)?.tools)?.call) !== undefined;
}

/**
 * True to call the tool through the task session. On 2026-07-28 (SEP-2663): every call when the server
 * declares the extension (the server decides per call whether a task comes back), none otherwise; --no-task
 * is refused there (it means something only on 2025-11-25). On 2025-11-25 (SEP-1686): the tool's
 * `execution.taskSupport` and the caller's mode decide. Throws a readable error when the call cannot go as
 * asked, saying what the user can do.
 */
export function runAsTask(d: TaskDecisionInput): boolean {
  const where = `tool \`${d.tool}\` on server \`${d.server}\``;
  const modern = isModernEra(d.protocolVersion);
  if (modern) {
    // SEP-2663: task creation is server-directed. Every call of a session whose server declares the extension
    // declares the client's capability (ext-tasks does, on every v2 tools/call) and takes whichever answer
    // comes; there is no per-tool `execution.taskSupport` in this era, so it is not read, and --task asks for
    // nothing more than every call already allows.
    if (d.extension !== true) {
      if (d.mode === 'task') throw new McpHostError(`${where} cannot run as a task: on protocol ${d.protocolVersion} tasks are the extension \`${TASKS_EXTENSION}\`, which the server does not declare (\`capabilities.extensions\` of server/discover); call it without --task`);
      return false;
    }
    if (d.mode === 'plain') {
      throw new McpHostError(`${where}: --no-task applies to protocol 2025-11-25 servers only; on protocol ${d.protocolVersion} the server decides per call whether it answers with a task (the \`${TASKS_EXTENSION}\` extension), so call it without --no-task`);
    }
    return true;
  }
  const support = taskSupportOf(d.taskSupport);
  const declared = serverTakesToolTasks(d.capabilities);
  if (support === 'forbidden') {
    if (d.mode === 'task') throw new McpHostError(`${where} cannot run as a task: the server does not offer it as one (its \`execution.taskSupport\` is ${d.taskSupport === undefined ? 'absent' : JSON.stringify(d.taskSupport)}); call it without --task`);
    return false;
  }
  if (!declared) {
    if (support === 'optional' && d.mode !== 'task') return false;
    throw new McpHostError(support === 'required'
      ? l10n.t('tool `{0}` on server `{1}` must run as a task, but the server does not declare task tool calls (`capabilities.tasks.requests.tools.call`), so it cannot be called; this is a server bug: tell its author', d.tool, d.server)
      : l10n.t('tool `{0}` on server `{1}` can only run as a task, but the server does not declare task tool calls (`capabilities.tasks.requests.tools.call`), so it cannot be called; this is a server bug: tell its author', d.tool, d.server));
  }
  if (support === 'required') {
    if (d.mode === 'plain') throw new McpHostError(`${where} must run as a task (its \`execution.taskSupport\` is "required"); call it without --no-task`);
    return true;
  }
  if (d.mode === 'task') return true;
  if (d.mode === 'plain') return false;
  return d.longRunning;
}

/**
 * The server declared the 2026-07-28 Tasks extension (`capabilities.extensions["io.modelcontextprotocol/tasks"]`
 * of server/discover) on a 2026-07-28 session.
 */
export function serverDeclaresTasksExtension(protocolVersion: string | undefined, caps: Record<string, unknown> | undefined): boolean {
  return isModernEra(protocolVersion) && obj(obj(caps?.extensions)?.[TASKS_EXTENSION]) !== undefined;
}

/**
 * A tool the user may call "as a task" (Call Tool as Task…, `--task`): on 2026-07-28 every tool of a server that
 * declares the extension (the server decides per call, SEP-2663); on 2025-11-25 a tool whose
 * `execution.taskSupport` is `optional` or `required`.
 */
export function offeredAsTask(taskSupport: unknown, protocolVersion: string | undefined, caps: Record<string, unknown> | undefined): boolean {
  if (isModernEra(protocolVersion)) return serverDeclaresTasksExtension(protocolVersion, caps);
  return taskSupportOf(taskSupport) !== 'forbidden';
}

/** Remembers which tools ran long as plain calls (bounded; per server, per session). */
export class LongRunningTools {
  private readonly names = new Set<string>();
  constructor(private readonly max = 256) {}

  has(tool: string): boolean {
    return this.names.has(tool);
  }

  /** Records a plain call's duration (ms) or a timeout (Infinity). */
  record(tool: string, ms: number): void {
    if (ms < LONG_RUNNING_MS || this.names.has(tool)) return;
    if (this.names.size >= this.max) this.names.delete(this.names.values().next().value as string);
    this.names.add(tool);
  }

  clear(): void {
    this.names.clear();
  }
}

/** The polling interval to use for what a server suggested (anything odd becomes the default, then bounded). */
export function pollDelay(suggested: unknown): number {
  const ms = typeof suggested === 'number' && Number.isFinite(suggested) && suggested > 0 ? suggested : TASK_BOUNDS.defaultPollMs;
  return Math.min(TASK_BOUNDS.maxPollMs, Math.max(TASK_BOUNDS.minPollMs, Math.round(ms)));
}

export function isTerminal(s: TaskStatus): boolean {
  return s === 'completed' || s === 'failed' || s === 'cancelled';
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}
