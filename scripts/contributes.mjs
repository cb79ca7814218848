// One-off generator kept for reference: writes package.json `contributes` + `activationEvents`.
// Run `node scripts/contributes.mjs` after editing; then `node scripts/sync-schema.mjs` embeds the
// server schema. Only these two keys of package.json are touched.
import fs from 'node:fs';

const cmd = (id, title, icon, extra = {}) => ({ command: `mcpHost.${id}`, title, category: 'MCP Host', ...(icon ? { icon: `$(${icon})` } : {}), ...extra });
const commands = [
  cmd('listServers', 'List Servers', 'list-unordered'),
  cmd('startServer', 'Start Server', 'debug-start'),
  cmd('stopServer', 'Stop Server', 'debug-stop'),
  cmd('restartServer', 'Restart Server', 'debug-restart'),
  cmd('startAll', 'Start All Servers', 'run-all'),
  cmd('stopAll', 'Stop All Servers', 'stop-circle'),
  cmd('showLogs', 'Show Server Logs', 'output'),
  cmd('browseResources', 'Browse Resources', 'files'),
  cmd('readResource', 'Read Resource by URI…', 'go-to-file'),
  cmd('readResourceTemplate', 'Read Resource from Template…', 'symbol-parameter'),
  cmd('openResource', 'Open Resource', 'go-to-file'),
  cmd('callTool', 'Call Tool…', 'run'),
  cmd('runPrompt', 'Run Prompt…', 'comment-discussion'),
  cmd('refresh', 'Refresh', 'refresh'),
  cmd('subscribeResource', 'Subscribe to Resource Updates', 'bell'),
  cmd('unsubscribeResource', 'Unsubscribe from Resource Updates', 'bell-slash'),
  cmd('copyUri', 'Copy Resource URI', 'copy'),
  cmd('importServers', 'Import Servers…', 'cloud-download'),
  cmd('addServer', 'Add Server…', 'add'),
  cmd('openSettings', 'Open Server Settings', 'settings-gear'),
  cmd('resetTrust', 'Reset Launch Consent', 'shield'),
  cmd('clearInputs', 'Clear Stored Inputs', 'clear-all'),
  cmd('signOut', 'Sign Out of Server…', 'sign-out'),
  cmd('loadMoreResources', 'Load More Resources', 'ellipsis'),
  // Registered by src/extension/chat (ChatCommandIds).
  cmd('runPromptInChat', 'Run Prompt in Chat', 'comment-discussion'),
  cmd('attachResourceToChat', 'Attach Resource to Chat', 'attach'),
];

