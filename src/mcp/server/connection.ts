/**
 * One MCP server (implements ServerHandle), as a thin facade over its parts in this folder, each readable on its own:
 *   ../launch/stdio.ts, ../launch/http.ts  how a server is reached (the host's stdio child; Streamable HTTP or SSE)
 *   supervisor.ts                          when: stopped → starting → running → error, restarts, crash loop, health
 *   launcher.ts                            which transport, the era probe and fallbacks, the sandbox, the trace
 *   session.ts                             what: the SDK v2 Client, its era, client features, catalogue glue
 *   calls.ts                               what the host asks of the server (timeouts, cancellation, progress,
 *                                          readable errors, the H12 re-initialize)
 *   serverRequests.ts                      the bound on what the server asks of the host
 *   serverLog.ts                           the server's log and stderr tail through the one redaction path
 *   shownCatalogue.ts                      the catalogue shown: live, held across a restart (H585), or cached
 *   notificationListeners.ts               the listeners for the server's notifications by method
 *   history.ts                             the protocol timeline
 *   ../skills/skills.ts                    the server's skills (SEP-2640): listed, read on use, verified
 * This file keeps the public API the host, the views and the CLI use.
 */
import { eraShort, protocolLabel } from '../logging/protocolLabel';
import { RequestHistory, type HistoryEntry, type StoredHistory } from './history';
import {
  auth,
  type CallToolResult, type CompleteResult, type GetPromptResult, type Implementation, type ListResourcesResult,
  type LoggingLevel, type OAuthClientProvider, type ProtocolEra, type ReadResourceResult, type StandardSchemaV1,
} from '@modelcontextprotocol/client';
import type { RequestOptions, ServerHandle } from '../api';
import { Emitter, type Disposable, type Event } from '../events';
import type { Catalogue, ClientFeatures, LogEntry, Root, ServerDefinition, ServerState } from '../types';
import type { CatalogueKind } from '../catalogue/paging';
import { McpHostError, describeError, messageOf } from '../errors';
import type { Redactor } from '../logging/redact';
import { resolveLimits, timeoutOf, type Limits, type TimeoutKey } from '../limits';
import type { FetchLike } from '../http/fetch';
import { createGuardedFetch } from '../http/guardedFetch';
import { SamplingService } from '../features/sampling';
import type { LoadEnvironment } from '../launch/stdio';
import type { ReconnectionOptions } from '../launch/http';
import type { McpSession, ServerNotification, SessionHost, TransportKind } from './session';
import { Supervisor } from './supervisor';
import type { RestartPolicy } from './crashLoopGuard';
import { ServerLog } from './serverLog';
import { ShownCatalogue } from './shownCatalogue';
import { ServerCalls } from './calls';
import { ServerLauncher } from './launcher';
import { NotificationListeners } from './notificationListeners';
import { ConnectionTasks } from '../tasks/toolTasks';
import { ExtTaskTracker } from '../tasks/extTaskTracker';
import { TASK_BOUNDS, type TaskInfo } from '../tasks/tasks';
import { LOOSE_RESULT } from '../spec';
import { bindTaskMemory, type TaskMemoryStore } from '../tasks/taskMemory';
import { isSandboxed, type SandboxDenial, type SandboxHostOptions } from '../launch/sandboxPolicy';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { EraVerdictStore } from './eraVerdicts';
import type { DefinitionKey } from '../config/definitionKey';
import { ServerSkills, type LoadedSkillFile, type SkillInfo } from '../skills/skills';
import * as l10n from '@vscode/l10n';

export { defaultLoadEnvironment } from '../launch/stdio';
export { STDIO_PROBE_TIMEOUT, type ServerNotification, type TransportKind } from './session';
export type { RestartPolicy } from './crashLoopGuard';
export { STDERR_TAIL } from './serverLog';

export { COMPLETION_MAX } from './calls';

