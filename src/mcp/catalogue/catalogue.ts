/**
 * The catalogue of one server session: tools, prompts, resources and resource templates, every page
 * (H20) up to the catalogue limits, refreshed on `notifications/<kind>/list_changed` (H21), a burst gathered into
 * one refresh and a flood paced (ListChangedPacing, H147), plus the validators for each tool's inputSchema and
 * outputSchema (H25) — for all tools, not just the SDK's "last page" cache — by one SchemaCompiler per tools list
 * (schema/compiler.ts): a list is checked as it arrives without compiling anything, in slices that yield, and a
 * tool's schemas are compiled on its first call (H146), so a 10,000-tool list never holds the thread (issue 27).
 */
import { createHash } from 'node:crypto';
import type { ValidateFunction, ErrorObject } from 'ajv';
import { MAX_CACHE_TTL_MS, ProtocolError, ProtocolErrorCode, type Client, type RequestOptions as SdkRequestOptions, type ServerCapabilities, type Tool } from '@modelcontextprotocol/client';
import type { Catalogue } from '../types';
import { LOOSE_RESULT, specParse, specSchema } from '../spec';
import { DEFAULT_LIMITS, limitMessage, type Limits } from '../limits';
import { SchemaCompiler, SchemaRefusedError } from '../schema/compiler';
import { excludeInvalidHeaderTools } from './toolHeaders';
import { plainToolShape } from './toolShape';

export type CatalogueKind = keyof Catalogue;
export const CATALOGUE_KINDS: readonly CatalogueKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/** The default page limit (Limits.maxCataloguePages): a safety net against a server whose cursors never end. */
export const MAX_PAGES = DEFAULT_LIMITS.maxCataloguePages;

export function emptyCatalogue(): Catalogue {
  return { tools: [], prompts: [], resources: [], resourceTemplates: [] };
}

const LIST = {
  tools: { method: 'tools/list', schema: LOOSE_RESULT, field: 'tools', cap: 'tools' },
  prompts: { method: 'prompts/list', schema: specSchema('ListPromptsResult'), field: 'prompts', cap: 'prompts' },
  resources: { method: 'resources/list', schema: specSchema('ListResourcesResult'), field: 'resources', cap: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', schema: specSchema('ListResourceTemplatesResult'), field: 'resourceTemplates', cap: 'resources' },
} as const;

/** The shortest time a list is kept before its `ttlMs` makes it stale (a server sending 0 cannot make every use a refetch). */
export const MIN_TTL_MS = 1000;

/** A list's freshness from its first page's `ttlMs` (2026-07-28 cache hints): when it goes stale, if it does. */
export function expiryOf(ttlMs: unknown, now = Date.now()): number | undefined {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs)) return undefined;
  return now + Math.min(Math.max(ttlMs, MIN_TTL_MS), MAX_CACHE_TTL_MS);
}

/** Whether the server declared the capability a list needs. */
export function declares(caps: ServerCapabilities | undefined, kind: CatalogueKind): boolean {
  return !!caps?.[LIST[kind].cap];
}

/** Bounds and callbacks for one `fetchAll`. */
export interface FetchBounds {
  /** The server, for limit messages. */
  server: string;
  limits: Pick<Limits, 'maxCataloguePages' | 'maxCatalogueItems'> & Partial<Pick<Limits, 'maxCatalogueBytes'>>;
  /** One line when a limit is hit or the server repeats a cursor; the list is kept partial. */
  warn: (msg: string) => void;
  /**
   * Called with each page's items as it arrives (`more`: another page follows). Returning false stops
   * the fetch (the session was disposed); what was read so far is returned.
   */
  onPage?: (items: unknown[], more: boolean) => boolean | void | Promise<boolean | void>;
  /** The first page's `ttlMs`, when it has one (the whole list's freshness hint). */
  onTtl?: (ttlMs: number) => void;
}

