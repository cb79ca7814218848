/**
 * The running tasks remembered across a window reload (issue 36): per definition key (config/definitionKey.ts, a hash:
 * nothing of the resolved definition is stored), the ids of the tasks a server's session had running, so that the
 * next session of the same definition asks the server about each (`tasks/get`, through ext-tasks' `resumeTask`,
 * extTaskTracker.ts) and lists the ones it still keeps. Where it is kept is the owner's business: the extension's
 * workspace state (src/extension/state/taskStore.ts); the CLI keeps none.
 *
 * Bounded: at most the server's `maxTasksPerServer` tasks per definition (the limit in force when one is added), at
 * most MAX_TASK_MEMORY_KEYS definitions (the oldest go first), a task id of at most TASK_BOUNDS.maxTaskIdChars
 * characters (a longer one is not kept: `remember` says why), a tool name of at most MAX_REMEMBERED_TOOL_CHARS. A
 * task whose ttl has passed is dropped on load and on read: the server need not keep it any longer.
 */
import { isDefinitionKey } from '../config/definitionKey';
import { TASK_BOUNDS } from './taskPolicy';

/** What is kept of one running task. */
export interface RememberedTask {
  /** The server's task id (at most TASK_BOUNDS.maxTaskIdChars characters). */
  taskId: string;
  tool: string;
  /** ext-tasks' generation: `v2` a 2026-07-28 extension task, `v1` a 2025-11-25 one. */
  generation: 'v1' | 'v2';
  /** When the task started (ms since the epoch). */
  startedAt: number;
  /** The server's ttl (ms); null or absent: none said. */
  ttl?: number | null;
}

/** Where remembered tasks are kept (synchronous; a store persists when and how it likes). */
export interface TaskMemoryStore {
  /** The remembered tasks of a definition whose ttl has not passed (oldest first). */
  list(key: string): RememberedTask[];
  /** Keeps a running task; returns why it was not kept, or undefined when it was. */
  remember(key: string, task: RememberedTask, max: number): string | undefined;
  /** Forgets a task (it ended, or the server no longer knows it). */
  forget(key: string, taskId: string): void;
}

/** One definition's part of a store, as a session's tracker uses it (extTaskTracker.ts). */
export interface BoundTaskMemory {
  list(): RememberedTask[];
  remember(task: RememberedTask): string | undefined;
  forget(taskId: string): void;
}

/** `store`'s tasks of the definition `key`, at most `max()` of them (the server's `maxTasksPerServer`). */
export function bindTaskMemory(store: TaskMemoryStore, key: string, max: () => number): BoundTaskMemory {
  return {
    list: () => store.list(key),
    remember: task => store.remember(key, task, max()),
    forget: taskId => store.forget(key, taskId),
  };
}

/** Definitions whose tasks are kept (the oldest go first). */
export const MAX_TASK_MEMORY_KEYS = 64;
/** Longest tool name kept. */
export const MAX_REMEMBERED_TOOL_CHARS = 256;

/**
 * Remembered tasks in memory, loaded from and saved through the owner's hooks as plain JSON
 * (`{ [definitionKey]: RememberedTask[] }`); anything malformed, too long or expired in what was loaded is dropped.
 */
export class TaskMemory implements TaskMemoryStore {
  private readonly entries = new Map<string, RememberedTask[]>();

  constructor(stored: unknown, private readonly save: (data: Record<string, RememberedTask[]> | undefined) => void = () => undefined, private readonly now = Date.now) {
    if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return;
    for (const [key, v] of Object.entries(stored as Record<string, unknown>)) {
      if (!isDefinitionKey(key) || !Array.isArray(v)) continue;
      // The bound in force when they were added is not known here: the most one definition could have had.
      const tasks = v.map(readTask).filter((t): t is RememberedTask => t !== undefined && this.alive(t)).slice(-MAX_KEPT_PER_KEY);
      if (tasks.length) this.entries.set(key, tasks);
      if (this.entries.size >= MAX_TASK_MEMORY_KEYS) break;
    }
  }

  list(key: string): RememberedTask[] {
    const tasks = this.entries.get(key);
    if (!tasks) return [];
    const alive = tasks.filter(t => this.alive(t));
    if (alive.length !== tasks.length) this.put(key, alive);
    return alive.map(t => ({ ...t }));
  }

  remember(key: string, task: RememberedTask, max: number): string | undefined {
    if (!isDefinitionKey(key)) return 'the server has no definition key';
    if (task.taskId.length === 0 || task.taskId.length > TASK_BOUNDS.maxTaskIdChars) {
      return `its task id is ${task.taskId.length} characters long (at most ${TASK_BOUNDS.maxTaskIdChars} are kept)`;
    }
    const checked = readTask(task);
    if (!checked) return 'it is malformed';
    const tasks = (this.entries.get(key) ?? []).filter(t => t.taskId !== task.taskId && this.alive(t));
    const room = Math.max(0, Math.min(Math.floor(max), MAX_KEPT_PER_KEY));
    if (tasks.length >= room) return `${room} tasks of this server are kept already (mcpHost.limits.maxTasksPerServer)`;
    tasks.push(checked);
    this.put(key, tasks);
    return undefined;
  }

  forget(key: string, taskId: string): void {
    const tasks = this.entries.get(key);
    if (!tasks?.some(t => t.taskId === taskId)) return;
    this.put(key, tasks.filter(t => t.taskId !== taskId));
  }

  /**
   * Once, when the definition key changed (config/definitionKey.ts keyMigration): tasks under a key of `map` move to
   * its new key; every other one is dropped.
   */
  rekey(map: ReadonlyMap<string, string>): void {
    const old = [...this.entries];
    this.entries.clear();
    for (const [k, v] of old) { const next = map.get(k); if (next !== undefined && isDefinitionKey(next)) this.entries.set(next, v); }
    this.save(this.entries.size ? this.toJSON() : undefined);
  }

  toJSON(): Record<string, RememberedTask[]> {
    return Object.fromEntries(this.entries);
  }

  /** Its ttl has not passed (a task without one is kept until the server says it is gone). */
  private alive(t: RememberedTask): boolean {
    return typeof t.ttl !== 'number' || this.now() < t.startedAt + t.ttl;
  }

  private put(key: string, tasks: RememberedTask[]): void {
    this.entries.delete(key);
    if (tasks.length) this.entries.set(key, tasks);
    while (this.entries.size > MAX_TASK_MEMORY_KEYS) this.entries.delete(this.entries.keys().next().value as string);
    this.save(this.entries.size ? this.toJSON() : undefined);
  }
}

/** The most tasks kept per definition however high `maxTasksPerServer` is set. */
const MAX_KEPT_PER_KEY = 1_000;

/** A stored task as the host keeps it, or undefined when anything of it is off. */
function readTask(v: unknown): RememberedTask | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const t = v as Partial<RememberedTask>;
  if (typeof t.taskId !== 'string' || t.taskId.length === 0 || t.taskId.length > TASK_BOUNDS.maxTaskIdChars) return undefined;
  if (typeof t.tool !== 'string' || t.tool.length === 0 || t.tool.length > MAX_REMEMBERED_TOOL_CHARS) return undefined;
  if (t.generation !== 'v1' && t.generation !== 'v2') return undefined;
  if (typeof t.startedAt !== 'number' || !Number.isFinite(t.startedAt)) return undefined;
  const ttl = typeof t.ttl === 'number' && Number.isFinite(t.ttl) && t.ttl >= 0 ? t.ttl : null;
  return { taskId: t.taskId, tool: t.tool, generation: t.generation, startedAt: t.startedAt, ...(ttl !== null && { ttl }) };
}