const SERVERS = 'view == mcpHost.servers';
const RESOURCES = 'view == mcpHost.resources';
const ANY = `(${SERVERS} || ${RESOURCES})`;
const menus = {
  'view/title': [
    { command: 'mcpHost.addServer', when: SERVERS, group: 'navigation@1' },
    { command: 'mcpHost.startAll', when: `${SERVERS} && mcpHost.hasServers`, group: 'navigation@2' },
    { command: 'mcpHost.stopAll', when: `${SERVERS} && mcpHost.anyRunning`, group: 'navigation@3' },
    { command: 'mcpHost.refresh', when: ANY, group: 'navigation@9' },
    { command: 'mcpHost.importServers', when: SERVERS, group: 'settings@1' },
    { command: 'mcpHost.openSettings', when: SERVERS, group: 'settings@2' },
    { command: 'mcpHost.resetTrust', when: SERVERS, group: 'settings@3' },
    { command: 'mcpHost.clearInputs', when: SERVERS, group: 'settings@4' },
    { command: 'mcpHost.readResource', when: RESOURCES, group: 'navigation@1' },
    { command: 'mcpHost.readResourceTemplate', when: RESOURCES, group: 'navigation@2' },
  ],
  'view/item/context': [
    { command: 'mcpHost.startServer', when: `${ANY} && viewItem =~ /^server\\.(stopped|error)/`, group: 'inline@1' },
    { command: 'mcpHost.stopServer', when: `${ANY} && viewItem =~ /^server\\.(running|starting)/`, group: 'inline@1' },
    { command: 'mcpHost.restartServer', when: `${ANY} && viewItem =~ /^server\\.(running|error)/`, group: 'inline@2' },
    { command: 'mcpHost.showLogs', when: `${ANY} && viewItem =~ /^server\\./`, group: 'inline@3' },
    { command: 'mcpHost.startServer', when: `${ANY} && viewItem =~ /^server\\.(stopped|error)/`, group: '1_lifecycle@1' },
    { command: 'mcpHost.stopServer', when: `${ANY} && viewItem =~ /^server\\.(running|starting)/`, group: '1_lifecycle@2' },
    { command: 'mcpHost.restartServer', when: `${ANY} && viewItem =~ /^server\\./`, group: '1_lifecycle@3' },
    { command: 'mcpHost.showLogs', when: `${ANY} && viewItem =~ /^server\\./`, group: '2_logs@1' },
    { command: 'mcpHost.signOut', when: `${ANY} && viewItem =~ /^server\\..*\\.http/`, group: '3_auth@1' },
    { command: 'mcpHost.callTool', when: `${SERVERS} && viewItem == tool`, group: 'inline@1' },
    { command: 'mcpHost.callTool', when: `${SERVERS} && viewItem == tool`, group: '1_run@1' },
    { command: 'mcpHost.runPrompt', when: `${SERVERS} && viewItem == prompt`, group: 'inline@1' },
    { command: 'mcpHost.runPrompt', when: `${SERVERS} && viewItem == prompt`, group: '1_run@1' },
    { command: 'mcpHost.runPromptInChat', when: `${SERVERS} && viewItem == prompt`, group: '1_run@2' },
    { command: 'mcpHost.attachResourceToChat', when: `${ANY} && viewItem =~ /^resource\\./`, group: '1_open@3' },
    { command: 'mcpHost.readResourceTemplate', when: `${ANY} && viewItem == resourceTemplate`, group: 'inline@1' },
    { command: 'mcpHost.openResource', when: `${ANY} && viewItem =~ /^resource\\./`, group: '1_open@1' },
    { command: 'mcpHost.copyUri', when: `${ANY} && viewItem =~ /^resource\\./`, group: 'inline@2' },
    { command: 'mcpHost.copyUri', when: `${ANY} && viewItem =~ /^resource\\./`, group: '1_open@2' },
    { command: 'mcpHost.subscribeResource', when: `${ANY} && viewItem == resource.canSubscribe`, group: 'inline@1' },
    { command: 'mcpHost.subscribeResource', when: `${ANY} && viewItem == resource.canSubscribe`, group: '2_subscribe@1' },
    { command: 'mcpHost.unsubscribeResource', when: `${ANY} && viewItem == resource.subscribed`, group: 'inline@1' },
    { command: 'mcpHost.unsubscribeResource', when: `${ANY} && viewItem == resource.subscribed`, group: '2_subscribe@1' },
  ],
  commandPalette: [
    ...['startServer', 'stopServer', 'restartServer', 'startAll', 'showLogs', 'listServers']
      .map(c => ({ command: `mcpHost.${c}`, when: 'mcpHost.hasServers' })),
    ...['stopAll', 'browseResources', 'readResource', 'readResourceTemplate', 'callTool', 'runPrompt', 'subscribeResource', 'unsubscribeResource', 'runPromptInChat', 'attachResourceToChat']
      .map(c => ({ command: `mcpHost.${c}`, when: 'mcpHost.anyRunning' })),
    ...['openResource', 'copyUri', 'loadMoreResources', 'refresh'].map(c => ({ command: `mcpHost.${c}`, when: 'false' })),
  ],
};

