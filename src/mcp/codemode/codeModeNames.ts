/**
 * Code mode's names (issue 42): each server and tool gets a safe JavaScript identifier for `mcp.<server>.<tool>`,
 * and a table from that identifier back to the real (server, tool). The mangling is deterministic: characters outside
 * `[A-Za-z0-9_$]` become `_`, a leading digit or an Object.prototype name (`__proto__`, `constructor`, …) gets a `_`
 * prefix, and names that then collide get `_2`, `_3`, … in the order of their real names (sorted), so the same
 * catalogue always gives the same table. A path-like name (`../x`, `a/b`) is only ever a property name after this.
 */
import type { Tool } from '@modelcontextprotocol/client';

/** One server as code mode sees it: its name and the tools a program may call (already gated by the caller). */
export interface CodeModeServer {
  name: string;
  tools: readonly Tool[];
}

/** The safe name → real name table: `servers.get(safeServer).tools.get(safeTool)` is the real tool. */
export interface CodeModeNames {
  servers: Map<string, { server: string; tools: Map<string, Tool> }>;
}

const PROTO_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype).concat(['prototype', 'then']));

/** The identifier for one name, before collisions are resolved. */
export function safeIdentifier(name: string): string {
  let s = name.replace(/[^A-Za-z0-9_$]/g, '_');
  if (!s || /^[0-9]/.test(s) || PROTO_NAMES.has(s)) s = `_${s}`;
  return s;
}

/** Safe names for `names` (distinct real names), deterministic: collisions numbered in sorted order of the real names. */
function assign<T>(items: readonly T[], nameOf: (t: T) => string): Map<string, T> {
  const sorted = [...items].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  const out = new Map<string, T>();
  for (const item of sorted) {
    const base = safeIdentifier(nameOf(item));
    let id = base;
    for (let n = 2; out.has(id); n++) id = `${base}_${n}`;
    out.set(id, item);
  }
  return out;
}

/** The table for a catalogue view (servers and their tools). */
export function codeModeNames(servers: readonly CodeModeServer[]): CodeModeNames {
  const table: CodeModeNames = { servers: new Map() };
  for (const [id, s] of assign(servers, s => s.name)) table.servers.set(id, { server: s.name, tools: assign(s.tools, t => t.name) });
  return table;
}
