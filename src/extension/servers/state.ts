/**
 * What the server controller knows between syncs: where each server is defined (user, workspace, a folder), why one
 * is held back, which resources are subscribed, which servers wait for their first use; and what the views read of
 * it (ServerAnnotations). The syncing itself is in `serverController.ts`, the start gates in `gates.ts`.
 */
import * as vscode from 'vscode';
import type { ConfigError, DefinitionKey, HostApi, ServerDefinition, RawServer, SourceLayer } from '../../mcp';
import type { ServerAnnotations } from '../../views/nodes';
import type { McpJsonWatcher } from '../trust/coexistence';
import type { LaunchConsent } from '../trust/consent';
import type { AddedServers } from '../trust/addedServers';
import { currentWorkspaceScope, scopeKey, type InputStore } from '../trust/inputs';
import type { ServerIdentity } from '../trust/identity';
import type { RegistryInstalls } from '../trust/registryInstalls';
import type { PendingKey } from '../trust/definitionKeys';
import * as settings from '../settings';
import { toVs } from '../ui/logs';
import { WAITING } from './reasons';
import type { OrgPolicyWatcher } from '../trust/policy';
import type { ConfigSourceFiles } from '../documents/configSourceFiles';
import type { SeenFailures } from '../ui/failureNotice';
import { NEEDS_INPUT, shownReason } from './reasons';

export type Origin = 'user' | 'workspace';

/** What the server controller is given at construction (extension.ts); nothing is set on it afterwards. */
export interface ControllerServices {
  host: HostApi;
  consent: LaunchConsent;
  /** Servers the host wrote into settings (import, registry): their first start asks consent in either scope. */
  added: AddedServers;
  inputs: InputStore;
  log: vscode.LogOutputChannel;
  /** The definition key (the installation's HMAC of the identity fields): consent, grants, History, caches. */
  definitionKey: DefinitionKey;
  /**
   * Whether the installation key `definitionKey` hashes under was read yet (issue 41): the first sync decides what it
   * can without it, and waits for it per server only where a keyed lookup decides (definitionKeys.ts PendingKey).
   */
  keyState: Pick<PendingKey, 'has' | 'ready'>;
  /**
   * Once, with the first sync's resolved definitions, before any consent or grant is looked up: re-keys what an
   * older version stored under unsalted keys (definitionKeys.ts).
   */
  migrateKeys?: (defs: readonly ServerDefinition[]) => void;
  /** The organisation's policy (issue 40): what it blocks never starts; a change of it reconciles again. */
  policy?: OrgPolicyWatcher;
  /** The portable config files (`.mcp.json`, `~/.copilot/mcp-config.json`, issue 40): a change of one reconciles again. */
  sourceFiles?: ConfigSourceFiles;
  /** Servers installed from the MCP Registry (issue 40: `chat.mcp.access: registry`), kept where no settings file can forge them. */
  registryInstalls?: RegistryInstalls;
  /** Settings problems shown before (across reloads): one notification per new set of problems. */
  seenProblems?: SeenFailures;
}

/** The controller's state and the views' annotations (ServerController's base). */
export abstract class ServerControllerState implements ServerAnnotations, vscode.Disposable {
  protected readonly blocked = new Map<string, string>();
  protected readonly origins = new Map<string, Origin>();
  /** Servers read from a portable file (`.mcp.json`, `~/.copilot/mcp-config.json`), by server name: the file's layer. */
  protected readonly portableFrom = new Map<string, SourceLayer>();
  /** Servers defined in a folder's own settings (multi-root), by server name. */
  protected readonly folders = new Map<string, string>();
  protected readonly raws = new Map<string, RawServer>();
  protected readonly subscribed = new Map<string, Set<string>>();
  protected readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  protected queue: Promise<void> = Promise.resolve();
  protected readonly promptFor = new Set<string>();
  protected readonly disposables: vscode.Disposable[] = [this.changed];
  /** Every "workspace not trusted" message a start command showed (text and buttons), newest last; tests read it. */
  readonly trustOffers: { text: string; actions: string[] }[] = [];
  /** The problems of the last sync (invalid settings, unresolvable variables). */
  errors: ConfigError[] = [];
  protected restricted: string[] = [];
  protected decided!: (at: number) => void;
  /**
   * `performance.now()` when the first sync had `host.reconcile` decide what starts (settings read,
   * variables resolved, trust and consent applied, starts issued; not the servers' own start-up).
   */
  readonly firstReconcile = new Promise<number>(resolve => { this.decided = resolve; });
  /** `performance.now()` at the steps of the first sync (began, settings parsed, variables resolved, policy applied, definitions gated as `resolved`, reconcile called), for the activation benchmark. */
  readonly firstSyncMarks: Record<string, number> = {};
  protected synced = false;

  protected readonly host: HostApi;
  protected readonly consent: LaunchConsent;
  /** Servers the host wrote into settings (import, registry): their first start asks consent in either scope. */
  protected readonly added: AddedServers;
  protected readonly inputs: InputStore;
  protected readonly log: vscode.LogOutputChannel;
  /** The definition key (the installation's HMAC of the identity fields): consent, grants, History, caches. */
  protected readonly definitionKey: DefinitionKey;
  /** Whether the installation key was read yet (ControllerServices.keyState). */
  protected readonly keyState: Pick<PendingKey, 'has' | 'ready'>;
  /** Re-keys what an older version stored (ControllerServices.migrateKeys); undefined once done. */
  protected migrateKeys?: (defs: readonly ServerDefinition[]) => void;
  /** The organisation's policy (issue 40): what it blocks never starts; a change of it reconciles again. */
  protected readonly policy?: OrgPolicyWatcher;
  /** The portable config files (`.mcp.json`, `~/.copilot/mcp-config.json`, issue 40): a change of one reconciles again. */
  protected readonly sourceFiles?: ConfigSourceFiles;
  /** Servers installed from the MCP Registry (issue 40: `chat.mcp.access: registry`). */
  protected readonly registryInstalls?: RegistryInstalls;
  /** Settings problems shown before (across reloads). */
  protected readonly seenProblems?: SeenFailures;

