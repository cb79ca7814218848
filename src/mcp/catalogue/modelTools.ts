/**
 * The one predicate for the tools a model may see, asked by every path that gives tools to a model (`@mcp`, the
 * language-model tools, the gateway into VS Code's chat), and the tool budget with progressive discovery on top of it.
 *
 * A tool reaches a model when its server is offered (state: running, or waiting for its first use where the caller
 * starts it), the user did not deny the server (trust and launch consent), the tool is not only for app views and
 * the user did not turn it off (`mcpHost.disabledTools`). Over the budget (`mcpHost.toolBudget`: tools and/or
 * tokens), a caller sends a search tool and an activate tool instead of every tool (ToolDiscovery): the model
 * searches by words, gets names and one-line plain-text descriptions, activates a few (at most
 * {@link MAX_ACTIVE_TOOLS}), which are offered from then on. Under the budget nothing changes. Plain functions and
 * one small class, no I/O.
 *
 *   const gate: ModelToolGate = { offers: h => h.state.kind === 'running', enabled, allowed };
 *   const view = modelToolView(host.servers, gate, budget, discovery);   // { discovery: false, tools } or { discovery: true, tools: active only, all }
 */
import type { Tool } from '@modelcontextprotocol/client';
import type { ServerHandle } from '../api';
import { awaitsRestart } from '../types';
import { visibleToModel } from '../apps/meta';
import { estimateToolTokens } from './toolPolicy';

/**
 * What decides whether a model sees a tool; every member optional (default: running servers, every tool). The one
 * shape from the extension (src/extension/extension.ts builds it once) to `@mcp`, the language-model tools and,
 * unchanged, through `GatewayWiring.gate` into `GatewayServerOptions.gate`.
 */
export interface ModelToolGate {
  /** Server state: whether the server's tools are offered (default: running). */
  offers?(h: ServerHandle): boolean;
  /** Trust and consent: false for a server the user denied (or that may not run here). */
  allowed?(server: string): boolean;
  /** Enablement: false for a tool the user turned off for models. */
  enabled?(server: string, tool: string): boolean;
}

/** One tool a model may see, with its server. */
export interface ModelTool {
  server: string;
  tool: Tool;
}

const running = (h: ServerHandle) => h.state.kind === 'running';

/**
 * Whether the server's tools are offered at all (state, trust/consent). A crashed server waiting for its automatic
 * restart keeps its tools offered whatever `offers` says (H585: a call waits for the restart); trust/consent still rules.
 */
export function serverOffered(h: ServerHandle, gate: ModelToolGate): boolean {
  return (awaitsRestart(h.state) || (gate.offers ?? running)(h)) && gate.allowed?.(h.name) !== false;
}

/**
 * Whether a model may reach `h` at all beyond its tools (its skills, H357): offered, and not turned off for models —
 * some tool still on, or, for a server without tools, the server itself not turned off (`"*"`). A server whose tools
 * are all turned off for models is out of a model's reach, skills included.
 */
export function modelMayReach(h: ServerHandle, gate: ModelToolGate): boolean {
  if (!serverOffered(h, gate)) return false;
  const tools = h.catalogue.tools.filter(visibleToModel);
  return tools.length ? tools.some(t => gate.enabled?.(h.name, t.name) !== false) : gate.enabled?.(h.name, '*') !== false;
}

/**
 * The search index (H358): one entry per tool definition, built when the definition is first searched and kept
 * while the catalogue holds that definition (a catalogue change brings new definitions, so new entries; the old ones
 * go with their definitions). A search then only compares words: no re-lowercasing of 10,000 descriptions per query.
 */
const searchIndex = new WeakMap<Tool, Map<string, { name: string[]; text: string }>>();
let indexBuilt = 0;

/** Index entries built so far (tests: a second search over the same catalogue builds none). */
export function searchIndexBuilds(): number {
  return indexBuilt;
}

