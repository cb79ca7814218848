/**
 * The gateway's MCP server: what VS Code's own MCP support sees of MCP Host. It offers the servers' tools, prompts
 * and resources under names unique across servers (names.ts; the resource URIs: gatewayUris.ts), answers every
 * request through the host (so launch consent, limits, redaction, History and App views apply as for any other use),
 * and follows the servers' changes with its own `list_changed`. Built on the SDK v2 server package; one instance per
 * gateway connection (channel.ts).
 *
 * Annotations are a server's claims: VS Code runs a tool marked `readOnlyHint` without asking, so the gateway
 * forwards `readOnlyHint: true` only for a tool the user allowed "always" in MCP Host, and never the server's own.
 * VS Code's confirmation is the one confirmation of a gateway call (docs/FEATURES.md, "VS Code's chat").
 *
 * Code mode (`mcpHost.codeMode`, issue 42): the tool list is the one program tool (src/mcp/codemode/codeModeTool.ts)
 * instead of the servers' tools. VS Code confirms the program; each call the program makes passes the gateway's own
 * gate (the one predicate, a lazy server started) and, unless the user allowed the tool "always" in MCP Host, MCP
 * Host's own confirmation (`programApproval`: one turn of the consent governor per program, a Deny ends the program).
 *
 *   const g = new GatewayServer({ host, version, gate, ensureRunning, allowedWithoutAsking, onCall });   // gate: the one ModelToolGate
 *   await g.connect(transport);  …  g.dispose();
 */
import { Server, type CallToolResult, type Prompt, type Resource, type Tool, type Transport } from '@modelcontextprotocol/server';
import type { HostApi, ServerHandle } from '../api';
import { runsOrRestarts } from '../types';
import type { Disposable } from '../events';
import {
  DISCOVERY_TOOL_NAMES, discoveryTools, modelMaySee, modelToolView, serverOffered, ToolDiscovery, type ModelTool, type ModelToolGate, type ToolBudget,
} from '../catalogue/modelTools';
import { GatewayNames } from './names';
import { CODE_MODE_TOOL_NAME, codeModeServers, codeModeTool, ProgramStop, runCodeModeTool } from '../codemode/codeModeTool';
import type { CodeModeLimits } from '../codemode/codeModeLimits';
import { programValue } from '../codemode/codeModeResult';
import { ProgressForwarder } from './progress';
import { parseResourceUri, resourceUri, templateUri } from './gatewayUris';

/** Changes are gathered this long before one `list_changed` goes out. */
export const LIST_CHANGED_DEBOUNCE_MS = 150;

/** What the gateway needs from its owner (the extension, or a test). */
export interface GatewayServerOptions {
  host: HostApi;
  /** The gateway's version (serverInfo). */
  version: string;
  /**
   * What models may see (the one gate of `@mcp` and the language-model tools, passed through unchanged): which servers
   * are offered (default: running; the extension adds servers waiting for their first use), which the user denied, and
   * which tools the user turned off for models. Default: running servers, every tool.
   */
  gate?: ModelToolGate;
  /** Before a request reaches a server that is not running (a lazy one): start it; rejects when it cannot run. */
  ensureRunning?(server: string): Promise<void>;
  /** True when the user allowed the tool in MCP Host without asking ("always"): only then `readOnlyHint` is forwarded. */
  allowedWithoutAsking?(server: string, tool: Tool): boolean;
  /** The tool budget now (`mcpHost.toolBudget`); over it the gateway offers search and activate tools instead. Default: none. */
  budget?(): ToolBudget;
  /** A tool call begins (an App view opens for a tool that has one): told its outcome. */
  onCall?(server: string, tool: Tool, args: Record<string, unknown>): { result(r: CallToolResult): void; cancelled(message: string): void } | undefined;
  /** Code mode's limits while `mcpHost.codeMode` is on, else undefined (default: off). */
  codeMode?(): CodeModeLimits | undefined;
  /**
   * MCP Host's confirmation of a program's calls (one per program run, ended with it): for a tool not allowed without
   * asking. Default: none (VS Code's confirmation of the program stands for its calls).
   */
  programApproval?(signal: AbortSignal): { approve(server: string, tool: Tool, args: Record<string, unknown>): Promise<'allowed' | 'declined' | 'once-used' | 'refused'>; end(): void };
  /** How long a server's completion answer is waited for (default {@link COMPLETION_TIMEOUT_MS}; tests lower it). */
  completionTimeoutMs?: number;
  /** One line for the log. */
  log?(message: string): void;
}