  constructor(services: ControllerServices) {
    const { host, consent, policy, sourceFiles } = services;
    this.host = host;
    this.consent = consent;
    this.added = services.added;
    this.inputs = services.inputs;
    this.log = services.log;
    this.definitionKey = services.definitionKey;
    this.keyState = services.keyState;
    this.migrateKeys = services.migrateKeys;
    this.policy = policy;
    this.sourceFiles = sourceFiles;
    this.registryInstalls = services.registryInstalls;
    this.seenProblems = services.seenProblems;
    this.disposables.push(
      // One log line per denial, wherever the dialog was asked from.
      consent.onDidDeny(def => this.log.info(`${def.name}: launch not allowed; it stays stopped until you start it ("MCP Host: Start Server")`)),
      vscode.workspace.onDidChangeConfiguration(e => { if (settings.affects(e)) void this.sync(); }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.sync()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.sync()),
      ...(policy ? [policy.onDidChange(() => void this.sync())] : []),
      ...(sourceFiles ? [sourceFiles.onDidChange(() => void this.sync())] : []),
      toVs(host.onDidChangeState(({ server, state }) => {
        if (state.kind === 'running') this.used.add(server);
        if (state.kind !== 'running' && this.subscribed.delete(server)) this.changed.fire();
      })),
    );
  }

  /** Re-reads the settings and reconciles (serialised: concurrent calls run one after another). */
  sync(): Promise<void> {
    // One sync at a time. With none running, this one begins now (not a turn later): the first sync at activation
    // reaches reconcile without yielding to other extensions.
    const now = this.syncIdle;
    this.syncIdle = false;
    let adopt!: (done: Promise<void>) => void;
    const next: Promise<void> = now
      ? new Promise<void>(resolve => { adopt = resolve; })
      : this.queue.then(() => this.doSync(), err => this.log.error(`sync failed: ${String(err)}`));
    // Set before doSync runs: a sync asked for while it runs (an event it fires) waits for it.
    this.queue = next;
    if (now) adopt(this.doSync());
    next.then(() => { if (this.queue === next) this.syncIdle = true; }, err => {
      if (this.queue !== next) return; // the next sync reports it
      this.syncIdle = true;
      this.log.error(`sync failed: ${String(err)}`);
    });
    return next;
  }
  private syncIdle = true;

  protected abstract doSync(): Promise<void>;

  /** Where a server is defined plus its definition key (undefined for an unknown server). */
  identity(name: string): ServerIdentity | undefined {
    const def = this.host.get(name)?.definition;
    const scope = this.origins.get(name);
    if (!def || !scope) return undefined;
    return { scope, scopeKey: scope === 'user' ? 'user' : scopeKey(currentWorkspaceScope()), name, definitionKey: this.definitionKey(def) };
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

  protected coexistence?: McpJsonWatcher;
  /** Servers waiting for their first use (`mcpHost.startup: lazy`). */
  protected readonly lazy = new Set<string>();
  /** Servers that ran in this window: in lazy mode, one the user stopped stays "stopped", never "starts on first use" again. */
  protected readonly used = new Set<string>();

  /** Watches `.vscode/mcp.json` for servers VS Code itself also starts (the views say so). */
  watchCoexistence(w: McpJsonWatcher): void {
    this.coexistence = w;
    this.disposables.push(w.onDidChange(() => this.changed.fire()));
  }

  alsoIn(server: string): string | undefined {
    const where = this.origins.has(server) ? this.coexistence?.alsoIn(server) : undefined;
    // A server read from that very file is not "also" there: its row says "from" it (sourceOf).
    return where !== undefined && where === this.portableFrom.get(server)?.label ? undefined : where;
  }

  /** The portable file a server was read from (`.mcp.json`, `~/.copilot/mcp-config.json`), if it was. */
  sourceOf(server: string): string | undefined {
    return this.portableFrom.get(server)?.label;
  }

  /**
   * The settings scope a server is defined in, for the record of registry installs: undefined for a server read from
   * a portable file or a folder's own settings (never written by an install).
   */
  protected installScope(server: string): 'user' | 'workspace' | undefined {
    return this.portableFrom.has(server) || this.folders.has(server) ? undefined : this.origins.get(server);
  }

  /** The registry a server was installed from, while its definition is the one installed; else undefined. */
  installedFrom(server: string): string | undefined {
    return this.registryInstalls?.installedFrom(this.raws.get(server), this.installScope(server), scopeKey(currentWorkspaceScope()))?.registry;
  }

  /** Why a stopped server is held back, as the views show it (localised). */
  blockedReason(server: string): string | undefined {
    return shownReason(this.heldReason(server));
  }

  /** Why a stopped server is held back, as the gates compare it (DENIED, WAITING, …). */
  heldReason(server: string): string | undefined {
    const reason = this.blocked.get(server);
    // A lazy server that will ask for launch consent or its `${input:}` values at its first use is not held back: it
    // waits for that use (the row says "starts on first use", not "stopped").
    return (reason === WAITING || reason?.startsWith(NEEDS_INPUT)) && this.lazy.has(server) ? undefined : reason;
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

  protected block(name: string, reason: string): void {
    this.blocked.set(name, reason);
    this.changed.fire();
  }

  protected unblock(name: string): void {
    if (this.blocked.delete(name)) this.changed.fire();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