function indexEntry(t: ModelTool): { name: string[]; text: string } {
  let byServer = searchIndex.get(t.tool);
  if (!byServer) searchIndex.set(t.tool, byServer = new Map());
  let e = byServer.get(t.server);
  if (!e) {
    indexBuilt++;
    e = searchEntry(t);
    byServer.set(t.server, e);
  }
  return e;
}

/** What a search compares of one tool: the words of its name and title, and its lower-cased text (server, name, title, description). */
export function searchEntry(t: ModelTool): { name: string[]; text: string } {
  return { name: words(`${t.tool.name} ${t.tool.title ?? ''}`), text: `${t.server} ${t.tool.name} ${t.tool.title ?? ''} ${(t.tool.description ?? '').slice(0, 2000)}`.toLowerCase() };
}

/** A search query's words (bounded: the first {@link MAX_QUERY_CHARS} characters, 20 words; not a string: no words). */
export function queryWords(query: unknown): string[] {
  return words(typeof query === 'string' ? query.slice(0, MAX_QUERY_CHARS) : '').slice(0, 20);
}

/** How well a tool's entry matches the query words `q`: 3 for a word of its name or title, 1 for a word elsewhere; no words: 1. */
export function searchScore(entry: { name: string[]; text: string }, q: readonly string[]): number {
  let score = q.length ? 0 : 1;
  for (const w of q) {
    if (entry.name.includes(w)) score += 3;
    else if (entry.text.includes(w)) score += 1;
  }
  return score;
}

/** The answer of a search from the tools that scored (any order): best score first, then catalogue order, bounded. */
export function rankedHits(scored: { t: ModelTool; score: number; i: number }[], nameOf: (t: ModelTool) => string): { hits: SearchHit[]; total: number } {
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return {
    total: scored.length,
    hits: scored.slice(0, MAX_SEARCH_RESULTS).map(({ t }) => ({ name: nameOf(t), server: plainLine(t.server, 64), description: plainLine(t.tool.description ?? t.tool.title ?? '') })),
  };
}

/** THE predicate: whether a model may see (and call) `tool` of `h`. */
export function modelMaySee(h: ServerHandle, tool: Tool, gate: ModelToolGate): boolean {
  return serverOffered(h, gate) && visibleToModel(tool) && gate.enabled?.(h.name, tool.name) !== false;
}

/** Every tool a model may see, in the host's server order. */
export function modelTools(servers: readonly ServerHandle[], gate: ModelToolGate): ModelTool[] {
  const out: ModelTool[] = [];
  for (const h of servers) {
    if (!serverOffered(h, gate)) continue;
    for (const t of h.catalogue.tools) if (modelMaySee(h, t, gate)) out.push({ server: h.name, tool: t });
  }
  return out;
}

/** The tool budget (`mcpHost.toolBudget`): at most this many tools and/or estimated tokens of tool definitions. */
export interface ToolBudget {
  tools?: number;
  tokens?: number;
}

/** The setting's value as a budget: positive integers only; anything else is no limit. */
export function parseToolBudget(raw: unknown): ToolBudget {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const o = raw as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 1 ? Math.floor(v) : undefined);
  const out: ToolBudget = {};
  const tools = n(o.tools);
  const tokens = n(o.tokens);
  if (tools !== undefined) out.tools = tools;
  if (tokens !== undefined) out.tokens = tokens;
  return out;
}

/**
 * The budget of user and workspace settings together (issue 35): a workspace may lower the user's budget, never raise
 * it — each bound is the smaller of the two (a bound only one scope sets counts).
 */
export function mergeToolBudgets(user: ToolBudget, workspace: ToolBudget): ToolBudget {
  const out: ToolBudget = {};
  for (const k of ['tools', 'tokens'] as const) {
    const vs = [user[k], workspace[k]].filter((v): v is number => v !== undefined);
    if (vs.length) out[k] = Math.min(...vs);
  }
  return out;
}