/** A resource template as the gateway lists it. */
export interface GatewayTemplate { uriTemplate: string; name: string; title?: string; description?: string; mimeType?: string }

const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
/** Running, or waiting for its automatic restart after a crash (a call then waits for the restart, H585). */
const isRunning = (h: ServerHandle) => runsOrRestarts(h.state);

/** One gateway session's MCP server; see the module comment. */
export class GatewayServer {
  readonly server: Server;
  private names = new GatewayNames();
  private prompts = new GatewayNames();
  /** The tools this connection's model activated (used over the budget only). */
  readonly discovery = new ToolDiscovery();
  /** Every tool a model may see, by gateway name (rebuilt with the names). */
  private byName = new Map<string, ModelTool>();
  private readonly gate: ModelToolGate;
  private readonly subs: Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private allListsChanged = false;
  /**
   * What this connection's client last listed, per list (its JSON): a `list_changed` goes out only for a list that now
   * differs. Issue 41: a server that crashed and waits for its restart keeps its lists (H585), and VS Code, told of a
   * change, re-lists and re-registers every tool (seconds with a thousand tools) while a call waits.
   */
  private readonly listed = new Map<'tools' | 'prompts' | 'resources' | 'templates', string>();
  private connected = false;
  /** Called once when the connection closed. */
  onClosed?: () => void;

