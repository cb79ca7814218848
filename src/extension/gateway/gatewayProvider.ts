/**
 * MCP Host as one server for VS Code's own chat: a definition "MCP Host" handed over through the stable
 * `vscode.lm.registerMcpServerDefinitionProvider` (package.json `contributes.mcpServerDefinitionProviders`).
 * VS Code's MCP support starts it as a stdio server (`dist/gateway.js` on the editor's own Node), and the gateway
 * process connects back to this window over a private channel (src/mcp/gateway/channel.ts) with the window's
 * secret, which only the resolved definition carries (never the one VS Code may cache). Behind it: this host, its
 * launch consent, limits, redaction, History and App views (src/mcp/gateway/server.ts).
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
 * Off with `mcpHost.gateway.enabled: false`; never in an untrusted workspace (no definition, no channel). The
 * gateway process gets a minimal environment: every variable of the extension host is removed (VS Code merges
 * the definition's env over its own, `null` removing one) but the channel's two and what Node needs to run.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { gatewayEnabled } from '../settings';
import type { Tool } from '@modelcontextprotocol/client';
import type { HostApi, GatewayServer, ModelToolGate, ToolBudget, GatewayServerOptions } from '../../mcp';
import { GatewayChannel } from '../../mcp/gateway/channel';
import type * as GatewayServerModule from '../../mcp/gateway/server';
import { GATEWAY_ENV, minimalEnv, newSecret } from '../../mcp/gateway/wire';
import type { AppViews } from '../apps/appViews';

/**
 * The gateway's MCP server (with the SDK's server package, ~270 KiB) loads with the first connection from VS Code's
 * chat, not at activation: esbuild.mjs (LAZY) turns this require into one of dist/gateway-server.js.
 */
let serverModule: typeof GatewayServerModule | undefined;
function gatewayServerModule(): typeof GatewayServerModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return serverModule ??= require('../../mcp/gateway/server') as typeof GatewayServerModule;
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
  /** The channel's path while listening. */
  readonly channelPath: string | undefined;
  /** Gateway processes connected now. */
  readonly connections: number;
  /** Whether the definition is offered now (setting on, workspace trusted). */
  readonly offered: boolean;
  /** Settles when the latest ask to VS Code to start the definition is over (started, refused, or given up). */
  readonly started: Promise<void>;
}

export function registerGateway(w: GatewayWiring): GatewayRegistration {
  const version = String(w.context.extension.packageJSON.version ?? '0.0.0');
  const script = path.join(w.context.extensionPath, 'dist', 'gateway.js');
  const changed = new vscode.EventEmitter<void>();
  const sessions = new Set<GatewayServer>();
  let secret: string | undefined;
  const channel = new GatewayChannel({
    secret: () => secret,
    log: w.log,
    onConnection: t => {
      const g = new (gatewayServerModule().GatewayServer)({
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
      });
      sessions.add(g);
      g.onClosed = () => sessions.delete(g);
      g.connect(t).catch(e => w.log(`MCP Host gateway: a connection failed: ${e instanceof Error ? e.message : String(e)}`));
    },
  });
  const enabled = gatewayEnabled;
  const offered = () => enabled() && vscode.workspace.isTrusted;
  const stop = () => {
    channel.close();
    secret = undefined;
    for (const g of sessions) g.dispose();
    sessions.clear();
  };
  const definition = (env: Record<string, string | null>) => {
    const d = new vscode.McpStdioServerDefinition(GATEWAY_LABEL, process.execPath, [script], env, version);
    d.cwd = vscode.Uri.file(path.dirname(script));
    return d;
  };
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () => offered() ? [definition(minimalEnv(process.env))] : [],
    resolveMcpServerDefinition: async def => {
      if (!offered()) return undefined;
      resolvedOnce = true;
      if (!channel.path) {
        await channel.listen();
        secret = newSecret();
        w.log(`MCP Host gateway: listening for VS Code's MCP support`);
      }
      def.env = minimalEnv(process.env, { [GATEWAY_ENV.socket]: channel.path!, [GATEWAY_ENV.secret]: secret! });
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
    get channelPath() { return channel.path; },
    get connections() { return channel.connections; },
    get offered() { return offered(); },
    get started() { return started; },
    dispose: () => { disposed = true; clearTimeout(timer); wake?.(); stop(); for (const s of subs) s.dispose(); },
  };
}

