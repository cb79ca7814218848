import * as path from 'path';
import * as vscode from 'vscode';
import { McpHost, type DefinitionKey, type HostApi, type SandboxHostOptions, type ModelToolGate, configureDisplayLanguage, cpuMs } from '../mcp';
import { ServersTreeProvider } from '../views/serversTree';
import { ResourcesTreeProvider } from '../views/resourcesTree';
import { HistoryTreeProvider } from '../views/historyTree';
import { TreeIcons } from '../views/icons';
import { IconStore } from '../mcp/catalogue/icons';
import { CommandIds, ViewIds } from '../views/commandIds';
import { registerCommands } from './commands/register';
import { CONSENT_ALLOWED_KEY, CONSENT_DENIED_KEY, LaunchConsent } from './trust/consent';
import { InputStore } from './trust/inputs';
import { ServerLogs, toVs } from './ui/logs';
import { ResourceFileSystem, RESOURCE_SCHEME } from './documents/resourceFs';
import { syncRoots } from './roots';
import { ServerController } from './servers/serverController';
import { SandboxDenials } from './trust/sandboxDenials';
import type { ServerIdentityLookup } from './trust/identity';
import { OAuthBridge } from './oauth/signIn';
import { createStatusItem, watchFailures, watchTaskEnds } from './ui/status';
import { SeenFailures, type FailureNotice } from './ui/failureNotice';
import { McpJsonWatcher } from './trust/coexistence';
import { ConfigSourceFiles } from './documents/configSourceFiles';
import { createClientFeatures, LEGACY_SAMPLING_ALWAYS_KEY, SAMPLING_ALWAYS_KEY, type SamplingFeatures } from './sampling/clientFeatures';
import { LEGACY_TOOL_ALWAYS_KEY, TOOL_ALWAYS_KEY, registerChat, type ChatRegistration } from './chat/mcpChat';
import { APP_PERMISSIONS_KEY, AppViews } from './apps/appViews';
import { registerLmTools } from './chat/lmTools';
import { CatalogueCache } from './state/catalogueCache';
import { mementoEraVerdicts } from './state/eraCache';
import { mementoTaskMemory } from './state/taskStore';
import { installationKeyer, migrateStoredKeys, pendingKey } from './trust/definitionKeys';
import { AddedServers } from './trust/addedServers';
import * as settings from './settings';
import { Forms } from './forms/forms';
import { RESULT_FILE_SCHEME, RESULT_SCHEME, ResultFiles, resultDocuments, type ResultDocuments } from './documents/results';
import { Dialogs, Turn } from './ui/dialogs';
import { QuickInputs } from './ui/quickInputs';
import { createTestSupport, type TestSeams, type TestSupport } from './testSupport';
import { HistoryStore } from './state/historyStore';
import { registerGateway, type GatewayRegistration } from './gateway/gatewayProvider';
import { ToolEnablement } from './toolEnablement';
import { OrgPolicyWatcher } from './trust/policy';
import { RegistryInstalls } from './trust/registryInstalls';
import * as l10n from '@vscode/l10n';

