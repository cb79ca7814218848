import * as os from 'node:os';
import * as vscode from 'vscode';
import * as settings from './settings';
import { ContextKeys } from '../views/commandIds';
import { failureKey, type SeenFailures } from './failureNotice';
import type { McpJsonWatcher } from './coexistence';
import { parse as parseJsonc } from 'jsonc-parser';
import { definitionKey, type ConfigError, type HostApi, type InputDefinition, type ServerDefinition } from '../mcp';
import { parseInputs, parseServers, type RawServer } from '../mcp/config/validate';
import { resolveServer, type ResolveContext } from '../mcp/config/variables';
import type { ServerAnnotations } from '../views/nodes';
import type { InputUse, LaunchConsent } from './consent';
import { currentWorkspaceScope, scopeKey, type InputScope, type InputStore } from './inputs';
import type { ServerIdentity } from './identity';
import { countOf } from '../mcp/logging/display';
import { toVs } from './logs';

type Origin = 'user' | 'workspace';

/** The pseudo-server name settings problems are remembered under (SeenFailures). */
const SETTINGS_PROBLEMS = '(settings)';

const DENIED = 'launch not allowed (start it to be asked again)';

/**
 * A start refused because the user did not allow the server (now, or before for this same definition). `answered`:
 * the user has just said so in the dialog, so no other message repeats it.
 */
