/**
 * The running tasks kept across a window reload (issue 36; src/mcp/tasks/taskMemory.ts), in the workspace state next
 * to the era verdicts: per definition key (a hash), each task's id, tool, start and ttl; nothing of a resolved
 * definition, no arguments, no results. A new session of the definition asks the server about each (`tasks/get`)
 * and lists again the ones it still keeps.
 */
import type * as vscode from 'vscode';
import { TaskMemory } from '../../mcp';

export const TASK_MEMORY_KEY = 'mcpHost.runningTasks';

/** The remembered tasks kept in `memento` (the workspace state). */
export function mementoTaskMemory(memento: Pick<vscode.Memento, 'get' | 'update'>): TaskMemory {
  return new TaskMemory(memento.get<unknown>(TASK_MEMORY_KEY), data => { void memento.update(TASK_MEMORY_KEY, data); });
}