const configuration = {
  title: 'MCP Host',
  properties: {
    'mcpHost.servers': {
      type: 'object',
      default: {},
      order: 1,
      markdownDescription: 'MCP servers, keyed by name, in the shape of VS Code\'s `mcp.json` (`type` `stdio` | `http` | `sse`, `command`, `args`, `env`, `envFile`, `cwd`, `url`, `headers`). Values may use `${workspaceFolder}`, `${env:NAME}`, `${userHome}` and `${input:id}`. Changes apply at once: only changed servers restart. Servers from workspace settings start only in a trusted workspace and after you allow their command line.',
      additionalProperties: { type: 'object' },
    },
    'mcpHost.inputs': {
      type: 'array',
      default: [],
      order: 2,
      markdownDescription: 'Values that `${input:id}` asks for on first use (kept in the OS keychain through Secret Storage, never in settings). Clear them with **MCP: Clear Stored Inputs**.',
      items: { type: 'object' },
    },
    'mcpHost.autoStart': {
      type: 'boolean',
      default: true,
      order: 3,
      markdownDescription: 'Start configured servers when the workspace opens. When off, servers start from the Servers view or **MCP: Start Server**. A server\'s own `autoStart` overrides this.',
    },
    'mcpHost.oauth.clientMetadataUrl': {
      type: 'string',
      default: '',
      scope: 'application',
      markdownDescription: 'The https URL of a client ID metadata document describing MCP Host as an OAuth client (SEP-991). Where a server\'s authorization server advertises `client_id_metadata_document_supported`, this URL is the client id and no registration is made; elsewhere, and when empty, the client registers dynamically. The document must list this editor\'s redirect URI. User settings only.',
    },
    'mcpHost.trace': {
      type: 'boolean',
      default: false,
      order: 4,
      markdownDescription: 'Write the JSON-RPC trace of every server to its output channel (shown at the *Trace* log level). Setting a channel\'s level to *Trace* turns it on for that server too.',
    },
    'mcpHost.timeout.startup': {
      type: 'number',
      default: 30000,
      minimum: 1000,
      order: 5,
      markdownDescription: 'Milliseconds a server may take to spawn/connect and answer `initialize` before its start fails. A server\'s `timeout.startup` overrides this.',
    },
    'mcpHost.timeout.request': {
      type: 'number',
      default: 60000,
      minimum: 1000,
      order: 6,
      markdownDescription: 'Milliseconds a request may take (progress notifications reset the timer). A server\'s `timeout.request` overrides this.',
    },
    'mcpHost.showFailureNotifications': {
      type: 'boolean',
      default: true,
      order: 7,
      markdownDescription: 'Show a notification with **Show Logs** / **Restart** when a server fails and will not be restarted automatically.',
    },
  },
};

const pkgPath = new URL('../package.json', import.meta.url);
const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8'));
const prev = pkg.contributes ?? {};
pkg.activationEvents = ['onStartupFinished', 'onFileSystem:mcp-host-resource'];
pkg.contributes = {
  ...prev,
  viewsContainers: { activitybar: [{ id: 'mcpHost', title: 'MCP', icon: 'media/mcp.svg' }] },
  views: {
    mcpHost: [
      { id: 'mcpHost.servers', name: 'Servers', icon: 'media/mcp.svg', contextualTitle: 'MCP' },
      { id: 'mcpHost.resources', name: 'Resources', icon: 'media/mcp.svg', contextualTitle: 'MCP', visibility: 'collapsed' },
    ],
  },
  viewsWelcome: [
    {
      view: 'mcpHost.servers',
      contents: 'No MCP servers are configured in `mcpHost.servers`.\n[Add Server](command:mcpHost.addServer)\n[Open Settings](command:mcpHost.openSettings)\n[Import Servers](command:mcpHost.importServers)\nImport reads `.vscode/mcp.json`, Claude Desktop or Cursor configurations.',
      when: '!mcpHost.hasServers',
    },
    {
      view: 'mcpHost.resources',
      contents: 'No server is running. Start one in the Servers view to browse its resources.',
      when: '!mcpHost.anyRunning',
    },
  ],
  commands,
  menus,
  configuration: { ...configuration, properties: { ...configuration.properties, ...keepSchema(prev) } },
};
fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');

/** Keeps a schema already embedded by sync-schema.mjs. */
function keepSchema(c) {
  const props = c.configuration?.properties ?? {};
  const out = {};
  for (const k of ['mcpHost.servers', 'mcpHost.inputs']) {
    if (props[k]?.additionalProperties?.properties || props[k]?.items?.properties) out[k] = props[k];
  }
  return out;
}