export interface ConnectionOptions {
  features?: ClientFeatures;
  /** Shared by a host's connections; created from `features` when missing. */
  sampling?: SamplingService;
  /** The roots this server may see (already filtered); answered to roots/list. */
  roots?: () => Root[];
  clientInfo?: Implementation;
  restart?: RestartPolicy;
  /** Health check every this many ms while running (default 60 000; 0 = off). Two failures mark the connection dead. */
  pingIntervalMs?: number;
  /** Grace periods for the stdio shutdown (close stdin, SIGTERM, SIGKILL). */
  stopGrace?: { eofGraceMs?: number; termGraceMs?: number };
  /** OAuth for HTTP servers. */
  authProvider?: OAuthClientProvider;
  /** Base fetch for HTTP (tests); every request still gets its own AbortSignal. */
  fetch?: FetchLike;
  /** Environment for stdio servers: default process.env + envFile + env. */
  loadEnvironment?: LoadEnvironment;
  baseEnv?: NodeJS.ProcessEnv;
  /** Options for the Streamable HTTP GET stream reconnection. */
  reconnection?: ReconnectionOptions;
  /** Caps on what a server fills (defaults: DEFAULT_LIMITS); the settings `mcpHost.limits.*`. */
  limits?: Partial<Limits>;
  /** Stdio only: how long the `server/discover` probe waits before the server is taken for a legacy one (default STDIO_PROBE_TIMEOUT). */
  probeTimeoutMs?: number;
  /** Protocol era negotiation: 'auto' (default: `server/discover` first, `initialize` for older servers) or 'legacy'. */
  negotiation?: 'auto' | 'legacy';
  /** The OS sandbox for stdio servers (launch/sandboxPolicy.ts, sandboxLaunch.ts): forced for all, extra denials, paths for tests. */
  sandbox?: SandboxHostOptions;
  /** The protocol-era verdicts remembered per definition key (eraVerdicts.ts): a known legacy server is not probed. */
  eraVerdicts?: EraVerdictStore;
  /**
   * The running tasks remembered per definition key across a reload (tasks/taskMemory.ts): a new session asks the
   * server about each (`tasks/get`) and lists the ones it still keeps. Needs `definitionKey`.
   */
  taskMemory?: TaskMemoryStore;
  /**
   * The definition key (config/definitionKey.ts: the owner's keyed hash of the identity fields) that era verdicts are
   * kept under; without one no verdict is read or kept.
   */
  definitionKey?: DefinitionKey;
  /**
   * Resolves once `definitionKey` can answer, when its owner reads the key it hashes under asynchronously (the
   * extension: SecretStorage, issue 41); a launch awaits it before its era-verdict lookup, a new session before its
   * task-memory lookup. Without it, `definitionKey` answers at once. The host's restart rule (host.ts reconcile) keys
   * only servers it already has: an owner may reconcile before this resolves while the host has none.
   */
  keyReady?: Promise<unknown>;
  /**
   * Which tools get their schemas compiled when a list arrives (default: none, each tool's on its first call, H146).
   * A one-shot command that calls one tool compiles only that one (the CLI; doctor all); with this option the others
   * are shape-checked only (catalogue.ts).
   */
  compileToolSchemas?: (server: string, tool: string) => boolean;
}

export class Connection implements ServerHandle {
  private readonly supervisor: Supervisor;
  private readonly serverLog: ServerLog;
  private readonly sessionHost: SessionHost;
  private readonly requests: ServerCalls;
  private readonly sampling: SamplingService;
  private readonly fetchFn: FetchLike;
  private limits: Limits;
  private trace = false;
  /** Tool calls that run as MCP tasks (toolTasks.ts): one tracker per session. */
  private readonly toolTasks = new ConnectionTasks(() => this.name);
  readonly onDidChangeTasks: Event<TaskInfo> = this.toolTasks.onDidChange;
  private readonly notifications = new NotificationListeners(message => this.serverLog.log('warning', 'lifecycle', message));
  private readonly launcher: ServerLauncher;
  /** The server's skills (skills/skills.ts): the list of the current session, files read on use. */
  private readonly serverSkills: ServerSkills;
  /** The listed skills changed (a new session, a refresh, the session ended). */
  readonly onDidChangeSkills: Event<readonly SkillInfo[]>;
  /** Which transport won the last connect. */
  transportKind: TransportKind | undefined;
  /** Tools that cannot be called, with the reason, as far as known without compiling (shownCatalogue.ts). */
  get invalidTools(): ReadonlyMap<string, string> { return this.shown.invalidTools; }

