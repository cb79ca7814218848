import * as vscode from 'vscode';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import { assertNever, eraDetail, isTerminal, protocolLabel, readOnlyNoteOf, toolUi, visibleToModel, type ServerHandle, type ServerState, type SkillInfo, countOf, firstLine, formatBytes, markdownCode, shownName } from '../mcp';
import { taskItem } from './taskItems';
import type { GroupKind, McpNode, ServerAnnotations } from './nodes';
import type { TreeIcons } from './icons';
import { CommandIds } from './commandIds';

/** Command id the resource items run when clicked (kept in sync with src/views/commandIds.ts). */
export const OPEN_RESOURCE_COMMAND = CommandIds.openResource;
/** Command id of the "Load more…" item. */
export const LOAD_MORE_COMMAND = CommandIds.loadMoreResources;

/** The icon of a state: starting spins, running is green, error is red, stopped is an outline (a clock while it waits for its first use). */
export function stateIcon(state: ServerState, blocked?: string, waiting?: boolean): vscode.ThemeIcon {
  switch (state.kind) {
    case 'starting': return new vscode.ThemeIcon('loading~spin');
    case 'running': return new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    case 'error': return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
    case 'stopped': return new vscode.ThemeIcon(blocked ? 'shield' : waiting ? 'clock' : 'circle-outline');
    default: return assertNever(state, 'server state');
  }
}

/**
 * One short phrase: "running · MCP 2026-07-28", "starting…", "error: …", "stopped", or "starts on first use" for a
 * server that `mcpHost.startup: lazy` holds until something uses it (a stopped server is one the user stopped).
 */
export function stateDescription(state: ServerState, blocked?: string, waiting?: boolean): string {
  switch (state.kind) {
    case 'starting': return state.attempt > 1 ? vscode.l10n.t('restarting (attempt {0})…', state.attempt) : vscode.l10n.t('starting…');
    case 'running': return vscode.l10n.t('running · {0}', protocolLabel(state.protocolVersion));
    case 'error': return state.crashLoop ? vscode.l10n.t('crashed repeatedly, stopped') : state.retryAt ? vscode.l10n.t('error, restarting soon') : vscode.l10n.t('error: {0}', state.message);
    case 'stopped': return blocked ? vscode.l10n.t('stopped · {0}', blocked) : waiting ? vscode.l10n.t('starts on first use') : vscode.l10n.t('stopped');
    default: return assertNever(state, 'server state');
  }
}

/** How a sandboxed server is marked in the Servers view (H93). */
export const SHIELD = vscode.l10n.t('🛡 sandboxed');

/** The markdown tooltip of a server: state, launch, capabilities, last error and stderr tail; resolved secrets masked as in the consent dialog. */
export function serverTooltip(h: ServerHandle, blocked?: string, waiting?: boolean): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  const s = h.state;
  const d = h.definition;
  // the one redaction path (src/mcp/logging/redact.ts): inputs, header and query values, envFile and ${env:} secrets
  const mask = (text: string) => h.redactor.text(text, '••••');
  md.appendMarkdown(`**${esc(h.name)}** — ${esc(mask(stateDescription(s, blocked, waiting)))}\n\n`);
  if (waiting) md.appendMarkdown(vscode.l10n.t('`mcpHost.startup` is `lazy`: it starts when something uses it (expanding it here, a command, a chat request, a resource document).\n\n'));
  if (d.type === 'stdio') md.appendMarkdown(vscode.l10n.t('Command: `{0}`\n\n', mask([d.command, ...d.args].join(' '))));
  else md.appendMarkdown(`${d.type === 'sse' ? 'SSE' : 'HTTP'}: \`${mask(h.redactor.url(d.url))}\`\n\n`);
  // H93: the shield, and what it means.
  if (h.sandboxed) md.appendMarkdown(vscode.l10n.t('$(shield) **Sandboxed**: writes only in its roots and temporary folder, cannot read your secrets, network only to its `sandbox.network.allowedDomains`. What the sandbox refuses is in the server\'s log.\n\n'));
  if (s.kind === 'running') {
    md.appendMarkdown(vscode.l10n.t('Server: {0} {1} · {2} ({3})\n\n', esc(s.serverInfo.name), esc(s.serverInfo.version), protocolLabel(s.protocolVersion), eraDetail(s.era)));
    const caps = Object.keys(s.capabilities).filter(k => (s.capabilities as Record<string, unknown>)[k] !== undefined);
    md.appendMarkdown(vscode.l10n.t('Capabilities: {0}\n\n', caps.length ? caps.map(c => `\`${c}\``).join(', ') : 'none'));
    if (s.instructions) md.appendMarkdown(vscode.l10n.t('Instructions: {0}\n\n', esc(mask(s.instructions.slice(0, 300)))));
  }
  if (s.kind === 'error') md.appendMarkdown(vscode.l10n.t('**Last error:** {0}\n\n', esc(mask(s.message))));
  const tail = s.kind === 'error' ? s.stderrTail : h.stderrTail;
  if ((s.kind === 'error' || s.kind === 'stopped') && tail.length) {
    md.appendCodeblock(mask(tail.slice(-10).join('\n')), 'log');
  }
  return md;
}

