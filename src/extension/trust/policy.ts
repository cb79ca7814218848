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
import { BoundedReadError, readBoundedText, parseJsonc, loadPolicy, policyBreakMessage, MAX_POLICY_BYTES, platformPolicyFile, type McpAccess, type OrgPolicy } from '../../mcp';
import { DEFAULT_REGISTRY_URL, registryUrl } from '../settings';

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
  const effective = policyValue('access');
  if (effective === undefined) return standIn.access;
  return effective === 'none' || effective === 'registry' || effective === 'all' ? effective : undefined;
}

/** A `chat.mcp.*` value an organisation's policy sets (the effective value is not what the settings scopes say). */
function policyValue(key: string): unknown {
  const c = vscode.workspace.getConfiguration('chat.mcp');
  const i = c.inspect<unknown>(key);
  const effective = c.get<unknown>(key);
  const fromScopes = i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue ?? i?.defaultValue;
  return effective === fromScopes ? undefined : effective;
}

/**
 * The registry MCP Host installs from, and the one `chat.mcp.access: registry` counts servers from: VS Code's
 * private-registry policy (`chat.mcp.gallery.serviceUrl`, policy `McpGalleryServiceUrl`) when an organisation sets
 * it, else `mcpHost.registry.url` (user settings), else the public MCP Registry.
 */
export function configuredRegistry(): string {
  const set = policyValue('gallery.serviceUrl') ?? standIn.gallery;
  return typeof set === 'string' && set.trim() ? set.trim() : registryUrl() ?? DEFAULT_REGISTRY_URL;
}

/**
 * The tests' stand-in for VS Code's own policy values, which a test cannot set in the editor it runs: with
 * `MCP_HOST_POLICY_ROOT` (set by the editor harness alone, like the platform folder it replaces), the file
 * `vscode-policy.json` there may give `chat.mcp.access` and `chat.mcp.gallery.serviceUrl`. A real policy wins; without
 * the variable nothing is read.
 */
export const STAND_IN_FILE = 'vscode-policy.json';
let standIn: { access?: McpAccess; gallery?: string } = {};

async function readStandIn(root: string | undefined): Promise<typeof standIn> {
  // No file (the common case, as for the real policy file below): known at once, so the first settings sync does not
  // wait for I/O before it decides what starts (issue 41: it no longer overlaps the installation key's read).
  if (!root || !fs.existsSync(path.join(root, STAND_IN_FILE))) return {};
  try {
    const { value } = parseJsonc(await readBoundedText(path.join(root, STAND_IN_FILE), { maxBytes: MAX_POLICY_BYTES, what: 'policyFile' }), STAND_IN_FILE);
    const v = (value ?? {}) as Record<string, unknown>;
    const access = v['chat.mcp.access'];
    const gallery = v['chat.mcp.gallery.serviceUrl'];
    return {
      ...(access === 'none' || access === 'registry' || access === 'all' ? { access } : {}),
      ...(typeof gallery === 'string' && gallery ? { gallery } : {}),
    };
  } catch (err) {
    // Missing: none. Anything else fails closed, as a broken policy would.
    return err instanceof BoundedReadError && err.kind === 'missing' ? {} : { access: 'none' };
  }
}

export class OrgPolicyWatcher implements vscode.Disposable {
  private loading!: Promise<OrgPolicy>;
  /** The policy last read, once it is known (at once when there is no file to read); undefined while one is read. */
  private loaded: OrgPolicy | undefined;
  private watcher: fs.FSWatcher | undefined;
  private watched: string | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** The policy changed (file, setting or access policy): the servers are reconciled again. */
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [];
  private generation = 0;

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.setLoading(this.load());
    this.subs.push(vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration('mcpHost.policy.file') || e.affectsConfiguration('chat.mcp.access') || e.affectsConfiguration('chat.mcp.gallery.serviceUrl')
        || e.affectsConfiguration('mcpHost.registry.url')) this.reload();
    }));
  }

  /** The policy to apply now (the last one read; the first read is awaited). */
  async current(): Promise<OrgPolicy> {
    return this.withAccess(await this.loading);
  }

  /**
   * The policy to apply now when it is known without waiting (no policy file to read, the common case), else undefined
   * (then `current()`). Issue 41: the first settings sync runs in activation's own turn, and an `await` there lets
   * every other extension activating in that turn run first (15 ms of the thread's CPU measured).
   */
  currentNow(): OrgPolicy | undefined {
    return this.loaded && this.withAccess(this.loaded);
  }

  private withAccess(p: OrgPolicy): OrgPolicy {
    const access = accessPolicy();
    return access ? { ...p, access } : p;
  }

  private setLoading(next: OrgPolicy | Promise<OrgPolicy>): void {
    if (!(next instanceof Promise)) {
      this.loaded = next;
      this.loading = Promise.resolve(next);
      return;
    }
    this.loaded = undefined;
    this.loading = next;
    void next.then(p => { if (this.loading === next) this.loaded = p; }, () => undefined);
  }

  private reload(): void {
    this.setLoading(this.load());
    void this.loading.then(() => this.changed.fire());
  }

  private load(): OrgPolicy | Promise<OrgPolicy> {
    const file = policyFile();
    this.watch(file);
    const root = process.env.MCP_HOST_POLICY_ROOT;
    if (root) {
      // Only the newest read sets the stand-in: an older one (the file's creation event, read while still empty) may
      // end after it.
      const generation = ++this.generation;
      // Neither file there (the common case): known at once, as below.
      if (!fs.existsSync(file) && !fs.existsSync(path.join(root, STAND_IN_FILE))) {
        standIn = {};
        return { denied: [] };
      }
      return Promise.all([fs.existsSync(file) ? this.read(file) : { denied: [] }, readStandIn(root)]).then(([p, s]) => {
        if (generation === this.generation) standIn = s;
        return p;
      });
    }
    // No file is the common case: known at once (a stat, which never blocks on the path), so the first sync reaches
    // reconcile in the activation's own turn (no I/O wait before it); a file that is there is read through the bounded
    // reader, and the first sync waits for it.
    if (!fs.existsSync(file)) return { denied: [] };
    return this.read(file);
  }

  private async read(file: string): Promise<OrgPolicy> {
    const p = await loadPolicy(file);
    if (p.broken) this.log.error(policyBreakMessage(p.broken));
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
        if (!name || name.toString() === path.basename(file) || name.toString() === STAND_IN_FILE) this.reload();
      });
      // A watcher that failed is closed and forgotten: the next load (a setting or policy change) arms a new one.
      this.watcher.on('error', () => { this.watcher?.close(); this.watcher = undefined; this.watched = undefined; });
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