  /** The catalogue shown: the live one, one held across a restart (H585), or the cached seed (shownCatalogue.ts). */
  private readonly shown = new ShownCatalogue(() => this.state, () => this.supervisor.session);
  private readonly _onDidUpdateResource = new Emitter<string>();
  private readonly _onDidDenyInSandbox = new Emitter<SandboxDenial>();
  /** Each thing the OS sandbox refused this server (logged too, with source `sandbox`). */
  readonly onDidDenyInSandbox: Event<SandboxDenial> = this._onDidDenyInSandbox.event;
  private disposed = false;
  readonly onDidChangeState: Event<ServerState>;
  readonly onDidChangeCatalogue: Event<Catalogue> = this.shown.onDidChange;
  readonly onDidUpdateResource: Event<string> = this._onDidUpdateResource.event;
  readonly onLog: Event<LogEntry>;

  private _definition: ServerDefinition;

  constructor(definition: ServerDefinition, private readonly options: ConnectionOptions = {}) {
    this._definition = definition;
    this.sampling = options.sampling ?? new SamplingService(options.features ?? {});
    this.limits = resolveLimits(options.limits);
    this.serverLog = new ServerLog(() => this._definition, () => this.limits);
    this.onLog = this.serverLog.onLog;
    // Every HTTP request (transports and OAuth) goes through the guard: headers stay with their origin, bodies are capped.
    this.fetchFn = createGuardedFetch(() => {
      const def = this._definition;
      return def.type === 'stdio' ? { server: this.name, url: 'null:', maxMessageBytes: this.limits.maxMessageBytes }
        : { server: this.name, url: def.url, headers: def.headers, maxMessageBytes: this.limits.maxMessageBytes };
    }, options.fetch);
    const log = this.serverLog.log.bind(this.serverLog);
    this.sessionHost = {
      name: () => this.name, log, redactor: () => this.redactor, limits: () => this.limits,
      requestTimeout: () => this.timeout('request'), startupTimeout: () => this.timeout('startup'),
      clientInfo: options.clientInfo, features: options.features ?? {}, sampling: this.sampling,
      samplingPolicy: () => this._definition.sampling, roots: () => this.visibleRoots(),
      negotiation: options.negotiation, probeTimeoutMs: options.probeTimeoutMs, compileToolSchemas: options.compileToolSchemas,
      onCatalogue: (_s, c) => this.shown.changed(c),
      onResourceUpdated: uri => this._onDidUpdateResource.fire(uri),
      onNotification: n => this.notifications.dispatch(n),
      onClosed: s => this.supervisor.onSessionClosed(s),
    };
    this.serverSkills = new ServerSkills({
      name: () => this.name, limits: () => this.limits, requestTimeout: () => this.timeout('request'), warn: m => log('warning', 'lifecycle', m),
    });
    this.onDidChangeSkills = this.serverSkills.onDidChange;
    this.launcher = new ServerLauncher({
      name: () => this.name, definition: () => this.definition, options, limits: () => this.limits, serverLog: this.serverLog,
      fetch: this.fetchFn, sessionHost: this.sessionHost, rootPaths: () => this.rootPaths(), trace: () => this.trace,
      redactor: () => this.redactor, onStdoutClosed: s => this.supervisor.onStdoutClosed(s), onDenial: d => this._onDidDenyInSandbox.fire(d),
    });
    this.supervisor = new Supervisor({
      name: () => this.name, log, redact: t => this.redactor.text(t), redactError: e => { this.redactor.error(e); },
      stderrTail: () => this.serverLog.stderrTail, startupTimeout: () => this.timeout('startup'),
      restart: options.restart, pingIntervalMs: options.pingIntervalMs, signsIn: !!options.authProvider,
      launch: scope => this.launcher.launch(scope),
      runningState: s => this.runningState(s),
      installed: async s => {
        const taskOptions = {
          redactor: this.redactor, maxTasks: this.limits.maxTasksPerServer, requestTimeout: () => this.timeout('request'),
          log: (level: 'info' | 'warning' | 'debug', message: string) => log(level, 'lifecycle', message),
        };
        // Tasks of either era run on one ext-tasks session per server session (extTaskSession.ts), made only for a
        // server that offers them (a 2026-07-28 server's extension, a 2025-11-25 server's `tasks` capability).
        if (s.declaresTasksExtension || s.takesLegacyTasks) {
          const legacy = !s.declaresTasksExtension;
          // The running tasks of this definition are kept across a reload, under its definition key (taskMemory.ts).
          if (options.taskMemory && options.keyReady) await options.keyReady;
          const memoryKey = options.taskMemory && options.definitionKey?.(this.definition);
          try {
            const ext = new ExtTaskTracker({
              server: this.name, session: await s.taskSession(), progress: (token, h) => s.raw.onProgress(token, h), ...taskOptions,
              ...(legacy && { legacyResultWait: (taskId: string, signal: AbortSignal) => s.client.request({ method: 'tasks/result', params: { taskId } }, LOOSE_RESULT, { signal, timeout: TASK_BOUNDS.resultWaitMs }) }),
              ...(options.taskMemory && memoryKey && { memory: bindTaskMemory(options.taskMemory, memoryKey, () => this.limits.maxTasksPerServer) }),
            });
            s.store.add(this.toolTasks.attachRunner(ext));
            // Those a previous session had running: asked about again, listed when the server still keeps them.
            void ext.resume().catch(err => log('warning', 'lifecycle', `the tasks from before the reload could not be asked about: ${messageOf(err)}`));
          } catch (err) {
            log('warning', 'lifecycle', `the server declares ${legacy ? 'tasks' : 'the tasks extension'}, but its task session could not be set up: ${messageOf(err)}`);
          }
        }
        if (s.era === 'modern') void s.listenForChanges(() => this.supervisor.session === s);
        await s.loadCatalogue();
        // H585: the new session listed its own; the crashed session's catalogue is no longer held.
        this.shown.listed();
        // Skills: the list only (names, descriptions, file digests); no file is read until a skill is loaded.
        if (this.supervisor.session === s) await this.serverSkills.attach(s.client);
      },
      cleared: () => {
        if (!this.supervisor.session) this.serverSkills.clear();
        // H585: a crashed server awaiting its automatic restart keeps offering what it listed; otherwise nothing.
        this.shown.cleared();
      },
    });
    this.onDidChangeState = this.supervisor.onDidChangeState;
    this.requests = new ServerCalls({
      name: () => this.name, state: () => this.state, redactor: () => this.redactor, requestTimeout: () => this.timeout('request'), log,
      ready: signal => this.ready(signal), current: () => this.supervisor.session, reinitialize: s => this.supervisor.reinitialize(s),
      toolTasks: this.toolTasks, elicitUrlRequired: options.features?.elicitUrlRequired,
    });
  }

