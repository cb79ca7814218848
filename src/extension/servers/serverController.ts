/**
 * Settings → definitions → `host.reconcile`, with the editor's gates on top: Workspace Trust (no
 * server from workspace settings starts in Restricted Mode), launch consent for workspace stdio
 * servers, and `${input:}` values. A held-back server stays in the host as a stopped server with a
 * reason the views show; starting it explicitly asks what is missing.
 *
 * This file reads the settings and reconciles (one sync); the rooms: `state.ts` (what the controller knows, what
 * the views read), `gates.ts` (explicit and lazy starts through trust and consent), `reasons.ts` (why a server is
 * held back), `workspaceSettings.ts` (names Restricted Mode hides, `${input:}` uses).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import * as settings from '../settings';
import { ContextKeys } from '../../views/commandIds';
import { failureKey } from '../ui/failureNotice';
import { type ConfigError, type InputDefinition, type ServerDefinition, parseInputs, parseServers, type RawServer, resolveServerNow, type ResolveContext, countOf, applyPolicy, mergeSources, cpuMs } from '../../mcp';
import { CONSENT_STATE, startGate } from './reasons';
import { currentWorkspaceScope, type InputScope } from '../trust/inputs';
import { asObject, workspaceServerNames } from './workspaceSettings';
import { ServerGates } from './gates';
import { scopeKey } from '../trust/inputs';
import { configuredRegistry } from '../trust/policy';

const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export { ConsentDeniedError } from './reasons';
export { inputUses } from './workspaceSettings';
export type { ControllerServices, Origin } from './state';

/** Records a step of the first sync: wall-clock time, and the thread's CPU time under `cpu <step>`. */
function mark(marks: Record<string, number>, step: string): void {
  marks[step] = performance.now();
  marks[`cpu ${step}`] = cpuMs();
}

/** One server of a sync, resolved, before it is gated. */
interface Resolved { def: ServerDefinition; origin: 'user' | 'workspace'; missing: string[]; wantsStart: boolean }

/** The pseudo-server name settings problems are remembered under (SeenFailures). */
const SETTINGS_PROBLEMS = '(settings)';

