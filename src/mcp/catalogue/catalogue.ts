/**
 * The catalogue of one server session: tools, prompts, resources and resource templates, every page (paging.ts)
 * up to the catalogue limits, refreshed on `notifications/<kind>/list_changed` (H21), a burst gathered into
 * one refresh and a flood paced (ListChangedPacing, H147), with the validators of each tool's schemas (toolSchemas.ts)
 * for all tools, not just the SDK's "last page" cache.
 */
import { ProtocolError, ProtocolErrorCode, type Client, type ServerCapabilities, type Tool } from '@modelcontextprotocol/client';
import type { Catalogue } from '../types';
import { DEFAULT_LIMITS, type Limits } from '../limits';
import { SchemaCompiler } from '../schema/compiler';
import { excludeInvalidHeaderTools } from './toolHeaders';
import { CATALOGUE_KINDS, LIST, declares, emptyCatalogue, expiryOf, fetchAll, type CatalogueKind } from './paging';
import { checkToolsSliced, compileToolValidators, compiledClean, usableSliced, type ToolReuse, type ToolsCompiled, type ToolsChecked, type ToolValidators } from './toolSchemas';

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
  /** The current tools list's tools compiled clean, by name, with their definitions: a refresh keeps those unchanged. */
  private toolsCompiled: ToolsCompiled = new Map();
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
      if (compiledClean(tool, v)) this.toolsCompiled.set(name, { tool, v });
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
    const reuse: ToolReuse = { previous: this.toolsCompiled, next: new Map(), previousChecked: this.toolsChecked, nextChecked: new Map() };
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
      this.toolsCompiled = reuse.next;
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
    this.toolsCompiled = new Map();
    this.toolsChecked = new Map();
  }
}