/** True when sending every one of `tools` would go over the budget. */
export function overBudget(tools: readonly ModelTool[], budget: ToolBudget): boolean {
  if (budget.tools !== undefined && tools.length > budget.tools) return true;
  return budget.tokens !== undefined && estimateToolTokens(tools.map(t => t.tool)) > budget.tokens;
}

/** Tools one conversation (a `@mcp` chat, a gateway connection) may have activated at once. */
export const MAX_ACTIVE_TOOLS = 16;
/** Results of one search. */
export const MAX_SEARCH_RESULTS = 10;
/** Characters of a description in a search result (one line, plain text). */
export const MAX_SEARCH_DESCRIPTION = 160;
/** Characters of a query that count. */
export const MAX_QUERY_CHARS = 200;
/** Longest run of a search's indexing and scoring before it lets the event loop turn (ms; the budget is 50). */
export const SEARCH_SLICE_MS = 10;
/** Most tools a search indexes and scores before it lets the event loop turn. */
export const SEARCH_CHUNK = 1000;
/** Names one activate call may carry. */
export const MAX_ACTIVATE_PER_CALL = 8;

/** The names of the two discovery tools (gateway and `@mcp`). */
export const DISCOVERY_TOOL_NAMES = { search: 'mcp_host_search_tools', activate: 'mcp_host_activate_tools' } as const;

/** The two discovery tools' definitions (no server text in them). */
export function discoveryTools(): Tool[] {
  return [
    {
      name: DISCOVERY_TOOL_NAMES.search,
      description: 'Search the tools of the MCP servers in MCP Host by words (too many to send them all). Returns tool names with one-line descriptions; '
        + `call ${DISCOVERY_TOOL_NAMES.activate} with the names you need, then call them.`,
      inputSchema: { type: 'object', properties: { query: { type: 'string', description: 'Words describing what the tool should do.' } }, required: ['query'] },
    },
    {
      name: DISCOVERY_TOOL_NAMES.activate,
      description: `Make tools found with ${DISCOVERY_TOOL_NAMES.search} available to call (at most ${MAX_ACTIVATE_PER_CALL} per call, ${MAX_ACTIVE_TOOLS} in all). They are offered from the next step on.`,
      inputSchema: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' }, description: 'Tool names as returned by the search.' } }, required: ['names'] },
    },
  ];
}

