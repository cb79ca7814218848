import * as os from 'node:os';
import * as vscode from 'vscode';
import { parse as parseJsonc } from 'jsonc-parser';
import type { ConfigError, HostApi, InputDefinition, ServerDefinition } from '../mcp';
import { parseInputs, parseServers, type RawServer } from '../mcp/config/validate';
import { resolveServer, type ResolveContext } from '../mcp/config/variables';
import type { ServerAnnotations } from '../views/nodes';
import type { LaunchConsent } from './consent';
import type { InputStore } from './inputs';

type Origin = 'user' | 'workspace';

/**
 * Settings → definitions → `host.reconcile`, with the editor's gates on top: Workspace Trust (no
 * server from workspace settings starts in Restricted Mode), launch consent for workspace stdio
 * servers, and `${input:}` values. A held-back server stays in the host as a stopped server with a
 * reason the views show; starting it explicitly asks what is missing.
 */
export class ServerController implements ServerAnnotations, vscode.Disposable {
  private readonly blocked = new Map<string, string>();
  private readonly origins = new Map<string, Origin>();
  private readonly subscribed = new Map<string, Set<string>>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private queue: Promise<void> = Promise.resolve();
  private readonly promptFor = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [this.changed];
  /** The problems of the last sync (invalid settings, unresolvable variables). */
  errors: ConfigError[] = [];
  private restricted: string[] = [];
  private decided!: (at: number) => void;
  /**
   * `performance.now()` when the first sync had `host.reconcile` decide what starts (settings read,
   * variables resolved, trust and consent applied, starts issued; not the servers' own start-up).
   */
  readonly firstReconcile = new Promise<number>(resolve => { this.decided = resolve; });

