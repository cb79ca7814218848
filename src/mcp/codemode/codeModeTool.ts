/**
 * Code mode's one tool for models (issue 42), the same for `@mcp` and the gateway into VS Code's chat: with
 * `mcpHost.codeMode` on, a model is offered {@link CODE_MODE_TOOL_NAME} instead of one tool per server tool. Its
 * description names the servers and their tools (safe identifiers only, codeModeNames.ts: no server text reaches the
 * model here); `describe: ["server", "server/tool"]` answers with TypeScript declarations of the tools' arguments and
 * results (codeModeTypes.ts, on demand like the budget's search); `program` runs a program in the engine
 * (codeModeEngine.ts, loaded on first use: dist/codemode.js, which runs it in a worker thread, dist/codemode-worker.js)
 * and answers with its return value and console output.
 *
 * The caller supplies the one path to a server (`call`): its own gate (the model gate, approval and grants through the
 * consent governor, then `callTool(..., { by: 'model', program })`), so a program reaches exactly what the model could
 * reach directly. A call that throws {@link ProgramStop} (the user declined) ends the whole program: the program cannot
 * catch it and go on; the model is told why.
 *
 *   const r = await runCodeModeTool(input, { servers: codeModeServers(host.servers, gate), visible, call, limits, signal });
 *   // r: { text, isError, calls }
 */
import { randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { ServerHandle } from '../api';
import { visibleToModel } from '../apps/meta';
import { modelMayReach, type ModelToolGate } from '../catalogue/modelTools';
import { codeModeNames, type CodeModeServer } from './codeModeNames';
import { describeTools } from './codeModeTypes';
import type * as Engine from './codeModeEngine';
import type { CodeModeCall, CodeModeLimits } from './codeModeEngine';

/** The tool's name on every path (the charset of a gateway name, beside the budget's `mcp_host_search_tools`). */
export const CODE_MODE_TOOL_NAME = 'mcp_host_run_program';
/** Characters of the tool list in the description (past it the model is told to use `describe`). */
export const MAX_TOOL_LIST_CHARS = 4000;
/** Characters of one `describe` answer. */
export const MAX_DESCRIBE_CHARS = 32 * 1024;
/** Names in one `describe`. */
export const MAX_DESCRIBE_NAMES = 32;

/** A call's refusal that ends the whole program (the user declined a tool, or the request ended). */
export class ProgramStop extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProgramStop';
  }
}

/**
 * The engine, loaded with the first program (esbuild.mjs LAZY: dist/codemode.js, with its WebAssembly file in
 * dist/vendor/quickjs/), so neither the extension's activation nor the gateway's first list pays for it.
 */
let engineModule: typeof Engine | undefined;
function engine(): typeof Engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return engineModule ??= require('./codeModeEngine') as typeof Engine;
}

/**
 * The servers a program may name: every server a model may reach (modelMayReach), with its tools that are for models
 * at all (not only for app views). A tool turned off for models stays in the table so that calling it gives the
 * caller's clear refusal (`visible` is false for it), not an unexplained "not a function".
 */
export function codeModeServers(servers: readonly ServerHandle[], gate: ModelToolGate): CodeModeServer[] {
  return servers.filter(h => modelMayReach(h, gate)).map(h => ({ name: h.name, tools: h.catalogue.tools.filter(visibleToModel) }));
}

/** Why a program may not call a tool: the words every path uses. */
export function notForModels(server: string, tool: string): string {
  return `tool "${tool}" of MCP server "${server}" is not available to models (turned off for models in mcpHost.disabledTools, or its server is not running or not allowed); a program cannot call it. The user can turn it on in the MCP Servers view.`;
}

/** The tool definition a model is offered: what it does, the servers and tools by their program names, the limits. */
export function codeModeTool(servers: readonly CodeModeServer[], visible: (server: string, tool: string) => boolean, limits: CodeModeLimits): Tool {
  const lines: string[] = [];
  let chars = 0;
  let cut = false;
  for (const [sid, { server, tools }] of codeModeNames(servers).servers) {
    const ids = [...tools].filter(([, t]) => visible(server, t.name)).map(([tid]) => tid);
    if (!ids.length) continue;
    const line = `- mcp.${sid}: ${ids.join(', ')}`;
    if (chars + line.length > MAX_TOOL_LIST_CHARS) { cut = true; break; }
    lines.push(line);
    chars += line.length;
  }
  const description = [
    'Runs a short JavaScript program (the body of an async function) that calls MCP tools as functions: `const r = await mcp.<server>.<tool>({ ...args })`. ' +
    'Loops, filters and joins run in the program; only its `return` value and `console.log` output come back, so return a summary, not whole results. ' +
    'A tool result is its structured content, else its text, else its content array; a tool error is thrown as an exception.',
    'Before writing a program, call this tool with `describe: ["<server>"]` or `["<server>/<tool>"]` (no program) to get TypeScript declarations of the tools\' arguments and results.',
    'Every call passes the same checks as a direct tool call: the user approves tools as usual, and if the user declines one the program ends. ' +
    `The program has no require, file system, network or timers. Limits: ${limits.maxToolCalls} tool calls, ${limits.cpuMs} ms of CPU time, a return value of at most ${limits.outputBytes} bytes.`,
    lines.length ? `Servers and tools:\n${lines.join('\n')}${cut ? '\n- … (more: use describe with a server name)' : ''}` : 'No MCP server offers tools to models now.',
  ].join('\n\n');
  return {
    name: CODE_MODE_TOOL_NAME,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        program: { type: 'string', description: 'JavaScript: the body of an async function; `return` gives the result.' },
        describe: { type: 'array', items: { type: 'string' }, description: 'Server or server/tool names (the program names above) to get the declarations of, instead of running a program.' },
      },
    },
  };
}