  constructor(private readonly o: GatewayServerOptions) {
    this.gate = o.gate ?? {};
    this.server = new Server({ name: 'mcp-host-gateway', title: 'MCP Host', version: o.version }, {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true }, completions: {} },
      instructions: 'The tools, prompts and resources of the MCP servers that run in MCP Host. Names are <server>_<name>.',
    });
    this.server.setRequestHandler('tools/list', () => ({ tools: this.listedAs('tools', this.listTools()) }));
    this.server.setRequestHandler('tools/call', async (req, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      const progress = token === undefined ? undefined : new ProgressForwarder(token, n => ctx.mcpReq.notify(n), this.o.log);
      try {
        return await this.callTool(req.params.name, req.params.arguments ?? {}, ctx.mcpReq.signal, progress);
      } finally {
        progress?.close();
      }
    });
    this.server.setRequestHandler('prompts/list', () => ({ prompts: this.listedAs('prompts', this.listPrompts()) }));
    this.server.setRequestHandler('prompts/get', async (req, ctx) => {
      const { h, name } = await this.target(this.prompts, req.params.name, 'prompt');
      const result = await h.getPrompt(name, req.params.arguments ?? {}, { signal: ctx.mcpReq.signal, by: 'model' });
      return { ...result, _meta: undefined };
    });
    this.server.setRequestHandler('resources/list', () => ({ resources: this.listedAs('resources', this.listResources()) }));
    this.server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: this.listedAs('templates', this.listResourceTemplates()) }));
    this.server.setRequestHandler('completion/complete', async (req, ctx) => ({ completion: await this.complete(req.params, ctx.mcpReq.signal) }));
    this.server.setRequestHandler('resources/read', async (req, ctx) => {
      const parsed = parseResourceUri(req.params.uri);
      if (!parsed) throw new Error(`MCP Host gateway: unknown resource ${req.params.uri}`);
      const h = await this.handle(parsed.server);
      const result = await h.readResource(parsed.uri, { signal: ctx.mcpReq.signal, by: 'model' });
      return { contents: result.contents.map(c => ({ ...c, uri: c.uri === parsed.uri ? req.params.uri : c.uri })) };
    });
    const changed = () => this.scheduleListChanged();
    this.subs.push(o.host.onDidChangeCatalogue(changed), o.host.onDidChangeState(changed), o.host.onDidChangeServers(changed));
  }

  /** Serves one connection. */
  async connect(transport: Transport): Promise<void> {
    this.server.onclose = () => { this.dispose(); this.onClosed?.(); };
    await this.server.connect(transport);
    this.connected = true;
  }

  dispose(): void {
    this.connected = false;
    clearTimeout(this.timer);
    for (const s of this.subs.splice(0)) s.dispose();
  }

  /** The servers offered now (state, trust and consent), in the host's order. */
  private offered(): ServerHandle[] {
    return this.o.host.servers.filter(h => serverOffered(h, this.gate));
  }

  /**
   * Every tool a model may use (the one predicate, src/mcp/catalogue/modelTools.ts), renamed; rebuilds the name map.
   * Over the budget: the search and activate tools plus the tools this connection activated.
   */
  listTools(): Tool[] {
    const names = new GatewayNames();
    for (const n of Object.values(DISCOVERY_TOOL_NAMES)) names.reserve(n);
    names.reserve(CODE_MODE_TOOL_NAME);
    const limits = this.o.codeMode?.();
    if (limits) {
      // Code mode: the program tool alone (no server tool is reachable by its own name meanwhile).
      this.names = names;
      this.byName = new Map();
      this.toolNames = new Map();
      this.discovering = false;
      this.activeNow = new Set();
      return [codeModeTool(codeModeServers(this.o.host.servers, this.gate), (server, tool) => this.mayCall(server, tool), limits)];
    }
    const view = modelToolView(this.o.host.servers, this.gate, this.o.budget?.() ?? {}, this.discovery);
    const byName = new Map<string, ModelTool>();
    const gwName = new Map<ModelTool, string>();
    for (const mt of view.discovery ? view.all : view.tools) {
      const n = names.assign(mt.server, mt.tool.name);
      byName.set(n.toLowerCase(), mt);
      gwName.set(mt, n);
    }
    const out: Tool[] = view.discovery ? discoveryTools() : [];
    for (const mt of view.tools) {
      const { server, tool: t } = mt;
      const annotations = { ...t.annotations };
      delete annotations.readOnlyHint;
      if (this.o.allowedWithoutAsking?.(server, t)) annotations.readOnlyHint = true;
      out.push({
        name: gwName.get(mt)!,
        title: `${t.title ?? t.annotations?.title ?? t.name} (${server})`,
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        annotations: { ...annotations, title: undefined },
      });
    }
    this.names = names;
    this.byName = byName;
    this.toolNames = gwName;
    this.discovering = view.discovery;
    this.activeNow = new Set(view.tools);
    return out;
  }
  private toolNames = new Map<ModelTool, string>();
  private discovering = false;
  private activeNow = new Set<ModelTool>();

  listResourceTemplates(): GatewayTemplate[] {
    const out: GatewayTemplate[] = [];
    for (const h of this.offered()) {
      for (const t of h.catalogue.resourceTemplates) {
        out.push({
          uriTemplate: templateUri(h.name, t.uriTemplate), name: t.name, title: `${t.title ?? t.name} (${h.name})`,
          description: t.description, mimeType: t.mimeType,
        });
      }
    }
    return out;
  }

  /** completion/complete for a gateway prompt's argument or a gateway template's variable, through the owning server; bounded. */
  private async complete(params: { ref: { type: string; name?: string; uri?: string }; argument: { name: string; value: string }; context?: { arguments?: Record<string, string> } }, signal: AbortSignal) {
    const empty = { values: [] as string[], hasMore: false };
    let h: ServerHandle;
    let ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
    if (params.ref.type === 'ref/prompt' && typeof params.ref.name === 'string') {
      const { h: hh, name } = await this.target(this.prompts, params.ref.name, 'prompt');
      if (!hh.catalogue.prompts.some(p => p.name === name)) return empty;
      h = hh;
      ref = { type: 'ref/prompt', name };
    } else if (params.ref.type === 'ref/resource' && typeof params.ref.uri === 'string') {
      const parsed = parseResourceUri(params.ref.uri);
      if (!parsed) return empty;
      h = await this.handle(parsed.server);
      // Only a template the server listed: a made-up reference asks nothing of the server.
      if (!h.catalogue.resourceTemplates.some(t => t.uriTemplate === parsed.uri)) return empty;
      ref = { type: 'ref/resource', uri: parsed.uri };
    } else {
      return empty;
    }
    const argument = { name: String(params.argument?.name ?? '').slice(0, MAX_COMPLETION_CHARS), value: String(params.argument?.value ?? '').slice(0, MAX_COMPLETION_CHARS) };
    const context = boundedContext(params.context?.arguments);
    try {
      const c = await h.complete(ref, argument, context, { signal, timeout: this.o.completionTimeoutMs ?? COMPLETION_TIMEOUT_MS });
      const values = (c.values ?? []).filter(v => typeof v === 'string' && v.length <= MAX_COMPLETION_CHARS).slice(0, MAX_COMPLETION_VALUES);
      return { values, ...(typeof c.total === 'number' && Number.isFinite(c.total) ? { total: Math.max(0, Math.floor(c.total)) } : {}), hasMore: c.hasMore === true || values.length < (c.values?.length ?? 0) };
    } catch (e) {
      this.o.log?.(`MCP Host gateway: completion from "${h.name}" failed (${e instanceof Error ? e.message : String(e)})`);
      return empty;
    }
  }

  listPrompts(): Prompt[] {
    const names = new GatewayNames();
    const out: Prompt[] = [];
    for (const h of this.offered()) {
      for (const p of h.catalogue.prompts) {
        out.push({ name: names.assign(h.name, p.name), title: `${p.title ?? p.name} (${h.name})`, description: p.description, arguments: p.arguments });
      }
    }
    this.prompts = names;
    return out;
  }

  listResources(): Resource[] {
    const out: Resource[] = [];
    for (const h of this.offered()) {
      for (const r of h.catalogue.resources) {
        out.push({
          uri: resourceUri(h.name, r.uri), name: r.name, title: `${r.title ?? r.name} (${h.name})`,
          description: r.description, mimeType: r.mimeType, ...(typeof r.size === 'number' ? { size: r.size } : {}),
        });
      }
    }
    return out;
  }

  /** The one predicate for a program's call (offered server, tool for models and not turned off). */
  private mayCall(server: string, toolName: string): boolean {
    const h = this.o.host.get(server);
    const tool = h?.catalogue.tools.find(t => t.name === toolName);
    return !!(h && tool && modelMaySee(h, tool, this.gate));
  }

  /** One use of the program tool: each call through the gateway's gate, MCP Host's confirmation, then the server. */
  private async programCall(input: Record<string, unknown>, limits: CodeModeLimits, signal: AbortSignal): Promise<CallToolResult> {
    const approval = this.o.programApproval?.(signal);
    try {
      const r = await runCodeModeTool(input, {
        servers: codeModeServers(this.o.host.servers, this.gate), limits, signal,
        visible: (server, tool) => this.mayCall(server, tool),
        call: async (server, tool, args, o) => {
          const h = await this.handle(server);
          if (approval && !this.o.allowedWithoutAsking?.(server, tool)) {
            const a = await approval.approve(server, tool, args);
            if (a === 'declined') throw new ProgramStop(`the user declined to run tool "${tool.name}" of MCP server "${server}", so the program ends here.`);
            if (a === 'once-used') throw new Error(`not run: the user allowed tool "${tool.name}" of MCP server "${server}" once for this program, and that call ran.`);
            if (a !== 'allowed') throw new ProgramStop('the request ended.');
          }
          const view = this.o.onCall?.(server, tool, args);
          try {
            const result = await h.callTool(tool.name, args, { signal: o.signal, by: 'model', program: o.program });
            view?.result(result);
            return programValue(server, tool.name, result);
          } catch (e) {
            view?.cancelled(e instanceof Error ? e.message : String(e));
            throw e;
          }
        },
      });
      return { content: [{ type: 'text', text: r.text }], ...(r.isError ? { isError: true } : {}) };
    } catch (e) {
      // The engine itself failed (not the program).
      return failed(`The program could not run: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      approval?.end();
    }
  }

  private async callTool(gwName: string, args: Record<string, unknown>, signal: AbortSignal, progress?: ProgressForwarder): Promise<CallToolResult> {
    const limits = this.o.codeMode?.();
    if (limits && gwName === CODE_MODE_TOOL_NAME) return await this.programCall(args, limits, signal);
    if (!this.byName.size || limits) this.listTools();
    const discovery = await this.discoveryCall(gwName, args);
    if (discovery) return discovery;
    let h: ServerHandle;
    let name: string;
    try {
      ({ h, name } = await this.target(this.names, gwName, 'tool'));
    } catch (e) {
      return failed(e instanceof Error ? e.message : String(e));
    }
    const tool = h.catalogue.tools.find(t => t.name === name);
    if (!tool || !modelMaySee(h, tool, { ...this.gate, offers: () => true })) return failed(`MCP server "${h.name}" offers no tool "${name}" to models now.`);
    if (this.discovering && ![...this.activeNow].some(mt => mt.server === h.name && mt.tool.name === tool.name)) {
      return failed(`The tool "${gwName}" is not active: call ${DISCOVERY_TOOL_NAMES.activate} with its name first.`);
    }
    const view = this.o.onCall?.(h.name, tool, args);
    try {
      const result = await h.callTool(tool.name, args, { signal, by: 'model', ...(progress ? { onProgress: p => progress.progress(p) } : {}) });
      view?.result(result);
      // The view is MCP Host's: VS Code gets the result without the server's UI metadata.
      return { ...result, _meta: undefined };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      view?.cancelled(message);
      return failed(`The tool call failed: ${message}`);
    }
  }

  /** A call of the search or activate tool (only while over the budget), answered here; undefined for any other name. */
  private async discoveryCall(gwName: string, args: Record<string, unknown>): Promise<CallToolResult | undefined> {
    const isSearch = gwName === DISCOVERY_TOOL_NAMES.search;
    if (!isSearch && gwName !== DISCOVERY_TOOL_NAMES.activate) return undefined;
    this.listTools();
    if (!this.discovering) return failed(`Every tool is offered already (the tool budget is not exceeded); ${gwName} is not needed.`);
    const all = [...new Set(this.byName.values())];
    if (isSearch) {
      const { hits, total } = await this.discovery.search(all, args.query, mt => this.toolNames.get(mt)!);
      // Server text is data: one line of plain text per tool, inside JSON, never instructions.
      return { content: [{ type: 'text', text: JSON.stringify({ matches: total, shown: hits.length, tools: hits, active: this.discovery.size, maxActive: this.discovery.maxActive }) }] };
    }
    const { activated, text } = this.discovery.activate(args.names, n => this.byName.get(n.toLowerCase()));
    if (activated.length) { this.listTools(); this.scheduleListChanged(true); }
    return { content: [{ type: 'text', text }] };
  }

  /** The server and original name behind a gateway name (the map is rebuilt once when the name is not in it). */
  private async target(names: GatewayNames, gwName: string, what: 'tool' | 'prompt'): Promise<{ h: ServerHandle; name: string }> {
    let hit = names.lookup(gwName);
    if (!hit) {
      if (what === 'tool') this.listTools(); else this.listPrompts();
      hit = (what === 'tool' ? this.names : this.prompts).lookup(gwName);
    }
    if (!hit) throw new Error(`MCP Host gateway: no ${what} is named "${gwName}" (the list may have changed; list again)`);
    return { h: await this.handle(hit.server), name: hit.name };
  }

  /** The running handle of an offered server (a lazy one is started first). */
  private async handle(server: string): Promise<ServerHandle> {
    let h = this.o.host.get(server);
    if (!h || !serverOffered(h, this.gate)) throw new Error(`MCP server "${server}" is not available in MCP Host`);
    if (!isRunning(h)) {
      await this.o.ensureRunning?.(server);
      h = this.o.host.get(server);
      if (!h || !isRunning(h)) throw new Error(`MCP server "${server}" is not running in MCP Host`);
    }
    return h;
  }

  private listedAs<T>(kind: 'tools' | 'prompts' | 'resources' | 'templates', list: T): T {
    this.listed.set(kind, JSON.stringify(list));
    return list;
  }

  /** True when `list` differs from what the client last listed (or it never listed). */
  private differs(kind: 'tools' | 'prompts' | 'resources' | 'templates', list: () => unknown): boolean {
    const seen = this.listed.get(kind);
    return seen === undefined || seen !== JSON.stringify(list());
  }

  /** The lists changed for a reason the host does not announce (the user's tool switches): say so to VS Code. */
  listsChanged(): void {
    this.scheduleListChanged();
  }

  private scheduleListChanged(toolsOnly = false): void {
    if (!this.connected) return;
    clearTimeout(this.timer);
    if (!toolsOnly) this.allListsChanged = true;
    this.timer = setTimeout(() => {
      if (!this.connected) return;
      const warn = (e: unknown) => this.o.log?.(`MCP Host gateway: could not send list_changed (${e instanceof Error ? e.message : String(e)})`);
      if (this.differs('tools', () => this.listTools())) this.server.sendToolListChanged().catch(warn);
      if (!this.allListsChanged) return;
      this.allListsChanged = false;
      if (this.differs('prompts', () => this.listPrompts())) this.server.sendPromptListChanged().catch(warn);
      if (this.differs('resources', () => this.listResources()) || this.differs('templates', () => this.listResourceTemplates())) this.server.sendResourceListChanged().catch(warn);
    }, LIST_CHANGED_DEBOUNCE_MS);
  }
}

/** Longest completion value, argument value or context value passed on (longer values are dropped). */
export const MAX_COMPLETION_CHARS = 1024;
/** Completion values in one answer (the spec's own cap). */
export const MAX_COMPLETION_VALUES = 100;
/** A server's completion answer is waited for this long. */
export const COMPLETION_TIMEOUT_MS = 10_000;

function boundedContext(args: unknown): Record<string, string> | undefined {
  if (!args || typeof args !== 'object' || Array.isArray(args)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>).slice(0, 32)) {
    if (typeof v === 'string' && k.length <= 256 && v.length <= MAX_COMPLETION_CHARS) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