  get name(): string { return this._definition.name; }
  get definition(): ServerDefinition { return this._definition; }
  get state(): ServerState { return this.supervisor.state; }
  get catalogue(): Catalogue { return this.shown.current; }
  get catalogueStale(): boolean { return this.shown.stale; }
  seedCatalogue(c: Catalogue | undefined): void { this.shown.seedWith(c); }
  get stderrTail(): readonly string[] { return this.serverLog.stderrTail; }
  /** The skills the running server lists (SEP-2640): names and descriptions only, nothing of their files read. */
  /**
   * The running session for a request, starting the server on first use; never a server turned off (`disabled`): a
   * request does not start it (only turning it on does), whoever asks (a model's tool call, a view, the CLI).
   */
  private ready(signal?: AbortSignal): Promise<McpSession> {
    if (this._definition.disabled && this.supervisor.state.kind === 'stopped') {
      return Promise.reject(new McpHostError(l10n.t('server `{0}` is turned off ("disabled": true in its settings): turn it on to use it', this.name)));
    }
    return this.supervisor.ready(signal);
  }

  get skills(): readonly SkillInfo[] { return this.state.kind === 'running' ? this.serverSkills.list : []; }
  /**
   * Loads a listed skill's `SKILL.md` (or another of its files, `ref` relative to the skill's root), starting the
   * server on first use; every file is verified (size, digest, frontmatter) and refused with a SkillError naming
   * server, skill and file when it does not match the server's own entry.
   */
  async loadSkill(nameOrUri: string, ref?: string, opts?: RequestOptions): Promise<LoadedSkillFile> {
    await this.ready();
    return this.serverSkills.read(nameOrUri, ref, opts?.signal);
  }
  refreshCatalogue(kind?: CatalogueKind): Promise<void> { return this.shown.refresh(kind); }
  /** This server's part of the one redaction path (redact.ts): its definition's secrets and its launch environment's. */
  get redactor(): Redactor { return this.serverLog.redactor; }
  /** True when this server's process runs in the OS sandbox (its `sandboxEnabled`, or the host forces it). */
  get sandboxed(): boolean { return isSandboxed(this._definition, this.options.sandbox); }
  /** The pid of the stdio server process, while there is one. */
  get pid(): number | undefined { return this.supervisor.session?.pid; }
  /** The negotiated protocol version, while running. */
  get protocolVersion(): string | undefined { return this.state.kind === 'running' ? this.state.protocolVersion : undefined; }
  /** The negotiated protocol era ('modern': 2026-07-28 and later; 'legacy': initialize), while running. */
  get era(): ProtocolEra | undefined { return this.state.kind === 'running' ? this.state.era : undefined; }
  /** The timeout `key` (a row of `TIMEOUT_LIMITS`) in milliseconds: the definition's own, else the default. */
  timeout(key: TimeoutKey): number { return timeoutOf(this.definition.timeout, key); }
  private visibleRoots(): Root[] { return this.options.roots?.() ?? []; }
  /** The folder paths of the visible roots (the sandbox's write boundary). */
  private rootPaths(): string[] {
    return this.visibleRoots().flatMap(r => { try { return [fileURLToPath(r.uri)]; } catch { return []; } });
  }