const GROUPS: Record<GroupKind, { label: string; icon: string }> = {
  tasks: { label: vscode.l10n.t('Tasks'), icon: 'checklist' },
  tools: { label: vscode.l10n.t('Tools'), icon: 'tools' },
  prompts: { label: vscode.l10n.t('Prompts'), icon: 'comment-discussion' },
  resources: { label: vscode.l10n.t('Resources'), icon: 'files' },
  resourceTemplates: { label: vscode.l10n.t('Resource Templates'), icon: 'symbol-parameter' },
  skills: { label: vscode.l10n.t('Skills'), icon: 'lightbulb' },
};

/**
 * Renders any node; `host` lookups only read the core's cached model. With `icons`, a running server,
 * tool, prompt, resource or template that has a usable icon shows it instead of the codicon.
 */
export function toTreeItem(node: McpNode, get: (name: string) => ServerHandle | undefined, notes: ServerAnnotations, icons?: TreeIcons): vscode.TreeItem {
  const item = plainTreeItem(node, get, notes);
  if (!icons || node.kind === 'group' || node.kind === 'loadMore' || node.kind === 'message' || node.kind === 'task' || node.kind === 'skill') return item;
  const h = get(node.server);
  const source = node.kind === 'server' ? (h?.state.kind === 'running' ? h.state.serverInfo : undefined)
    : node.kind === 'tool' ? node.tool : node.kind === 'prompt' ? node.prompt : node.kind === 'resource' ? node.resource : node.template;
  const icon = source && icons.iconFor(h, source);
  if (icon) item.iconPath = icon;
  return item;
}

