/**
 * The validators of a tool's inputSchema and outputSchema (H25), for every tool of a list, by the list's one
 * SchemaCompiler (schema/compiler.ts): a list is checked as it arrives without compiling anything, in slices that
 * yield, and a tool's schemas are compiled on its first call (H146), so a 10,000-tool list never holds the thread
 * (issue 27). The catalogue session (catalogue.ts) keeps them per list.
 */
import type { ValidateFunction } from 'ajv';
import type { Tool } from '@modelcontextprotocol/client';
import { specParse } from '../spec';
import { SchemaCompiler, SchemaRefusedError, prepareSchemaChecks } from '../schema/compiler';
import { jsonEqual, yieldTurn } from '../jsonWalks';
import { plainToolShape } from './toolShape';
import { COMPILE_SLICE_MS, type CatalogueKind } from './paging';

/**
 * Compiles one JSON Schema with a compiler of its own (nothing shared, nothing cached). The catalogue
 * uses one SchemaCompiler per server and tools list instead.
 */
export function compileSchema(schema: unknown, server = '?'): ValidateFunction | Error {
  return new SchemaCompiler(server).compile(schema, 'schema');
}

export interface ToolValidators {
  input?: ValidateFunction;
  output?: ValidateFunction;
  /** Why the tool cannot be called (a malformed or refused inputSchema), if so. */
  invalid?: string;
  /**
   * The tool is unusable because the host refused one of its schemas (compile budget, a pattern the
   * linear-time engine cannot run): the whole message, naming server, tool and problem.
   */
  unusable?: string;
  /** The tool's definition does not have the shape MCP requires: it is left out of the catalogue. */
  malformed?: boolean;
  /** Checked without compiling (`compile` 'check'): the validators are compiled on first use (compileToolValidators). */
  pending?: boolean;
  /** The outputSchema was found invalid by the check (already said): results are not validated, nothing to compile. */
  outputInvalid?: boolean;
}

/**
 * Builds the validators of one tool; never throws. `warn` gets one line per problem. `compile` false: the shape check
 * only (a tool nobody will call here: no validators, its schemas unread). `compile` 'check': the shape check and the
 * checks that need no compile (SchemaCompiler.precheck), and `pending` set: compileToolValidators compiles them on
 * the tool's first call (a tools list of 10,000 large schemas is not compiled when it arrives, issue 27).
 */
export function buildToolValidator(tool: Tool, compiler: SchemaCompiler, warn: (msg: string) => void, compile: boolean | 'check' = true): ToolValidators {
  const v: ToolValidators = {};
  const shape = plainToolShape(tool) ? { success: true as const } : specParse('Tool', tool);
  if (!shape.success) {
    const issues = shape.error.issues;
    const what = issues.every(i => i.path[0] === 'inputSchema') ? 'inputSchema' : 'definition';
    v.invalid = `tool \`${tool.name}\` has an invalid ${what}: ${issues.map(i => `${i.path.map(String).join('.')}: ${i.message}`).join('; ')}`;
    v.malformed = true;
    warn(`${v.invalid}; it is left out of the tool list`);
    return v;
  }
  if (!compile) return v;
  if (compile === 'check') {
    const input = compiler.precheck(tool.inputSchema, `tool \`${tool.name}\` inputSchema`);
    if (input) return schemaProblem(tool, v, input, 'input', warn);
    if (tool.outputSchema !== undefined) {
      const output = compiler.precheck(tool.outputSchema, `tool \`${tool.name}\` outputSchema`);
      if (output instanceof SchemaRefusedError) return schemaProblem(tool, v, output, 'output', warn);
      if (output) {
        schemaProblem(tool, v, output, 'output', warn);
        v.outputInvalid = true;
      }
    }
    v.pending = true;
    return v;
  }
  return compileToolValidators(tool, compiler, warn, v);
}

/** Records (and says, once) a problem with one of a tool's schemas; returns `v`. */
function schemaProblem(tool: Tool, v: ToolValidators, err: Error, which: 'input' | 'output', warn: (msg: string) => void): ToolValidators {
  if (err instanceof SchemaRefusedError) {
    delete v.input;
    v.invalid = v.unusable = `${err.message}; tool \`${tool.name}\` is unusable`;
    warn(v.unusable);
  } else if (which === 'input') {
    v.invalid = `tool \`${tool.name}\` has an invalid inputSchema: ${err.message}`;
    warn(v.invalid);
  } else {
    warn(`tool \`${tool.name}\` has an invalid outputSchema (results are not validated): ${err.message}`);
  }
  return v;
}

/**
 * Compiles a tool's validators into `v` (a tool shape-checked already); never throws. `warn` gets one line per
 * problem, naming server, tool and schema (and the setting, for a refusal). Clears `pending`.
 */
