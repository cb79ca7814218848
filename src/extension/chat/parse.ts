/**
 * Editor-free parts of the `@mcp` chat participant: splitting `/<server>.<prompt> key=value "quoted"…`,
 * matching it to a running server's prompt, and tool names that are unique across servers and
 * valid for language models (`[a-zA-Z0-9_-]`, at most 64 characters).
 */

import { tokenize, getOwn, setOwn } from '../../mcp';

export { tokenize };

/** `/<target> args…` as typed after `@mcp`. */
export interface Invocation {
  /** What follows the slash, e.g. `everything.args-prompt` (undefined when the text has no slash command). */
  target?: string;
  /** `key=value` arguments. */
  named: Record<string, string>;
  /** Values without `key=`, in order (assigned to the prompt's arguments not given by name). */
  positional: string[];
}

/** Parses the text of a chat request (leading spaces allowed). */
export function parseInvocation(text: string): Invocation {
  const trimmed = text.trim();
  const m = /^\/(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const target = m?.[1];
  const rest = m ? m[2] : trimmed;
  const named: Record<string, string> = {};
  const positional: string[] = [];
  // key=value keeps the key's raw spelling: split on the first '=' of a token whose key looks like an identifier.
  for (const tok of tokenizeKeepingKeys(rest)) {
    if (tok.key !== undefined) setOwn(named, tok.key, tok.value);
    else positional.push(tok.value);
  }
  return { target, named, positional };
}

function tokenizeKeepingKeys(text: string): { key?: string; value: string }[] {
  // A token is key=value only when `=` comes before any quote in its raw form; find raw token starts first.
  const raw = text.match(/(?:[^\s"']+|"(?:\\.|[^"\\])*"?|'[^']*'?)+/g) ?? [];
  return raw.map(r => {
    const eq = /^([A-Za-z_][\w.-]*)=/.exec(r);
    if (eq) return { key: eq[1], value: tokenize(r.slice(eq[0].length)).join(' ') };
    return { value: tokenize(r).join(' ') };
  });
}

/**
 * Finds the server and prompt a target names: the longest server name followed by `.` whose rest is
 * one of its prompts (server and prompt names may themselves contain dots).
 */
export function resolveTarget(
  target: string, servers: readonly { name: string; prompts: readonly string[] }[],
): { server: string; prompt: string } | undefined {
  const hits = servers
    .filter(s => target.startsWith(`${s.name}.`) && s.prompts.includes(target.slice(s.name.length + 1)))
    .sort((a, b) => b.name.length - a.name.length);
  return hits.length ? { server: hits[0].name, prompt: target.slice(hits[0].name.length + 1) } : undefined;
}

/**
 * Assigns positional values to the prompt's arguments that were not given by name, in declaration
 * order. Returns the arguments and the names of required ones still missing.
 */
export function bindArguments(
  inv: Pick<Invocation, 'named' | 'positional'>, declared: readonly { name: string; required?: boolean }[],
): { args: Record<string, string>; missing: string[]; unknown: string[] } {
  const args: Record<string, string> = {};
  const known = new Set(declared.map(d => d.name));
  const unknown = Object.keys(inv.named).filter(k => !known.has(k));
  // Argument names are the server's: own properties only (`constructor`, `__proto__` are names like any other).
  for (const [k, v] of Object.entries(inv.named)) if (known.has(k)) setOwn(args, k, v);
  const queue = [...inv.positional];
  for (const d of declared) {
    if (getOwn(args, d.name) !== undefined || !queue.length) continue;
    setOwn(args, d.name, queue.shift()!);
  }
  const missing = declared.filter(d => d.required && getOwn(args, d.name) === undefined).map(d => d.name);
  return { args, missing, unknown };
}

export const MAX_TOOL_NAME = 64;

/** `<server>_<tool>` with characters outside `[a-zA-Z0-9_-]` replaced by `_`, at most 64 characters. */
export function mangleToolName(server: string, tool: string): string {
  return `${server}_${tool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, MAX_TOOL_NAME);
}

/**
 * Language-model tool names for every (server, tool), unique across servers: a clash (after
 * sanitizing and truncating) gets a numeric suffix within the 64-character limit.
 */
export function uniqueToolNames(entries: readonly { server: string; tool: string }[]): Map<string, { server: string; tool: string }> {
  const out = new Map<string, { server: string; tool: string }>();
  for (const e of entries) {
    let name = mangleToolName(e.server, e.tool);
    for (let n = 2; out.has(name); n++) {
      const suffix = `_${n}`;
      name = mangleToolName(e.server, e.tool).slice(0, MAX_TOOL_NAME - suffix.length) + suffix;
    }
    out.set(name, e);
  }
  return out;
}