/** The controller of configured servers (see the header). */
export class ServerController extends ServerGates {
  protected async doSync(): Promise<void> {
    const marks: Record<string, number> | undefined = this.synced ? undefined : this.firstSyncMarks;
    this.synced = true;
    if (marks) mark(marks, 'began');
    // Issue 41: only the first sync decides before the installation key (SecretStorage) was read, server by server; a
    // later one waits for it (any lookup below may be keyed), at most once.
    if (!marks && !this.keyState.has()) await this.keyState.ready;
    // The one-time re-keying of stored state (migrateKeys) needs this sync's resolved definitions and runs before the
    // first keyed lookup: at the gate below when the key is there, else first of all that waits for the key (this
    // handler is registered in activation's own turn, before activation's keyed part and any start).
    const resolvedDefs: { defs?: ServerDefinition[] } = {};
    const migrate = () => {
      const m = this.migrateKeys;
      if (!resolvedDefs.defs || !m) return;
      this.migrateKeys = undefined;
      try { m(resolvedDefs.defs); } catch (err) { this.log.warn(`stored state could not be re-keyed: ${String(err)}`); }
    };
    if (marks && !this.keyState.has()) void this.keyState.ready.then(migrate);
    const config = settings.snapshot();
    const servers = settings.serversSetting(config);
    const inputs = settings.inputsSetting(config);
    const trusted = vscode.workspace.isTrusted;
    // mcpHost.servers and the portable files mcpHost.configSources turns on (issue 40): each name once, the most
    // specific source winning (config/configSources.ts). A `.mcp.json` server is a workspace server; a
    // `~/.copilot/mcp-config.json` one is user-scope but written by another tool (launch consent: gates.ts).
    const on = settings.configSources(config);
    const files = this.sourceFiles?.current() ?? { layers: [], inputs: [], errors: [], warnings: [] };
    // Restricted Mode: a `.mcp.json` is workspace content, named (held back) but not resolved, as workspace settings are.
    const portable = files.layers.filter(l => (l.source === 'mcpJson' && on.mcpJson && trusted) || (l.source === 'copilotCli' && on.copilotCli));
    const heldFiles = trusted || !on.mcpJson ? [] : files.layers.filter(l => l.source === 'mcpJson').flatMap(l => Object.keys(l.servers));
    const sources = mergeSources([
      { source: 'workspaceSettings', servers: asObject(servers.workspace) },
      { source: 'userSettings', servers: asObject(servers.user) },
      ...portable,
    ]);
    const merged: Record<string, unknown> = sources.servers;
    this.origins.clear();
    this.folders.clear();
    this.portableFrom.clear();
    for (const [n, layer] of sources.from) {
      this.origins.set(n, layer.source === 'workspaceSettings' || layer.source === 'mcpJson' ? 'workspace' : 'user');
      if (layer.label) this.portableFrom.set(n, layer);
      if (layer.folder) {
        this.folders.set(n, layer.folder);
        const raw = asObject(merged[n]);
        if (raw.roots === undefined && merged[n] && typeof merged[n] === 'object') merged[n] = { ...raw, roots: [layer.folder] };
      }
    }
    // Multi-root: a folder's own `.vscode/settings.json` servers run for that folder (its name qualifies a
    // server whose name is taken already; its roots default to that folder; `${workspaceFolder}` is that folder).
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
    if (marks) mark(marks, 'parsed');
    this.raws.clear();
    for (const raw of parsed.servers) this.raws.set(raw.name, raw);
    // Inputs belong to the scope that declares them: a workspace server sees the workspace's inputs
    // (values kept for this workspace only), a user server the user's.
    const userInputs = parseInputs(inputs.user ?? []);
    const wsInputs = trusted ? parseInputs(on.mcpJson && files.inputs.length ? [...asArray(inputs.workspace), ...files.inputs] : inputs.workspace ?? []) : { inputs: [], errors: [] };
    const errors = [...parsed.errors, ...userInputs.errors, ...wsInputs.errors, ...files.errors];
    const warnings = [...parsed.warnings, ...[...sources.warnings, ...files.warnings].map(w => ({ path: 'mcpHost.configSources', message: w }))];
    const autoStartAll = settings.autoStart(config);
    // `mcpHost.startup: lazy`: servers that would start now wait for their first use instead.
    const lazy = settings.startupMode(config) === 'lazy';
    this.lazy.clear();
    const timeouts = settings.timeouts(config);
    const sandboxDefault = settings.sandboxDefault(config);

    const folders = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => ({ name: f.name, path: f.uri.fsPath }));
    const userHome = os.homedir();
    // Resolve every definition first, then gate them: the one-time re-keying of stored state needs them all before the
    // first consent or grant is looked up.
    const resolved: Resolved[] = [];
    for (const raw of parsed.servers) {
      const origin = this.origins.get(raw.name) ?? 'user';
      // Lazy: a server that is not running is not started by a sync. One that never ran waits for its first use;
      // one that ran in this window (the user stopped it, or it failed) stays stopped; one turned off never waits (its
      // cached tools must not reach a model).
      const lazyHeld = lazy && !raw.disabled && raw.autoStart === undefined && autoStartAll && this.host.get(raw.name)?.state.kind !== 'running';
      const waits = lazyHeld && !this.used.has(raw.name);
      if (waits) this.lazy.add(raw.name);
      // A server turned off is neither started nor asked about (no consent dialog for it): only turning it on does.
      const wantsStart = !raw.disabled && (lazyHeld ? false : raw.autoStart ?? autoStartAll);
      const mayPrompt = (wantsStart || this.promptFor.has(raw.name)) && (origin === 'user' || trusted);
      const missing: string[] = [];
      const scoped = origin === 'workspace'
        ? { inputs: wsInputs.inputs, scope: currentWorkspaceScope() }
        : { inputs: userInputs.inputs, scope: { kind: 'user' } as InputScope };
      // No await unless an input is asked: the first sync reaches reconcile in one turn, never yielding it to
      // other extensions' activation between two definitions.
      const pending = resolveServerNow(raw, this.context(folders, userHome, scoped.inputs, scoped.scope, raw, mayPrompt, missing));
      const r = pending instanceof Promise ? await pending : pending;
      warnings.push(...r.warnings);
      if (!r.definition) { errors.push(...r.errors); continue; }
      // The user-level timeouts are tuning (config/schema.ts SERVER_FIELDS): merged in, they change no definition key,
      // so consent, grants, History and caches stay, and the running server adopts them in place (updateDefinition).
      let def: ServerDefinition = { ...r.definition, autoStart: wantsStart, timeout: { ...timeouts, ...r.definition.timeout } };
      // A server that ran in this window and is stopped now (the user stopped it) is not started by a settings sync
      // while its definition is the same one.
      const existing = this.host.get(raw.name);
      if (this.used.has(raw.name) && existing?.state.kind === 'stopped' && this.definitionKey(existing.definition) === this.definitionKey(def)) def = { ...def, autoStart: false };
      // mcpHost.sandbox.default (user settings only): workspace stdio servers run sandboxed unless they say otherwise.
      if (origin === 'workspace' && def.type === 'stdio' && def.sandboxEnabled === undefined && sandboxDefault) def = { ...def, sandboxEnabled: true };
      resolved.push({ def, origin, missing, wantsStart });
    }
    if (marks) mark(marks, 'variables');
    // The organisation's policy (issue 40): a server it blocks is a configuration problem (its row says why), never
    // started by any path (settings, import, registry, Start, chat, the gateway).
    if (this.policy) {
      // `chat.mcp.access: registry`: a server counts as installed from the configured registry while the install's
      // record (registryInstalls.ts, the host's global state) names its scope and its identity key as written. Both
      // are looked up only then (two settings reads and a hash the first sync need not pay for: issue 41).
      let where: { registries: string[]; workspace: string } | undefined;
      const installedWhere = () => where ??= { registries: [configuredRegistry()], workspace: scopeKey(currentWorkspaceScope()) };
      // Known at once unless a policy file is being read: no `await` (which would let other extensions run first).
      const policy = this.policy.currentNow() ?? await this.policy.current();
      if (marks) mark(marks, 'policy read');
      // Under `registry` access each server's install record is found by its definition key: that waits for the key.
      if (policy?.access === 'registry' && !this.keyState.has()) await this.keyState.ready;
      const policed = applyPolicy(policy, resolved.map(r => r.def), def =>
        this.registryInstalls?.provenance(this.raws.get(def.name), this.installScope(def.name), installedWhere().registries, def.name, installedWhere().workspace) ?? false);
      if (policed.errors.length) {
        const out = new Set(policed.errors.map(e => e.server));
        errors.push(...policed.errors);
        resolved.splice(0, resolved.length, ...resolved.filter(r => !out.has(r.def.name)));
      }
    }
    // Issue 41: without the installation key, a server whose start needs no keyed state is decided now; the others
    // (launch consent, MCP Host's record of servers it added) are held back, neither started nor asked about, until
    // the key is read below.
    if (marks) mark(marks, 'policy');
    resolvedDefs.defs = resolved.map(r => r.def);
    const keyed = this.keyState.has();
    if (keyed) migrate();
    const first = this.gateAll(resolved, trusted, keyed);
    const { deferred } = first;
    let { defs, ask, blocked } = first;
    if (marks) mark(marks, 'resolved');
    this.blocked.clear();
    for (const [k, v] of blocked) this.blocked.set(k, v);
    this.restricted = trusted ? [] : [...new Set([...await workspaceServerNames(), ...heldFiles])].filter(n => !(n in merged));
    this.errors = errors;
    this.changed.fire();
    for (const e of errors) this.log.error(`${e.path}: ${e.message}`);
    this.notifyProblems(errors);
    for (const w of warnings) this.log.warn(`${w.path}: ${w.message}`);
    // Nothing held back keeps running (e.g. consent was reset or denied, or its inputs are gone).
    // (Awaited only when one does run: nothing to stop is no reason to yield the turn before reconcile.)
    const toStop = [...blocked.keys()].filter(name => { const h = this.host.get(name); return h && h.state.kind !== 'stopped'; });
    if (toStop.length) {
      await Promise.all(toStop.map(async name => {
        this.log.info(`${name}: stopped (${blocked.get(name)})`);
        await this.host.get(name)?.stop();
      }));
    }
    if (marks) mark(marks, 'reconcile');
    const reconciled = [this.host.reconcile(defs, errors)];
    if (marks) mark(marks, 'decided');
    this.decided(performance.now());
    // A round trip to the workbench and a log line, once what starts is decided (neither is awaited).
    void vscode.commands.executeCommand('setContext', ContextKeys.hasServers, Object.keys(merged).length + this.restricted.length > 0)
      .then(undefined, err => this.log.warn(`setContext failed: ${String(err)}`));
    if (deferred) {
      // The servers held back for their keyed consent state: decided once the key is read, in this same sync (no other
      // sync, Start or use runs before: each waits for this one). The host has them, stopped; an allowed one starts
      // (its autoStart turns true: host.ts update), one waiting for consent is asked now, once.
      this.log.info(`settings: ${countOf(deferred, 'server')} wait for the installation key (SecretStorage) to read their launch consent`);
      await this.keyState.ready;
      migrate();
      ({ defs, ask, blocked } = this.gateAll(resolved, trusted, true));
      this.blocked.clear();
      for (const [k, v] of blocked) this.blocked.set(k, v);
      this.changed.fire();
      reconciled.push(this.host.reconcile(defs, errors));
      if (marks) mark(marks, 'decided with key');
    }
    this.log.info(`settings: ${countOf(defs.length, 'server')}${defs.length ? ` (${defs.map(d => d.name + (blocked.has(d.name) ? ` – ${blocked.get(d.name)}` : '')).join(', ')})` : ''}`);
    if (ask.length) void this.askConsent(ask);
    await Promise.all(reconciled);
  }

  /**
   * Each resolved server through the one rule (reasons.ts startGate): the definitions for `reconcile` (a server held
   * back does not start), the ones to ask launch consent for, why each held one is, and how many wait for the
   * installation key (`keyed` false: it was not read yet, and nothing keyed is looked up).
   */
  private gateAll(resolved: readonly Resolved[], trusted: boolean, keyed: boolean): { defs: ServerDefinition[]; ask: ServerDefinition[]; blocked: Map<string, string>; deferred: number } {
    const defs: ServerDefinition[] = [];
    const ask: ServerDefinition[] = [];
    const blocked = new Map<string, string>();
    let deferred = 0;
    for (const { origin, missing, wantsStart, def: resolvedDef } of resolved) {
      let def = resolvedDef;
      const gate = startGate({
        origin, trusted, missing, wantsStart,
        needsConsent: keyed ? this.needsConsent(def) : this.needsConsentBeforeKey(def),
        consent: keyed ? () => (this.consent.isAllowed(def) ? 'allowed' : this.consent.wasDenied(def) ? 'denied' : 'none') : undefined,
      });
      if (gate.ask) ask.push(def);
      if (gate.reason === CONSENT_STATE) deferred++;
      if (gate.reason) {
        blocked.set(def.name, gate.reason);
        def = { ...def, autoStart: false };
      }
      defs.push(def);
    }
    return { defs, ask, blocked, deferred };
  }

  private lastProblems = '';

  /** One notification per new set of settings problems (not on every sync, not again after a reload). */
  private notifyProblems(errors: ConfigError[]): void {
    const key = errors.map(e => e.message).join('\n');
    if (key === this.lastProblems) return;
    this.lastProblems = key;
    if (!errors.length) { void this.seenProblems?.forget(SETTINGS_PROBLEMS); return; }
    const seenKey = failureKey(SETTINGS_PROBLEMS, key);
    if (this.seenProblems?.has(seenKey)) return;
    void this.seenProblems?.forget(SETTINGS_PROBLEMS).then(() => this.seenProblems?.add(seenKey));
    const open = vscode.l10n.t('Open Settings');
    void vscode.window.showWarningMessage(
      errors.length === 1 ? vscode.l10n.t('MCP settings: {0}', errors[0].message) : vscode.l10n.t('MCP settings have {0} problems; the Servers view lists them.', errors.length), open,
    ).then(pick => { if (pick === open) void vscode.commands.executeCommand('workbench.action.openWorkspaceSettingsFile'); });
  }

  /** What resolving one server's variables needs (`folders`, `userHome`: read once per sync). */
  private context(
    folders: { name: string; path: string }[], userHome: string, inputs: InputDefinition[], scope: InputScope, raw: RawServer, mayPrompt: boolean, missing: string[],
  ): ResolveContext {
    return {
      workspaceFolders: folders,
      definingFolder: this.folders.get(raw.name) ?? (this.origins.get(raw.name) === 'workspace' && !vscode.workspace.workspaceFile ? folders[0] : undefined),
      userHome,
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
}