  constructor(
    private readonly host: HostApi,
    private readonly consent: LaunchConsent,
    private readonly inputs: InputStore,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('mcpHost')) void this.sync(); }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.sync()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.sync()),
      toVs(host.onDidChangeState(({ server, state }) => {
        if (state.kind !== 'running' && this.subscribed.delete(server)) this.changed.fire();
      })),
    );
  }

  /** Re-reads the settings and reconciles (serialised: concurrent calls run one after another). */
  sync(): Promise<void> {
    this.queue = this.queue.then(() => this.doSync(), err => this.log.error(`sync failed: ${String(err)}`));
    return this.queue;
  }

  /**
   * Starts a server, first clearing what holds it back (asks for launch consent or inputs; refuses
   * in Restricted Mode with a readable message). Rejects with a readable error when it cannot start.
   */
  async start(name: string): Promise<void> {
    await this.queue;
    const h = this.host.get(name);
    if (!h) throw new Error(`No MCP server named "${name}" is configured.`);
    const origin = this.origins.get(name);
    if (origin === 'workspace' && !vscode.workspace.isTrusted) {
      throw new Error(`"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`);
    }
    if (this.blocked.has(name)) {
      this.promptFor.add(name);
      try { await this.sync(); } finally { this.promptFor.delete(name); }
      const reason = this.blocked.get(name);
      const def = this.host.get(name)?.definition;
      if (reason?.startsWith('needs input')) throw new Error(`"${name}" ${reason}.`);
      if (reason && origin === 'workspace' && def?.type === 'stdio' && !(await this.consent.ensure(def))) {
        this.block(name, 'launch not allowed (start it to be asked again)');
        throw new Error(`Launching "${name}" was not allowed.`);
      }
      this.unblock(name);
    }
    await this.host.get(name)?.start();
  }

  configProblems(): string[] {
    return this.errors.map(e => e.message);
  }

  restrictedServers(): string[] {
    return this.restricted;
  }

  blockedReason(server: string): string | undefined {
    return this.blocked.get(server);
  }

  /** Where a server's definition came from. */
  originOf(server: string): Origin | undefined {
    return this.origins.get(server);
  }

  isSubscribed(server: string, uri: string): boolean {
    return this.subscribed.get(server)?.has(uri) === true;
  }

  /** Subscribes to `resources/updated` for `uri` (only when the server declared `subscribe`). */
  async subscribe(server: string, uri: string): Promise<void> {
    await this.host.get(server)?.subscribe(uri);
    let set = this.subscribed.get(server);
    if (!set) this.subscribed.set(server, set = new Set());
    set.add(uri);
    this.changed.fire();
  }

  async unsubscribe(server: string, uri: string): Promise<void> {
    await this.host.get(server)?.unsubscribe(uri);
    this.subscribed.get(server)?.delete(uri);
    this.changed.fire();
  }

  private async doSync(): Promise<void> {
    const cfg = vscode.workspace.getConfiguration('mcpHost');
    const servers = cfg.inspect<Record<string, unknown>>('servers');
    const inputsSetting = cfg.inspect<unknown[]>('inputs');
    const trusted = vscode.workspace.isTrusted;
    const userServers = asObject(servers?.globalValue);
    const wsServers = asObject(servers?.workspaceValue);
    const merged = { ...userServers, ...wsServers };
    this.origins.clear();
    for (const n of Object.keys(merged)) this.origins.set(n, n in wsServers ? 'workspace' : 'user');

    const parsed = parseServers(merged);
    const inputs = parseInputs([...asArray(inputsSetting?.globalValue), ...(trusted ? asArray(inputsSetting?.workspaceValue) : [])]);
    const errors = [...parsed.errors, ...inputs.errors];
    const warnings = [...parsed.warnings];
    const autoStartAll = cfg.get<boolean>('autoStart', true);
    const timeouts = { startup: cfg.get<number>('timeout.startup', 30000), request: cfg.get<number>('timeout.request', 60000) };

    const defs: ServerDefinition[] = [];
    const ask: ServerDefinition[] = [];
    const blocked = new Map<string, string>();
    for (const raw of parsed.servers) {
      const origin = this.origins.get(raw.name) ?? 'user';
      const wantsStart = raw.autoStart ?? autoStartAll;
      const mayPrompt = (wantsStart || this.promptFor.has(raw.name)) && (origin === 'user' || trusted);
      const missing: string[] = [];
      const r = await resolveServer(raw, this.context(inputs.inputs, raw, mayPrompt, missing));
      warnings.push(...r.warnings);
      if (!r.definition) { errors.push(...r.errors); continue; }
      let def: ServerDefinition = { ...r.definition, autoStart: wantsStart, timeout: { ...timeouts, ...r.definition.timeout } };
      let reason: string | undefined;
      if (origin === 'workspace' && !trusted) reason = 'Restricted Mode: trust the workspace to start it';
      else if (missing.length) reason = `needs input ${missing.map(i => `\${input:${i}}`).join(', ')}`;
      else if (origin === 'workspace' && def.type === 'stdio' && !this.consent.isAllowed(def)) {
        reason = this.consent.wasDenied(def) ? 'launch not allowed (start it to be asked again)' : 'waiting for launch consent';
        if (wantsStart && !this.consent.wasDenied(def)) ask.push(def);
      }
      if (reason) {
        blocked.set(def.name, reason);
        def = { ...def, autoStart: false };
      }
      defs.push(def);
    }
    this.blocked.clear();
    for (const [k, v] of blocked) this.blocked.set(k, v);
    this.restricted = trusted ? [] : (await workspaceServerNames()).filter(n => !(n in merged));
    this.errors = errors;
    this.changed.fire();
    for (const e of errors) this.log.error(`${e.path}: ${e.message}`);
    this.notifyProblems(errors);
    for (const w of warnings) this.log.warn(`${w.path}: ${w.message}`);
    await vscode.commands.executeCommand('setContext', 'mcpHost.hasServers', Object.keys(merged).length + this.restricted.length > 0);
    this.log.info(`settings: ${defs.length} server(s)${defs.length ? ` (${defs.map(d => d.name + (blocked.has(d.name) ? ` – ${blocked.get(d.name)}` : '')).join(', ')})` : ''}`);
    const reconciled = this.host.reconcile(defs, errors);
    this.decided(performance.now());
    for (const def of ask) void this.askConsent(def);
    await reconciled;
  }

  private lastProblems = '';

  /** One notification per new set of settings problems (not on every sync). */
  private notifyProblems(errors: ConfigError[]): void {
    const key = errors.map(e => e.message).join('\n');
    if (key === this.lastProblems) return;
    this.lastProblems = key;
    if (!errors.length) return;
    const open = 'Open Settings';
    void vscode.window.showWarningMessage(
      errors.length === 1 ? `MCP settings: ${errors[0].message}` : `MCP settings have ${errors.length} problems; the Servers view lists them.`, open,
    ).then(pick => { if (pick === open) void vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile'); });
  }

  private async askConsent(def: ServerDefinition): Promise<void> {
    if (def.type !== 'stdio') return;
    const ok = await this.consent.ensure(def);
    const current = this.host.get(def.name);
    if (!current || current.definition.type !== 'stdio') return;
    if (!ok) {
      this.block(def.name, 'launch not allowed (start it to be asked again)');
      return;
    }
    this.unblock(def.name);
    try {
      await current.start();
    } catch {
      // State and log line already tell the user.
    }
  }

  private context(inputs: InputDefinition[], raw: RawServer, mayPrompt: boolean, missing: string[]): ResolveContext {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => ({ name: f.name, path: f.uri.fsPath }));
    return {
      workspaceFolders: folders,
      definingFolder: this.origins.get(raw.name) === 'workspace' && !vscode.workspace.workspaceFile ? folders[0] : undefined,
      userHome: os.homedir(),
      env: process.env,
      inputs,
      resolveInput: async input => {
        if (mayPrompt) {
          try { return await this.inputs.resolve(input, raw.name); } catch { /* cancelled */ }
        } else {
          const stored = await this.inputs.stored(input.id);
          if (stored !== undefined) return stored;
        }
        missing.push(input.id);
        return '';
      },
    };
  }

  private block(name: string, reason: string): void {
    this.blocked.set(name, reason);
    this.changed.fire();
  }

  private unblock(name: string): void {
    if (this.blocked.delete(name)) this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * Names under `mcpHost.servers` in the workspace's settings files. In Restricted Mode VS Code hides
 * restricted settings from extensions; the names (never the commands) let the view say what is held back.
 */
async function workspaceServerNames(): Promise<string[]> {
  const files = vscode.workspace.workspaceFile?.scheme === 'file'
    ? [vscode.workspace.workspaceFile]
    : (vscode.workspace.workspaceFolders ?? []).map(f => vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json'));
  const names = new Set<string>();
  for (const f of files) {
    try {
      const doc = asObject(parseJsonc(Buffer.from(await vscode.workspace.fs.readFile(f)).toString('utf8')));
      const settings = f === vscode.workspace.workspaceFile ? asObject(doc.settings) : doc;
      for (const n of Object.keys(asObject(settings['mcpHost.servers']))) names.add(n);
    } catch {
      // No settings file: nothing held back.
    }
  }
  return [...names];
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function toVs(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}
