/**
 * The gateway's MCP server: what VS Code's own MCP support sees of MCP Host. It offers the servers' tools, prompts
 * and resources under names unique across servers (names.ts), answers every request through the host (so launch
 * consent, limits, redaction, History and App views apply as for any other use), and follows the servers' changes
 * with its own `list_changed`. Built on the SDK v2 server package; one instance per gateway connection (channel.ts).
 *
 * Annotations are a server's claims: VS Code runs a tool marked `readOnlyHint` without asking, so the gateway
 * forwards `readOnlyHint: true` only for a tool the user allowed "always" in MCP Host, and never the server's own.
 * VS Code's confirmation is the one confirmation of a gateway call (README, "VS Code's chat").
 *
 *   const g = new GatewayServer({ host, version, ensureRunning, allowedWithoutAsking, onCall });
 *   await g.connect(transport);  …  g.dispose();
 */
import { Server, type CallToolResult, type Prompt, type Resource, type Tool, type Transport } from '@modelcontextprotocol/server';
import type { HostApi, ServerHandle } from '../api';
import type { Disposable } from '../events';
import { visibleToModel } from '../apps/meta';
import { GatewayNames } from './names';

/** The scheme of the resource URIs the gateway hands out: `mcp-host-gateway://<server>/<original URI, encoded>`. */
export const GATEWAY_RESOURCE_SCHEME = 'mcp-host-gateway';
/** Changes are gathered this long before one `list_changed` goes out. */
export const LIST_CHANGED_DEBOUNCE_MS = 150;

/** What the gateway needs from its owner (the extension, or a test). */
export interface GatewayServerOptions {
  host: HostApi;
  /** The gateway's version (serverInfo). */
  version: string;
  /** Whether a server's lists are offered: default, running servers. The extension adds servers waiting for their first use. */
  offers?(h: ServerHandle): boolean;
  /** Before a request reaches a server that is not running (a lazy one): start it; rejects when it cannot run. */
  ensureRunning?(server: string): Promise<void>;
  /** True when the user allowed the tool in MCP Host without asking ("always"): only then `readOnlyHint` is forwarded. */
  allowedWithoutAsking?(server: string, tool: Tool): boolean;
  /** False for a tool the user turned off for models. Default: every tool. */
  toolEnabled?(server: string, tool: Tool): boolean;
  /** A tool call begins (an App view opens for a tool that has one): told its outcome. */
  onCall?(server: string, tool: Tool, args: Record<string, unknown>): { result(r: CallToolResult): void; cancelled(message: string): void } | undefined;
  /** One line for the log. */
  log?(message: string): void;
}

const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
const isRunning = (h: ServerHandle) => h.state.kind === 'running';

/** One gateway session's MCP server; see the module comment. */
export class GatewayServer {
  readonly server: Server;
  private names = new GatewayNames();
  private prompts = new GatewayNames();
  private readonly subs: Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private connected = false;
  /** Called once when the connection closed. */
  onClosed?: () => void;

  constructor(private readonly o: GatewayServerOptions) {
    this.server = new Server({ name: 'mcp-host-gateway', title: 'MCP Host', version: o.version }, {
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, resources: { listChanged: true } },
      instructions: 'The tools, prompts and resources of the MCP servers that run in MCP Host. Names are <server>_<name>.',
    });
    this.server.setRequestHandler('tools/list', () => ({ tools: this.listTools() }));
    this.server.setRequestHandler('tools/call', async (req, ctx) => this.callTool(req.params.name, req.params.arguments ?? {}, ctx.mcpReq.signal));
    this.server.setRequestHandler('prompts/list', () => ({ prompts: this.listPrompts() }));
    this.server.setRequestHandler('prompts/get', async (req, ctx) => {
      const { h, name } = await this.target(this.prompts, req.params.name, 'prompt');
      const result = await h.getPrompt(name, req.params.arguments ?? {}, { signal: ctx.mcpReq.signal, by: 'model' });
      return { ...result, _meta: undefined };
    });
    this.server.setRequestHandler('resources/list', () => ({ resources: this.listResources() }));
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

  /** The servers offered now, in the host's order. */
  private offered(): ServerHandle[] {
    const offers = this.o.offers ?? isRunning;
    return this.o.host.servers.filter(h => offers(h));
  }

  /** Every tool a model may use, renamed; rebuilds the name map. */
  listTools(): Tool[] {
    const names = new GatewayNames();
    const out: Tool[] = [];
    for (const h of this.offered()) {
      for (const t of h.catalogue.tools) {
        if (!visibleToModel(t) || this.o.toolEnabled?.(h.name, t) === false) continue;
        const annotations = { ...t.annotations };
        delete annotations.readOnlyHint;
        if (this.o.allowedWithoutAsking?.(h.name, t)) annotations.readOnlyHint = true;
        out.push({
          name: names.assign(h.name, t.name),
          title: `${t.title ?? t.annotations?.title ?? t.name} (${h.name})`,
          description: t.description,
          inputSchema: t.inputSchema,
          ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
          annotations: { ...annotations, title: undefined },
        });
      }
    }
    this.names = names;
    return out;
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

  private async callTool(gwName: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    let h: ServerHandle;
    let name: string;
    try {
      ({ h, name } = await this.target(this.names, gwName, 'tool'));
    } catch (e) {
      return failed(e instanceof Error ? e.message : String(e));
    }
    const tool = h.catalogue.tools.find(t => t.name === name);
    if (!tool || !visibleToModel(tool) || this.o.toolEnabled?.(h.name, tool) === false) return failed(`MCP server "${h.name}" offers no tool "${name}" to models now.`);
    const view = this.o.onCall?.(h.name, tool, args);
    try {
      const result = await h.callTool(tool.name, args, { signal, by: 'model' });
      view?.result(result);
      // The view is MCP Host's: VS Code gets the result without the server's UI metadata.
      return { ...result, _meta: undefined };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      view?.cancelled(message);
      return failed(`The tool call failed: ${message}`);
    }
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
    if (!h || !(this.o.offers ?? isRunning)(h)) throw new Error(`MCP server "${server}" is not available in MCP Host`);
    if (!isRunning(h)) {
      await this.o.ensureRunning?.(server);
      h = this.o.host.get(server);
      if (!h || !isRunning(h)) throw new Error(`MCP server "${server}" is not running in MCP Host`);
    }
    return h;
  }

  /** The lists changed for a reason the host does not announce (the user's tool switches): say so to VS Code. */
  listsChanged(): void {
    this.scheduleListChanged();
  }

  private scheduleListChanged(): void {
    if (!this.connected) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.connected) return;
      const warn = (e: unknown) => this.o.log?.(`MCP Host gateway: could not send list_changed (${e instanceof Error ? e.message : String(e)})`);
      this.server.sendToolListChanged().catch(warn);
      this.server.sendPromptListChanged().catch(warn);
      this.server.sendResourceListChanged().catch(warn);
    }, LIST_CHANGED_DEBOUNCE_MS);
  }
}

/** The gateway URI of a server's resource. */
export function resourceUri(server: string, uri: string): string {
  return `${GATEWAY_RESOURCE_SCHEME}://${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;
}

/** The server and original URI behind a gateway URI. */
export function parseResourceUri(uri: string): { server: string; uri: string } | undefined {
  const prefix = `${GATEWAY_RESOURCE_SCHEME}://`;
  if (!uri.startsWith(prefix)) return undefined;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return undefined;
  }
}
