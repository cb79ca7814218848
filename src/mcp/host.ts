/**
 * The host (implements HostApi): the registry of connections, reconciled against new definitions,
 * the roots every server sees, and one set of events for the UI. One server failing never affects
 * another; every error becomes that server's state plus a log line.
 */
import type { HostApi, ServerHandle } from './api';
import { DisposableStore, Emitter, type Event } from './events';
import type { Catalogue, ClientFeatures, ConfigError, LogEntry, Root, ServerDefinition, ServerState } from './types';
import { Connection, type ConnectionOptions } from './server/connection';
import type { Limits } from './limits';
import { SamplingService } from './features/sampling';
import { messageOf } from './errors';
import { ephemeralKeyer, stableStringify, type DefinitionKey } from './config/definitionKey';
import type { TaskInfo } from './tasks/tasks';
import type { HistoryEntry } from './server/history';
import type { SandboxDenial, SandboxHostOptions } from './launch/sandboxPolicy';
import type { SkillInfo } from './skills/skills';

export interface HostOptions extends Omit<ConnectionOptions, 'features' | 'sampling' | 'roots' | 'authProvider'> {
  features?: ClientFeatures;
  /** OAuth provider per HTTP server (the extension and CLI inject storage and the browser step). */
  authProvider?: ConnectionOptions['authProvider'] | ((def: ServerDefinition) => ConnectionOptions['authProvider']);
  /** Debounce for roots/list_changed (default 50 ms). */
  rootsDebounceMs?: number;
}

export { stableStringify };

/** True when `uri` is an acceptable root: a file: URI without `..` segments (H17). */
export function isValidRoot(uri: string): boolean {
  let u: URL;
  try { u = new URL(uri); } catch { return false; }
  if (u.protocol !== 'file:') return false;
  // Check the raw text too: URL parsing already collapses `..`.
  const raw = uri.replace(/^file:\/\/[^/]*/i, '');
  const segments = raw.split(/[/\\]/).map(s => { try { return decodeURIComponent(s); } catch { return s; } });
  return !segments.some(s => s === '..');
}

function baseName(uri: string): string {
  const parts = uri.replace(/\/+$/, '').split('/');
  try { return decodeURIComponent(parts[parts.length - 1] ?? ''); } catch { return parts[parts.length - 1] ?? ''; }
}

/** A stand-in definition for a server whose configuration could not be resolved. */
function brokenPlaceholder(name: string): ServerDefinition {
  return { name, type: 'stdio', command: '', args: [], env: {}, autoStart: false };
}

interface Entry {
  connection: Connection;
  /** The definition it was made or last updated with. */
  def: ServerDefinition;
  /**
   * Its "same process" key and its whole serialisation (to notice changes that need no restart), computed when a later
   * reconcile first compares them: a first reconcile (activation) hashes nothing.
   */
  restartKey?: string;
  full?: string;
  /** The configuration problem that keeps this server from starting, if any. */
  problem?: string;
  store: DisposableStore;
}

export class McpHost implements HostApi {
  private readonly entries = new Map<string, Entry>();
  /** The caps given to every connection (HostOptions.limits, then setLimits). */
  private limits: Partial<Limits> | undefined;
  private _roots: Root[] = [];
  private rootsTimer: NodeJS.Timeout | undefined;
  private readonly sampling: SamplingService;
  private disposed = false;
  /** The last configuration problems handed to reconcile (for the UI / doctor). */
  configErrors: readonly ConfigError[] = [];

  private readonly _onDidChangeServers = new Emitter<void>();
  private readonly _onDidChangeState = new Emitter<{ server: string; state: ServerState }>();
  private readonly _onDidChangeCatalogue = new Emitter<{ server: string; catalogue: Catalogue }>();
  private readonly _onDidUpdateResource = new Emitter<{ server: string; uri: string }>();
  private readonly _onLog = new Emitter<LogEntry>();
  private readonly _onDidChangeTasks = new Emitter<TaskInfo>();
  private readonly _onDidChangeHistory = new Emitter<HistoryEntry>();
  private readonly _onDidChangeSkills = new Emitter<{ server: string; skills: readonly SkillInfo[] }>();
  /** Any server's list of skills changed (skills/skills.ts). */
  readonly onDidChangeSkills: Event<{ server: string; skills: readonly SkillInfo[] }> = this._onDidChangeSkills.event;
  /** Any History change of any server, whichever connection it has now (history.ts). */
  readonly onDidChangeHistory: Event<HistoryEntry> = this._onDidChangeHistory.event;
  private readonly _onDidDenyInSandbox = new Emitter<{ server: string; denial: SandboxDenial }>();
  /** Each thing the OS sandbox refused any server (launch/sandboxLaunch.ts). */
  readonly onDidDenyInSandbox: Event<{ server: string; denial: SandboxDenial }> = this._onDidDenyInSandbox.event;
  /** Any task change of any server (tasks.ts). */
  readonly onDidChangeTasks: Event<TaskInfo> = this._onDidChangeTasks.event;
  readonly onDidChangeServers: Event<void> = this._onDidChangeServers.event;
  readonly onDidChangeState: Event<{ server: string; state: ServerState }> = this._onDidChangeState.event;
  readonly onDidChangeCatalogue: Event<{ server: string; catalogue: Catalogue }> = this._onDidChangeCatalogue.event;
  readonly onDidUpdateResource: Event<{ server: string; uri: string }> = this._onDidUpdateResource.event;
  readonly onLog: Event<LogEntry> = this._onLog.event;