  /**
   * Takes a definition of the same server: one whose identity (the table in config/schema.ts, the definition key) is
   * unchanged, so only its tuning differs (timeouts, `disabled`, `autoStart`). The next request and the next start use
   * it; nothing restarts.
   */
  updateDefinition(def: ServerDefinition): void {
    this._definition = def;
  }

  /** New caps (the settings changed): the log, stderr and HTTP body caps apply at once, the rest from the next start. */
  setLimits(limits: Partial<Limits> | undefined): void { this.limits = resolveLimits(limits); }
  /** Marks the server as unusable because of its configuration (undefined clears it). */
  setConfigError(message: string | undefined): void { this.supervisor.setConfigError(message); }
  setTrace(on: boolean): void { this.trace = on; }
  start(): Promise<void> { return this.supervisor.start(); }
  async stop(): Promise<void> { await Promise.all([this.supervisor.stop(), this.launcher.stopBackground()]); }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops and releases the emitters. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    this.supervisor.dispose();
    this.timeline.dispose();
    this.toolTasks.dispose();
    this.serverSkills.dispose();
    this.shown.dispose();
    this._onDidUpdateResource.dispose();
    this._onDidDenyInSandbox.dispose();
    this.serverLog.dispose();
  }

  // -------------------------------------------------------------------------------------------
  // Running state, catalogue, notifications (launch: launcher.ts; listeners: notificationListeners.ts)
  // -------------------------------------------------------------------------------------------

  private runningState(session: McpSession): Extract<ServerState, { kind: 'running' }> {
    const r = this.redactor;
    const sent = session.client.getServerVersion() ?? { name: this.name, version: 'unknown' };
    // What the server says about itself is shown in views and the CLI: through the redaction path first.
    const info = { ...sent, name: r.text(sent.name), version: r.text(sent.version), ...(sent.title !== undefined && { title: r.text(sent.title) }) };
    const instructions = ((i?: string) => (i === undefined ? i : r.text(i)))(session.client.getInstructions());
    const era: ProtocolEra = session.era ?? 'legacy';
    const protocolVersion = session.protocolVersion ?? 'unknown';
    this.transportKind = session.kind;
    // The roots the server sees from now on (before the state change: a roots change after it is announced).
    session.rootsKey = JSON.stringify(this.visibleRoots());
    this.serverLog.log('info', 'lifecycle', `running: ${info.name} ${info.version}, ${protocolLabel(protocolVersion)} (${eraShort(era)}) over ${session.kind}`);
    return {
      kind: 'running', since: Date.now(), protocolVersion, era, serverInfo: info, capabilities: session.client.getServerCapabilities() ?? {},
      ...(instructions ? { instructions } : {}), transport: session.kind,
    };
  }

  /**
   * Listens to the server's notifications of one method (e.g. `notifications/tasks/status`), in both eras,
   * for every session of this connection (restarts included), until disposed.
   */
  onNotification(method: string, handler: (notification: ServerNotification) => void): Disposable {
    return this.notifications.on(method, handler);
  }

  // -------------------------------------------------------------------------------------------
  // Calls (calls.ts)
  // -------------------------------------------------------------------------------------------

  callTool(tool: string, args: Record<string, unknown>, opts?: RequestOptions): Promise<CallToolResult> {
    return this.timeline.track('tools/call', tool, args, opts?.by ?? 'user', () => this.requests.callTool(tool, args, opts), opts?.program);
  }
  get tasks(): readonly TaskInfo[] { return this.toolTasks.tasks; }
  cancelTask(taskId: string): Promise<void> { return this.toolTasks.cancel(taskId); }
  taskResult(taskId: string): Promise<CallToolResult> { return this.requests.taskResult(taskId); }
  getPrompt(prompt: string, args: Record<string, string>, opts?: RequestOptions): Promise<GetPromptResult> {
    return this.timeline.track('prompts/get', prompt, args, opts?.by ?? 'user', () => this.requests.getPrompt(prompt, args, opts));
  }
  readResource(uri: string, opts?: RequestOptions): Promise<ReadResourceResult> {
    return this.timeline.track('resources/read', uri, undefined, opts?.by ?? 'user', () => this.requests.readResource(uri, opts));
  }
  /** The protocol timeline (history.ts). */
  private readonly timeline = new RequestHistory(() => this.name);
  get history(): readonly HistoryEntry[] { return this.timeline.entries; }
  readonly onDidChangeHistory: Event<HistoryEntry> = this.timeline.onDidChange;
  storedHistory(redactor: Redactor = this.redactor): StoredHistory { return this.timeline.toStored(redactor); }
  restoreHistory(stored: unknown): void { this.timeline.restore(stored); }
  listResourcesPage(cursor?: string, opts?: RequestOptions): Promise<ListResourcesResult> { return this.requests.listResourcesPage(cursor, opts); }
  complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    opts?: RequestOptions,
  ): Promise<CompleteResult['completion']> { return this.requests.complete(ref, argument, context, opts); }
  /** Subscribes to `notifications/resources/updated` for `uri` (legacy: resources/subscribe; modern: subscriptions/listen). */
  subscribe(uri: string): Promise<void> { return this.requests.subscribe(uri); }
  unsubscribe(uri: string): Promise<void> { return this.requests.unsubscribe(uri); }
  /** `logging/setLevel` on a legacy session (the 2026-07-28 revision has no such request). */
  setLogLevel(level: LoggingLevel): Promise<void> { return this.requests.setLogLevel(level); }
  /** Proves the server answers: ping (legacy), server/discover (modern, which has no ping). */
  ping(opts?: RequestOptions): Promise<void> { return this.requests.ping(opts); }

  /**
   * Any request on the running session (starting the server on first use), with this server's timeouts,
   * cancellation, progress and readable errors, in either era (a 2026-07-28 `input_required` round is answered
   * through the same sampling/elicitation/roots handlers). The result is checked against `resultSchema` (any
   * Standard Schema; default: any JSON object).
   */
  request<T = Record<string, unknown>>(
    method: string, params?: Record<string, unknown>, resultSchema?: StandardSchemaV1<unknown, T>, opts?: RequestOptions,
  ): Promise<T> { return this.requests.request(method, params, resultSchema, opts); }

  /**
   * Completes an OAuth sign-in with the authorization code the redirect brought back (the SDK exchanges it,
   * with the PKCE verifier, for tokens kept by the provider; `iss`, when the redirect carried one, is checked
   * against the authorization server, RFC 9207), then starts the server.
   */
  async finishAuth(authorizationCode: string, iss?: string): Promise<void> {
    const def = this._definition;
    const provider = this.options.authProvider;
    if (def.type === 'stdio' || !provider) throw new McpHostError(l10n.t('server `{0}` does not use OAuth', this.name));
    let result;
    try {
      result = await auth(provider, { serverUrl: def.url, authorizationCode, fetchFn: this.fetchFn, ...(iss !== undefined ? { iss } : {}) });
    } catch (err) {
      throw new McpHostError(describeError(this.name, 'sign-in', this.redactor.error(err)), undefined, { cause: err });
    }
    if (result !== 'AUTHORIZED') throw new McpHostError(l10n.t('server `{0}`: the sign-in did not complete; try again', this.name));
    this.serverLog.log('info', 'lifecycle', 'signed in');
    if (this.state.kind === 'running') return;
    await this.start();
  }

  /** Sends roots/list_changed when the roots this server sees changed since it last heard (H16; legacy era only). */
  async notifyRootsChanged(): Promise<boolean> {
    // H91: a sandboxed server's write boundary is its roots: when they change, it restarts inside the new one.
    if (this.launcher.sandboxRoots !== undefined && this.sandboxed && (this.state.kind === 'running' || this.state.kind === 'starting')) {
      const now = this.rootPaths().map(r => path.normalize(r));
      if (JSON.stringify([...new Set(now)]) !== this.launcher.sandboxRoots) {
        this.serverLog.log('info', 'sandbox', `roots changed: restarting inside the new write boundary (${now.length ? now.join(', ') : 'no root'})`);
        this.launcher.sandboxRoots = undefined;
        try {
          await this.stop();
          if (!this.disposed) await this.start();
        } catch (err) {
          this.serverLog.log('error', 'sandbox', `restart after the roots changed failed: ${messageOf(err)}`);
        }
        return false;
      }
    }
    const session = this.supervisor.session;
    if (!session || session.closing || this.state.kind !== 'running') return false;
    try {
      return await session.rootsChanged(JSON.stringify(this.visibleRoots()));
    } catch (err) {
      this.serverLog.log('warning', 'lifecycle', `could not send roots/list_changed: ${messageOf(err)}`);
      return false;
    }
  }
}
