/**
 * MCP Host as one server for VS Code's own chat: a definition "MCP Host" handed over through the stable
 * `vscode.lm.registerMcpServerDefinitionProvider` (package.json `contributes.mcpServerDefinitionProviders`).
 * It is a Streamable HTTP definition (`vscode.McpHttpServerDefinition`, issue 41) served by this extension host itself
 * on 127.0.0.1 (src/mcp/gateway/http.ts): no gateway process, no hop between processes. VS Code's requests carry
 * the window's secret as `Authorization: Bearer …`, which only the resolved definition holds (never the one VS Code
 * may cache); the listener refuses any other Host, any request from a web page (an Origin header) and a wrong or
 * missing secret. Behind it: this host, its launch consent, limits, redaction, History and App views
 * (src/mcp/gateway/server.ts).
 *
 * VS Code starts a provided server only when something asks for it (a chat request in agent mode, `MCP: List Servers`
 * → Start, a cached prompt picked from the `/` menu): until then its prompts are missing from the `/` menu (or stale)
 * and `MCP: List Servers` says "Stopped" while MCP Host runs. So when the definition is offered (activation, trust
 * granted, the setting turned on) MCP Host asks VS Code to start it (`startInEditor`), unless the user's
 * `chat.mcp.autostart` is `never`. The stable API has no call that starts a definition (`vscode.lm.startMcpGateway` and
 * `mcpServerDefinitions` are proposed), so this runs VS Code's own command `workbench.mcp.startServer` with the
 * definition's id (`<extension id in lower case>/<label>`, how VS Code's extension host names a provided server);
 * without that command the gateway starts, as before, on VS Code's first use.
 *
 * Off with `mcpHost.gateway.enabled: false`; never in an untrusted workspace (no definition, nothing listening). The
 * listener opens with the first resolve and closes when the definition is withdrawn (setting off) or the extension ends.
 */
import * as vscode from 'vscode';
import { gatewayEnabled } from '../settings';
import type { Tool } from '@modelcontextprotocol/client';
import { GatewayHttpListener, GATEWAY_HTTP_PATH, type HostApi, type GatewayServer, type ModelToolGate, type ToolBudget, type GatewayServerOptions } from '../../mcp';
import type * as GatewaySessionModule from '../../mcp/gateway/httpSession';
import { newSecret } from '../../mcp/gateway/wire';
import type { AppViews } from '../apps/appViews';

/**
 * The gateway's MCP server and the SDK's HTTP server transport (the SDK's server package, ~270 KiB) load with the first
 * connection from VS Code's chat, not at activation: esbuild.mjs (LAZY) turns this require into one of dist/gateway-server.js.
 */
let sessionModule: typeof GatewaySessionModule | undefined;
function gatewaySessionModule(): typeof GatewaySessionModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return sessionModule ??= require('../../mcp/gateway/httpSession') as typeof GatewaySessionModule;
}

/** The provider id (package.json `contributes.mcpServerDefinitionProviders[].id`). */
export const GATEWAY_PROVIDER_ID = 'mcpHost.gateway';
/** The one server's label in VS Code (its tools show as `mcp_mcp_host_<server>_<tool>` or similar). */
export const GATEWAY_LABEL = 'MCP Host';

/** VS Code's command that starts one of its MCP servers by definition id (not API: see the file's comment). */
export const VSCODE_START_SERVER_COMMAND = 'workbench.mcp.startServer';
/**
 * Waits between asks to start the definition: VS Code registers a provider's definitions asynchronously and announces
 * it to no extension, so a first ask may find no such server yet (the command then does nothing).
 */
const START_RETRY_MS = [250, 500, 1000, 2000, 4000, 8000];

/** VS Code's id of the definition a provider of `extensionId` names `label`. */
export function vscodeServerId(extensionId: string, label = GATEWAY_LABEL): string {
  return `${extensionId.toLowerCase()}/${label}`;
}

/** What the gateway needs from the rest of the extension. */
export interface GatewayWiring {
  context: vscode.ExtensionContext;
  host: HostApi;
  /** Starts a server waiting for its first use (`mcpHost.startup: lazy`) when a request reaches it. */
  startOnUseAndWait(server: string): Promise<void>;
  /** The user allowed the tool "always" in MCP Host (then VS Code need not ask either). */
  alwaysAllowed(server: string, tool: Tool): boolean;
  /** Fires when such grants change: VS Code is told the tool list changed, so it sees the new read-only marks. */
  onDidChangeGrants?: vscode.Event<void>;
  /**
   * What models may see, the one gate shared with `@mcp` and the LM tools (state, including servers waiting for their
   * first use; trust/consent; tools turned off), handed to every gateway session as it is.
   */
  gate: ModelToolGate;
  /** The tool budget (over it, progressive discovery), and when it or the tools turned off changed. */
  toolBudget?: { budget(): ToolBudget; readonly onDidChange: vscode.Event<void> };
  apps?: Pick<AppViews, 'open'>;
  /** Code mode (`mcpHost.codeMode`, settings.ts): its limits while on; the program tool replaces the servers' tools. */
  codeMode?: GatewayServerOptions['codeMode'];
  /** MCP Host's confirmation of a program's calls (one governor turn per program). */
  programApproval?: GatewayServerOptions['programApproval'];
  log(message: string): void;
}