  /** The sandbox options every connection reads at each launch (one object, updated in place by setSandboxOptions). */
  private readonly sandboxOptions: SandboxHostOptions;

  /**
   * The restart rule: the definition key (config/definitionKey.ts, the identity fields of schema.ts's table) — the same
   * function the owner keys consent, grants, History and caches by (HostOptions.definitionKey; without one, a random
   * key of this host's own). Equal keys: the same server, its tuning adopted in place (update).
   */
  private readonly key: DefinitionKey;

  constructor(private readonly options: HostOptions = {}) {
    this.key = options.definitionKey ?? ephemeralKeyer();
    this.limits = options.limits;
    this.sandboxOptions = { ...options.sandbox };
    this.sampling = new SamplingService(options.features ?? {});
  }

  get servers(): readonly ServerHandle[] {
    return [...this.entries.values()].map(e => e.connection);
  }

  get(name: string): Connection | undefined {
    return this.entries.get(name)?.connection;
  }

  get roots(): readonly Root[] {
    return this._roots;
  }

  private restartKey(def: ServerDefinition): string {
    return this.key(def);
  }

  private restartKeyOf(e: Entry): string {
    return e.restartKey ??= this.restartKey(e.def);
  }

  private fullOf(e: Entry): string {
    return e.full ??= stableStringify(e.def);
  }

  /** The roots one server may see: only its `roots` folder names when given (H17); `"roots": []` = none at all. */
  rootsFor(def: ServerDefinition): Root[] {
    const names = def.roots;
    const visible = names
      ? this._roots.filter(r => names.includes(r.name ?? '') || names.includes(baseName(r.uri)))
      : this._roots;
    return visible.map(r => ({ ...r }));
  }

  private create(def: ServerDefinition): Entry {
    const { features, authProvider, rootsDebounceMs: _r, ...rest } = this.options;
    const connection: Connection = new Connection(def, {
      ...rest,
      definitionKey: this.key,
      limits: this.limits,
      features,
      sampling: this.sampling,
      roots: (): Root[] => this.rootsFor(connection.definition),
      sandbox: this.sandboxOptions,
      authProvider: typeof authProvider === 'function' ? authProvider(def) : authProvider,
    });
    const store = new DisposableStore();
    store.add(connection.onDidChangeState(state => this._onDidChangeState.fire({ server: def.name, state })));
    store.add(connection.onDidChangeCatalogue(catalogue => this._onDidChangeCatalogue.fire({ server: def.name, catalogue })));
    store.add(connection.onDidUpdateResource(uri => this._onDidUpdateResource.fire({ server: def.name, uri })));
    store.add(connection.onDidChangeTasks(t => this._onDidChangeTasks.fire(t)));
    store.add(connection.onDidChangeSkills(skills => this._onDidChangeSkills.fire({ server: def.name, skills })));
    store.add(connection.onDidChangeHistory(e => this._onDidChangeHistory.fire(e)));
    store.add(connection.onLog(e => this._onLog.fire(e)));
    store.add(connection.onDidDenyInSandbox(denial => this._onDidDenyInSandbox.fire({ server: def.name, denial })));
    return { connection, def, store };
  }

  private async startQuietly(c: Connection): Promise<void> {
    try {
      await c.start();
    } catch {
      // Already state + log line in the connection.
    }
  }

  private async remove(entry: Entry): Promise<void> {
    try {
      await entry.connection.dispose();
    } catch (err) {
      this._onLog.fire({ server: entry.connection.name, level: 'error', source: 'lifecycle', message: entry.connection.redactor.text(`could not stop: ${messageOf(err)}`), time: Date.now() });
    }
    entry.store.dispose();
  }

  private shouldStart(def: ServerDefinition): boolean {
    return def.autoStart !== false && !def.disabled;
  }