export function compileToolValidators(tool: Tool, compiler: SchemaCompiler, warn: (msg: string) => void, v: ToolValidators = {}): ToolValidators {
  delete v.pending;
  const refuse = (err: SchemaRefusedError) => {
    v.invalid = v.unusable = `${err.message}; tool \`${tool.name}\` is unusable`;
    warn(v.unusable);
    return v;
  };
  const input = compiler.compile(tool.inputSchema, `tool \`${tool.name}\` inputSchema`);
  if (input instanceof SchemaRefusedError) return refuse(input);
  if (input instanceof Error) {
    v.invalid = `tool \`${tool.name}\` has an invalid inputSchema: ${input.message}`;
    warn(v.invalid);
  } else {
    v.input = input;
  }
  if (tool.outputSchema !== undefined && !v.outputInvalid) {
    const output = compiler.compile(tool.outputSchema, `tool \`${tool.name}\` outputSchema`);
    if (output instanceof SchemaRefusedError) {
      delete v.input;
      return refuse(output);
    }
    if (output instanceof Error) warn(`tool \`${tool.name}\` has an invalid outputSchema (results are not validated): ${output.message}`);
    else v.output = output;
  }
  return v;
}

/** Builds validators for every tool; never throws. `warn` gets one line per malformed schema. */
export function buildToolValidators(
  tools: readonly Tool[], warn: (msg: string) => void, compiler = new SchemaCompiler('?'),
): Map<string, ToolValidators> {
  const out = new Map<string, ToolValidators>();
  for (const tool of tools) out.set(tool.name, buildToolValidator(tool, compiler, warn));
  return out;
}

/** A list without its malformed tools, in slices (a 10,000-tool list). */
export async function usableSliced(kind: CatalogueKind, items: unknown[], validators: Map<string, ToolValidators>): Promise<unknown[]> {
  if (kind !== 'tools') return items;
  const out: unknown[] = [];
  let slice = performance.now();
  for (const t of items as Tool[]) {
    if (performance.now() - slice > COMPILE_SLICE_MS) {
      await yieldTurn();
      slice = performance.now();
    }
    if (!validators.get(t.name)?.malformed) out.push(t);
  }
  return out;
}

/**
 * A tools list as it arrives, into `out`, yielding to the event loop every COMPILE_SLICE_MS. Per tool, as `how` says:
 * 'check' (the default): shape-checked and its schemas checked without compiling (buildToolValidator 'check'), left
 * `pending` (into `pending`) to be compiled on first use; true: compiled now; false: shape-checked only. A tool the
 * previous list had, compiled or checked clean, with the same definition keeps its validators (or its checks), and
 * `tools` gets the previous list's object in its place.
 */
export async function checkToolsSliced(
  tools: Tool[], warn: (msg: string) => void, compiler: SchemaCompiler, out: Map<string, ToolValidators>,
  pending: Map<string, Tool>, cancelled: () => boolean, reuse: ToolReuse, how: (tool: string) => boolean | 'check' = () => 'check',
): Promise<void> {
  let slice = performance.now();
  let prepared = false;
  for (let at = 0; at < tools.length; at++) {
    if (performance.now() - slice > COMPILE_SLICE_MS) {
      await yieldTurn();
      slice = performance.now();
    }
    if (cancelled()) return;
    const tool = tools[at];
    const mode = how(tool.name);
    if (!mode) {
      out.set(tool.name, buildToolValidator(tool, compiler, warn, false));
      continue;
    }
    // Only tools the previous list had, compiled or checked clean, are compared, object to object (jsonEqual: no text
    // of either is made). An unchanged tool stays the previous list's object: the page's copy is garbage at once, and
    // a refresh of 10,000 unchanged tools leaves nothing new to survive a collection (their copying by the scavenges
    // was the longest turn of such a refresh, issue 41).
    const before = reuse.previous.get(tool.name);
    if (before && jsonEqual(before.tool, tool)) {
      tools[at] = before.tool;
      reuse.next.set(tool.name, before);
      out.set(tool.name, before.v);
      continue;
    }
    const checked = mode === 'check' ? reuse.previousChecked?.get(tool.name) : undefined;
    if (checked && jsonEqual(checked, tool)) {
      // Checked clean in the previous list with the same definition: the same checks would pass again.
      tools[at] = checked;
      reuse.nextChecked?.set(tool.name, checked);
      out.set(tool.name, { pending: true });
      pending.set(tool.name, checked);
      continue;
    }
    if (!prepared) {
      // The first schema check of the process: its meta-schema checker is prepared in turns, not in this one.
      prepared = true;
      await prepareSchemaChecks();
      slice = performance.now();
      if (cancelled()) return;
    }
    const v = buildToolValidator(tool, compiler, warn, mode);
    out.set(tool.name, v);
    if (v.pending) {
      pending.set(tool.name, tool);
      if (!v.invalid && !v.outputInvalid) reuse.nextChecked?.set(tool.name, tool);
    } else if (compiledClean(tool, v)) reuse.next.set(tool.name, { tool, v });
  }
}

/** A tool whose validators compiled without a problem (they may carry over to the next list). */
export function compiledClean(tool: Tool, v: ToolValidators): boolean {
  return !!v.input && !v.invalid && !v.malformed && !v.pending && (tool.outputSchema === undefined || !!v.output);
}

/** A valid tool of a list, compiled clean, by name: its definition and its validators. */
export type ToolsCompiled = Map<string, { tool: Tool; v: ToolValidators }>;

/** A tool of a list checked clean and not compiled, by name: its definition. */
export type ToolsChecked = Map<string, Tool>;

/**
 * The previous list's valid tools, and this list's, being collected for the next refresh; the same for tools only
 * checked (compiled on first call): an unchanged one is not checked again.
 */
export interface ToolReuse {
  previous: ToolsCompiled;
  next: ToolsCompiled;
  previousChecked?: ToolsChecked;
  nextChecked?: ToolsChecked;
}