/** A server's text as one line of plain text: no control, zero-width or bidirectional characters, no markup brackets, cut to `max`. */
export function plainLine(s: string | undefined, max = MAX_SEARCH_DESCRIPTION): string {
  const one = (s ?? '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]+/g, ' ')
    .replace(/[<>`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

const key = (server: string, tool: string) => `${server}\u0000${tool}`;
const words = (s: string) => s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(w => w.length > 0);

/** One hit of a search. */
export interface SearchHit {
  /** The name to activate (and then call) the tool by. */
  name: string;
  server: string;
  description: string;
}

/**
 * One conversation's progressive discovery: what it activated (bounded), and the search over the tools a model may
 * see. `nameOf` gives the name a tool is called by on that path (gateway names, `@mcp`'s mangled names).
 */
export class ToolDiscovery {
  private readonly active = new Set<string>();

  constructor(readonly maxActive = MAX_ACTIVE_TOOLS) {}

  /** Activated tools (keys) now. */
  get size(): number { return this.active.size; }

  /** The activated ones among `tools` (a tool that went away, or was turned off, is no longer offered). */
  activeTools(tools: readonly ModelTool[]): ModelTool[] {
    return tools.filter(t => this.active.has(key(t.server, t.tool.name)));
  }

  /** Activated tools as `server/tool` (to keep across `@mcp` turns). */
  saved(): string[] {
    return [...this.active].map(k => k.replace('\u0000', '/'));
  }

  /** Restores `saved()` (bounded like activations; anything malformed is ignored). */
  restore(saved: unknown): void {
    if (!Array.isArray(saved)) return;
    for (const s of saved) {
      if (this.active.size >= this.maxActive) break;
      if (typeof s !== 'string') continue;
      const slash = s.indexOf('/');
      if (slash > 0) this.active.add(key(s.slice(0, slash), s.slice(slash + 1)));
    }
  }

  /**
   * The best matches of `query` among `tools` (words in the name, server, title and description), bounded. Async:
   * indexing and scoring run in slices of at most {@link SEARCH_CHUNK} tools and about {@link SEARCH_SLICE_MS}, with a
   * turn of the event loop between them,
   * so a search over a 20 MB catalogue, however often a model repeats it, never holds the thread over the 50 ms budget.
   */
  async search(tools: readonly ModelTool[], query: unknown, nameOf: (t: ModelTool) => string): Promise<{ hits: SearchHit[]; total: number }> {
    const q = queryWords(query);
    const scored: { t: ModelTool; score: number; i: number }[] = [];
    let slice = performance.now();
    for (let i = 0; i < tools.length; i++) {
      if (i > 0 && (i % SEARCH_CHUNK === 0 || (i % 64 === 0 && performance.now() - slice > SEARCH_SLICE_MS))) {
        await new Promise(setImmediate);
        slice = performance.now();
      }
      const t = tools[i];
      const score = searchScore(indexEntry(t), q);
      if (score > 0) scored.push({ t, score, i });
    }
    return rankedHits(scored, nameOf);
  }

  /**
   * Activates the tools named (by `lookup`, the path's own names), within the caps; says what happened in plain
   * words for the model.
   */
  activate(names: unknown, lookup: (name: string) => ModelTool | undefined): { activated: string[]; text: string } {
    const list = Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : typeof names === 'string' ? [names] : [];
    const activated: string[] = [];
    const unknown: string[] = [];
    const refused: string[] = [];
    for (const n of list.slice(0, MAX_ACTIVATE_PER_CALL)) {
      const t = lookup(n);
      if (!t) { unknown.push(n); continue; }
      const k = key(t.server, t.tool.name);
      if (this.active.has(k)) { activated.push(n); continue; }
      if (this.active.size >= this.maxActive) { refused.push(n); continue; }
      this.active.add(k);
      activated.push(n);
    }
    const parts: string[] = [];
    if (activated.length) parts.push(`Activated: ${activated.map(n => plainLine(n, 64)).join(', ')}. Call them from the next step on.`);
    if (list.length > MAX_ACTIVATE_PER_CALL) parts.push(`Only the first ${MAX_ACTIVATE_PER_CALL} names of one call count.`);
    if (refused.length) parts.push(`Not activated (at most ${this.maxActive} tools may be active at once): ${refused.map(n => plainLine(n, 64)).join(', ')}.`);
    if (unknown.length) parts.push(`No such tool: ${unknown.slice(0, MAX_ACTIVATE_PER_CALL).map(n => plainLine(n, 64)).join(', ')}. Use ${DISCOVERY_TOOL_NAMES.search} for the names.`);
    if (!list.length) parts.push('No tool names were given.');
    return { activated, text: parts.join(' ') };
  }
}

/** What a path sends a model now: every tool (under the budget), or the active ones plus the discovery tools. */
export type ModelToolView =
  | { discovery: false; tools: ModelTool[] }
  | { discovery: true; tools: ModelTool[]; all: ModelTool[] };

/** The tools to send: under the budget (or without a discovery state) all of them; over it, only the activated ones. */
export function modelToolView(servers: readonly ServerHandle[], gate: ModelToolGate, budget: ToolBudget, discovery?: ToolDiscovery): ModelToolView {
  const all = modelTools(servers, gate);
  if (!discovery || !overBudget(all, budget)) return { discovery: false, tools: all };
  return { discovery: true, tools: discovery.activeTools(all), all };
}