export class ConsentDeniedError extends Error {
  constructor(readonly server: string, readonly answered = false) {
    super(`MCP server "${server}" was not allowed to start (launch consent denied). To allow it, run "MCP Host: Start Server" and choose "${server}", or use Start on it in the MCP Servers view.`);
    this.name = 'ConsentDeniedError';
  }
}
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
  /** Every "workspace not trusted" message a start command showed (text and buttons), newest last; tests read it. */
  readonly trustOffers: { text: string; actions: string[] }[] = [];
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
    // One log line per denial, wherever the dialog was asked from.
    consent.onDenied = def => this.log.info(`${def.name}: launch not allowed; it stays stopped until you start it ("MCP Host: Start Server")`);
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration(e => { if (settings.affects(e)) void this.sync(); }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.sync()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.sync()),
      toVs(host.onDidChangeState(({ server, state }) => {
        if (state.kind === 'running') this.used.add(server);
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
   * The user's own act (Start Server, the tree's Start): a denied server is asked about again.
   */
  async start(name: string): Promise<void> {
    const [err] = await this.startMany([name]);
    if (err) throw err;
  }

  /**
   * The one gate every explicit start passes (Start, Start All, Restart, chat buttons, commands): clears
   * what holds each server back, asking consent for all of them in one dialog, then starts the ones
   * allowed (or restarts them with `restart`). Resolves one error (or undefined) per name, in order.
   * `explicit: false` (a lazy start on first use, a chat request, a model's tool call) never asks about a
   * server the user denied: it gets a ConsentDeniedError naming the server and how to allow it.
   */
  async startMany(names: string[], restart = false, explicit = true): Promise<(Error | undefined)[]> {
    const errors = await this.clearGates(names, explicit);
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

  private async clearGates(names: string[], explicit: boolean): Promise<(Error | undefined)[]> {
    await this.queue;
    const errors: (Error | undefined)[] = names.map(name => {
      if (!this.host.get(name)) return new Error(`No MCP server named "${name}" is configured.`);
      if (this.origins.get(name) === 'workspace' && !vscode.workspace.isTrusted) {
        return new Error(`"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`);
      }
      // Only the user's own start asks about a denied server again (no dialog, no input box here).
      if (!explicit && this.isDenied(name)) return new ConsentDeniedError(name);
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
      const answers = await this.consent.ensureAll(defs.map(def => ({ def, uses: this.usesOf(def.name) })), { askDenied: explicit });
      ask.forEach((name, k) => {
        const i = names.indexOf(name);
        if (answers[k]) this.unblock(name);
        else {
          this.block(name, DENIED);
          errors[i] = new ConsentDeniedError(name, explicit);
        }
      });
    }
    return errors;
  }

  /** True when `name` waits for consent the user denied (or whose dialog was dismissed) for this definition. */
  isDenied(name: string): boolean {
    const def = this.host.get(name)?.definition;
    return !!def && this.waitsForConsent(name) && this.consent.wasDenied(def);
  }

  /** What a lazy start, chat or a model is told about a denied server: its name and how to allow it. */
  deniedMessage(name: string): string {
    return new ConsentDeniedError(name).message;
  }

  /** True when `name` is a workspace server that needs launch consent it does not have. */
  private waitsForConsent(name: string): boolean {
    const def = this.host.get(name)?.definition;
    return !!def && this.needsConsent(def) && !this.consent.isAllowed(def);
  }

  /** Workspace stdio servers, and workspace http/sse servers that send `${input:}` values, headers or a workload token. */
  private needsConsent(def: ServerDefinition): boolean {
    if (this.origins.get(def.name) !== 'workspace') return false;
    if (def.type === 'stdio') return true;
    return Object.keys(def.headers ?? {}).length > 0 || (def.secrets?.length ?? 0) > 0 || this.usesOf(def.name).length > 0 || !!def.workloadIdentity;
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
    return { scope, scopeKey: scope === 'user' ? 'user' : scopeKey(currentWorkspaceScope()), name, fingerprint: definitionKey(def) };
  }

  configProblems(): string[] {
    return this.errors.map(e => e.message);
  }

  restrictedServers(): string[] {
    return this.restricted;
  }

  /** Every server Restricted Mode holds back: the workspace ones it hides, and any known one it keeps from starting. */
  untrustedServers(): string[] {
    if (vscode.workspace.isTrusted) return [];
    return [...this.restricted, ...this.host.servers.filter(h => this.origins.get(h.name) === 'workspace').map(h => h.name)];
  }

  private coexistence?: McpJsonWatcher;
  /** Servers waiting for their first use (`mcpHost.startup: lazy`). */
  private readonly lazy = new Set<string>();
  /** Servers that ran in this window: in lazy mode, one the user stopped stays "stopped", never "starts on first use" again. */
  private readonly used = new Set<string>();

  /** True when `server` waits for its first use (a denied server does not: only an explicit Start asks about it). */
  waitsForUse(server: string): boolean {
    return this.lazy.has(server) && this.host.get(server)?.state.kind === 'stopped' && !this.isDenied(server);
  }

  /**
   * First use of a lazy server (expanding it, a chat request): start it, once. A use is not the user's own start:
   * the consent dialog may show the first time, never again after "Don't Allow".
   */
  startOnUse(server: string): void {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    void this.startMany([server], false, false).then(([err]) => {
      // A denial was logged once where it was answered.
      if (err && !(err instanceof ConsentDeniedError)) this.log.warn(`${server}: could not start on first use: ${err.message}`);
    });
  }

  /** First use by a command: start it and resolve once it runs (or failed). */
  async startOnUseAndWait(server: string): Promise<void> {
    if (!this.waitsForUse(server)) return;
    this.lazy.delete(server);
    const [err] = await this.startMany([server], false, false);
    if (err) throw err;
  }

  /**
   * A use that is not an explicit Start (a resource document opening, or restored after a reload): waits for the
   * settings to be read, then for a starting server; starts a server waiting for its first use (launch consent asked
   * if it was never answered). Never asks again about a server whose launch the user denied, and never starts one
   * the user stopped: rejects with a message that says what to do instead.
   */
  async ensureRunningForUse(name: string): Promise<void> {
    await this.queue;
    const h = this.host.get(name);
    if (!h) {
      throw new Error(this.restricted.includes(name)
        ? `"${name}" is defined in workspace settings and the workspace is not trusted (Restricted Mode). Trust the workspace to start it.`
        : `No MCP server named "${name}" is configured.`);
    }
    if (h.state.kind === 'running') return;
    if (h.state.kind === 'starting') { await h.start(); return; }
    const reason = this.blockedReason(name);
    if (reason === DENIED || this.consent.wasDenied(h.definition)) {
      throw new Error(`Launching "${name}" was not allowed in this window, so it is not asked again for a document. Start the server (Servers view or MCP Host: Start Server) to be asked again.`);
    }
    if (reason === WAITING || this.waitsForUse(name)) {
      this.lazy.delete(name);
      await this.start(name);
      return;
    }
    if (reason) throw new Error(`"${name}" ${reason.startsWith('needs input') ? reason : `cannot start: ${reason}`}.`);
    if (h.state.kind === 'error') throw new Error(`MCP server "${name}" failed: ${h.redactor.text(h.state.message)}`);
    throw new Error(`MCP server "${name}" is stopped. Start it to read its resources.`);
  }

  /** Starts every server still waiting for its first use and resolves once each runs or failed (bounded). */
  async startWaiting(timeoutMs = 30_000): Promise<void> {
    const names = [...this.lazy].filter(n => this.waitsForUse(n));
    if (!names.length) return;
    names.forEach(n => this.lazy.delete(n));
    await Promise.race([this.startMany(names, false, false), new Promise(r => setTimeout(r, timeoutMs))]);
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
    const reason = this.blocked.get(server);
    // A lazy server that will ask for launch consent at its first use is not held back: it waits for that use.
    return reason === WAITING && this.lazy.has(server) ? undefined : reason;
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
    const servers = settings.serversSetting();
    const inputs = settings.inputsSetting();
    const trusted = vscode.workspace.isTrusted;
    const userServers = asObject(servers.user);
    const wsServers = asObject(servers.workspace);
    const merged: Record<string, unknown> = { ...userServers, ...wsServers };
    this.origins.clear();
    for (const n of Object.keys(merged)) this.origins.set(n, n in wsServers ? 'workspace' : 'user');
    // Multi-root: a folder's own `.vscode/settings.json` servers run for that folder (its name qualifies a
    // server whose name is taken already; its roots default to that folder; `${workspaceFolder}` is that folder).
    this.folders.clear();
    if (vscode.workspace.workspaceFile) {
      for (const folder of vscode.workspace.workspaceFolders ?? []) {
        const own = asObject(settings.folderServersSetting(folder));
        for (const [n, def] of Object.entries(own)) {
          const name = n in merged ? `${folder.name}/${n}` : n;
          const raw = asObject(def);
          merged[name] = raw.roots === undefined && def && typeof def === 'object' ? { ...raw, roots: [folder.name] } : def;
          this.origins.set(name, 'workspace');
          this.folders.set(name, folder.name);
        }
      }
    }

    for (const n of this.used) if (!(n in merged)) this.used.delete(n);
    const parsed = parseServers(merged);
    this.raws.clear();
    for (const raw of parsed.servers) this.raws.set(raw.name, raw);
    // Inputs belong to the scope that declares them: a workspace server sees the workspace's inputs
    // (values kept for this workspace only), a user server the user's.
    const userInputs = parseInputs(inputs.user ?? []);
    const wsInputs = trusted ? parseInputs(inputs.workspace ?? []) : { inputs: [], errors: [] };
    const errors = [...parsed.errors, ...userInputs.errors, ...wsInputs.errors];
    const warnings = [...parsed.warnings];
    const autoStartAll = settings.autoStart();
    // `mcpHost.startup: lazy`: servers that would start now wait for their first use instead.
    const lazy = settings.startupMode() === 'lazy';
    this.lazy.clear();
    const timeouts = settings.timeouts();
    const sandboxDefault = settings.sandboxDefault();

    const defs: ServerDefinition[] = [];
    const ask: ServerDefinition[] = [];
    const blocked = new Map<string, string>();
    for (const raw of parsed.servers) {
      const origin = this.origins.get(raw.name) ?? 'user';
      // Lazy: a server that is not running is not started by a sync. One that never ran waits for its first use;
      // one that ran in this window (the user stopped it, or it failed) stays stopped.
      const lazyHeld = lazy && raw.autoStart === undefined && autoStartAll && this.host.get(raw.name)?.state.kind !== 'running';
      const waits = lazyHeld && !this.used.has(raw.name);
      if (waits) this.lazy.add(raw.name);
      const wantsStart = lazyHeld ? false : raw.autoStart ?? autoStartAll;
      const mayPrompt = (wantsStart || this.promptFor.has(raw.name)) && (origin === 'user' || trusted);
      const missing: string[] = [];
      const scoped = origin === 'workspace'
        ? { inputs: wsInputs.inputs, scope: currentWorkspaceScope() }
        : { inputs: userInputs.inputs, scope: { kind: 'user' } as InputScope };
      const r = await resolveServer(raw, this.context(scoped.inputs, scoped.scope, raw, mayPrompt, missing));
      warnings.push(...r.warnings);
      if (!r.definition) { errors.push(...r.errors); continue; }
      let def: ServerDefinition = { ...r.definition, autoStart: wantsStart, timeout: { ...timeouts, ...r.definition.timeout } };
      // A server that ran in this window and is stopped now (the user stopped it) is not started by a settings sync
      // while its definition is the same one.
      const existing = this.host.get(raw.name);
      if (this.used.has(raw.name) && existing?.state.kind === 'stopped' && definitionKey(existing.definition) === definitionKey(def)) def = { ...def, autoStart: false };
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
    void vscode.commands.executeCommand('setContext', ContextKeys.hasServers, Object.keys(merged).length + this.restricted.length > 0)
      .then(undefined, err => this.log.warn(`setContext failed: ${String(err)}`));
    this.log.info(`settings: ${countOf(defs.length, 'server')}${defs.length ? ` (${defs.map(d => d.name + (blocked.has(d.name) ? ` – ${blocked.get(d.name)}` : '')).join(', ')})` : ''}`);
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
      if (!current || definitionKey(current.definition) !== definitionKey(def)) return;
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