function plainTreeItem(node: McpNode, get: (name: string) => ServerHandle | undefined, notes: ServerAnnotations): vscode.TreeItem {
  switch (node.kind) {
    case 'server': {
      const h = get(node.server);
      const item = new vscode.TreeItem(node.server, vscode.TreeItemCollapsibleState.None);
      item.id = `server/${node.server}`;
      if (!h) return item;
      const blocked = h.state.kind === 'stopped' ? notes.blockedReason(node.server) : undefined;
      const waiting = h.state.kind === 'stopped' && !blocked && notes.waitsForUse?.(node.server) === true;
      item.iconPath = stateIcon(h.state, blocked, waiting);
      const twice = notes.alsoIn?.(node.server);
      const folder = notes.folderOf?.(node.server);
      const from = notes.sourceOf?.(node.server);
      item.description = (h.sandboxed ? `${SHIELD} · ` : '') + h.redactor.text(stateDescription(h.state, blocked, waiting), '••••') + (h.catalogueStale ? vscode.l10n.t(' · cached lists') : '') + (folder && !from ? vscode.l10n.t(' · folder {0}', folder) : '') + (from ? vscode.l10n.t(' · from {0}', from) : '') + (twice ? vscode.l10n.t(' · also in {0}', twice) : '');
      item.tooltip = serverTooltip(h, blocked, waiting);
      const registry = notes.installedFrom?.(node.server);
      if (registry) (item.tooltip as vscode.MarkdownString).appendMarkdown(`\n\n${vscode.l10n.t('Installed from the MCP Registry at {0}', markdownCode(registry))}`);
      if (twice) (item.tooltip as vscode.MarkdownString).appendMarkdown(twice.endsWith('.vscode/mcp.json')
        ? vscode.l10n.t('\n\n**Also in `{0}`**: VS Code\'s built-in MCP support starts it too, so it runs twice. Remove it there, or set `chat.mcp.access` to `none`.', twice)
        : vscode.l10n.t('\n\n**Also in `{0}`**: another MCP client (Claude Code, the GitHub Copilot CLI) starts it from there too. Remove it there if both should not run it.', twice));
      item.contextValue = `server.${h.state.kind}.${h.definition.type === 'stdio' ? 'stdio' : 'http'}`;
      return item;
    }
    case 'group': {
      const g = GROUPS[node.group];
      const h = get(node.server);
      const count = node.group === 'tasks' ? h?.tasks.length ?? 0 : node.group === 'skills' ? h?.skills.length ?? 0 : h?.catalogue[node.group].length ?? 0;
      const runningTasks = node.group === 'tasks' ? h?.tasks.filter(t => !isTerminal(t.status)).length ?? 0 : 0;
      // Running tasks are what the user waits for: their group opens by itself.
      const item = new vscode.TreeItem(g.label, runningTasks ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `group/${node.server}/${node.group}`;
      item.description = node.group === 'tasks' ? vscode.l10n.t('{0} running · {1} ended', runningTasks, count - runningTasks) : String(count);
      item.iconPath = new vscode.ThemeIcon(g.icon);
      item.contextValue = `group.${node.group}`;
      return item;
    }
    case 'tool': return toolItem(node.server, node.tool, maskFor(get(node.server)));
    case 'prompt': return promptItem(node.server, node.prompt, maskFor(get(node.server)));
    case 'resource': return resourceItem(node.server, node.resource, get, notes);
    case 'resourceTemplate': return templateItem(node.server, node.template, maskFor(get(node.server)));
    case 'skill': return skillItem(node.server, node.skill, maskFor(get(node.server)));
    case 'task': {
      const h = get(node.server);
      const t = h?.tasks.find(x => x.taskId === node.taskId);
      if (!t) return new vscode.TreeItem(vscode.l10n.t('(task ended with its session)'));
      return taskItem(t, maskFor(h));
    }
    case 'loadMore': {
      const item = new vscode.TreeItem(vscode.l10n.t('Load more…'));
      item.iconPath = new vscode.ThemeIcon('ellipsis');
      item.command = { command: LOAD_MORE_COMMAND, title: vscode.l10n.t('Load more'), arguments: [node.server] };
      item.contextValue = 'loadMore';
      return item;
    }
    case 'message': {
      const item = new vscode.TreeItem(node.text);
      item.iconPath = new vscode.ThemeIcon(node.icon ?? (node.error ? 'warning' : 'info'));
      item.description = node.description;
      item.tooltip = node.tooltip ?? node.text;
      if (node.command) item.command = { command: node.command.id, title: node.text, arguments: node.command.args };
      if (node.context) item.contextValue = node.context;
      return item;
    }
    default: return assertNever(node, 'tree node');
  }
}

/** Text a server supplied, through that server's part of the one redaction path (it may echo a secret it was given). */
type Mask = (s: string) => string;

function maskFor(h: ServerHandle | undefined): Mask {
  return h ? (s: string) => h.redactor.text(s, '••••') : s => s;
}

function toolItem(server: string, tool: Tool, mask: Mask): vscode.TreeItem {
  const item = new vscode.TreeItem(tool.title ?? tool.annotations?.title ?? tool.name);
  item.id = `tool/${server}/${tool.name}`;
  const ui = toolUi(tool);
  const appOnly = !visibleToModel(tool);
  const described = tool.title || tool.annotations?.title ? tool.name : mask(firstLine(tool.description, 80) ?? '') || undefined;
  // MCP Apps: a tool with a view says so first; an app-only helper too (the model never sees it).
  item.description = [ui ? vscode.l10n.t('app') : undefined, appOnly ? vscode.l10n.t('app only') : undefined, described].filter(Boolean).join(' · ') || undefined;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${esc(tool.name)}**\n\n${esc(mask(tool.description ?? ''))}\n\n`);
  if (ui) md.appendMarkdown(vscode.l10n.t('Has an MCP App view: {0} (opens in an editor panel when called)\n\n', markdownCode(mask(ui))));
  if (appOnly) md.appendMarkdown(vscode.l10n.t('Only its server\'s app views may call it (`_meta.ui.visibility`); the model does not see it.\n\n'));
  const props = Object.keys((tool.inputSchema.properties ?? {}) as object);
  if (props.length) md.appendMarkdown(vscode.l10n.t('Arguments: {0}\n\n', props.map(p => markdownCode(p)).join(', ')));
  // The server's claims in words (src/mcp/catalogue/toolClaims.ts), the same as `mcp-host inspect` and the @mcp dialog.
  const readOnly = readOnlyNoteOf(tool);
  if (readOnly) md.appendMarkdown(`${esc(readOnly)}\n\n`);
  if (tool.annotations) md.appendMarkdown(vscode.l10n.t('Annotations (as the server claims them): {0}', markdownCode(JSON.stringify(tool.annotations))));
  item.tooltip = md;
  item.iconPath = new vscode.ThemeIcon(ui ? 'window' : 'tools');
  item.contextValue = 'tool';
  return item;
}

function promptItem(server: string, prompt: Prompt, mask: Mask): vscode.TreeItem {
  const item = new vscode.TreeItem(prompt.title ?? prompt.name);
  item.id = `prompt/${server}/${prompt.name}`;
  item.description = prompt.title ? prompt.name : mask(firstLine(prompt.description, 80) ?? '') || undefined;
  const args = (prompt.arguments ?? []).map(a => `\`${a.name}\`${a.required ? '' : '?'}`).join(', ');
  item.tooltip = new vscode.MarkdownString(`**${esc(prompt.name)}**\n\n${esc(mask(prompt.description ?? ''))}${args ? `\n\nArguments: ${args}` : ''}`);
  item.iconPath = new vscode.ThemeIcon('comment');
  item.contextValue = 'prompt';
  return item;
}

