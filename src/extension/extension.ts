import * as path from 'path';
import * as vscode from 'vscode';
import { DEFAULT_LIMITS, McpHost, stableStringify, type HostApi, type Limits, type SandboxHostOptions, type ServerDefinition } from '../mcp';
import { fingerprint } from '../mcp/config/variables';
import { ServersTreeProvider } from '../views/serversTree';
import { ResourcesTreeProvider } from '../views/resourcesTree';
import { HistoryTreeProvider } from '../views/historyTree';
import { TreeIcons } from '../views/icons';
import { IconStore } from '../mcp/icons';
import { ViewIds } from './commandIds';
import { registerCommands } from './commands/register';
import { setStartOnUse } from './commands/args';
import { LaunchConsent, type ConsentBatchPrompt, type ConsentPrompt } from './consent';
import { InputStore } from './inputs';
import { ServerLogs, toVs } from './logs';
import { ResourceFileSystem, RESOURCE_SCHEME } from './resourceFs';
import { syncRoots } from './roots';
import { ServerController } from './servers';
import { SandboxDenials } from './sandboxDenials';
import type { ServerIdentityLookup } from './identity';
import { OAuthBridge } from './oauth';
import { createStatusItem, watchFailures } from './status';
import { SeenFailures, type FailureNotice } from './failureNotice';
import { McpJsonWatcher } from './coexistence';
import { createClientFeatures, LEGACY_SAMPLING_ALWAYS_KEY, type SamplingFeatures } from './sampling';
import { LEGACY_TOOL_ALWAYS_KEY, registerChat, type ChatRegistration } from './chat';
import { AppViews, confirmLinkDialog } from './apps';
import { registerLmTools } from './chat/lmTools';
import { CatalogueCache } from './catalogueCache';
import { Forms, useForms } from './forms';
import { RESULT_SCHEME, resultDocuments } from './results';

/** What `activate` returns: the running host and hooks for tests and other extensions. */
export interface McpHostExtensionApi {
  host: HostApi;
  /** Re-reads settings and reconciles; resolves when done. */
  sync(): Promise<void>;
  /** Why a configured server is held back (trust, consent, inputs), if it is. */
  blockedReason(server: string): string | undefined;
  /** Replaces the launch-consent dialog (tests answer without UI). */
  setConsentPrompt(prompt: ConsentPrompt): void;
  /** Replaces the dialog that asks about several servers at once (undefined: review each through the one-server prompt). */
  setConsentBatchPrompt(prompt: ConsentBatchPrompt | undefined): void;
  /** Replaces the `${input:}` input box (tests answer without UI). */
  setInputPrompt(ask: (options: vscode.InputBoxOptions) => Thenable<string | undefined>): void;
  /** The "Allow …" offer after repeated sandbox denials (its prompts are replaceable). */
  sandboxDenials: SandboxDenials;
  /** Names of the per-server log channels created so far. */
  logChannels(): string[];
  /** The tree data providers, as the views use them. */
  views: { servers: ServersTreeProvider; resources: ResourcesTreeProvider; history: HistoryTreeProvider };
  /** Sampling and elicitation as the core's client features (dialogs replaceable for tests). */
  sampling: SamplingFeatures;
  /** The `@mcp` chat participant. */
  chat: ChatRegistration;
  /** Forms for several fields (the one on screen can be driven by tests). */
  forms: Forms;
  /** The failure notifications shown so far (text and buttons), newest last. */
  failureNotices: readonly FailureNotice[];
  /** MCP App views (open views, their state; link dialog and tool confirmation replaceable through `chat.setUi`). */
  apps: AppViews;
  /** OAuth: the browser step (replaceable for tests) and the redirect handler. */
  oauth: Pick<OAuthBridge, 'openBrowser' | 'handle'>;
  /** `performance.now()` when `activate()` began (the activation benchmark measures from it). */
  activationStart: number;
  /** How long `activate()` itself took (ms); also in the "MCP Host" log. Read by the activation benchmark. */
  activationMs: number;
  /**
   * Resolves to the ms from the start of `activate()` until the first settings sync had `reconcile` decide
   * what starts (the servers' own start-up not included); also in the "MCP Host" log. Read by the activation benchmark.
   */
  firstReconcileMs: Promise<number>;
}