/**
 * Fetches every page of one list, at most `maxCataloguePages` pages, `maxCatalogueItems` items and
 * `maxCatalogueBytes` of items (then a warning and the partial list). Cursors are opaque and live only inside this call (H20); a repeated
 * cursor ends the loop (a cursor of up to 64 characters is kept as it is, a longer one as a digest, so long cursors cost
 * no memory).
 */
export async function fetchAll<K extends CatalogueKind>(
  client: Client, kind: K, options?: SdkRequestOptions, bounds?: FetchBounds,
): Promise<Catalogue[K]> {
  const spec = LIST[kind];
  const { maxCataloguePages, maxCatalogueItems } = bounds?.limits ?? DEFAULT_LIMITS;
  const maxCatalogueBytes = bounds?.limits.maxCatalogueBytes ?? DEFAULT_LIMITS.maxCatalogueBytes;
  let bytes = 0;
  const server = bounds?.server ?? '?';
  const warn = bounds?.warn ?? (() => undefined);
  const out: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxCataloguePages) {
      warn(limitMessage(server, 'maxCataloguePages', maxCataloguePages, `sent more pages of ${spec.method}; the list is partial`));
      break;
    }
    // Tools are checked one by one (buildToolValidators): one malformed tool must not hide the others.
    const result = await client.request(
      { method: spec.method, params: cursor === undefined ? {} : { cursor } },
      spec.schema as typeof LOOSE_RESULT,
      options,
    ) as Record<string, unknown>;
    if (page === 0 && typeof result.ttlMs === 'number') bounds?.onTtl?.(result.ttlMs);
    const items = result[spec.field];
    const pageItems: unknown[] = [];
    let full: 'maxCatalogueItems' | 'maxCatalogueBytes' | undefined;
    if (Array.isArray(items)) {
      let slice = performance.now();
      for (let at = 0; at < items.length; at++) {
        const i: unknown = items[at];
        // A 10,000-item page is measured in slices: the event loop runs between them (the clock read every 64 items).
        if ((at & 63) === 63 && performance.now() - slice > COMPILE_SLICE_MS) {
          await new Promise<void>(r => setImmediate(r));
          slice = performance.now();
        }
        if (kind === 'tools' && typeof (i as { name?: unknown } | null)?.name !== 'string') continue;
        if (out.length >= maxCatalogueItems) { full = 'maxCatalogueItems'; break; }
        bytes += approxJsonSize(i, maxCatalogueBytes - bytes);
        if (bytes > maxCatalogueBytes) { full = 'maxCatalogueBytes'; break; }
        out.push(i);
        pageItems.push(i);
      }
    }
    const next = result.nextCursor;
    let more = typeof next === 'string' && next !== '' && !full;
    const digest = more ? cursorKey(next as string) : '';
    if (more && seen.has(digest)) {
      warn(`server \`${server}\` repeated a ${spec.method} cursor; the list is kept as far as it was read`);
      more = false;
    }
    if (full === 'maxCatalogueItems') warn(limitMessage(server, full, maxCatalogueItems, `sent more items in ${spec.method}; the list is partial`));
    if (full === 'maxCatalogueBytes') warn(limitMessage(server, full, maxCatalogueBytes, `sent more ${spec.field} than fit in ${spec.method}; the list is partial`));
    if (bounds?.onPage && (await bounds.onPage(pageItems, more)) === false) break;
    if (!more) break;
    seen.add(digest);
    cursor = next as string;
  }
  return out as Catalogue[K];
}

/** What `fetchAll` keeps of a cursor to see it repeated within the call: a short one itself, a long one its digest. */
function cursorKey(cursor: string): string {
  return cursor.length <= 64 ? `=${cursor}` : `#${createHash('sha256').update(cursor).digest('base64')}`;
}

