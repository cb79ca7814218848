import * as os from 'node:os';
import * as vscode from 'vscode';
import { failureKey, type SeenFailures } from './failureNotice';
import type { McpJsonWatcher } from './coexistence';
import { parse as parseJsonc } from 'jsonc-parser';
import type { ConfigError, HostApi, InputDefinition, ServerDefinition } from '../mcp';
import { parseInputs, parseServers, type RawServer } from '../mcp/config/validate';
import { fingerprint, resolveServer, type ResolveContext } from '../mcp/config/variables';
import type { ServerAnnotations } from '../views/nodes';
import type { InputUse, LaunchConsent } from './consent';
import { currentWorkspaceScope, scopeKey, type InputScope, type InputStore } from './inputs';
import type { ServerIdentity } from './identity';

type Origin = 'user' | 'workspace';

/** The pseudo-server name settings problems are remembered under (SeenFailures). */
const SETTINGS_PROBLEMS = '(settings)';

const DENIED = 'launch not allowed (start it to be asked again)';
const WAITING = 'waiting for launch consent';

/**
 * Settings → definitions → `host.reconcile`, with the editor's gates on top: Workspace Trust (no
 * server from workspace settings starts in Restricted Mode), launch consent for workspace stdio
 * servers, and `${input:}` values. A held-back server stays in the host as a stopped server with a
 * reason the views show; starting it explicitly asks what is missing.
 */