/** A resource item; clicking it opens the resource as a document. */
export function resourceItem(server: string, r: Resource, get: (name: string) => ServerHandle | undefined, notes: ServerAnnotations): vscode.TreeItem {
  const mask = maskFor(get(server));
  const item = new vscode.TreeItem(r.title ?? r.name);
  item.id = `resource/${server}/${r.uri}`;
  item.description = mask(r.uri);
  item.tooltip = new vscode.MarkdownString(`**${esc(r.name)}**\n\n${markdownCode(mask(r.uri))}${r.mimeType ? ` · ${r.mimeType}` : ''}${r.size != null ? ` · ${countOf(r.size, 'byte')}` : ''}\n\n${esc(mask(r.description ?? ''))}`);
  const subscribed = notes.isSubscribed(server, r.uri);
  item.iconPath = new vscode.ThemeIcon(subscribed ? 'bell-dot' : r.mimeType?.startsWith('image/') ? 'file-media' : 'file');
  const state = get(server)?.state;
  const canSubscribe = state?.kind === 'running' && state.capabilities.resources?.subscribe === true;
  item.contextValue = subscribed ? 'resource.subscribed' : canSubscribe ? 'resource.canSubscribe' : 'resource.plain';
  item.command = { command: OPEN_RESOURCE_COMMAND, title: vscode.l10n.t('Open'), arguments: [server, r.uri] };
  return item;
}

/** A skill (SEP-2640): its name and description as the server lists them, server text on one line; nothing of it read. */
function skillItem(server: string, skill: SkillInfo, mask: Mask): vscode.TreeItem {
  const item = new vscode.TreeItem(shownName(mask(skill.name)));
  item.id = `skill/${server}/${skill.uri}`;
  item.description = shownName(mask(skill.description), 80) || undefined;
  const size = skill.files !== undefined ? `${countOf(skill.files, 'file')}, ${formatBytes(skill.bytes ?? 0)}` : vscode.l10n.t('files listed on use');
  item.tooltip = new vscode.MarkdownString(vscode.l10n.t('**{0}** · {1} · {2}\n\n{3}\n\nUse it in chat: {4} (its files are read and verified then).', esc(shownName(mask(skill.name))), markdownCode(mask(skill.uri)), size, esc(mask(skill.description)), markdownCode(`@mcp /skill ${server}.${shownName(mask(skill.name))}`)));
  item.iconPath = new vscode.ThemeIcon('lightbulb');
  item.contextValue = 'skill';
  return item;
}

function templateItem(server: string, t: ResourceTemplate, mask: Mask): vscode.TreeItem {
  const item = new vscode.TreeItem(t.title ?? t.name);
  item.id = `template/${server}/${t.uriTemplate}`;
  item.description = mask(t.uriTemplate);
  item.tooltip = new vscode.MarkdownString(`**${esc(t.name)}**\n\n${markdownCode(mask(t.uriTemplate))}\n\n${esc(mask(t.description ?? ''))}`);
  item.iconPath = new vscode.ThemeIcon('symbol-parameter');
  item.contextValue = 'resourceTemplate';
  return item;
}

function esc(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, m => `\\${m}`);
}