/**
 * About the length of `v` as JSON (strings' lengths plus quotes, keys, separators), for the catalogue's bytes
 * cap, the history's sizes and the skills' cap: a walk, where JSON.stringify of every item cost a quarter of a
 * 10,000-item refresh. Iterative (an explicit stack), so a value nested 100,000 levels deep cannot overflow the
 * call stack. It keeps no set of the objects seen (a set per item fed the collector for a third of a 10,000-item
 * refresh): what it walks is parsed JSON, a tree, and a shared object counts each time it occurs, as serialising
 * it would. The walk ends as soon as the size is over `stopAbove` (the caller's bound; the answer is then some
 * size over it), so with a bound even a value that is not a tree (a cycle) ends; every caller in the host passes one.
 */
export function approxJsonSize(v: unknown, stopAbove = Number.MAX_SAFE_INTEGER): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length && n <= stopAbove) {
    const x = stack.pop();
    switch (typeof x) {
      case 'string': n += x.length + 2; break;
      case 'number': n += 8; break;
      case 'boolean': n += 5; break;
      case 'object': {
        if (x === null) { n += 4; break; }
        n += 2;
        if (Array.isArray(x)) {
          for (let i = 0; i < x.length; i++) stack.push(x[i]);
          n += x.length;
        } else {
          for (const k in x) {
            if (!Object.prototype.hasOwnProperty.call(x, k)) continue;
            n += k.length + 4;
            stack.push((x as Record<string, unknown>)[k]);
          }
        }
        break;
      }
      default: break;
    }
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// Tool schemas
// ---------------------------------------------------------------------------------------------

/**
 * Compiles one JSON Schema with a compiler of its own (nothing shared, nothing cached). The catalogue
 * uses one SchemaCompiler per server and tools list instead.
 */
export function compileSchema(schema: unknown, server = '?'): ValidateFunction | Error {
  return new SchemaCompiler(server).compile(schema, 'schema');
}

/** "`path`: message" for the first few ajv errors; names the field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string {
  if (!errors?.length) return 'does not match the schema';
  return errors.slice(0, 3).map(e => {
    let where = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
    if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
      where = `${where}.${(e.params as { missingProperty: string }).missingProperty}`;
      return `\`${where}\` is required`;
    }
    if (e.keyword === 'additionalProperties') {
      return `\`${where}.${(e.params as { additionalProperty: string }).additionalProperty}\` is not allowed`;
    }
    return `\`${where}\` ${e.message ?? 'is invalid'}`;
  }).join('; ');
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
async function usableSliced(kind: CatalogueKind, items: unknown[], validators: Map<string, ToolValidators>): Promise<unknown[]> {
  if (kind !== 'tools') return items;
  const out: unknown[] = [];
  let slice = performance.now();
  for (const t of items as Tool[]) {
    if (performance.now() - slice > COMPILE_SLICE_MS) {
      await new Promise<void>(r => setImmediate(r));
      slice = performance.now();
    }
    if (!validators.get(t.name)?.malformed) out.push(t);
  }
  return out;
}

/** Compiling yields to the event loop after this much work, so a long tools list never stalls the host. */
const COMPILE_SLICE_MS = 5;

/**
 * A tools list as it arrives, into `out`, yielding to the event loop every COMPILE_SLICE_MS. Per tool, as `how` says:
 * 'check' (the default): shape-checked and its schemas checked without compiling (buildToolValidator 'check'), left
 * `pending` (into `pending`) to be compiled on first use; true: compiled now; false: shape-checked only. A tool the
 * previous list had, compiled, with the same definition keeps its validators.
 */
export async function checkToolsSliced(
  tools: readonly Tool[], warn: (msg: string) => void, compiler: SchemaCompiler, out: Map<string, ToolValidators>,
  pending: Map<string, Tool>, cancelled: () => boolean, reuse: ToolReuse, how: (tool: string) => boolean | 'check' = () => 'check',
): Promise<void> {
  let slice = performance.now();
  for (const tool of tools) {
    if (performance.now() - slice > COMPILE_SLICE_MS) {
      await new Promise<void>(r => setImmediate(r));
      slice = performance.now();
    }
    if (cancelled()) return;
    const mode = how(tool.name);
    if (!mode) {
      out.set(tool.name, buildToolValidator(tool, compiler, warn, false));
      continue;
    }
    // Only tools the previous list had, compiled or checked clean, are compared (their definitions' text): a first list
    // costs no serialising.
    const before = reuse.previous.get(tool.name);
    const checked = mode === 'check' ? reuse.previousChecked?.get(tool.name) : undefined;
    let text: string | undefined;
    if (before || checked || mode === true) {
      try { text = JSON.stringify(tool); } catch { text = undefined; }
    }
    if (before && text !== undefined && before.text === text) {
      reuse.next.set(tool.name, before);
      out.set(tool.name, before.v);
      continue;
    }
    if (checked && text !== undefined && checkedText(checked) === text) {
      // Checked clean in the previous list with the same definition: the same checks would pass again.
      reuse.nextChecked?.set(tool.name, { tool, text });
      out.set(tool.name, { pending: true });
      pending.set(tool.name, tool);
      continue;
    }
    const v = buildToolValidator(tool, compiler, warn, mode);
    out.set(tool.name, v);
    if (v.pending) {
      pending.set(tool.name, tool);
      if (!v.invalid && !v.outputInvalid) reuse.nextChecked?.set(tool.name, { tool, text });
    } else if (text !== undefined && compiledClean(tool, v)) reuse.next.set(tool.name, { text, v });
  }
}

/** The definition text of a tool checked clean (serialised when first compared, so a first list costs nothing). */
function checkedText(c: { tool: Tool; text?: string }): string | undefined {
  if (c.text === undefined) {
    try { c.text = JSON.stringify(c.tool); } catch { return undefined; }
  }
  return c.text;
}

/** A tool whose validators compiled without a problem (they may carry over to the next list). */
export function compiledClean(tool: Tool, v: ToolValidators): boolean {
  return !!v.input && !v.invalid && !v.malformed && !v.pending && (tool.outputSchema === undefined || !!v.output);
}

/** A valid tool of a list, by name: its definition's JSON text and its validators. */
export type ToolTexts = Map<string, { text: string; v: ToolValidators }>;

/** A tool of a list checked clean and not compiled: its definition, and its text once serialised. */
export type ToolsChecked = Map<string, { tool: Tool; text?: string }>;

/**
 * The previous list's valid tools, and this list's, being collected for the next refresh; the same for tools only
 * checked (compiled on first call): an unchanged one is not checked again.
 */
export interface ToolReuse {
  previous: ToolTexts;
  next: ToolTexts;
  previousChecked?: ToolsChecked;
  nextChecked?: ToolsChecked;
}

// ---------------------------------------------------------------------------------------------
// The per-session catalogue with coalesced refreshes
// ---------------------------------------------------------------------------------------------

export interface CatalogueSessionOptions {
  client: Client;
  capabilities: ServerCapabilities | undefined;
  /** Timeout per page request. */
  timeout: number;
  /** Called after any list changed. */
  onChange: (c: Catalogue) => void;
  warn: (msg: string) => void;
  /** The server's name, for limit messages (default `?`). */
  server?: string;
  /** Catalogue limits and the schema compile budget (default DEFAULT_LIMITS). */
  limits?: Limits;
  /** SEP-2243 (2026-07-28 over Streamable HTTP): tools with invalid x-mcp-header annotations are left out. */
  headerAnnotations?: boolean;
  /** Which tools get their schemas compiled, on first use (default every tool; the others are shape-checked only, no validators). */
  compileTool?: (tool: string) => boolean;
  /** How list_changed notifications are gathered into refreshes (default LIST_CHANGED). */
  listChanged?: Partial<ListChangedPacing>;
}

/**
 * How `notifications/<kind>/list_changed` become refreshes (changed()): a burst is gathered until the server has been
 * quiet for `quietMs` (as the SDK's own `listChanged` debounce) but never longer than `maxWaitMs` after its first
 * notification, so a server that never stops still has its list refreshed; at most one refresh of a list is in flight,
 * and the next starts no sooner than `minGapMs` (or the last refresh's own duration, if longer) after the last ended:
 * a server flooding list_changed gets at most about half of the thread for its refreshes, never all of it.
 */
export interface ListChangedPacing {
  quietMs: number;
  maxWaitMs: number;
  minGapMs: number;
}

export const LIST_CHANGED: ListChangedPacing = { quietMs: 50, maxWaitMs: 1000, minGapMs: 100 };

/** Lines of tool problems said per tools list; the rest are counted in one line (each is said again on its tool's call). */
export const MAX_TOOL_PROBLEM_LINES = 20;

const DONE: Promise<void> = Promise.resolve();

/** One session's catalogue. A new session (restart, re-initialize) gets a new instance: no cursors survive. */
export class CatalogueSession {
  private current: Catalogue = emptyCatalogue();
  private validators = new Map<string, ToolValidators>();
  /** The compiler of the current tools list: replaced (and its validators freed) by the next one. */
  private compiler: SchemaCompiler | undefined;
  /** The current tools list's valid tools by name, with their definitions' text: a refresh keeps those unchanged. */
  private toolTexts: ToolTexts = new Map();
  /** The current list's tools checked clean and not yet compiled (see ToolReuse). */
  private toolsChecked: ToolsChecked = new Map();
  private readonly running = new Map<CatalogueKind, Promise<void>>();
  private readonly dirty = new Set<CatalogueKind>();
  /** When each list goes stale by its `ttlMs` (lists without one stay until a change notification). */
  private readonly expires = new Map<CatalogueKind, number>();
  /** The current tools list's tools whose validators are compiled on first use (toolValidators). */
  private pending = new Map<string, Tool>();
  /** list_changed pacing per list: the pending timer, when the burst began, when the last refresh ended and took how long. */
  private readonly paced = new Map<CatalogueKind, { timer?: ReturnType<typeof setTimeout>; since?: number; endedAt: number; tookMs: number }>();
  private disposed = false;
  /** Declared lists the server answered with -32601 (H190): empty for this session, never read again (H400). */
  private readonly unserved = new Set<CatalogueKind>();

  constructor(private readonly opts: CatalogueSessionOptions) {}

  /** The lists as last read; a list whose `ttlMs` ran out is refetched now (the views get the change). */
  get catalogue(): Catalogue {
    this.refreshStale();
    return this.current;
  }

  /**
   * The lists as last read, with no freshness check: what a tool call looks its tool up in. A call is not a read of the
   * list (H40's reuse is of the list, read by the views, the model's tool set, the CLI, through `catalogue`): a
   * server whose lists say `ttlMs: 0` (the SDK server's default) is not sent a whole tools/list every second while
   * tools are being called.
   */
  get held(): Catalogue {
    return this.current;
  }

  /** Starts a refresh of every list whose `ttlMs` ran out; resolves when they are read again. */
  refreshStale(now = Date.now()): Promise<void> {
    // Read on every use of the catalogue (each tool call): nothing to look at is the common case.
    if (!this.expires.size) return DONE;
    const stale = [...this.expires].filter(([, at]) => at <= now).map(([k]) => k);
    for (const k of stale) this.expires.delete(k);
    return Promise.all(stale.map(k => this.refresh(k))).then(() => undefined);
  }

  /** A tool's validators, compiled now if this is their first use (the list only checked them). */
  toolValidators(name: string): ToolValidators | undefined {
    const v = this.validators.get(name);
    if (v?.pending) {
      const tool = this.pending.get(name);
      this.pending.delete(name);
      if (!tool || !this.compiler) {
        delete v.pending;
        return v;
      }
      compileToolValidators(tool, this.compiler, this.opts.warn, v);
      if (compiledClean(tool, v)) {
        try { this.toolTexts.set(name, { text: JSON.stringify(tool), v }); } catch { /* not kept for the next list */ }
      }
    }
    return v;
  }

  /** Why a tool cannot be called, as far as known without compiling anything (the list's checks, compiles so far). */
  toolProblem(name: string): string | undefined {
    return this.validators.get(name)?.invalid;
  }

  /**
   * A `notifications/<kind>/list_changed`: the list is refreshed once the burst is over (ListChangedPacing). After a
   * burst exactly one refresh reads the newest list; notifications during a refresh make one more after it.
   */
  changed(kind: CatalogueKind): void {
    if (this.disposed || !declares(this.opts.capabilities, kind) || this.unserved.has(kind)) return;
    const pace = { ...LIST_CHANGED, ...this.opts.listChanged };
    let p = this.paced.get(kind);
    if (!p) this.paced.set(kind, p = { endedAt: 0, tookMs: 0 });
    const now = performance.now();
    p.since ??= now;
    if (p.timer) clearTimeout(p.timer);
    const at = Math.max(
      Math.min(now + pace.quietMs, p.since + pace.maxWaitMs),
      p.endedAt + Math.max(pace.minGapMs, p.tookMs),
    );
    const state = p;
    state.timer = setTimeout(() => {
      state.timer = undefined;
      state.since = undefined;
      if (this.running.has(kind)) {
        // One refresh in flight: it reads the list again when it ends (refresh's coalescing).
        this.dirty.add(kind);
        return;
      }
      const t0 = performance.now();
      void this.refresh(kind).finally(() => {
        state.endedAt = performance.now();
        state.tookMs = state.endedAt - t0;
      });
    }, Math.max(0, at - now));
  }

  /**
   * Fetches every declared list, each on its own (concurrently), and resolves once every one has settled (H190): a
   * list the server declares but does not implement (-32601, recognised by the SDK's ProtocolError and its code) is
   * empty with one log line; a list that fails otherwise is reported for that list alone and the others still
   * arrive. Never rejects: `inspect`, `call`'s name check and the views see every list that could be read.
   */
  async loadAll(): Promise<void> {
    const kinds = CATALOGUE_KINDS.filter(k => declares(this.opts.capabilities, k));
    const settled = await Promise.allSettled(kinds.map(k => this.fetch(k, false)));
    if (this.disposed) return;
    const server = this.opts.server ?? '?';
    settled.forEach((r, i) => {
      if (r.status === 'fulfilled') return;
      const kind = kinds[i];
      const err: unknown = r.reason;
      if (err instanceof ProtocolError && err.code === ProtocolErrorCode.MethodNotFound) {
        this.current = { ...this.current, [kind]: [] };
        this.unserved.add(kind);
        this.opts.warn(`server \`${server}\` declares ${LIST[kind].cap} but does not implement ${LIST[kind].method} (-32601): its ${kind} list is empty`);
      } else {
        this.opts.warn(`server \`${server}\`: could not load its ${kind} list: ${err instanceof Error ? err.message : String(err)}`);
      }
    });
    this.opts.onChange(this.current);
  }

  /**
   * Refresh one list after list_changed. Notifications arriving while a fetch is in flight are
   * coalesced into a single follow-up fetch. Failures become a warning; the old list stays.
   */
  refresh(kind: CatalogueKind): Promise<void> {
    if (this.disposed || !declares(this.opts.capabilities, kind) || this.unserved.has(kind)) return Promise.resolve();
    const inFlight = this.running.get(kind);
    if (inFlight) {
      this.dirty.add(kind);
      return inFlight;
    }
    const run = (async () => {
      do {
        this.dirty.delete(kind);
        try {
          await this.fetch(kind, true);
        } catch (err) {
          if (!this.disposed) this.opts.warn(`could not refresh ${kind}: ${err instanceof Error ? err.message : String(err)}`);
          return;
        }
      } while (this.dirty.has(kind) && !this.disposed);
    })().finally(() => this.running.delete(kind));
    this.running.set(kind, run);
    return run;
  }

  private async fetch(kind: CatalogueKind, notify: boolean): Promise<void> {
    const limits = this.opts.limits ?? DEFAULT_LIMITS;
    const server = this.opts.server ?? '?';
    const warn = this.opts.warn;
    // Tools: a fresh compiler per list, so `$id`s of the old list never meet the new one's; it takes over the
    // old list's validators of unchanged schemas (schema/compiler.ts), so a refresh compiles only what changed.
    const compiler = kind === 'tools' ? new SchemaCompiler(server, limits, this.compiler, warn) : undefined;
    const validators = new Map<string, ToolValidators>();
    const pending = new Map<string, Tool>();
    // One list's tool problems: the first MAX_TOOL_PROBLEM_LINES are said, the rest counted (10,000 invalid schemas
    // are not 10,000 lines); each is said in full when its tool is called.
    let problems = 0;
    const toolWarn = (msg: string) => { if (++problems <= MAX_TOOL_PROBLEM_LINES) warn(msg); };
    const reuse: ToolReuse = { previous: this.toolTexts, next: new Map(), previousChecked: this.toolsChecked, nextChecked: new Map() };
    const usable = (items: unknown[]) => kind === 'tools' ? (items as Tool[]).filter(t => !validators.get(t.name)?.malformed) : items;
    let firstPage: unknown[] | undefined;
    const onPage = async (items: unknown[], more: boolean): Promise<boolean> => {
      if (this.disposed) return false;
      // The CLI names the tools its command compiles (now: doctor checks them all); the extension compiles on first call.
      const how = this.opts.compileTool ?? (() => 'check' as const);
      if (compiler) await checkToolsSliced(items as Tool[], toolWarn, compiler, validators, pending, () => this.disposed, reuse, how);
      if (compiler && this.opts.headerAnnotations) excludeInvalidHeaderTools(items as Tool[], validators, toolWarn);
      if (this.disposed) return false;
      if (firstPage === undefined) {
        firstPage = items;
        // The first page reaches the UI before the rest of a long list is read.
        if (more) this.publish(kind, usable(items), compiler, validators, pending, true);
      }
      return true;
    };
    let ttlMs: number | undefined;
    const items = await fetchAll(this.opts.client, kind, { timeout: this.opts.timeout }, { server, limits, warn, onPage, onTtl: t => { ttlMs = t; } });
    const expiry = expiryOf(ttlMs);
    if (expiry === undefined) this.expires.delete(kind);
    else this.expires.set(kind, expiry);
    if (this.disposed) {
      compiler?.dispose();
      return;
    }
    if (problems > MAX_TOOL_PROBLEM_LINES) {
      warn(`server \`${server}\`: ${(problems - MAX_TOOL_PROBLEM_LINES).toLocaleString('en-US')} more problems with tools of this list are not logged here (each is said when its tool is called)`);
    }
    const listed = await usableSliced(kind, items, validators);
    if (this.disposed) {
      compiler?.dispose();
      return;
    }
    compiler?.forgetPrevious();
    if (compiler) {
      this.toolTexts = reuse.next;
      this.toolsChecked = reuse.nextChecked ?? new Map();
    }
    this.publish(kind, listed, compiler, validators, pending, notify);
  }

  private publish(kind: CatalogueKind, items: unknown[], compiler: SchemaCompiler | undefined, validators: Map<string, ToolValidators>, pending: Map<string, Tool>, notify: boolean): void {
    if (compiler && compiler !== this.compiler) {
      this.compiler?.dispose();
      this.compiler = compiler;
      this.validators = validators;
      this.pending = pending;
    }
    this.current = { ...this.current, [kind]: items };
    if (notify) this.opts.onChange(this.current);
  }

  /** Ends the session's catalogue: refreshes stop, and the compiled validators are freed. */
  dispose(): void {
    this.disposed = true;
    for (const p of this.paced.values()) if (p.timer) clearTimeout(p.timer);
    this.paced.clear();
    this.compiler?.dispose();
    this.compiler = undefined;
    this.validators = new Map();
    this.pending = new Map();
    this.toolTexts = new Map();
    this.toolsChecked = new Map();
  }
}