/** What `activate` returns: the running host and hooks for tests and other extensions. */
export interface McpHostExtensionApi {
  host: HostApi;
  /** Re-reads settings and reconciles; resolves when done. */
  sync(): Promise<void>;
  /** Why a configured server is held back (trust, consent, inputs), if it is. */
  blockedReason(server: string): string | undefined;
  /**
   * The one test-only object (testSupport.ts): every dialog a test answers without UI. Present only when the extension
   * runs in test mode (`vscode.ExtensionMode.Test`, the editor test runner); an installed extension has none.
   */
  testSupport?: TestSupport;
  /** The "Allow …" offer after repeated sandbox denials (its prompts are replaceable). */
  sandboxDenials: SandboxDenials;
  /** Names of the per-server log channels created so far. */
  logChannels(): string[];
  /** The tree data providers, as the views use them. */
  views: { servers: ServersTreeProvider; resources: ResourcesTreeProvider; history: HistoryTreeProvider };
  /** Sampling and elicitation as the core's client features. */
  sampling: SamplingFeatures;
  /** The `@mcp` chat participant. */
  chat: ChatRegistration;
  /** Forms for several fields (the one on screen can be driven by tests). */
  forms: Forms;
  /** Result documents and their attachments (the Save As… notification replaceable for tests). */
  results: ResultDocuments;
  /** Where History is kept across reloads (its files; `flush` writes now). */
  historyStore: HistoryStore;
  /** The failure notifications shown so far (text and buttons), newest last. */
  failureNotices: readonly FailureNotice[];
  /** The "workspace not trusted" messages Start Server / Start All Servers showed (text and buttons), newest last. */
  trustOffers: readonly { text: string; actions: string[] }[];
  /** The notifications shown when a task a model started ended (text and buttons, the newest 100), newest last. */
  taskNotices: readonly { text: string; actions: string[] }[];
  /** MCP App views (open views, their state). */
  apps: AppViews;
  /** The tool budget: which tools go to models (`mcpHost.disabledTools`). */
  toolEnablement: ToolEnablement;
  /** The gateway into VS Code's own chat (the MCP server definition "MCP Host"). */
  gateway: GatewayRegistration;
  /** OAuth: the browser step and the redirect handler. */
  oauth: Pick<OAuthBridge, 'openBrowser' | 'handle'>;
  /**
   * What the extension keeps (tests check that none of it holds a secret): its workspace and global state, and the
   * folders it may write files to (storage, global storage, logs).
   */
  storage: { workspace: vscode.Memento; global: vscode.Memento; folders: string[] };
  /** The definition key (definitionKeys.ts: this installation's HMAC of the identity fields) everything is kept under. */
  definitionKey: DefinitionKey;
  /** `performance.now()` when `activate()` began (the activation benchmark measures from it). */
  activationStart: number;
  /** How long `activate()` itself took (ms); also in the "MCP Host" log. Read by the activation benchmark. */
  activationMs: number;
  /**
   * Resolves to the ms from the start of `activate()` until the first settings sync had `reconcile` decide
   * what starts (the servers' own start-up not included); also in the "MCP Host" log. Read by the activation benchmark.
   */
  firstReconcileMs: Promise<number>;
  /**
   * Ms from the start of `activate()` to each step of activation and of the first settings sync (read by the activation
   * benchmark to say where the time goes): host; sync began, parsed, resolved, reconcile (set once the first sync
   * reached reconcile), decided (reconcile returned); key (the installation key read from SecretStorage, which the
   * first sync does not wait for: issue 41) and, when a server's launch consent waited for it, decided with key; then
   * reconciled, views, chat, gateway, commands, activated (what the first sync does not need; views on after the key). Each also as `cpu <step>`: the CPU ms of the extension host's thread since the start
   * of `activate()` (src/extension/ui/cpuClock.ts), which the load of the machine inflates far less than the wall clock.
   */
  activationSteps(): Record<string, number>;
}

/**
 * Builds the services (each into `context.subscriptions`), reads the settings and starts what they ask for. What the
 * first settings sync needs to decide what starts (the host, its logs, consent, inputs) is built first and the sync
 * runs to `reconcile` before anything else, without waiting for the installation key (issue 41); what a start needs
 * (limits, sandbox options, trace) follows at once, then, once the key was read, the catalogue cache, the views, chat,
 * App views, forms, the gateway, the commands and the status item, still before activation ends (`reconcile` issues
 * each start in a turn of its own, and a start waits for the key before its era-verdict lookup).
 */
