import * as vscode from 'vscode';
import { type HostApi, visibleToModel, estimateToolTokens, formatTokens, shownName } from '../mcp';
import type { GroupKind, McpNode, ServerAnnotations } from './nodes';
import { toTreeItem } from './items';
import type { TreeIcons } from './icons';

/** Which tools go to models (the Servers view shows it as checkboxes on servers and tools). */
export interface ToolEnablementView {
  enabled(server: string, tool: string): boolean;
  serverEnabled(server: string): boolean;
  readonly onDidChange: vscode.Event<void>;
}

const GROUP_ORDER: GroupKind[] = ['tasks', 'tools', 'prompts', 'resources', 'resourceTemplates', 'skills'];
/** Items shown per group; the rest are a click away (Resources view pages, pickers search all). */
export const GROUP_LIMIT = 500;

/**
 * The Servers view: every configured server with its state, and under a running one its tasks, tools,
 * prompts, resources and resource templates from the core's cached catalogue, and its skills (names and descriptions). It only projects the
 * core's model and refreshes on the core's events.
 */
export class ServersTreeProvider implements vscode.TreeDataProvider<McpNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<McpNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscriptions: { dispose(): void }[] = [];
  private readonly nodes = new Map<string, McpNode & { kind: 'server' }>();

  constructor(private readonly host: HostApi, private readonly notes: ServerAnnotations, private readonly icons?: TreeIcons, private readonly enablement?: ToolEnablementView) {
    const refresh = () => this.changed.fire(undefined);
    this.subscriptions.push(
      host.onDidChangeServers(refresh),
      host.onDidChangeState(({ server }) => this.refreshServer(server)),
      host.onDidChangeCatalogue(({ server }) => this.refreshServer(server)),
      host.onDidChangeTasks(({ server }) => this.refreshServer(server)),
      host.onDidChangeSkills(({ server }) => this.refreshServer(server)),
      notes.onDidChange(refresh),
      ...(icons ? [icons.onDidChange(refresh)] : []),
      ...(enablement ? [enablement.onDidChange(refresh)] : []),
      this.changed,
    );
  }

  /** Re-renders the whole tree. */
  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(node: McpNode): vscode.TreeItem {
    const item = toTreeItem(node, n => this.host.get(n), this.notes, this.icons);
    if (node.kind === 'server') {
      item.collapsibleState = this.groupsOf(node.server).length || this.notes.waitsForUse?.(node.server)
        ? vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None;
    }
    this.decorateBudget(node, item);
    return item;
  }

  /** Tool budget: checkboxes (server: any tool to models; tool: this one) and the token estimate of the Tools group. */
  private decorateBudget(node: McpNode, item: vscode.TreeItem): void {
    const e = this.enablement;
    if (!e) return;
    // The object form: a screen reader names each checkbox (what it offers, and whose), not just "checkbox".
    const checkbox = (on: boolean, label: string) => ({
      state: on ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
      tooltip: label,
      accessibilityInformation: { label, role: 'checkbox' },
    });
    if (node.kind === 'server') {
      item.checkboxState = checkbox(e.serverEnabled(node.server), vscode.l10n.t('Offer the tools of {0} to language models', shownName(node.server, 80)));
    } else if (node.kind === 'tool' && visibleToModel(node.tool)) {
      item.checkboxState = checkbox(e.enabled(node.server, node.tool.name), vscode.l10n.t('Offer the tool {0} of {1} to language models', shownName(node.tool.name, 80), shownName(node.server, 80)));
    } else if (node.kind === 'group' && node.group === 'tools') {
      const tools = this.host.get(node.server)?.catalogue.tools.filter(t => visibleToModel(t) && e.enabled(node.server, t.name)) ?? [];
      item.description = vscode.l10n.t('{0} · {1} to models', String(item.description ?? ''), formatTokens(estimateToolTokens(tools)));
      item.tooltip = vscode.l10n.t('{0} tools go to language models; their definitions take {1} of each request (an estimate: characters / 4).', tools.length, formatTokens(estimateToolTokens(tools)));
    }
  }

  getChildren(node?: McpNode): McpNode[] {
    if (!node) {
      // Restricted Mode: one row per workspace server it holds back (names only), "not trusted" beside it: short
      // enough to read whole in a narrow side bar (a longer description was cut off). The explanation is in the
      // tooltip; a click, and the row's inline shield action (Manage Workspace Trust), open Manage Workspace Trust.
      const banner: McpNode[] = this.notes.restrictedServers().map(name => ({
        kind: 'message', server: '', error: true, icon: 'shield', command: { id: 'workbench.trust.manage' }, context: 'restricted',
        text: name, description: vscode.l10n.t('not trusted'),
        tooltip: vscode.l10n.t('{0} is defined in this workspace\'s settings. The workspace is not trusted (Restricted Mode), so it does not start. Click to manage Workspace Trust (or use the shield beside the row); once you trust the workspace, it starts as its settings say.', name),
      }));
      const problems: McpNode[] = this.notes.configProblems().map(text => ({
        kind: 'message', server: '', error: true, text, command: { id: 'workbench.action.openWorkspaceSettingsFile' },
      }));
      // Multi-root: the servers of the workspace (and user) first, then each folder's own, folder by folder.
      const folder = (name: string) => this.notes.folderOf?.(name) ?? '';
      const servers = [...this.host.servers].sort((a, b) => folder(a.name).localeCompare(folder(b.name)));
      return [...banner, ...problems, ...servers.map(h => this.serverNode(h.name))];
    }
    const h = this.host.get(node.server);
    if (!h) return [];
    switch (node.kind) {
      case 'server':
        // Expanding a server that waits for its first use (`mcpHost.startup: lazy`) starts it.
        if (h.state.kind === 'stopped') this.notes.startOnUse?.(node.server);
        return this.groupsOf(node.server).map(group => ({ kind: 'group', server: node.server, group }));
      case 'group': {
        const items = this.groupItems(h.name, node.group);
        if (items.length <= GROUP_LIMIT) return items;
        const more = items.length - GROUP_LIMIT;
        const where = node.group === 'resources' ? vscode.l10n.t('the Resources view pages through all of them') : vscode.l10n.t('the MCP commands search all of them');
        return [...items.slice(0, GROUP_LIMIT), { kind: 'message', server: h.name, text: vscode.l10n.t('… {0} more ({1})', more, where) }];
      }
      default: return [];
    }
  }

  getParent(node: McpNode): McpNode | undefined {
    switch (node.kind) {
      case 'server': return undefined;
      case 'group': return this.serverNode(node.server);
      case 'tool': return { kind: 'group', server: node.server, group: 'tools' };
      case 'prompt': return { kind: 'group', server: node.server, group: 'prompts' };
      case 'resource': return { kind: 'group', server: node.server, group: 'resources' };
      case 'resourceTemplate': return { kind: 'group', server: node.server, group: 'resourceTemplates' };
      case 'task': return { kind: 'group', server: node.server, group: 'tasks' };
      case 'skill': return { kind: 'group', server: node.server, group: 'skills' };
      default: return this.serverNode(node.server);
    }
  }

  private groupItems(server: string, group: GroupKind): McpNode[] {
    const h = this.host.get(server);
    const c = h?.catalogue;
    if (!h || !c) return [];
    switch (group) {
      case 'tasks': return h.tasks.map(t => ({ kind: 'task', server, taskId: t.taskId }));
      case 'skills': return h.skills.map(skill => ({ kind: 'skill', server, skill }));
      case 'tools': return c.tools.map(tool => ({ kind: 'tool', server, tool }));
      case 'prompts': return c.prompts.map(prompt => ({ kind: 'prompt', server, prompt }));
      case 'resources': return c.resources.map(resource => ({ kind: 'resource', server, resource }));
      case 'resourceTemplates': return c.resourceTemplates.map(template => ({ kind: 'resourceTemplate', server, template }));
    }
  }

  private groupsOf(server: string): GroupKind[] {
    const h = this.host.get(server);
    if (!h) return [];
    // Not running: the last known lists (cached, marked stale) if there are any; expanding a lazy server starts it.
    if (h.state.kind !== 'running' && !h.catalogueStale) return [];
    return GROUP_ORDER.filter(g => (g === 'tasks' ? h.tasks : g === 'skills' ? h.skills : h.catalogue[g]).length > 0);
  }

  /** One stable object per server, so a targeted refresh finds the element VS Code knows. */
  private serverNode(server: string): McpNode & { kind: 'server' } {
    let n = this.nodes.get(server);
    if (!n) this.nodes.set(server, n = { kind: 'server', server });
    return n;
  }

  private refreshServer(server: string): void {
    this.changed.fire(this.nodes.has(server) ? this.serverNode(server) : undefined);
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
