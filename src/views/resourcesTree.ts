import * as vscode from 'vscode';
import type { Resource } from '@modelcontextprotocol/client';
import type { HostApi, ServerHandle } from '../mcp';
import type { McpNode, ServerAnnotations } from './nodes';
import { toTreeItem } from './items';
import type { TreeIcons } from './icons';

interface Pages {
  /** The session the pages belong to (cursors never cross sessions). */
  since: number;
  items: Resource[];
  cursor?: string;
  done: boolean;
  error?: string;
  loading?: Promise<void>;
}

/**
 * The Resources view: per running server that offers resources, its resources loaded page by page
 * with `listResourcesPage` (the documented lazy load) and a "Load more…" item, so thousands of
 * resources never block the view.
 */
export class ResourcesTreeProvider implements vscode.TreeDataProvider<McpNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<McpNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly pages = new Map<string, Pages>();
  private readonly nodes = new Map<string, McpNode & { kind: 'server' }>();
  private readonly subscriptions: { dispose(): void }[] = [];
  /** What the core's resource list looked like, per server: only a real change restarts the paging. */
  private readonly signatures = new Map<string, string>();

  constructor(private readonly host: HostApi, private readonly notes: ServerAnnotations, private readonly icons?: TreeIcons) {
    this.subscriptions.push(
      host.onDidChangeServers(() => this.changed.fire(undefined)),
      host.onDidChangeState(({ server, state }) => {
        if (state.kind !== 'running') {
          this.pages.delete(server);
          this.signatures.delete(server);
        }
        this.changed.fire(undefined);
      }),
      host.onDidChangeCatalogue(({ server, catalogue }) => {
        // The first catalogue of a session, or a change of tools/prompts only, keeps the loaded pages.
        const sig = `${catalogue.resources.length}\n${catalogue.resources.map(r => r.uri).join('\n')}`;
        const prev = this.signatures.get(server);
        this.signatures.set(server, sig);
        if (prev !== undefined && prev !== sig) this.reset(server);
      }),
      host.onDidUpdateResource(({ server }) => this.fireServer(server)),
      notes.onDidChange(() => this.changed.fire(undefined)),
      ...(icons ? [icons.onDidChange(() => this.changed.fire(undefined))] : []),
      this.changed,
    );
  }

  /** Drops the loaded pages of `server` (or all) and loads again from the first page. */
  reset(server?: string): void {
    if (server) this.pages.delete(server);
    else this.pages.clear();
    if (server) this.fireServer(server);
    else this.changed.fire(undefined);
  }

  /** Loads the next page of `server` (the "Load more…" item). */
  async loadMore(server: string): Promise<void> {
    const h = this.host.get(server);
    const p = this.pages.get(server);
    if (!h || !p || p.done) return;
    await this.fetch(h, p);
  }

  getTreeItem(node: McpNode): vscode.TreeItem {
    const item = toTreeItem(node, n => this.host.get(n), this.notes, this.icons);
    if (node.kind === 'server') {
      item.collapsibleState = vscode.TreeItemCollapsibleState.Collapsed;
      item.id = `resources/${node.server}`;
    } else if (item.id) {
      item.id = `resources/${item.id}`;
    }
    return item;
  }

  async getChildren(node?: McpNode): Promise<McpNode[]> {
    if (!node) {
      return this.host.servers
        .filter(h => h.state.kind === 'running' && h.state.capabilities.resources)
        .map(h => this.serverNode(h.name));
    }
    if (node.kind !== 'server') return [];
    const h = this.host.get(node.server);
    if (!h || h.state.kind !== 'running') return [];
    let p = this.pages.get(h.name);
    // A reset (list_changed) while a page loads replaces the entry: load the new first page then.
    for (let tries = 0; tries < 3; tries++) {
      if (!p || p.since !== h.state.since) {
        p = { since: h.state.since, items: [], done: false };
        this.pages.set(h.name, p);
        await this.fetch(h, p, false);
      } else if (p.loading) {
        await p.loading;
      }
      const current = this.pages.get(h.name);
      if (current === p) break;
      p = current;
    }
    if (!p) return [];
    const out: McpNode[] = p.items.map(resource => ({ kind: 'resource', server: h.name, resource }));
    if (p.error) out.push({ kind: 'message', server: h.name, text: p.error, error: true });
    else if (!p.done) out.push({ kind: 'loadMore', server: h.name });
    else if (!out.length) out.push({ kind: 'message', server: h.name, text: vscode.l10n.t('No resources') });
    return out;
  }

  getParent(node: McpNode): McpNode | undefined {
    return node.kind === 'server' ? undefined : this.serverNode(node.server);
  }

  /** Resources loaded so far for `server` (for tests and pickers). */
  loaded(server: string): readonly Resource[] {
    return this.pages.get(server)?.items ?? [];
  }

  private fetch(h: ServerHandle, p: Pages, notify = true): Promise<void> {
    p.loading ??= (async () => {
      try {
        const page = await h.listResourcesPage(p.cursor);
        if (this.pages.get(h.name) !== p) return;
        p.items.push(...page.resources);
        p.cursor = page.nextCursor;
        p.done = !page.nextCursor;
        p.error = undefined;
      } catch (err) {
        p.error = vscode.l10n.t('Could not list resources: {0}', err instanceof Error ? err.message : String(err));
      } finally {
        p.loading = undefined;
      }
      if (notify) this.fireServer(h.name);
    })();
    return p.loading;
  }

  private serverNode(server: string): McpNode & { kind: 'server' } {
    let n = this.nodes.get(server);
    if (!n) this.nodes.set(server, n = { kind: 'server', server });
    return n;
  }

  private fireServer(server: string): void {
    this.changed.fire(this.nodes.has(server) ? this.serverNode(server) : undefined);
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