/** Builds the services (each into `context.subscriptions`), reads the settings and starts what they ask for. */
export function activate(context: vscode.ExtensionContext): McpHostExtensionApi {
  const activationStart = performance.now();
  const push = <T extends vscode.Disposable>(d: T): T => { context.subscriptions.push(d); return d; };
  const log = push(vscode.window.createOutputChannel('MCP Host', { log: true }));
  let hostRef: McpHost | undefined;
  let logsRef: ServerLogs | undefined;
  const oauth = push(new OAuthBridge(context, () => hostRef, m => log.info(m)));
  // Grants are keyed by where a server is defined plus its fingerprint: the controller answers once it exists.
  // Grants once keyed by a bare server name are never honoured: drop them.
  const identity: ServerIdentityLookup = {};
  for (const legacy of [LEGACY_TOOL_ALWAYS_KEY, LEGACY_SAMPLING_ALWAYS_KEY]) {
    if (context.globalState.get(legacy) !== undefined) void context.globalState.update(legacy, undefined);
  }
  const sampling = push(createClientFeatures({
    context,
    identity,
    log: (server, level, msg) => {
      const ch = logsRef?.channel(server) ?? log;
      if (level === 'warning') ch.warn(msg); else if (level === 'error') ch.error(msg); else ch.info(msg);
    },
  }));
  const host: McpHost = hostRef = new McpHost({
    features: sampling,
    authProvider: def => oauth.providerFor(def),
    clientInfo: { name: 'mcp-host-vscode', version: String(context.extension.packageJSON.version ?? '0.0.0') },
    // autoStart only says whether to start now; flipping it (e.g. after consent) must not restart.
    fingerprint: (def: ServerDefinition) => stableStringify({ ...def, autoStart: undefined }),
    limits: userLimits(),
    // The OS sandbox (issue 24): the editor's own storage and the user's extra denials are never readable from it.
    sandbox: sandboxOptions(context),
  });
  // The sandbox's extra denials apply from each server's next start.
  push(vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('mcpHost.sandbox.denyRead')) host.setSandboxOptions(sandboxOptions(context)); }));
  // Caps on what servers send: user settings only (a workspace must not raise them); applied live.
  push(vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('mcpHost.limits')) host.setLimits(userLimits()); }));
  current = host;
  push(new vscode.Disposable(() => void host.shutdown()));
  const logs = logsRef = push(new ServerLogs(host));
  const consent = new LaunchConsent(context.workspaceState, def => fingerprint(def));
  const inputs = new InputStore(context.secrets, context.globalState);
  const controller = push(new ServerController(host, consent, inputs, log));
  const sandboxDenials = push(new SandboxDenials(host, name => controller.originOf(name)));
  oauth.startServer = name => controller.start(name);
  controller.watchCoexistence(push(new McpJsonWatcher()));
  identity.of = name => controller.identity(name);
  const resources = push(new ResourceFileSystem(host));
  resources.log = m => log.error(m);
  push(vscode.workspace.registerFileSystemProvider(RESOURCE_SCHEME, resources, { isReadonly: true, isCaseSensitive: true }));
  push(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, resultDocuments));
  // Icons servers give their tools, prompts and resources: cached under globalStorage (src/mcp/icons.ts).
  const treeIcons = push(new TreeIcons(new IconStore(path.join(context.globalStorageUri.fsPath, 'icons')),
    (server, msg) => (logsRef?.channel(server) ?? log).info(msg)));
  const serversTree = push(new ServersTreeProvider(host, controller, treeIcons));
  const resourcesTree = push(new ResourcesTreeProvider(host, controller, treeIcons));
  push(vscode.window.createTreeView(ViewIds.servers, { treeDataProvider: serversTree, showCollapseAll: true }));
  push(vscode.window.createTreeView(ViewIds.resources, { treeDataProvider: resourcesTree, showCollapseAll: true }));
  const historyTree = push(new HistoryTreeProvider(host));
  push(vscode.window.createTreeView(ViewIds.history, { treeDataProvider: historyTree, showCollapseAll: true }));
  const chat = push(registerChat(context, host, identity));
  const apps = push(new AppViews({
    host, extensionUri: context.extensionUri, version: String(context.extension.packageJSON.version ?? '0.0.0'),
    ui: { approveTool: (server, tool, args) => chat.chat.approveCall(server, tool, args), confirmLink: confirmLinkDialog },
    log: (server, level, raw) => {
      // What a view says passes the server's redaction like everything else it sends.
      const msg = host.get(server)?.redactor.text(raw) ?? raw;
      const ch = logsRef?.channel(server) ?? log;
      if (level === 'warning') ch.warn(msg); else if (level === 'error') ch.error(msg); else ch.info(msg);
    },
  }));
  chat.chat.apps = apps;
  // Several fields (tool arguments, elicitation) are asked in one form.
  const formHost = push(new Forms(context.extensionUri));
  useForms(formHost);
  // The servers' tools for every chat agent (Agent mode, other extensions), behind the same confirmation.
  push(registerLmTools({ host, approve: (server, tool, args) => chat.chat.approveCall(server, tool, args), apps, beforeUse: () => controller.startWaiting() }));
  chat.chat.beforeRequest = () => controller.startWaiting();
  // A palette command on a server waiting for its first use starts it.
  setStartOnUse({ waits: name => controller.waitsForUse(name), start: name => controller.startOnUseAndWait(name) });
  context.subscriptions.push(...registerCommands({ host, controller, logs, resources, consent, inputs, oauth, serversTree, resourcesTree, apps, historyTree }));
  push(createStatusItem(host));
  const seenFailures = new SeenFailures(context.workspaceState);
  const failureNotices: FailureNotice[] = [];
  controller.seenProblems = seenFailures;
  push(watchFailures(host, {
    showLogs: s => logs.show(s),
    restart: s => vscode.commands.executeCommand('mcpHost.restartServer', s),
    openSettings: () => vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile'),
    log: (s, m) => logs.channel(s).error(host.get(s)?.redactor.text(m) ?? m),
    seen: seenFailures,
    shown: failureNotices,
  }));
  push(syncRoots(host));
  push(toVs(host.onLog(e => { if (!e.server) log.warn(e.message); })));
  const applyTrace = () => logs.setTraceAll(vscode.workspace.getConfiguration('mcpHost').get<boolean>('trace', false));
  applyTrace();
  push(vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('mcpHost.trace')) applyTrace(); }));
  push(toVs(host.onDidChangeServers(applyTrace)));
  // The last known lists of every server, shown at once (marked cached) until it answers.
  const cache = push(new CatalogueCache(context.workspaceState, host, name => {
    const d = host.get(name)?.definition;
    return d && stableStringify({ ...d, autoStart: undefined });
  }));
  push(toVs(host.onDidChangeServers(() => cache.seed())));
  void controller.sync();
  const activationMs = performance.now() - activationStart;
  log.info(`MCP Host activated in ${activationMs.toFixed(1)} ms`);
  const firstReconcileMs = controller.firstReconcile.then(at => at - activationStart);
  void firstReconcileMs.then(ms => log.info(`MCP Host: first settings sync reconciled ${ms.toFixed(1)} ms after activation began`));
  return {
    host,
    sync: () => controller.sync(),
    blockedReason: s => controller.blockedReason(s),
    setConsentPrompt: p => { consent.prompt = p; },
    setConsentBatchPrompt: p => { consent.batchPrompt = p; },
    setInputPrompt: ask => { inputs.ask = ask; },
    sandboxDenials,
    logChannels: () => logs.names,
    views: { servers: serversTree, resources: resourcesTree, history: historyTree },
    sampling,
    chat,
    apps,
    forms: formHost,
    failureNotices,
    oauth,
    activationStart,
    activationMs,
    firstReconcileMs,
  };
}