export async function activate(context: vscode.ExtensionContext): Promise<McpHostExtensionApi> {
  const activationStart = performance.now();
  const cpuStart = cpuMs();
  // The vscode-free files (unit-tested without the editor) translate through @vscode/l10n: it gets the bundle VS Code
  // loaded for the display language, once, before any of their strings is made (issue 40; docs/DEVELOPMENT.md), and
  // the language its numbers are written in (counts and sizes: countOf, formatBytes).
  if (vscode.l10n.bundle) l10n.config({ contents: vscode.l10n.bundle });
  configureDisplayLanguage(vscode.env.language);
  const steps: Record<string, number> = {};
  const step = (name: string) => { steps[name] = performance.now(); steps[`cpu ${name}`] = cpuMs(); };
  const push = <T extends vscode.Disposable>(d: T): T => { context.subscriptions.push(d); return d; };
  const log = push(vscode.window.createOutputChannel('MCP Host', { log: true }));
  // The test-only replacements of the dialogs (testSupport.ts): made, and given to the features, in test mode only.
  const seams: TestSeams | undefined = context.extensionMode === vscode.ExtensionMode.Test ? {} : undefined;
  // The window's modal dialogs and their one governor (ui/dialogs.ts), given to every feature that asks a modal.
  const dialogs = new Dialogs(seams);
  // The window's quick picks and input boxes (ui/quickInputs.ts): recorded for tests only through the seams.
  const quickInputs = new QuickInputs(seams);
  let hostRef: McpHost | undefined;
  let logsRef: ServerLogs | undefined;
  // OAuth (its URI handler, the providers of http servers): made by the first http server's provider or right after the
  // first reconcile, whichever comes first; a stdio server never signs in.
  let oauthRef: OAuthBridge | undefined;
  // A redirect that lands while its server's start is failing starts it again through the controller's gate.
  const oauthBridge = () => oauthRef ??= push(new OAuthBridge(context, () => hostRef, dialogs, m => log.info(m), name => controller.start(name), seams));
  // Grants are keyed by where a server is defined plus its definition key: the controller answers once it exists
  // (sampling, built before the host and so before the controller, is given this function, not a field set later).
  let controllerRef: ServerController | undefined;
  const identity: ServerIdentityLookup = name => controllerRef?.identity(name);
  // Several fields (tool arguments, elicitation) are asked in one form: given to elicitation and the commands.
  const formHost = push(new Forms(context.extensionUri));
  const sampling = push(createClientFeatures({
    context,
    identity,
    forms: formHost,
    dialogs,
    seams,
    log: (server, level, msg) => {
      const ch = logsRef?.channel(server) ?? log;
      if (level === 'warning') ch.warn(msg); else if (level === 'error') ch.error(msg); else ch.info(msg);
    },
  }));
  // The definition key: an HMAC of the identity fields under this installation's key (SecretStorage), one function for
  // the host's restart rule, consent, grants, History and the caches (src/mcp/config/definitionKey.ts). Issue 41: the
  // key is read from SecretStorage (a round trip to the editor's main process, 50–100 ms on a loaded machine) while
  // the first settings sync decides what starts; what is keyed waits for it (definitionKeys.ts PendingKey).
  const installation = pendingKey(installationKeyer(context.secrets));
  void installation.ready.then(() => step('key'));
  const definitionKey: DefinitionKey = installation.key;
  const eraVerdicts = mementoEraVerdicts(context.workspaceState);
  // Issue 36: the running tasks of each definition, asked about again after a reload (workspace state).
  const taskMemory = mementoTaskMemory(context.workspaceState);
  const host: McpHost = hostRef = new McpHost({
    features: sampling,
    authProvider: def => (def.type === 'stdio' ? undefined : oauthBridge().providerFor(def)),
    clientInfo: { name: 'mcp-host-vscode', version: String(context.extension.packageJSON.version ?? '0.0.0') },
    // The one definition key: equal keys are the same server, whose tuning (timeouts, autoStart, disabled) is adopted in place.
    definitionKey,
    // The caps (`limits`) and the OS sandbox's denials are given right after the first reconcile (below): no server
    // starts before (each start has a turn of its own), and deciding what starts needs neither.
    // H123: a server known to answer only initialize starts without the server/discover probe (hashes in workspace state).
    eraVerdicts,
    taskMemory,
    // A start waits for the key before its era-verdict lookup (src/mcp/server/launcher.ts).
    keyReady: installation.ready,
  });
  // The sandbox's extra denials apply from each server's next start.
  push(vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('mcpHost.sandbox.denyRead')) host.setSandboxOptions(sandboxOptions(context)); }));
  // Caps on what servers send: user settings only (a workspace must not raise them); applied live.
  push(vscode.workspace.onDidChangeConfiguration(e => { if (settings.affects(e, 'limits')) host.setLimits(settings.userLimits()); }));
  current = host;
  push(new vscode.Disposable(() => void host.shutdown()));
  const logs = logsRef = push(new ServerLogs(host));
  const consent = new LaunchConsent(context.workspaceState, definitionKey, dialogs, seams);
  const inputs = new InputStore(context.secrets, context.globalState, { seams });
  // The last known lists of every server (seeded below, once the first sync put the servers in the host).
  const cache = push(new CatalogueCache(context.workspaceState, host, name => {
    const d = host.get(name)?.definition;
    return d && definitionKey(d);
  }));
  const historyDir = context.storageUri?.scheme === 'file' ? path.join(context.storageUri.fsPath, 'history') : undefined;
  // Servers the host writes into settings (import, registry) ask launch consent on their first start in either scope.
  const added = new AddedServers(context.globalState, definitionKey);
  // Servers installed from the MCP Registry (chat.mcp.access: registry, issue 40), kept where no settings file can forge them.
  const registryInstalls = new RegistryInstalls(context.globalState, definitionKey);
  const seenFailures = new SeenFailures(context.workspaceState);
  const failureNotices: FailureNotice[] = [];
  const controller = controllerRef = push(new ServerController({
    host, consent, added, inputs, log, definitionKey, keyState: installation, registryInstalls,
    migrateKeys: defs => migrateStoredKeys(defs, definitionKey, {
      workspace: context.workspaceState, global: context.globalState,
      keyLists: [CONSENT_ALLOWED_KEY, CONSENT_DENIED_KEY],
      grantLists: [TOOL_ALWAYS_KEY, SAMPLING_ALWAYS_KEY, APP_PERMISSIONS_KEY],
      stores: [eraVerdicts, cache, taskMemory],
      historyDir,
    }),
    policy: push(new OrgPolicyWatcher(log)),
    sourceFiles: push(new ConfigSourceFiles()),
    seenProblems: seenFailures,
  }));
  step('host');
  push(toVs(host.onLog(e => { if (!e.server) log.warn(e.message); })));
  // Before the first reconcile: a root set later would tell the servers reconcile made that their roots changed.
  push(syncRoots(host));
  // The first settings sync, to `reconcile` deciding what starts (or its end, if it fails before), before the rest.
  // Without I/O it gets there within this turn; one that waits (an `${input:}` box, reading workspace settings
  // in Restricted Mode) never holds activation: the rest goes on in the next turn. It does not wait for the
  // installation key (issue 41): a server whose launch consent is keyed waits for it in that sync, nothing else does.
  const firstSync = controller.sync();
  await Promise.race([controller.firstReconcile, firstSync, new Promise<void>(resolve => setImmediate(resolve))]);
  step('reconciled');
  const oauth = oauthBridge();
  // What a server needs once it starts, not to decide whether it does. Still before any start: `reconcile` issues each
  // in a turn of its own after this, and a first sync that waits (an `${input:}` box) reconciles after this.
  // Caps on what servers send: user settings only (a workspace must not raise them).
  host.setLimits(settings.userLimits());
  // The OS sandbox (issue 24): the editor's own storage and the user's extra denials are never readable from it.
  host.setSandboxOptions(sandboxOptions(context));
  const applyTrace = () => logs.setTraceAll(settings.traceAll());
  applyTrace();
  push(vscode.workspace.onDidChangeConfiguration(e => { if (settings.affects(e, 'trace')) applyTrace(); }));
  push(toVs(host.onDidChangeServers(applyTrace)));
  // Everything below may read keyed state (the catalogue cache, History, grants through the views, chat, App views and
  // the gateway): built once the installation key was read, while the servers decided above are already starting.
  await installation.ready;
  // The last known lists of every server, shown at once (marked cached) until it answers: seeded now for the servers
  // the first sync put in the host, then on every change.
  cache.seed();
  push(toVs(host.onDidChangeServers(() => cache.seed())));
  // Grants once keyed by a bare server name are never honoured: drop them.
  for (const legacy of [LEGACY_TOOL_ALWAYS_KEY, LEGACY_SAMPLING_ALWAYS_KEY]) {
    if (context.globalState.get(legacy) !== undefined) void context.globalState.update(legacy, undefined);
  }
  // Where else a server is configured (.vscode/mcp.json, …): the views' annotation, not needed to decide what starts.
  controller.watchCoexistence(push(new McpJsonWatcher()));
  const sandboxDenials = push(new SandboxDenials(host, name => controller.originOf(name), dialogs));
  const resources = push(new ResourceFileSystem(host, {
    log: m => log.error(m),
    // A resource document (opened, or restored after a reload) is a use of its server.
    beforeRead: name => controller.ensureRunningForUse(name),
  }));
  push(vscode.workspace.registerFileSystemProvider(RESOURCE_SCHEME, resources, { isReadonly: true, isCaseSensitive: true }));
  push(vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, resultDocuments));
  push(vscode.workspace.registerFileSystemProvider(RESULT_FILE_SCHEME, new ResultFiles(resultDocuments), { isReadonly: true, isCaseSensitive: true }));
  // Icons servers give their tools, prompts and resources: cached under globalStorage (src/mcp/catalogue/icons.ts).
  const treeIcons = push(new TreeIcons(new IconStore(path.join(context.globalStorageUri.fsPath, 'icons')),
    (server, msg) => (logsRef?.channel(server) ?? log).info(msg)));
  // The tool budget: which tools go to models (mcpHost.disabledTools, the Servers view's checkboxes).
  const toolEnablement = push(new ToolEnablement(host));
  const serversTree = push(new ServersTreeProvider(host, controller, treeIcons, toolEnablement));
  const resourcesTree = push(new ResourcesTreeProvider(host, controller, treeIcons));
  const serversView = push(vscode.window.createTreeView(ViewIds.servers, { treeDataProvider: serversTree, showCollapseAll: true, manageCheckboxStateManually: true }));
  push(serversView.onDidChangeCheckboxState(e => {
    for (const [node, state] of e.items) {
      const on = state === vscode.TreeItemCheckboxState.Checked;
      if (node.kind === 'server') void toolEnablement.set(node.server, undefined, on);
      else if (node.kind === 'tool') void toolEnablement.set(node.server, node.tool.name, on);
    }
  }));
  push(vscode.window.createTreeView(ViewIds.resources, { treeDataProvider: resourcesTree, showCollapseAll: true }));
  // History is kept across reloads in the workspace's storage folder (historyStore.ts); restored before the view reads it.
  const historyStore = push(new HistoryStore(host, historyDir, m => log.warn(m), definitionKey));
  const historyTree = push(new HistoryTreeProvider(host));
  push(vscode.window.createTreeView(ViewIds.history, { treeDataProvider: historyTree, showCollapseAll: true }));
  step('views');
  // The one predicate for what models see (src/mcp/catalogue/modelTools.ts), the same for @mcp, the LM tools and the
  // gateway: running (or waiting for first use, started on use), not denied, not turned off; then the tool budget.
  const modelGate: ModelToolGate = {
    offers: h => h.state.kind === 'running' || controller.waitsForUse(h.name),
    allowed: s => !controller.isDenied(s),
    enabled: (s, t) => toolEnablement.enabled(s, t),
  };
  // A model, an agent or a chat request never asks about a server the user denied: it is told how the user allows it.
  const notAllowed = (server: string) => (controller.isDenied(server) ? controller.deniedMessage(server) : undefined);
  // App views and @mcp need each other: a view's tool call is confirmed by the participant (a callback, called only
  // once a view is open), and the participant is given the views at construction.
  const apps: AppViews = push(new AppViews({
    host, extensionUri: context.extensionUri, version: String(context.extension.packageJSON.version ?? '0.0.0'),
    ui: { approveTool: (server, tool, args, closed): Promise<boolean> => chat.chat.approveCall(server, tool, args, closed) },
    // App permission grants: keyed by the server's definition, kept where the server is defined (like tool grants).
    identity,
    mementos: { user: context.globalState, workspace: context.workspaceState },
    dialogs,
    seams,
    log: (server, level, raw) => {
      // What a view says passes the server's redaction like everything else it sends.
      const msg = host.get(server)?.redactor.text(raw) ?? raw;
      const ch = logsRef?.channel(server) ?? log;
      if (level === 'warning') ch.warn(msg); else if (level === 'error') ch.error(msg); else ch.info(msg);
    },
  }));
  const chat = push(registerChat(context, {
    host, dialogs, quickInputs, identity, apps, gate: modelGate, notAllowed,
    budget: () => toolEnablement.budget(),
    maxToolRounds: settings.chatMaxToolRounds,
    codeMode: () => settings.codeMode(),
    beforeRequest: () => controller.startWaiting(),
    seams,
  }));
  // The servers' tools for every chat agent (Agent mode, other extensions), behind the same confirmation.
  // Each language-model tool invocation is one turn of the consent governor, cancelled with the invocation's token.
  push(registerLmTools({ host, approve: (server, tool, args, cancelled) => chat.chat.approveCall(server, tool, args, undefined, new Turn('language-model tool call', cancelled)), apps, beforeUse: () => controller.startWaiting(), notAllowed, gate: modelGate }));
  step('chat');
  // The servers for VS Code's own chat: one MCP server definition, "MCP Host", backed by this host.
  const gateway = push(registerGateway({
    context, host, apps,
    startOnUseAndWait: name => controller.startOnUseAndWait(name),
    alwaysAllowed: (server, tool) => chat.chat.alwaysAllowed(server, tool.name),
    onDidChangeGrants: chat.chat.onDidChangeGrants,
    gate: modelGate,
    codeMode: () => settings.codeMode(),
    // A gateway program's calls: MCP Host's confirmation, one governor turn per program (cancelled with its request).
    programApproval: signal => {
      const turn = new Turn('gateway code-mode program', signal);
      return { approve: (server, tool, args) => chat.chat.approval(server, tool, args, { turn, closed: signal }), end: () => turn.end('done') };
    },
    toolBudget: toolEnablement,
    log: m => log.info(m),
  }));
  step('gateway');
  // A palette command on a server waiting for its first use starts it.
  const startOnUse = {
    waits: (name: string) => controller.waitsForUse(name),
    start: (name: string) => controller.startOnUseAndWait(name),
    denied: (name: string) => (controller.isDenied(name) ? controller.deniedMessage(name) : undefined),
  };
  context.subscriptions.push(...registerCommands({
    host, controller, logs, resources, consent, inputs, oauth, serversTree, resourcesTree, apps, historyTree,
    startOnUse, added, registryInstalls, forms: formHost, dialogs, quickInputs, forgetDenials: server => sampling.forgetDenials(server),
  }));
  step('commands');
  push(createStatusItem(host));
  const taskNotices: { text: string; actions: string[] }[] = [];
  push(watchTaskEnds(host, taskNotices));
  push(watchFailures(host, {
    showLogs: s => logs.show(s),
    restart: s => vscode.commands.executeCommand(CommandIds.restartServer, s),
    openSettings: () => vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile'),
    log: (s, m) => logs.channel(s).error(host.get(s)?.redactor.text(m) ?? m),
    seen: seenFailures,
    shown: failureNotices,
  }));
  step('activated');
  const activationMs = performance.now() - activationStart;
  log.info(`MCP Host activated in ${activationMs.toFixed(1)} ms`);
  const firstReconcileMs = controller.firstReconcile.then(at => at - activationStart);
  const activationSteps = () => Object.fromEntries(Object.entries({ ...steps, ...controller.firstSyncMarks })
    .map(([k, t]) => [k, Math.round((t - (k.startsWith('cpu ') ? cpuStart : activationStart)) * 10) / 10]));
  void firstReconcileMs.then(ms => log.info(`MCP Host: first settings sync reconciled ${ms.toFixed(1)} ms after activation began (ms from its start: ${Object.entries(activationSteps()).map(([k, v]) => `${k} ${v}`).join(', ')})`));
  return {
    host,
    sync: () => controller.sync(),
    blockedReason: s => controller.blockedReason(s),
    ...(seams && { testSupport: createTestSupport(seams) }),
    sandboxDenials,
    logChannels: () => logs.names,
    views: { servers: serversTree, resources: resourcesTree, history: historyTree },
    sampling,
    chat,
    apps,
    forms: formHost,
    results: resultDocuments,
    failureNotices,
    historyStore,
    trustOffers: controller.trustOffers,
    taskNotices,
    gateway,
    toolEnablement,
    oauth,
    storage: {
      workspace: context.workspaceState,
      global: context.globalState,
      folders: [context.storageUri, context.globalStorageUri, context.logUri].filter((u): u is vscode.Uri => !!u).map(u => u.fsPath),
    },
    definitionKey,
    activationStart,
    activationMs,
    firstReconcileMs,
    activationSteps,
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

/**
 * What no sandboxed server may read besides the defaults (issue 24): the editor's own storage (`<user data>/User`:
 * settings, global and workspace storage, the secret store) unless the extension itself lives there, and
 * `mcpHost.sandbox.denyRead` from user settings (a workspace must not change what protects the user).
 */
function sandboxOptions(context: vscode.ExtensionContext): SandboxHostOptions {
  const userDir = path.resolve(context.globalStorageUri.fsPath, '..', '..');
  const insideOf = (p: string, dir: string) => { const r = path.relative(dir, p); return r === '' || (!r.startsWith('..') && !path.isAbsolute(r)); };
  const privatePaths = insideOf(context.extensionPath, userDir) ? [] : [userDir];
  const denyRead = settings.sandboxDenyRead();
  return { privatePaths, ...(denyRead && { denyRead }) };
}