  async reconcile(definitions: ServerDefinition[], errors: ConfigError[] = []): Promise<void> {
    if (this.disposed) return;
    this.configErrors = errors;
    // A server whose configuration is broken still shows up, in an error state naming the problem.
    const broken = new Map<string, string[]>();
    for (const e of errors) {
      if (e.server === undefined || definitions.some(d => d.name === e.server)) continue;
      broken.set(e.server, [...(broken.get(e.server) ?? []), e.message]);
    }
    definitions = [...definitions, ...[...broken.keys()].map(brokenPlaceholder)];
    const wanted = new Map(definitions.map(d => [d.name, d]));
    const work: Promise<void>[] = [];
    let changed = false;

    for (const [name, entry] of [...this.entries]) {
      if (!wanted.has(name)) {
        this.entries.delete(name);
        changed = true;
        work.push(this.remove(entry));
      }
    }
    for (const def of definitions) {
      const existing = this.entries.get(def.name);
      const problem = broken.get(def.name);
      if (problem) {
        const message = problem.join(' ');
        if (existing && existing.connection.state.kind === 'error' && existing.problem === message && this.fullOf(existing) === stableStringify(def)) continue;
        changed = true;
        const entry = this.create(def);
        entry.problem = message;
        this.entries.set(def.name, entry);
        entry.connection.setConfigError(message);
        if (existing) work.push(this.remove(existing));
        continue;
      }
      if (existing && existing.problem === undefined && this.restartKeyOf(existing) === this.restartKey(def)) {
        const full = stableStringify(def);
        if (full !== this.fullOf(existing)) work.push(this.update(existing, def, full));
        continue;
      }
      changed = true;
      const entry = this.create(def);
      this.entries.set(def.name, entry);
      work.push((async () => {
        if (existing) await this.remove(existing);
        // Each start in a turn of its own (spawning, resolving the command, the state events and their listeners):
        // reconcile decides at once, and starting ten servers never holds the thread (the extension host's) in one piece.
        if (this.shouldStart(def)) await new Promise<void>(resolve => setImmediate(resolve));
        if (this.shouldStart(def) && !this.disposed && this.entries.get(def.name) === entry) {
          await this.startQuietly(entry.connection);
        }
      })());
    }
    if (changed) this._onDidChangeServers.fire();
    await Promise.all(work);
  }

  /** Same process, other settings: adopt them; start or stop when disabled/autoStart changed. */
  private async update(entry: Entry, def: ServerDefinition, full: string): Promise<void> {
    const before = entry.connection.definition;
    entry.def = def;
    entry.full = full;
    entry.connection.updateDefinition(def);
    const kind = entry.connection.state.kind;
    if (def.disabled && kind !== 'stopped') {
      await entry.connection.stop();
    } else if (!def.disabled && (before.disabled || before.autoStart === false) && this.shouldStart(def) && kind === 'stopped') {
      await this.startQuietly(entry.connection);
    }
    this._onDidChangeServers.fire();
  }

  /** New sandbox options (`mcpHost.sandbox.denyRead`, say): every sandboxed server gets them from its next start. */
  setSandboxOptions(options: SandboxHostOptions): void {
    for (const k of Object.keys(this.sandboxOptions) as (keyof SandboxHostOptions)[]) delete this.sandboxOptions[k];
    Object.assign(this.sandboxOptions, options);
  }

  /** New caps on what servers fill (`mcpHost.limits.*`): every connection takes them, new ones too. */
  setLimits(limits: Partial<Limits> | undefined): void {
    this.limits = limits;
    for (const e of this.entries.values()) e.connection.setLimits(limits);
  }

  setRoots(roots: Root[]): void {
    const valid: Root[] = [];
    for (const r of roots) {
      if (isValidRoot(r.uri)) valid.push({ uri: r.uri, ...(r.name !== undefined ? { name: r.name } : {}) });
      else this._onLog.fire({ server: '', level: 'warning', source: 'lifecycle', message: `ignored root \`${r.uri}\`: roots must be file:// URIs without \`..\` segments`, time: Date.now() });
    }
    this._roots = valid;
    if (this.rootsTimer) clearTimeout(this.rootsTimer);
    this.rootsTimer = setTimeout(() => {
      this.rootsTimer = undefined;
      for (const e of this.entries.values()) void e.connection.notifyRootsChanged();
    }, this.options.rootsDebounceMs ?? 50);
    this.rootsTimer.unref?.();
  }

  async shutdown(): Promise<void> {
    if (this.rootsTimer) clearTimeout(this.rootsTimer);
    const entries = [...this.entries.values()];
    this.entries.clear();
    if (entries.length) this._onDidChangeServers.fire();
    const stop = Promise.all(entries.map(e => this.remove(e)));
    // A second shutdown while the first is still stopping processes (the CLI's Ctrl+C handler while `call` is
    // already shutting down) waits for that one too: it resolves only when every server of this host is gone.
    this.stopping = Promise.allSettled([this.stopping, stop]);
    await stop;
    await this.stopping;
  }

  /** Every stop that a shutdown started, settled or not. */
  private stopping: Promise<unknown> = Promise.resolve();

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    void this.shutdown().finally(() => {
      this._onDidChangeServers.dispose();
      this._onDidChangeState.dispose();
      this._onDidChangeCatalogue.dispose();
      this._onDidUpdateResource.dispose();
      this._onDidChangeTasks.dispose();
      this._onDidChangeHistory.dispose();
      this._onDidChangeSkills.dispose();
      this._onDidDenyInSandbox.dispose();
      this._onLog.dispose();
    });
  }
}