/** The registration, with what tests look at. */
export interface GatewayRegistration extends vscode.Disposable {
  /** The listener's URL while listening (`http://127.0.0.1:<port>/mcp`). */
  readonly url: string | undefined;
  /** VS Code's MCP sessions open now. */
  readonly connections: number;
  /** Whether the definition is offered now (setting on, workspace trusted). */
  readonly offered: boolean;
  /** Settles when the latest ask to VS Code to start the definition is over (started, refused, or given up). */
  readonly started: Promise<void>;
}

export function registerGateway(w: GatewayWiring): GatewayRegistration {
  const version = String(w.context.extension.packageJSON.version ?? '0.0.0');
  const changed = new vscode.EventEmitter<void>();
  const sessions = new Set<GatewayServer>();
  let secret: string | undefined;
  const options: GatewayServerOptions = {
    host: w.host,
    version,
    gate: w.gate,
    ensureRunning: server => w.startOnUseAndWait(server),
    allowedWithoutAsking: (server, tool) => w.alwaysAllowed(server, tool),
    budget: () => w.toolBudget?.budget() ?? {},
    onCall: (server, tool, args) => w.apps?.open(server, tool, args, { preserveFocus: true }),
    codeMode: w.codeMode,
    programApproval: w.programApproval,
    log: w.log,
  };
  const listener = new GatewayHttpListener({
    secret: () => secret,
    log: w.log,
    newSession: max => gatewaySessionModule().gatewaySession(options, max, g => {
      sessions.add(g);
      g.onClosed = () => sessions.delete(g);
    }),
  });
  const enabled = gatewayEnabled;
  const offered = () => enabled() && vscode.workspace.isTrusted;
  const stop = () => {
    listener.close();
    secret = undefined;
    for (const g of sessions) g.dispose();
    sessions.clear();
  };
  // The provided definition (VS Code may cache it): no port, no secret; resolve fills both in.
  const definition = () => new vscode.McpHttpServerDefinition(GATEWAY_LABEL, vscode.Uri.parse(`http://127.0.0.1${GATEWAY_HTTP_PATH}`), {}, version);
  const provider: vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => offered() ? [definition()] : [],
    resolveMcpServerDefinition: async def => {
      if (!offered()) return undefined;
      resolvedOnce = true;
      if (!listener.url) {
        secret = newSecret();
        await listener.listen();
        w.log(`MCP Host gateway: listening for VS Code's MCP support on ${listener.url}`);
      }
      // Turned off (or untrusted) while the listener was starting: nothing to offer.
      if (!listener.url || !secret || !offered()) return undefined;
      def.uri = vscode.Uri.parse(listener.url);
      def.headers = { ...def.headers, Authorization: `Bearer ${secret}` };
      return def;
    },
  };
  // Starting the definition in VS Code as soon as it is offered (see the file's comment).
  let resolvedOnce = false;
  let disposed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  const id = vscodeServerId(w.context.extension.id);
  const startInEditor = async (): Promise<void> => {
    resolvedOnce = false;
    for (const wait of [0, ...START_RETRY_MS]) {
      if (wait) await new Promise<void>(r => { wake = r; timer = setTimeout(r, wait); });
      if (disposed || resolvedOnce || !offered()) return;
      if (vscode.workspace.getConfiguration('chat.mcp').get<string>('autostart') === 'never') {
        w.log('MCP Host gateway: not started with the window (chat.mcp.autostart is "never"); VS Code starts it on first use');
        return;
      }
      try {
        await vscode.commands.executeCommand(VSCODE_START_SERVER_COMMAND, id);
      } catch (e) {
        w.log(`MCP Host gateway: VS Code did not start "${GATEWAY_LABEL}" (${e instanceof Error ? e.message : String(e)}); it starts on VS Code's first use`);
        return;
      }
    }
    if (!resolvedOnce && !disposed) w.log(`MCP Host gateway: VS Code has not started "${GATEWAY_LABEL}" yet; it starts on VS Code's first use`);
  };
  let started: Promise<void> = Promise.resolve();
  const startAgain = () => { if (offered()) started = started.then(startInEditor); };
  const subs: vscode.Disposable[] = [
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(GATEWAY_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeConfiguration(e => {
      // Code mode turned on or off (or its limits, shown in the tool's description): VS Code lists the tools again.
      if (e.affectsConfiguration('mcpHost.codeMode') || e.affectsConfiguration('mcpHost.codeModeLimits')) for (const g of sessions) g.listsChanged();
      if (!e.affectsConfiguration('mcpHost.gateway.enabled')) return;
      if (!enabled()) stop();
      changed.fire();
      startAgain();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => { changed.fire(); startAgain(); }),
    ...(w.toolBudget ? [w.toolBudget.onDidChange(() => { for (const g of sessions) g.listsChanged(); })] : []),
    ...(w.onDidChangeGrants ? [w.onDidChangeGrants(() => { for (const g of sessions) g.listsChanged(); })] : []),
  ];
  startAgain();
  return {
    get url() { return listener.url; },
    get connections() { return listener.connections; },
    get offered() { return offered(); },
    get started() { return started; },
    dispose: () => { disposed = true; clearTimeout(timer); wake?.(); stop(); for (const s of subs) s.dispose(); },
  };
}

