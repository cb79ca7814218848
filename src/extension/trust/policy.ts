/**
 * The organisation's MCP policy in the editor (issue 40): the platform's managed-settings file (or the file the
 * machine-scope `mcpHost.policy.file` names, which no workspace can set) and VS Code's `chat.mcp.access` when a
 * policy sets it. Read once at activation and again whenever the file, the setting or the access policy changes;
 * the server controller asks {@link OrgPolicyWatcher.current} before every reconcile and {@link applyPolicy}
 * (src/mcp/policy/orgPolicy.ts, the CLI's rule too) turns what it blocks into configuration problems.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { loadPolicy, platformPolicyFile, type McpAccess, type OrgPolicy } from '../../mcp';

/** The policy file: `mcpHost.policy.file` from machine (user) scope only, else the platform's. */
export function policyFile(): string {
  const set = vscode.workspace.getConfiguration('mcpHost').inspect<string>('policy.file')?.globalValue;
  return typeof set === 'string' && set.trim() ? set.trim() : platformPolicyFile();
}

/**
 * `chat.mcp.access` when an organisation's policy sets it: the effective value differs from what the settings scopes
 * say. A workspace's own value is never a policy (MCP Host's "Disable There" writes `none` there to turn VS Code's
 * copy of the servers off).
 */
export function accessPolicy(): McpAccess | undefined {
  const c = vscode.workspace.getConfiguration('chat.mcp');
  const i = c.inspect<unknown>('access');
  const effective = c.get<unknown>('access');
  const fromScopes = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue ?? i?.defaultValue;
  if (effective === fromScopes) return undefined;
  return effective === 'none' || effective === 'registry' || effective === 'all' ? effective : undefined;
}

export class OrgPolicyWatcher implements vscode.Disposable {
  private loading: Promise<OrgPolicy>;
  private watcher: fs.FSWatcher | undefined;
  private watched: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The policy changed (file, setting or access policy): the servers are reconciled again. */
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.loading = this.load();
    this.subs.push(vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('mcpHost.policy.file') || e.affectsConfiguration('chat.mcp.access')) this.reload();
    }));
  }

  /** The policy to apply now (the last one read; the first read is awaited). */
  async current(): Promise<OrgPolicy> {
    const p = await this.loading;
    const access = accessPolicy();
    return access ? { ...p, access } : p;
  }

  private reload(): void {
    this.loading = this.load();
    void this.loading.then(() => this.changed.fire());
  }

  private load(): Promise<OrgPolicy> {
    const file = policyFile();
    this.watch(file);
    // No file is the common case: known at once (a stat, which never blocks on the path), so the first sync reaches
    // reconcile in the activation's own turn (no I/O wait before it); a file that is there is read through the bounded
    // reader, and the first sync waits for it.
    if (!fs.existsSync(file)) return Promise.resolve({ denied: [] });
    return this.read(file);
  }

  private async read(file: string): Promise<OrgPolicy> {
    const p = await loadPolicy(file);
    if (p.broken) this.log.error(p.broken);
    else if (p.source) this.log.info(`organisation policy: ${p.source} (${p.allowed ? `${p.allowed.length} allowed` : 'no allow-list'}, ${p.denied.length} denied)`);
    return p;
  }

  /** Watches the policy file's folder (the file may be created, replaced or removed). */
  private watch(file: string): void {
    const dir = path.dirname(file);
    if (this.watched === dir) return;
    this.watcher?.close();
    this.watcher = undefined;
    this.watched = dir;
    try {
      this.watcher = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (!name || name.toString() === path.basename(file)) this.reload();
      });
      this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; });
    } catch {
      // No such folder: no policy now; a change of the setting or a reload of the window reads it again.
    }
  }

  dispose(): void {
    this.watcher?.close();
    this.changed.dispose();
    for (const s of this.subs) s.dispose();
  }
}
