/**
 * The History view: per server, every tool call, prompt and resource read the user, a model or an app view made
 * (newest first), with how long it took, how large it was and how it ended. An entry opens its request and result;
 * "Re-run…" runs it again with edited arguments.
 */
import * as vscode from 'vscode';
import { type HistoryEntry, type HostApi, countOf, formatBytes } from '../mcp';
import { CommandIds } from './commandIds';
import { historyLabel, historyTooltip } from './historyText';

export type HistoryNode = { kind: 'server'; server: string } | { kind: 'entry'; server: string; id: number };

export class HistoryTreeProvider implements vscode.TreeDataProvider<HistoryNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<HistoryNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subs: { dispose(): void }[] = [];
  private pending?: ReturnType<typeof setTimeout>;

  /** Follows the host's history event (every server, through reconciles); refreshes at most every 100 ms. */
  constructor(private readonly host: HostApi) {
    this.subs.push(host.onDidChangeServers(() => this.refreshSoon()), host.onDidChangeHistory(() => this.refreshSoon()));
  }

  private refreshSoon(): void {
    this.pending ??= setTimeout(() => { this.pending = undefined; this.changed.fire(undefined); }, 100);
  }

  entry(node: HistoryNode): HistoryEntry | undefined {
    return node.kind === 'entry' ? this.host.get(node.server)?.history.find(e => e.id === node.id) : undefined;
  }

  getChildren(node?: HistoryNode): HistoryNode[] {
    if (!node) return this.host.servers.filter(h => h.history.length).map(h => ({ kind: 'server', server: h.name }));
    if (node.kind !== 'server') return [];
    return [...(this.host.get(node.server)?.history ?? [])].reverse().map(e => ({ kind: 'entry', server: node.server, id: e.id }));
  }

  getTreeItem(node: HistoryNode): vscode.TreeItem {
    if (node.kind === 'server') {
      const item = new vscode.TreeItem(node.server, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `history/${node.server}`;
      item.description = countOf(this.host.get(node.server)?.history.length ?? 0, 'request');
      item.iconPath = new vscode.ThemeIcon('server');
      return item;
    }
    const e = this.entry(node);
    const item = new vscode.TreeItem(e ? historyLabel(e) : vscode.l10n.t('(gone)'));
    item.id = `history/${node.server}/${node.id}`;
    if (!e) return item;
    const time = new Date(e.at).toLocaleTimeString();
    item.description = [time, e.program ? vscode.l10n.t('{0} via {1}', e.by, e.program) : e.by, e.durationMs !== undefined ? `${e.durationMs} ms` : undefined, e.size !== undefined ? formatBytes(e.size) : undefined, e.status].filter(Boolean).join(' · ');
    item.iconPath = new vscode.ThemeIcon(e.status === 'running' ? 'loading~spin' : e.status === 'ok' ? 'pass' : 'error');
    // Untrusted markdown with every piece of server text escaped (historyText.ts).
    item.tooltip = new vscode.MarkdownString(historyTooltip(e, new Date(e.at).toLocaleString()));
    item.contextValue = e.method === 'resources/read' ? 'history.read' : 'history.rerunnable';
    item.command = { command: CommandIds.openHistoryEntry, title: vscode.l10n.t('Open'), arguments: [node] };
    return item;
  }

  dispose(): void {
    if (this.pending) clearTimeout(this.pending);
    this.subs.forEach(s => s.dispose());
    this.changed.dispose();
  }
}