/** What the model gets back from one use of the tool. */
export interface CodeModeToolResult {
  text: string;
  isError: boolean;
  /** The tool calls the program made (empty for `describe`). */
  calls: CodeModeCall[];
  /** The program's id (History shows it on each of its calls); undefined for `describe`. */
  program?: string;
}

export interface CodeModeToolOptions {
  /** codeModeServers(): the table a program names tools from. */
  servers: readonly CodeModeServer[];
  /** Whether the model may call the tool now (the caller's model gate): only those are described. */
  visible(server: string, tool: string): boolean;
  /**
   * The caller's gated call (model gate, approval, then `callTool(..., { by: 'model', program })`); its value is the
   * program's (codeModeResult.ts programValue). Throws ProgramStop to end the program, any other error into it.
   */
  call(server: string, tool: Tool, args: Record<string, unknown>, o: { signal: AbortSignal; program: string }): Promise<unknown>;
  limits: CodeModeLimits;
  /** The request's cancellation: aborts the program. */
  signal?: AbortSignal;
}

/** Answers one use of the tool: `describe`, or a program run. Never throws for the model's input or the program. */
export async function runCodeModeTool(input: unknown, o: CodeModeToolOptions): Promise<CodeModeToolResult> {
  const i = (input && typeof input === 'object' && !Array.isArray(input) ? input : {}) as { program?: unknown; describe?: unknown };
  if (typeof i.program !== 'string' || !i.program.trim()) {
    if (i.describe !== undefined) return { text: describe(i.describe, o), isError: false, calls: [] };
    return { text: `Give "program" (JavaScript) to run, or "describe" (server or server/tool names) to get declarations. See the tool's description.`, isError: true, calls: [] };
  }
  const program = `program-${randomUUID().slice(0, 8)}`;
  const stop = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  let stopped: string | undefined;
  const { runProgram, CodeModeError } = engine();
  try {
    const r = await runProgram(i.program, {
      servers: o.servers,
      limits: o.limits,
      signal,
      callTool: async (server, toolName, args, callSignal) => {
        const tool = o.servers.find(s => s.name === server)?.tools.find(t => t.name === toolName);
        if (!tool || !o.visible(server, toolName)) throw new Error(notForModels(server, toolName));
        try {
          return await o.call(server, tool, args, { signal: callSignal, program });
        } catch (err) {
          if (err instanceof ProgramStop) { stopped ??= err.message; stop.abort(); }
          throw err;
        }
      },
    });
    return { text: JSON.stringify({ value: r.value, console: r.console, toolCalls: r.calls.length }), isError: false, calls: r.calls, program };
  } catch (err) {
    if (!(err instanceof CodeModeError)) throw err;
    const why = stopped ? `The program was stopped: ${stopped}` : o.signal?.aborted ? 'The program was cancelled (the request was stopped).' : `The program stopped: ${err.message}`;
    return { text: JSON.stringify({ error: why, console: err.console, toolCalls: err.calls.length }), isError: true, calls: err.calls, program };
  }
}

/** The declarations of the named servers' or tools' (program names or real names), bounded; unknown names said. */
function describe(names: unknown, o: CodeModeToolOptions): string {
  const list = (Array.isArray(names) ? names : [names]).filter((n): n is string => typeof n === 'string').slice(0, MAX_DESCRIBE_NAMES);
  const table = codeModeNames(o.servers);
  const picked = new Map<string, Set<string> | 'all'>();
  const unknown: string[] = [];
  for (const n of list) {
    const [s, t] = n.replace(/^mcp\./, '').split(/[/.]/, 2);
    const entry = table.servers.get(s) ?? [...table.servers.values()].find(e => e.server === s);
    const tool = entry && t !== undefined && t !== '*' ? (entry.tools.get(t) ?? [...entry.tools.values()].find(x => x.name === t)) : undefined;
    if (!entry || (t !== undefined && t !== '*' && (!tool || !o.visible(entry.server, tool.name)))) { unknown.push(n); continue; }
    const had = picked.get(entry.server);
    if (!tool) picked.set(entry.server, 'all');
    else if (had !== 'all') picked.set(entry.server, (had ?? new Set()).add(tool.name));
  }
  // Described under the same safe names the program uses (the whole table's, picked after naming).
  let text = describeTools(o.servers, (server, tool) => {
    const p = picked.get(server);
    return o.visible(server, tool) && (p === 'all' || !!p?.has(tool));
  });
  if (text.length > MAX_DESCRIBE_CHARS) text = `${text.slice(0, MAX_DESCRIBE_CHARS)}\n// … cut at ${MAX_DESCRIBE_CHARS} characters: describe fewer tools at once`;
  return unknown.length ? `${text}\n// Unknown (not a server or tool a program may call): ${unknown.map(n => JSON.stringify(n.slice(0, 100))).join(', ')}` : text;
}
