/**
 * Every command id the extension contributes, in one place (package.json `contributes.commands`
 * lists the same ids; `test/editor` checks that both agree).
 */
export const CommandIds = {
  /** Quick pick of every server, then an action for the chosen one. */
  listServers: 'mcpHost.listServers',
  startServer: 'mcpHost.startServer',
  stopServer: 'mcpHost.stopServer',
  restartServer: 'mcpHost.restartServer',
  startAll: 'mcpHost.startAll',
  stopAll: 'mcpHost.stopAll',
  showLogs: 'mcpHost.showLogs',
  browseResources: 'mcpHost.browseResources',
  readResource: 'mcpHost.readResource',
  readResourceTemplate: 'mcpHost.readResourceTemplate',
  /** Opens one resource (tree click); args: server name, resource URI. */
  openResource: 'mcpHost.openResource',
  callTool: 'mcpHost.callTool',
  /** Calls a tool as an MCP task (an `optional` tool too); args like callTool. */
  callToolAsTask: 'mcpHost.callToolAsTask',
  /** Cancels a running task; args: a task node, or server name and task id. */
  cancelTask: 'mcpHost.cancelTask',
  /** Opens a task's result (waits for a running one); args: a task node, or server name and task id. */
  showTaskResult: 'mcpHost.showTaskResult',
  runPrompt: 'mcpHost.runPrompt',
  refresh: 'mcpHost.refresh',
  subscribeResource: 'mcpHost.subscribeResource',
  unsubscribeResource: 'mcpHost.unsubscribeResource',
  copyUri: 'mcpHost.copyUri',
  importServers: 'mcpHost.importServers',
  browseRegistry: 'mcpHost.browseRegistry',
  addServer: 'mcpHost.addServer',
  openSettings: 'mcpHost.openSettings',
  resetTrust: 'mcpHost.resetTrust',
  /** Restricted Mode: opens VS Code's Manage Workspace Trust (the inline action of a held-back server's row). */
  manageWorkspaceTrust: 'mcpHost.manageWorkspaceTrust',
  clearInputs: 'mcpHost.clearInputs',
  signOut: 'mcpHost.signOut',
  /** Writes a resource's bytes to a file; args: server, resource URI, content index, target URI (else asked). */
  saveResourceAs: 'mcpHost.saveResourceAs',
  /** Opens a History entry (request and result); arg: a history node. */
  openHistoryEntry: 'mcpHost.openHistoryEntry',
  /** Runs a History entry again with edited arguments; args: a history node, the arguments (else asked). */
  rerunHistoryEntry: 'mcpHost.rerunHistoryEntry',
  /** Runs a prompt in the @mcp chat; arg: a prompt node. */
  runPromptInChat: 'mcpHost.runPromptInChat',
  /** Attaches a resource to the @mcp chat; arg: a resource node. */
  attachResourceToChat: 'mcpHost.attachResourceToChat',
  /** Opens (or focuses) the MCP App view of a tool; args: server name, tool name. */
  openAppView: 'mcpHost.openAppView',
  /** Asks the active App view to tear down, then closes it. */
  closeAppView: 'mcpHost.closeAppView',
  /** Forgets the permissions (camera, microphone, …) granted to App views; args: a server name or node, or { all: true } (else picked). */
  resetAppPermissions: 'mcpHost.resetAppPermissions',
  /** Internal: the "Load more…" item of the resources view. */
  loadMoreResources: 'mcpHost.loadMoreResources',
} as const;

/** One of the contributed command ids. */
export type CommandId = typeof CommandIds[keyof typeof CommandIds];

/** View ids (package.json `contributes.views.mcpHost`). */
export const ViewIds = {
  servers: 'mcpHost.servers',
  resources: 'mcpHost.resources',
  history: 'mcpHost.history',
} as const;

/** Context keys the extension sets for `when` clauses. */
export const ContextKeys = {
  /** True when at least one server is configured. */
  hasServers: 'mcpHost.hasServers',
  /** True when at least one server is running. */
  anyRunning: 'mcpHost.anyRunning',
  /** True when a server has a task (running or finished) to cancel or show. */
  anyTask: 'mcpHost.anyTask',
} as const;