export class ServerController implements ServerAnnotations, vscode.Disposable {
  private readonly blocked = new Map<string, string>();
  private readonly origins = new Map<string, Origin>();
  /** Servers defined in a folder's own settings (multi-root), by server name. */
  private readonly folders = new Map<string, string>();
  private readonly raws = new Map<string, RawServer>();
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
    const [err] = await this.startMany([name]);
    if (err) throw err;
  }

  /**
   * The one gate every explicit start passes (Start, Start All, Restart, chat buttons, commands): clears
   * what holds each server back, asking consent for all of them in one dialog, then starts the ones
   * allowed (or restarts them with `restart`). Resolves one error (or undefined) per name, in order.
   */
  async startMany(names: string[], restart = false): Promise<(Error | undefined)[]> {
    const errors = await this.clearGates(names);
    await Promise.all(names.map(async (name, i) => {
      if (errors[i]) return;
      const h = this.host.get(name);
      try {
        if (restart && h && h.state.kind !== 'stopped') await h.restart();
        else await h?.start();
      } catch (err) {
        errors[i] = err instanceof Error ? err : new Error(String(err));
      }
    }));
    return errors;
  }

  /** Restarts a server through the same gate as a start: a server held back asks again first. */
  async restart(name: string): Promise<void> {
    const [err] = await this.startMany([name], true);
    if (err) throw err;
  }

  private async clearGates(names: string[]): Promise<(Error | undefined)[]> {
    await this.queue;
    const errors: (Error | undefined)[] = names.map(name => {
      if (!this.host.get(name)) return new Error(`No MCP server named "${name}" is configured.`);
      if (this.origins.get(name) === 'workspace' && !vscode.workspace.isTrusted) {
        return new Error(`"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`);
      }
      return undefined;
    });
    const held = names.filter((n, i) => !errors[i] && (this.blocked.has(n) || this.waitsForConsent(n)));
    if (!held.length) return errors;
    for (const n of held) this.promptFor.add(n);
    try { await this.sync(); } finally { for (const n of held) this.promptFor.delete(n); }
    const ask: string[] = [];
    names.forEach((name, i) => {
      if (errors[i] || !held.includes(name)) return;
      const reason = this.blocked.get(name);
      if (reason?.startsWith('needs input')) errors[i] = new Error(`"${name}" ${reason}.`);
      else if (this.waitsForConsent(name)) ask.push(name);
      else if (reason && reason !== WAITING && reason !== DENIED) errors[i] = new Error(`"${name}": ${reason}.`);
      else this.unblock(name);
    });
    if (ask.length) {
      const defs = ask.map(n => this.host.get(n)!.definition);
      const answers = await this.consent.ensureAll(defs.map(def => ({ def, uses: this.usesOf(def.name) })));
      ask.forEach((name, k) => {
        const i = names.indexOf(name);
        if (answers[k]) this.unblock(name);
        else {
          this.block(name, DENIED);
          errors[i] = new Error(`Launching "${name}" was not allowed.`);
        }
      });
    }
    return errors;
  }

  /** True when `name` is a workspace server that needs launch consent it does not have. */
  private waitsForConsent(name: string): boolean {
    const def = this.host.get(name)?.definition;
    return !!def && this.needsConsent(def) && !this.consent.isAllowed(def);
  }

  /** Workspace stdio servers, and workspace http/sse servers that send `${input:}` values or headers. */
  private needsConsent(def: ServerDefinition): boolean {
    if (this.origins.get(def.name) !== 'workspace') return false;
    if (def.type === 'stdio') return true;
    return Object.keys(def.headers ?? {}).length > 0 || (def.secrets?.length ?? 0) > 0 || this.usesOf(def.name).length > 0;
  }

  /** Which `${input:}` ids go where in a server's settings (for the consent dialog). */
  private usesOf(name: string): InputUse[] {
    const raw = this.raws.get(name);
    return raw ? inputUses(raw) : [];
  }

  /** Where a server is defined plus its definition fingerprint (undefined for an unknown server). */
  identity(name: string): ServerIdentity | undefined {
    const def = this.host.get(name)?.definition;
    const scope = this.origins.get(name);
    if (!def || !scope) return undefined;
    return { scope, scopeKey: scope === 'user' ? 'user' : scopeKey(currentWorkspaceScope()), name, fingerprint: fingerprint(def) };
  }

  configProblems(): string[] {
    return this.errors.map(e => e.message);
  }

  restrictedServers(): string[] {
    return this.restricted;
  }

  private coexistence?: McpJsonWatcher;
  /** Servers waiting for their first use (`mcpHost.startup: lazy`). */
  private readonly lazy = new Set<string>();

  waitsForUse(server: string): boolean {
    return this.lazy.has(server) && this.host.get(server)?.state.kind === 'stopped';
  }

  /** First use of a lazy server (expanding it, a chat request): start it, once. */
  startOnUse(server: string): void {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    void this.start(server).catch(err => this.log.warn(`${server}: could not start on first use: ${err instanceof Error ? err.message : String(err)}`));
  }

  /** First use by a command: start it and resolve once it runs (or failed). */
  async startOnUseAndWait(server: string): Promise<void> {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    await this.start(server);
  }

  /** Starts every server still waiting for its first use and resolves once each runs or failed (bounded). */
  async startWaiting(timeoutMs = 30_000): Promise<void> {
    const names = [...this.lazy].filter(n => this.waitsForUse(n));
    if (!names.length) return;
    names.forEach(n => this.lazy.delete(n));
    await Promise.race([this.startMany(names), new Promise(r => setTimeout(r, timeoutMs))]);
  }

  /** Watches `.vscode/mcp.json` for servers VS Code itself also starts (the views say so). */
  watchCoexistence(w: McpJsonWatcher): void {
    this.coexistence = w;
    this.disposables.push(w.onDidChange(() => this.changed.fire()));
  }

  alsoIn(server: string): string | undefined {
    return this.origins.has(server) ? this.coexistence?.alsoIn(server) : undefined;
  }

  blockedReason(server: string): string | undefined {
    return this.blocked.get(server);
  }

  /** Multi-root: the folder whose own settings define `server`, if one does. */
  folderOf(server: string): string | undefined {
    return this.folders.get(server);
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
    const merged: Record<string, unknown> = { ...userServers, ...wsServers };
    this.origins.clear();
    for (const n of Object.keys(merged)) this.origins.set(n, n in wsServers ? 'workspace' : 'user');
    // Multi-root: a folder's own `.vscode/settings.json` servers run for that folder (its name qualifies a
    // server whose name is taken already; its roots default to that folder; `${workspaceFolder}` is that folder).
    this.folders.clear();
    if (vscode.workspace.workspaceFile) {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        const own = asObject(vscode.workspace.getConfiguration('mcpHost', folder.uri).inspect<Record<string, unknown>>('servers')?.workspaceFolderValue);
        for (const [n, def] of Object.entries(own)) {
          const name = n in merged ? `${folder.name}/${n}` : n;
          const raw = asObject(def);
          merged[name] = raw.roots === undefined && def && typeof def === 'object' ? { ...raw, roots: [folder.name] } : def;
          this.origins.set(name, 'workspace');
          this.folders.set(name, folder.name);
        }
      }
    }

    const parsed = parseServers(merged);
    this.raws.clear();
    for (const raw of parsed.servers) this.raws.set(raw.name, raw);
    // Inputs belong to the scope that declares them: a workspace server sees the workspace's inputs
    // (values kept for this workspace only), a user server the user's.
    const userInputs = parseInputs(inputsSetting?.globalValue ?? []);
    const wsInputs = trusted ? parseInputs(inputsSetting?.workspaceValue ?? []) : { inputs: [], errors: [] };
    const errors = [...parsed.errors, ...userInputs.errors, ...wsInputs.errors];
    const warnings = [...parsed.warnings];
    const autoStartAll = cfg.get<boolean>('autoStart', true);
    // `mcpHost.startup: lazy`: servers that would start now wait for their first use instead.
    const lazy = cfg.get<string>('startup', 'eager') === 'lazy';
    this.lazy.clear();
    const timeouts = { startup: cfg.get<number>('timeout.startup', 30000), request: cfg.get<number>('timeout.request', 60000) };
    const sandboxDefault = cfg.inspect<boolean>('sandbox.default')?.globalValue === true;

    const defs: ServerDefinition[] = [];
    const ask: ServerDefinition[] = [];
    const blocked = new Map<string, string>();
    for (const raw of parsed.servers) {
      const origin = this.origins.get(raw.name) ?? 'user';
      const waits = lazy && raw.autoStart === undefined && autoStartAll && this.host.get(raw.name)?.state.kind !== 'running';
      if (waits) this.lazy.add(raw.name);
      const wantsStart = waits ? false : raw.autoStart ?? autoStartAll;
      const mayPrompt = (wantsStart || this.promptFor.has(raw.name)) && (origin === 'user' || trusted);
      const missing: string[] = [];
      const scoped = origin === 'workspace'
        ? { inputs: wsInputs.inputs, scope: currentWorkspaceScope() }
        : { inputs: userInputs.inputs, scope: { kind: 'user' } as InputScope };
      const r = await resolveServer(raw, this.context(scoped.inputs, scoped.scope, raw, mayPrompt, missing));
      warnings.push(...r.warnings);
      if (!r.definition) { errors.push(...r.errors); continue; }
      let def: ServerDefinition = { ...r.definition, autoStart: wantsStart, timeout: { ...timeouts, ...r.definition.timeout } };
      // mcpHost.sandbox.default (user settings only): workspace stdio servers run sandboxed unless they say otherwise.
      if (origin === 'workspace' && def.type === 'stdio' && def.sandboxEnabled === undefined && sandboxDefault) def = { ...def, sandboxEnabled: true };
      let reason: string | undefined;
      if (origin === 'workspace' && !trusted) reason = 'Restricted Mode: trust the workspace to start it';
      else if (missing.length) reason = `needs input ${missing.map(i => `\${input:${i}}`).join(', ')}`;
      else if (this.needsConsent(def) && !this.consent.isAllowed(def)) {
        reason = this.consent.wasDenied(def) ? DENIED : WAITING;
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
    // A round trip to the workbench: not awaited, so deciding what starts never waits on it.
    void vscode.commands.executeCommand('setContext', 'mcpHost.hasServers', Object.keys(merged).length + this.restricted.length > 0)
      .then(undefined, err => this.log.warn(`setContext failed: ${String(err)}`));
    this.log.info(`settings: ${defs.length} server(s)${defs.length ? ` (${defs.map(d => d.name + (blocked.has(d.name) ? ` – ${blocked.get(d.name)}` : '')).join(', ')})` : ''}`);
    // Nothing held back keeps running (e.g. consent was reset or denied, or its inputs are gone).
    await Promise.all([...blocked.keys()].map(async name => {
      const h = this.host.get(name);
      if (h && h.state.kind !== 'stopped') {
        this.log.info(`${name}: stopped (${blocked.get(name)})`);
        await h.stop();
      }
    }));
    const reconciled = this.host.reconcile(defs, errors);
    this.decided(performance.now());
    if (ask.length) void this.askConsent(ask);
    await reconciled;
  }

  private lastProblems = '';
  /** Settings problems shown before (across reloads); set by the extension. */
  seenProblems?: SeenFailures;

  /** One notification per new set of settings problems (not on every sync, not again after a reload). */
  private notifyProblems(errors: ConfigError[]): void {
    const key = errors.map(e => e.message).join('\n');
    if (key === this.lastProblems) return;
    this.lastProblems = key;
    if (!errors.length) { void this.seenProblems?.forget(SETTINGS_PROBLEMS); return; }
    const seenKey = failureKey(SETTINGS_PROBLEMS, key);
    if (this.seenProblems?.has(seenKey)) return;
    void this.seenProblems?.forget(SETTINGS_PROBLEMS).then(() => this.seenProblems?.add(seenKey));
    const open = 'Open Settings';
    void vscode.window.showWarningMessage(
      errors.length === 1 ? `MCP settings: ${errors[0].message}` : `MCP settings have ${errors.length} problems; the Servers view lists them.`, open,
    ).then(pick => { if (pick === open) void vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile'); });
  }

  /** Asks consent for the servers an automatic start waits for (one dialog for several), then starts the allowed ones. */
  private async askConsent(defs: ServerDefinition[]): Promise<void> {
    const answers = await this.consent.ensureAll(defs.map(def => ({ def, uses: this.usesOf(def.name) })));
    await Promise.all(defs.map(async (def, i) => {
      const current = this.host.get(def.name);
      if (!current || fingerprint(current.definition) !== fingerprint(def)) return;
      if (!answers[i]) {
        this.block(def.name, DENIED);
        if (current.state.kind !== 'stopped') await current.stop();
        return;
      }
      this.unblock(def.name);
      try {
        await current.start();
      } catch {
        // State and log line already tell the user.
      }
    }));
  }

  private context(inputs: InputDefinition[], scope: InputScope, raw: RawServer, mayPrompt: boolean, missing: string[]): ResolveContext {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => ({ name: f.name, path: f.uri.fsPath }));
    return {
      workspaceFolders: folders,
      definingFolder: this.folders.get(raw.name) ?? (this.origins.get(raw.name) === 'workspace' && !vscode.workspace.workspaceFile ? folders[0] : undefined),
      userHome: os.homedir(),
      env: process.env,
      inputs,
      resolveInput: async input => {
        if (mayPrompt) {
          try { return await this.inputs.resolve(input, scope, raw.name); } catch { /* cancelled */ }
        } else {
          const stored = await this.inputs.stored(input.id, scope);
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

/** Which `${input:}` ids each part of a server's settings uses (for the consent dialog; values never shown). */
export function inputUses(raw: RawServer): InputUse[] {
  const ids = (...texts: (string | null | undefined)[]) => [...new Set(texts.flatMap(t => [...(t ?? '').matchAll(/\$\{input:([^}]+)\}/g)].map(m => m[1])))];
  const out: InputUse[] = [
    { where: 'command', inputs: ids(raw.command) },
    { where: 'args', inputs: ids(...(raw.args ?? [])) },
    { where: 'cwd', inputs: ids(raw.cwd) },
    { where: 'envFile', inputs: ids(raw.envFile) },
    ...Object.entries(raw.env ?? {}).map(([k, v]) => ({ where: `env ${k}`, inputs: ids(v) })),
    { where: 'URL', inputs: ids(raw.url) },
    ...Object.entries(raw.headers ?? {}).map(([k, v]) => ({ where: `header ${k}`, inputs: ids(v) })),
  ];
  return out.filter(u => u.inputs.length);
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {};
}

function toVs(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}