/** Stops every server (whole process trees) before the extension host goes away. */
export function deactivate(): Promise<void> | undefined {
  const h = current;
  current = undefined;
  return h?.shutdown();
}

/** The host of the active extension, so `deactivate` can wait for every process to exit. */
let current: McpHost | undefined;

/** `mcpHost.limits.*` as the user set them in user settings (application scope: workspace values never count). */
/**
 * What no sandboxed server may read besides the defaults (issue 24): the editor's own storage (`<user data>/User`:
 * settings, global and workspace storage, the secret store) unless the extension itself lives there, and
 * `mcpHost.sandbox.denyRead` from user settings (a workspace must not change what protects the user).
 */
function sandboxOptions(context: vscode.ExtensionContext): SandboxHostOptions {
  const userDir = path.resolve(context.globalStorageUri.fsPath, '..', '..');
  const insideOf = (p: string, dir: string) => { const r = path.relative(dir, p); return r === '' || (!r.startsWith('..') && !path.isAbsolute(r)); };
  const privatePaths = insideOf(context.extensionPath, userDir) ? [] : [userDir];
  const denyRead = vscode.workspace.getConfiguration('mcpHost.sandbox').inspect<string[]>('denyRead')?.globalValue;
  return { privatePaths, ...(Array.isArray(denyRead) && { denyRead: denyRead.filter(x => typeof x === 'string') }) };
}

function userLimits(): Partial<Limits> {
  const cfg = vscode.workspace.getConfiguration('mcpHost.limits');
  const out: Partial<Limits> = {};
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = cfg.inspect<number>(k)?.globalValue;
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) out[k] = v;
  }
  return out;
}
