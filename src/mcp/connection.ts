/**
 * One MCP server session (implements ServerHandle): the transport (stdio, Streamable HTTP with SSE
 * fallback, or SSE), the SDK `Client`, the state machine (stopped → starting → running → error, with
 * restarts after crashes and a crash-loop stop), timeouts, ping health, logs and the catalogue.
 *
 * Every failure becomes state plus a log line; no method leaves an unhandled rejection behind.
 */
import {
  Client, ProtocolErrorCode, SSEClientTransport, SdkError, SdkErrorCode, StreamableHTTPClientTransport, SUPPORTED_PROTOCOL_VERSIONS, UnauthorizedError, auth,
  type CallToolResult, type ClientCapabilities, type CompleteResult, type GetPromptResult, type Implementation, type JSONRPCMessage,
  type ListResourcesResult, type LoggingLevel, type McpSubscription, type OAuthClientProvider, type ProtocolEra, type ReadResourceResult,
  type RequestOptions as SdkRequestOptions, type StandardSchemaV1, type SubscriptionFilter, type Transport,
} from '@modelcontextprotocol/client';
import type { RequestOptions, ServerHandle } from './api';
import { DisposableStore, Emitter, assertNever, type Disposable, type Event } from './events';
import type {
  Catalogue, ClientFeatures, HttpServerDefinition, LogEntry, LogLevel, Root, ServerDefinition, ServerState,
  StdioServerDefinition,
} from './types';
import { CatalogueSession, describeAjvErrors, emptyCatalogue } from './catalogue';
import {
  CONNECTION_CLOSED_CODE, McpHostError, REQUEST_TIMEOUT_CODE, describeError, fmtMs, httpStatusOf, isConnectionClosedError, messageOf, protocolCodeOf,
} from './errors';
import { LOOSE_RESULT, specSchema } from './spec';
import { callWithUrlElicitation } from './urlElicitation';
import { BoundedSchemaValidator } from './schema/sdkValidator';
import { mapMcpLevel } from './logging';
import { environmentSecrets, redactorFor, type Redactor } from './redact';
import { limitMessage, resolveLimits, type Limits } from './limits';
import type { FetchLike } from './http/fetch';
import { headerMirroredTool } from './toolHeaders';
import { rediscoverOnRejectedToken } from './oauth/rediscover';
import { createGuardedFetch } from './http/guardedFetch';
import { SamplingService } from './sampling';
import { resolveCommand } from './process/resolveCommand';
import { StdioMessageError, StdioTransport } from './process/stdioTransport';
import { cutLine, trimTail } from './process/stderrLines';
import { launchProblem } from './process/preflight';
import { loadEnvironment as configLoadEnvironment } from './config/envFile';
import { PendingServerRequests } from './serverRequests';
import { parseToolResult } from './toolResult';
import { ConnectionTasks, taskChannel } from './toolTasks';
import type { TaskInfo } from './tasks';

export const DEFAULT_STARTUP_TIMEOUT = 30_000;
export const DEFAULT_REQUEST_TIMEOUT = 60_000;
export const STDERR_TAIL = 50;
export const COMPLETION_MAX = 100;
/**
 * How long a stdio server may stay silent on the connect-time `server/discover` probe before it is taken
 * for a legacy (2025-era) server and sent `initialize`. A legacy server that answers "method not found"
 * falls back at once; this bounds the ones that ignore unknown requests before `initialize`.
 */
export const STDIO_PROBE_TIMEOUT = 3000;

/** A server notification as the SDK hands it over (see `Connection.onNotification`). */
export interface ServerNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** Restart policy after crashes. */
export interface RestartPolicy {
  /** Restart automatically after a crash (default true). */
  enabled?: boolean;
  /** First backoff delay (default 1000 ms), doubled per crash. */
  initialDelayMs?: number;
  /** Backoff cap (default 30 000 ms). */
  maxDelayMs?: number;
  /** Crashes within `windowMs` that stop restarting (default 5). */
  maxCrashes?: number;
  /** Window for counting crashes (default 180 000 ms). */
  windowMs?: number;
}

export interface ConnectionOptions {
  features?: ClientFeatures;
  /** Shared by a host's connections; created from `features` when missing. */
  sampling?: SamplingService;
  /** The roots this server may see (already filtered); answered to roots/list. */
  roots?: () => Root[];
  clientInfo?: Implementation;
  restart?: RestartPolicy;
  /** Ping every this many ms while running (default 60 000; 0 = off). Two failures mark the connection dead. */
  pingIntervalMs?: number;
  /** Grace periods for the stdio shutdown (close stdin, SIGTERM, SIGKILL). */
  stopGrace?: { eofGraceMs?: number; termGraceMs?: number };
  /** OAuth for HTTP servers. */
  authProvider?: OAuthClientProvider;
  /** Base fetch for HTTP (tests); every request still gets its own AbortSignal. */
  fetch?: FetchLike;
  /** Environment for stdio servers: default process.env + envFile + env. */
  loadEnvironment?: (def: StdioServerDefinition, baseEnv: NodeJS.ProcessEnv, warn?: (message: string) => void) => Promise<NodeJS.ProcessEnv>;
  baseEnv?: NodeJS.ProcessEnv;
  /** Options for the Streamable HTTP GET stream reconnection. */
  reconnection?: { initialReconnectionDelay: number; maxReconnectionDelay: number; reconnectionDelayGrowFactor: number; maxRetries: number };
  /** Caps on what a server fills (defaults: DEFAULT_LIMITS); the settings `mcpHost.limits.*`. */
  limits?: Partial<Limits>;
  /** Stdio only: how long the `server/discover` probe waits before the server is taken for a legacy one (default STDIO_PROBE_TIMEOUT). */
  probeTimeoutMs?: number;
  /**
   * Protocol era negotiation: 'auto' (default: `server/discover` first, the 2025 `initialize` handshake for
   * older servers) or 'legacy' (only `initialize`, as a 2025 client).
   */
  negotiation?: 'auto' | 'legacy';
}

/** Which transport carries a session. */
export type TransportKind = NonNullable<Extract<ServerState, { kind: 'running' }>['transport']>;

interface Session {
  client: Client;
  transport: Transport;
  kind: TransportKind;
  pid?: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  protocolVersion?: string;
  /** The negotiated era: 'modern' (2026-07-28 and later, stateless) or 'legacy' (initialize). */
  era?: ProtocolEra;
  /** Modern era: the `subscriptions/listen` stream for list changes, and one per subscribed resource. */
  listChanges?: McpSubscription;
  resourceSubs?: Map<string, McpSubscription>;
  catalogue?: CatalogueSession;
  store: DisposableStore;
  closing: boolean;
  /** Set when we (stop/restart) ended the session, as opposed to a crash. */
  stopped?: boolean;
  rootsKey?: string;
}

/**
 * The user's environment + envFile + env (`null` removes a variable), via the config module's
 * `loadEnvironment`; an unreadable envFile is a readable error naming the setting.
 */
export async function defaultLoadEnvironment(def: StdioServerDefinition, baseEnv: NodeJS.ProcessEnv, warn?: (message: string) => void): Promise<NodeJS.ProcessEnv> {
  const r = await configLoadEnvironment(def, baseEnv);
  if (r.error) throw new McpHostError(r.error.message);
  for (const w of r.warnings) warn?.(w.message);
  return r.env;
}

function stateFingerprint(s: ServerState): string {
  return JSON.stringify(s);
}

export class Connection implements ServerHandle {
  private _state: ServerState = { kind: 'stopped' };
  private _stderrTail: string[] = [];
  private session: Session | undefined;
  private startPromise: Promise<void> | undefined;
  private reinitPromise: Promise<Session> | undefined;
  /** Bumped by every start/stop so stale async work can tell it is stale. */
  private epoch = 0;
  private attempt = 0;
  private crashes: number[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pingFailures = 0;
  private trace = false;
  private readonly cancelLaunches = new Set<() => void>();
  /** A configuration problem that keeps this server from starting (shown as its error state). */
  private configError: string | undefined;
  private readonly sampling: SamplingService;
  private readonly fetchFn: FetchLike;
  private limits: Limits;
  /** A stderr line was cut at maxStderrLineBytes in this connection (said once). */
  private stderrCutSaid = false;
  /** Launches that ended by themselves and are still being swept (stdio). */
  private readonly sweeps = new Set<Promise<unknown>>();
  /** Which HTTP transport won the last connect. */
  transportKind: TransportKind | undefined;
  /** Tools whose inputSchema could not be compiled, with the reason. */
  readonly invalidTools = new Map<string, string>();

  private readonly _onDidChangeState = new Emitter<ServerState>();
  private readonly _onDidChangeCatalogue = new Emitter<Catalogue>();
  private readonly _onDidUpdateResource = new Emitter<string>();
  private readonly _onLog = new Emitter<LogEntry>();
  readonly onDidChangeState: Event<ServerState> = this._onDidChangeState.event;
  readonly onDidChangeCatalogue: Event<Catalogue> = this._onDidChangeCatalogue.event;
  readonly onDidUpdateResource: Event<string> = this._onDidUpdateResource.event;
  readonly onLog: Event<LogEntry> = this._onLog.event;
  /** Tool calls that run as MCP tasks (toolTasks.ts): one tracker per session. */
  private readonly toolTasks = new ConnectionTasks(() => this.name);
  readonly onDidChangeTasks: Event<TaskInfo> = this.toolTasks.onDidChange;
  /** Listeners of server notifications by method (onNotification). */
  private readonly notificationListeners = new Map<string, Set<(n: ServerNotification) => void>>();

  private _definition: ServerDefinition;

  constructor(definition: ServerDefinition, private readonly options: ConnectionOptions = {}) {
    this._definition = definition;
    this.sampling = options.sampling ?? new SamplingService(options.features ?? {});
    this.limits = resolveLimits(options.limits);
    // Every HTTP request (transports and OAuth) goes through the guard: headers stay with their origin, bodies are capped.
    this.fetchFn = createGuardedFetch(() => {
      const def = this._definition;
      return def.type === 'stdio' ? { server: this.name, url: 'null:', maxMessageBytes: this.limits.maxMessageBytes }
        : { server: this.name, url: def.url, headers: def.headers, maxMessageBytes: this.limits.maxMessageBytes };
    }, options.fetch);
  }

  get name(): string {
    return this._definition.name;
  }

  get definition(): ServerDefinition {
    return this._definition;
  }

  /**
   * Takes a definition that differs only in what does not need a new process (timeouts, roots,
   * sampling policy, autoStart, disabled): the next request uses it; roots changes are announced.
   */
  updateDefinition(def: ServerDefinition): void {
    this._definition = def;
    void this.notifyRootsChanged();
  }

  get state(): ServerState {
    return this._state;
  }

  get catalogue(): Catalogue {
    return this.session?.catalogue?.catalogue ?? emptyCatalogue();
  }

  get stderrTail(): readonly string[] {
    return this._stderrTail;
  }

  /** The pid of the stdio server process, while there is one. */
  get pid(): number | undefined {
    return this.session?.pid;
  }

  /** The negotiated protocol version, while running. */
  get protocolVersion(): string | undefined {
    return this._state.kind === 'running' ? this._state.protocolVersion : undefined;
  }

  /** The negotiated protocol era ('modern': 2026-07-28 and later; 'legacy': initialize), while running. */
  get era(): ProtocolEra | undefined {
    return this._state.kind === 'running' ? this._state.era : undefined;
  }

  private get startupTimeout(): number {
    return this.definition.timeout?.startup ?? DEFAULT_STARTUP_TIMEOUT;
  }

  private get requestTimeout(): number {
    return this.definition.timeout?.request ?? DEFAULT_REQUEST_TIMEOUT;
  }

  // -------------------------------------------------------------------------------------------
  // Logs and state
  // -------------------------------------------------------------------------------------------

  /** Every log entry: redacted, then cut at maxLogEntryBytes (redact.ts); the first cut is reported once. */
  private log(level: LogLevel, source: LogEntry['source'], message: string, extra?: Partial<LogEntry>): void {
    const max = this.limits.maxLogEntryBytes;
    const { text, cut } = this.redactor.cap(message, max);
    this._onLog.fire({ server: this.name, level, source, message: text, time: Date.now(), ...extra });
    if (cut && !this.logCapReported) {
      this.logCapReported = true;
      this.log('warning', 'lifecycle', `${limitMessage(this.name, 'maxLogEntryBytes', max, `${source === 'server' ? 'sent a log message' : `wrote a ${source} line`}`)}; longer log entries are cut`);
    }
  }

  private logCapReported = false;
  /** Secret-looking values of the environment the last launch got from `envFile`/`env`. */
  private launchSecrets: readonly string[] = [];
  private redactorCache: { def: ServerDefinition; extra: readonly string[]; redactor: Redactor } | undefined;

  /** This server's part of the one redaction path (redact.ts): its definition's secrets and its launch environment's. */
  get redactor(): Redactor {
    const c = this.redactorCache;
    if (c && c.def === this._definition && c.extra === this.launchSecrets) return c.redactor;
    const redactor = redactorFor(this._definition).with(this.launchSecrets);
    this.redactorCache = { def: this._definition, extra: this.launchSecrets, redactor };
    return redactor;
  }

  private setState(s: ServerState): void {
    if (stateFingerprint(s) === stateFingerprint(this._state)) return;
    this._state = s;
    this._onDidChangeState.fire(s);
  }

  private setError(message: string, crashLoop = false, retryAt?: number): void {
    message = this.redactor.text(message);
    this.log('error', 'lifecycle', message);
    this.setState({ kind: 'error', message, stderrTail: [...this._stderrTail], crashLoop, ...(retryAt ? { retryAt } : {}) });
  }

  private pushStderr(line: string, moreBytes = 0): void {
    // Redact first (a line the transport already cut is a fragment: a secret's beginning at its end is hidden
    // too), then cut: the one redaction path runs before any truncation.
    const text = line.replace(/\r$/, '');
    const redacted = moreBytes > 0 ? this.redactor.fragment(text) : this.redactor.text(text);
    const { text: clean, cut } = cutLine(redacted, this.limits.maxStderrLineBytes, moreBytes);
    if (cut && !this.stderrCutSaid) {
      this.stderrCutSaid = true;
      this.log('warning', 'lifecycle', limitMessage(this.name, 'maxStderrLineBytes', this.limits.maxStderrLineBytes, 'wrote a stderr line that was cut'));
    }
    this._stderrTail.push(clean);
    trimTail(this._stderrTail, STDERR_TAIL, this.limits.maxStderrTailBytes);
    this.log('warning', 'stderr', clean);
  }

  // -------------------------------------------------------------------------------------------
  // Lifecycle
  // -------------------------------------------------------------------------------------------

  /** New caps (the settings changed): the log, stderr and HTTP body caps apply at once, the rest from the next start. */
  setLimits(limits: Partial<Limits> | undefined): void {
    this.limits = resolveLimits(limits);
  }

  /** Marks the server as unusable because of its configuration (undefined clears it). */
  setConfigError(message: string | undefined): void {
    this.configError = message;
    if (message) this.setError(message);
    else if (this._state.kind === 'error') this.setState({ kind: 'stopped' });
  }

  start(): Promise<void> {
    if (this.configError) return Promise.reject(new McpHostError(this.configError));
    if (this._state.kind === 'running') return Promise.resolve();
    if (this.startPromise) return this.startPromise;
    this.cancelRetry();
    this.crashes = [];
    return this.beginStart(false);
  }

  private beginStart(afterCrash: boolean): Promise<void> {
    const epoch = ++this.epoch;
    const p = this.doStart(epoch, afterCrash).finally(() => {
      if (this.startPromise === p) this.startPromise = undefined;
    });
    this.startPromise = p;
    return p;
  }

  private async doStart(epoch: number, afterCrash: boolean): Promise<void> {
    this.attempt++;
    this.setState({ kind: 'starting', since: Date.now(), attempt: this.attempt });
    this.log('info', 'lifecycle', `starting (attempt ${this.attempt})`);
    let session: Session;
    try {
      session = await this.launch(epoch);
    } catch (err) {
      this.redactor.error(err);
      if (epoch !== this.epoch) throw new McpHostError(`server \`${this.name}\` was stopped while starting`);
      const message = err instanceof UnauthorizedError && this.options.authProvider
        ? `server \`${this.name}\` needs you to sign in: finish signing in in the browser window that opened, then start the server again`
        : err instanceof McpHostError ? err.message : describeError(this.name, 'initialize', err);
      if (afterCrash) {
        this.recordCrash(message);
      } else {
        this.setError(message);
      }
      throw new McpHostError(message, undefined, { cause: err });
    }
    if (epoch !== this.epoch) {
      await this.teardown(session, false);
      throw new McpHostError(`server \`${this.name}\` was stopped while starting`);
    }
    this.installSession(session);
    await this.loadCatalogue(session);
  }

  private async loadCatalogue(session: Session): Promise<void> {
    try {
      await session.catalogue?.loadAll();
    } catch (err) {
      if (!session.closing) this.log('warning', 'lifecycle', `could not load the catalogue: ${describeError(this.name, 'list', err)}`);
    }
  }

  private installSession(session: Session): void {
    this.session = session;
    this.pingFailures = 0;
    const sent = session.client.getServerVersion() ?? { name: this.name, version: 'unknown' };
    // What the server says about itself is shown in views and the CLI: through the redaction path first.
    const info = { ...sent, name: this.redactor.text(sent.name), version: this.redactor.text(sent.version), ...(sent.title !== undefined && { title: this.redactor.text(sent.title) }) };
    const caps = session.client.getServerCapabilities() ?? {};
    const instructions = ((i?: string) => (i === undefined ? i : this.redactor.text(i)))(session.client.getInstructions());
    this.transportKind = session.kind;
    const era: ProtocolEra = session.era ?? 'legacy';
    this.setState({
      kind: 'running', since: Date.now(),
      protocolVersion: session.protocolVersion ?? 'unknown',
      era,
      serverInfo: info, capabilities: caps,
      ...(instructions ? { instructions } : {}),
      transport: session.kind,
    });
    this.log('info', 'lifecycle', `running: ${info.name} ${info.version}, protocol ${session.protocolVersion ?? 'unknown'} (${era} era) over ${session.kind}`);
    session.rootsKey = JSON.stringify(this.visibleRoots());
    session.store.add(this.toolTasks.attach(taskChannel(this), {
      redactor: this.redactor, maxTasks: this.limits.maxTasksPerServer, requestTimeout: () => this.requestTimeout,
      log: (level, message) => this.log(level, 'lifecycle', message),
    }));
    this.startPing(session);
    if (era === 'modern') void this.listenForChanges(session);
  }

  async stop(): Promise<void> {
    this.epoch++;
    this.cancelRetry();
    this.stopPing();
    for (const cancel of [...this.cancelLaunches]) cancel();
    const session = this.session;
    this.session = undefined;
    const pending = this.startPromise;
    if (session) {
      session.stopped = true;
      await this.teardown(session, true);
    }
    if (pending) await pending.catch(() => undefined);
    await Promise.all([...this.sweeps]);
    if (this._state.kind !== 'stopped') {
      this.log('info', 'lifecycle', 'stopped');
      this.setState({ kind: 'stopped' });
    }
    this._onDidChangeCatalogue.fire(emptyCatalogue());
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Stops and releases the emitters. */
  async dispose(): Promise<void> {
    await this.stop();
    this._onDidChangeState.dispose();
    this._onDidChangeCatalogue.dispose();
    this._onDidUpdateResource.dispose();
    this.toolTasks.dispose();
    this._onLog.dispose();
  }

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** A running session ended without us asking: error state, then a restart with backoff or a crash-loop stop. */
  private recordCrash(message: string): void {
    const policy = this.options.restart ?? {};
    const now = Date.now();
    const windowMs = policy.windowMs ?? 180_000;
    const maxCrashes = policy.maxCrashes ?? 5;
    this.crashes = this.crashes.filter(t => now - t < windowMs);
    this.crashes.push(now);
    if (policy.enabled === false) {
      this.setError(message);
      return;
    }
    if (this.crashes.length >= maxCrashes) {
      this.setError(`${message}. It crashed ${this.crashes.length} times in ${fmtMs(windowMs)}, so it will not be restarted automatically; fix the problem and start it again`, true);
      return;
    }
    const delay = Math.min((policy.initialDelayMs ?? 1000) * 2 ** (this.crashes.length - 1), policy.maxDelayMs ?? 30_000);
    const retryAt = now + delay;
    this.setError(`${message}; restarting in ${fmtMs(delay)}`, false, retryAt);
    const epoch = this.epoch;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (epoch !== this.epoch) return;
      this.beginStart(true).catch(() => undefined);
    }, delay);
    this.retryTimer.unref?.();
  }

  private onSessionClosed(session: Session): void {
    if (session.closing || session !== this.session) return;
    session.closing = true;
    this.session = undefined;
    this.stopPing();
    session.catalogue?.dispose();
    session.store.dispose();
    // What the crashed launch left (a daemon) is being ended; stop() waits for that.
    if (session.transport instanceof StdioTransport) {
      const sweep: Promise<unknown> = session.transport.stop().catch(() => undefined).finally(() => this.sweeps.delete(sweep));
      this.sweeps.add(sweep);
    }
    // Let the exit status and the last stderr lines arrive.
    setTimeout(() => {
      if (this.session || this._state.kind !== 'running') return;
      this._onDidChangeCatalogue.fire(emptyCatalogue());
      this.recordCrash(this.exitMessage(session, 'exited unexpectedly'));
    }, 50);
  }

  /**
   * The server closed its stdout but its process lives on: nothing it says can arrive, and every
   * request would wait for its timeout. Stop the process tree and treat it as a crash.
   */
  private onStdoutClosed(session: Session): void {
    // A normal exit closes stdout too: give the exit event time to arrive first.
    setTimeout(() => {
      if (session.closing || session.exit !== undefined || session !== this.session) return;
      this.stopPing();
      this.session = undefined;
      const epoch = this.epoch;
      this.log('warning', 'lifecycle', `pid ${session.pid} closed its stdout but is still running; stopping it`);
      void this.teardown(session, false).then(() => {
        if (epoch !== this.epoch) return;
        this._onDidChangeCatalogue.fire(emptyCatalogue());
        this.recordCrash(`server \`${this.name}\` closed its stdout but kept running, so none of its answers can arrive; it was stopped`);
      });
    }, 200).unref?.();
  }

  private exitMessage(session: Session, what: string): string {
    const exit = session.exit;
    const status = exit ? (exit.signal ? ` (signal ${exit.signal})` : exit.code !== null ? ` (exit code ${exit.code})` : '') : '';
    const last = this._stderrTail.at(-1);
    if (session.kind === 'stdio') return `server \`${this.name}\` ${what}${status}${last ? `: ${last}` : ''}`;
    return `server \`${this.name}\` closed the connection`;
  }

  private async teardown(session: Session, graceful: boolean): Promise<void> {
    session.closing = true;
    session.catalogue?.dispose();
    session.store.dispose();
    if (session.transport instanceof StdioTransport) {
      try {
        const r = await session.transport.stop();
        if (r?.pids.length) this.log('debug', 'lifecycle', `process tree ${r.pids.join(', ')} stopped (${r.phase})`);
      } catch (err) {
        this.log('warning', 'lifecycle', `could not stop the process tree of pid ${session.pid}: ${messageOf(err)}`);
      }
    } else if (graceful && session.kind === 'streamableHttp') {
      const t = session.transport as StreamableHTTPClientTransport;
      await Promise.race([t.terminateSession().catch(() => undefined), new Promise(r => setTimeout(r, 2000).unref())]);
    }
    await session.client.close().catch(() => undefined);
  }

  // -------------------------------------------------------------------------------------------
  // Launch
  // -------------------------------------------------------------------------------------------

  private capabilities(): ClientCapabilities {
    const f = this.options.features ?? {};
    return {
      roots: { listChanged: true },
      // Tasks (2025-11-25): the host makes task-augmented tool calls; it takes none itself (no list, cancel, requests).
      tasks: {},
      ...(this.sampling.enabled ? { sampling: { tools: {} } } : {}),
      ...(f.elicit ? { elicitation: { form: {}, url: {} } } : {}),
    };
  }

  private visibleRoots(): Root[] {
    return this.options.roots?.() ?? [];
  }

  private makeClient(session: Pick<Session, 'catalogue'> & { closing: boolean }, kind: TransportKind, legacyOnly = false): Client {
    // SSE is a 2024-11-05 transport: only the legacy handshake. Stdio and Streamable HTTP negotiate the era
    // as the SDK does ('auto'): server/discover first, initialize for older servers. On stdio a silent probe
    // means a legacy server, so it waits only briefly; on HTTP silence is an outage, so the startup timeout applies.
    const mode = kind === 'sse' || legacyOnly || this.options.negotiation === 'legacy' ? 'legacy' : 'auto';
    const probeMs = kind === 'stdio' ? Math.min(this.options.probeTimeoutMs ?? STDIO_PROBE_TIMEOUT, this.startupTimeout) : this.startupTimeout;
    const client = new Client(this.options.clientInfo ?? { name: 'mcp-host', version: '0.1.0' }, {
      capabilities: this.capabilities(),
      versionNegotiation: { mode, probe: { timeoutMs: probeMs } },
      // Whatever the SDK validates against a server's JSON Schema goes through the host's bounded compiler.
      jsonSchemaValidator: new BoundedSchemaValidator(() => this.name, () => this.limits),
    });
    // Server→client requests waiting at once, per session: the rest are refused (serverRequests.ts). The same
    // handlers answer a 2026-07-28 server's `input_required` rounds (the SDK fulfils them through these).
    const pending = new PendingServerRequests(() => this.name, this.limits.maxPendingServerRequests);
    client.setRequestHandler('roots/list', () => pending.run('roots/list', () => ({ roots: this.visibleRoots().map(r => ({ ...r })) })));
    if (this.sampling.enabled) {
      client.setRequestHandler('sampling/createMessage', (req, ctx) => pending.run('sampling/createMessage', async () => {
        this.log('info', 'lifecycle', 'sampling request received');
        try {
          return await this.sampling.handle(this.name, this.definition.sampling, req.params, ctx.mcpReq.signal);
        } catch (err) {
          this.log('warning', 'lifecycle', `sampling request refused: ${messageOf(err).replace(/^MCP error -?\d+: /, '')}`);
          throw err;
        }
      }));
    }
    const elicit = this.options.features?.elicit;
    if (elicit) {
      client.setRequestHandler('elicitation/create', (req, ctx) => pending.run('elicitation/create', () => elicit(this.name, req.params, ctx.mcpReq.signal)));
    }
    client.setNotificationHandler('notifications/elicitation/complete', n => {
      this.options.features?.elicitationComplete?.(this.name, n.params.elicitationId);
      this.dispatchNotification(n);
    });
    client.setNotificationHandler('notifications/message', n => {
      const { level, logger, data } = n.params;
      const message = typeof data === 'string' ? data : this.redactor.value(data);
      this.log(mapMcpLevel(level), 'server', message, { mcpLevel: level, ...(logger ? { logger: this.redactor.cap(logger, 256).text } : {}) });
      this.dispatchNotification(n);
    });
    client.setNotificationHandler('notifications/tools/list_changed', n => { void session.catalogue?.refresh('tools'); this.dispatchNotification(n); });
    client.setNotificationHandler('notifications/prompts/list_changed', n => { void session.catalogue?.refresh('prompts'); this.dispatchNotification(n); });
    client.setNotificationHandler('notifications/resources/list_changed', n => {
      void session.catalogue?.refresh('resources');
      void session.catalogue?.refresh('resourceTemplates');
      this.dispatchNotification(n);
    });
    client.setNotificationHandler('notifications/resources/updated', n => { this._onDidUpdateResource.fire(n.params.uri); this.dispatchNotification(n); });
    // Every other notification reaches the listeners of its method (onNotification).
    client.fallbackNotificationHandler = async n => { this.dispatchNotification(n); };
    client.onerror = err => {
      if (session.closing) return;
      if (err instanceof StdioMessageError) {
        this.log('warning', 'lifecycle', err.message);
        return;
      }
      const msg = messageOf(err);
      // The answer to the connect-time era probe, arriving after the probe gave up on it (a slow legacy server).
      if (/unknown message ID/i.test(msg) && /server-discover-probe/.test(msg)) {
        this.log('debug', 'lifecycle', 'a late answer to the protocol probe was ignored');
        return;
      }
      // An HTTP status from the transport is not a malformed message: the request that met it reports it.
      if (httpStatusOf(err) === undefined && /Unknown message type|JSON|Unexpected token|invalid_union|invalid_type|is not valid JSON/i.test(msg)) {
        this.log('warning', 'lifecycle', `ignored a message that is not valid JSON-RPC: ${this.redactor.cap(msg, 300).text}`);
      } else {
        this.log('debug', 'lifecycle', `transport: ${this.redactor.cap(msg, 500).text}`);
      }
    };
    return client;
  }

  private dispatchNotification(n: { method: string; params?: unknown }): void {
    const listeners = this.notificationListeners.get(n.method);
    if (!listeners?.size) return;
    const note: ServerNotification = { method: n.method, ...(n.params && typeof n.params === 'object' ? { params: n.params as Record<string, unknown> } : {}) };
    for (const l of [...listeners]) {
      try {
        l(note);
      } catch (err) {
        this.log('warning', 'lifecycle', `a listener of ${n.method} failed: ${messageOf(err)}`);
      }
    }
  }

  /**
   * Listens to the server's notifications of one method (e.g. `notifications/tasks/status`), in both eras,
   * for every session of this connection (restarts included), until disposed.
   */
  onNotification(method: string, handler: (notification: ServerNotification) => void): Disposable {
    let set = this.notificationListeners.get(method);
    if (!set) this.notificationListeners.set(method, set = new Set());
    set.add(handler);
    return {
      dispose: () => {
        set.delete(handler);
        if (!set.size && this.notificationListeners.get(method) === set) this.notificationListeners.delete(method);
      },
    };
  }

  /**
   * Modern era: list changes arrive only on a `subscriptions/listen` stream. One stream for the lists the
   * server says change; opened again if it ends while the session lives (the lists are reread then, since
   * changes in between were missed).
   */
  private async listenForChanges(session: Session, reopened = false): Promise<void> {
    const caps = session.client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {
      ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
      ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
      ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
    };
    if (!Object.keys(filter).length || session.closing) return;
    try {
      const sub = await session.client.listen(filter, { timeout: this.requestTimeout });
      if (session.closing || session !== this.session) {
        void sub.close().catch(() => undefined);
        return;
      }
      session.listChanges = sub;
      if (reopened) void session.catalogue?.loadAll().catch(() => undefined);
      void sub.closed.then(how => {
        if (how === 'local' || session.closing || session !== this.session) return;
        this.log('info', 'lifecycle', `the server ended the list-change subscription (${how}); listening again`);
        setTimeout(() => { void this.listenForChanges(session, true); }, 1000).unref?.();
      });
    } catch (err) {
      if (!session.closing) this.log('warning', 'lifecycle', `could not listen for list changes: ${describeError(this.name, 'subscriptions/listen', this.redactor.error(err))}`);
    }
  }

  /** Wraps our transport's send and onmessage for the trace (the SDK chains a pre-set onmessage). */
  private instrument(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if (this.trace) this.log('trace', 'trace', `→ ${this.redactor.value(message)}`);
      return send(message, options);
    };
    transport.onmessage = (message: JSONRPCMessage) => {
      if (this.trace) this.log('trace', 'trace', `← ${this.redactor.value(message)}`);
    };
  }

  private async launch(epoch: number): Promise<Session> {
    const def = this.definition;
    switch (def.type) {
      case 'stdio':
        return this.withStartupTimeout(epoch, async s => {
          try {
            return await this.launchStdio(def, s);
          } catch (err) {
            // A server that closes the pipe on the `server/discover` probe (some SDKs end on any request before
            // initialize) is a legacy server: launch it again for the plain initialize handshake.
            if (err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed && !s.aborted) {
              this.log('info', 'lifecycle', 'the server ended the connection on the protocol probe; starting it again for the legacy handshake');
              await Promise.all(s.sessions.map(x => x.closing ? undefined : this.teardown(x, false)));
              // The error state shows the launch that counts: the probe launch's stderr is in the log already.
              this._stderrTail = [];
              return await this.launchStdio(def, s, true);
            }
            throw err;
          }
        });
      case 'sse':
        return this.withStartupTimeout(epoch, s => this.connectHttp(def, 'sse', s));
      case 'http':
        return this.withStartupTimeout(epoch, async s => {
          try {
            return await this.connectHttp(def, 'streamableHttp', s);
          } catch (err) {
            const status = httpStatusOf(err);
            // Spec backwards compatibility: a 4xx (other than 401) to the initialize POST means a legacy SSE server.
            if (status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403 && !s.aborted) {
              this.log('info', 'lifecycle', `Streamable HTTP answered ${status}; trying the legacy SSE transport`);
              return await this.connectHttp(def, 'sse', s);
            }
            throw err;
          }
        });
      default:
        return assertNever(def, 'server type');
    }
  }

  /**
   * Runs a connect under the startup timeout (H9). On timeout the half-open session is torn down
   * (initialize is never cancelled with notifications/cancelled, as the spec asks).
   */
  private async withStartupTimeout(
    epoch: number,
    run: (s: { aborted: boolean; sessions: Session[] }) => Promise<Session>,
  ): Promise<Session> {
    const ms = this.startupTimeout;
    const scope = { aborted: false, sessions: [] as Session[] };
    let timer: NodeJS.Timeout | undefined;
    let cancel!: (err: Error) => void;
    const timeout = new Promise<never>((_, reject) => {
      cancel = reject;
      timer = setTimeout(() => {
        scope.aborted = true;
        reject(new McpHostError(`server \`${this.name}\` did not answer initialize within ${fmtMs(ms)} (timeout.startup); check that it is an MCP server and that it writes nothing but JSON-RPC to stdout`));
      }, ms);
    });
    // stop() during a start abandons it at once (and tears the half-open session down).
    const cancelLaunch = () => { scope.aborted = true; cancel(new McpHostError(`server \`${this.name}\` was stopped while starting`)); };
    this.cancelLaunches.add(cancelLaunch);
    const attempt = run(scope);
    try {
      return await Promise.race([attempt, timeout]);
    } catch (err) {
      scope.aborted = true;
      attempt.catch(() => undefined);
      await Promise.all(scope.sessions.map(s => s.closing ? undefined : this.teardown(s, false)));
      // Let the exit status and last stderr lines arrive before composing the message.
      await new Promise(r => setTimeout(r, 50));
      if (err instanceof McpHostError || epoch !== this.epoch) throw err;
      const crashed = scope.sessions.find(s => s.exit !== undefined || (s.kind === 'stdio' && s.closing));
      const msg = messageOf(err);
      const m = /protocol version is not supported: (.*)$/.exec(msg);
      if (m) {
        throw new McpHostError(`server \`${this.name}\` answered with protocol version ${m[1]}, which this host does not support (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}); update the server or the host`);
      }
      if (crashed && crashed.kind === 'stdio' && (crashed.exit !== undefined || err instanceof SdkError)) {
        throw new McpHostError(this.exitMessage(crashed, 'exited during startup'), undefined, { cause: err });
      }
      throw err;
    } finally {
      clearTimeout(timer);
      this.cancelLaunches.delete(cancelLaunch);
    }
  }

  private newSession(client: Client, transport: Transport, kind: TransportKind): Session {
    return { client, transport, kind, store: new DisposableStore(), closing: false };
  }

  private async finishConnect(session: Session, scope: { aborted: boolean; sessions: Session[] }): Promise<Session> {
    scope.sessions.push(session);
    this.instrument(session.transport);
    session.client.onclose = () => this.onSessionClosed(session);
    // The SDK timeout is a backstop only: our startup timer fires first and never cancels initialize.
    await session.client.connect(session.transport, { timeout: this.startupTimeout + 60_000 });
    if (scope.aborted) throw new McpHostError(`server \`${this.name}\` start was abandoned`);
    session.protocolVersion = session.client.getNegotiatedProtocolVersion();
    session.era = session.client.getProtocolEra() ?? 'legacy';
    session.catalogue = new CatalogueSession({
      client: session.client,
      capabilities: session.client.getServerCapabilities(),
      timeout: this.requestTimeout,
      server: this.name,
      limits: this.limits,
      headerAnnotations: session.era === 'modern' && session.kind === 'streamableHttp',
      onChange: c => {
        if (session.closing) return;
        this.invalidTools.clear();
        for (const t of c.tools) {
          const v = session.catalogue?.toolValidators(t.name);
          if (v?.invalid) this.invalidTools.set(t.name, v.invalid);
        }
        this._onDidChangeCatalogue.fire(c);
      },
      warn: m => this.log('warning', 'lifecycle', m),
    });
    return session;
  }

  private async launchStdio(def: StdioServerDefinition, scope: { aborted: boolean; sessions: Session[] }, legacyOnly = false): Promise<Session> {
    const baseEnv = this.options.baseEnv ?? process.env;
    const env = await (this.options.loadEnvironment ?? defaultLoadEnvironment)(def, baseEnv, m => this.log('warning', 'lifecycle', m));
    this.launchSecrets = environmentSecrets(env, baseEnv);
    const problem = await launchProblem(def, env, baseEnv);
    if (problem) throw new McpHostError(`server \`${this.name}\`: ${problem}`);
    let command: string;
    try {
      command = (await resolveCommand(def.command, { cwd: def.cwd, env })).path;
    } catch (err) {
      throw new McpHostError(`server \`${this.name}\`: ${messageOf(err)}`, undefined, { cause: err });
    }
    if (scope.aborted) throw new McpHostError(`server \`${this.name}\` start was abandoned`);
    const cleanEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) cleanEnv[k] = v;
    const transport = new StdioTransport({
      server: this.name, command, args: def.args ?? [], env: cleanEnv, cwd: def.cwd, limits: this.limits, stopGrace: this.options.stopGrace,
    });
    const placeholder = { closing: false } as Session;
    const client = this.makeClient(placeholder, 'stdio', legacyOnly);
    const session = Object.assign(placeholder, this.newSession(client, transport, 'stdio'));
    // Handlers that captured the placeholder read session.catalogue lazily, so the same object works.
    let stderrOpen = true;
    session.store.add({ dispose: () => { stderrOpen = false; } });
    transport.onstderr = (line, moreBytes) => { if (stderrOpen) this.pushStderr(line, moreBytes); };
    transport.onspawn = pid => { session.pid = pid; };
    transport.onexit = (code, signal) => { session.exit = { code, signal }; };
    transport.onstdoutend = () => this.onStdoutClosed(session);
    transport.ondropped = err => { if (!session.closing) this.log('warning', 'lifecycle', err.message); };
    return this.finishConnect(session, scope);
  }

  private async connectHttp(def: HttpServerDefinition, kind: 'streamableHttp' | 'sse', scope: { aborted: boolean; sessions: Session[] }): Promise<Session> {
    let url: URL;
    try {
      url = new URL(def.url);
    } catch {
      throw new McpHostError(`server \`${this.name}\`: \`${def.url}\` is not a valid URL; fix the server's \`url\` setting`);
    }
    const requestInit: RequestInit = { headers: { ...(def.headers ?? {}) } };
    // SEP-2352: a rejected bearer token makes the SDK's auth() discover the authorization server again.
    const transportFetch = this.options.authProvider ? rediscoverOnRejectedToken(def.url, this.options.authProvider, this.fetchFn) : this.fetchFn;
    const transport: Transport = kind === 'streamableHttp'
      ? new StreamableHTTPClientTransport(url, {
        requestInit, fetch: transportFetch, authProvider: this.options.authProvider,
        reconnectionOptions: this.options.reconnection ?? {
          initialReconnectionDelay: 1000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5,
        },
      })
      : new SSEClientTransport(url, {
        requestInit, fetch: transportFetch, authProvider: this.options.authProvider,
      });
    const placeholder = { closing: false } as Session;
    const client = this.makeClient(placeholder, kind);
    const session = Object.assign(placeholder, this.newSession(client, transport, kind));
    try {
      return await this.finishConnect(session, scope);
    } catch (err) {
      if (!session.closing) {
        session.closing = true;
        await client.close().catch(() => undefined);
      }
      throw err;
    }
  }

  // -------------------------------------------------------------------------------------------
  // Health
  // -------------------------------------------------------------------------------------------

  private startPing(session: Session): void {
    this.stopPing();
    const every = this.options.pingIntervalMs ?? 60_000;
    if (!every) return;
    this.pingTimer = setInterval(() => {
      if (session !== this.session || session.closing) return;
      this.healthCheck(session, { timeout: Math.min(every, 10_000) }).then(
        () => { this.pingFailures = 0; },
        err => {
          if (session !== this.session || session.closing) return;
          this.pingFailures++;
          this.log('warning', 'lifecycle', `ping failed (${this.pingFailures}): ${describeError(this.name, 'ping', err)}`);
          if (this.pingFailures >= 2) {
            this.stopPing();
            this.session = undefined;
            const epoch = this.epoch;
            void this.teardown(session, false).then(() => {
              if (epoch === this.epoch) this.recordCrash(`server \`${this.name}\` stopped answering ping`);
            });
          }
        },
      );
    }, every);
    this.pingTimer.unref?.();
  }

  /**
   * A cheap round trip that proves the server still answers: `ping` on a legacy session; the 2026-07-28
   * revision has no ping, so `server/discover` there.
   */
  private healthCheck(session: Session, o: SdkRequestOptions): Promise<unknown> {
    return session.era === 'modern' ? session.client.discover(o) : session.client.ping(o);
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Requests
  // -------------------------------------------------------------------------------------------

  /** The running session, starting the server on first use. */
  private async ready(): Promise<Session> {
    if (this.reinitPromise) return this.reinitPromise;
    switch (this._state.kind) {
      case 'running':
        if (this.session) return this.session;
        break;
      case 'starting':
        if (this.startPromise) await this.startPromise;
        break;
      case 'stopped':
        await this.start();
        break;
      case 'error':
        throw new McpHostError(`server \`${this.name}\` is not running: ${this._state.message}`);
      default:
        assertNever(this._state, 'state');
    }
    if (!this.session) throw new McpHostError(`server \`${this.name}\` is not running`);
    return this.session;
  }

  private sdkOptions(opts: RequestOptions | undefined): SdkRequestOptions {
    const timeout = opts?.timeout ?? this.requestTimeout;
    const o: SdkRequestOptions = { timeout };
    if (opts?.signal) o.signal = opts.signal;
    if (opts?.onProgress) {
      const cb = opts.onProgress;
      o.onprogress = p => cb({ progress: p.progress, total: p.total, message: p.message });
      o.resetTimeoutOnProgress = true;
      o.maxTotalTimeout = Math.max(timeout * 10, 10 * 60_000);
    }
    return o;
  }

  /**
   * Runs a request on the running session with readable errors. A Streamable HTTP 404 (expired
   * session) re-initializes transparently and replays this one request once (H12).
   */
  private async run<T>(method: string, fn: (client: Client, o: SdkRequestOptions) => Promise<T>, opts?: RequestOptions): Promise<T> {
    let session = await this.ready();
    const sdkOpts = this.sdkOptions(opts);
    for (let tries = 0; ; tries++) {
      try {
        return await fn(session.client, sdkOpts);
      } catch (err) {
        this.redactor.error(err);
        if (tries === 0 && session.kind === 'streamableHttp' && session.era !== 'modern' && isSessionGone(err) && !session.closing && !opts?.signal?.aborted) {
          session = await this.reinitialize(session);
          continue;
        }
        if (opts?.signal?.aborted) throw new McpHostError(`${method} to server \`${this.name}\` was cancelled`, REQUEST_TIMEOUT_CODE, { cause: err });
        // Only a session that really ended is "closed" (a server's own -32000 error is its own).
        if (isConnectionClosedError(err) && (session.closing || session.stopped)) {
          const code = CONNECTION_CLOSED_CODE;
          if (session.stopped) throw new McpHostError(`server \`${this.name}\` was stopped before answering ${method}`, code, { cause: err });
          if (session.kind === 'stdio') throw new McpHostError(`server \`${this.name}\` exited before answering ${method}`, code, { cause: err });
          throw new McpHostError(`server \`${this.name}\` closed the connection before answering ${method}`, code, { cause: err });
        }
        throw new McpHostError(describeError(this.name, method, err, sdkOpts.timeout), protocolCodeOf(err), { cause: err });
      }
    }
  }

  /** A new HTTP session after the server forgot ours (404). Single-flight. */
  private reinitialize(old: Session): Promise<Session> {
    if (this.reinitPromise) return this.reinitPromise;
    const epoch = this.epoch;
    const p = (async () => {
      this.log('info', 'lifecycle', 'the server no longer knows our session; re-initializing');
      old.closing = true;
      old.catalogue?.dispose();
      old.store.dispose();
      void old.client.close().catch(() => undefined);
      const fresh = await this.withStartupTimeout(epoch, s => this.connectHttp(this.definition as HttpServerDefinition, 'streamableHttp', s));
      if (epoch !== this.epoch) {
        await this.teardown(fresh, true);
        throw new McpHostError(`server \`${this.name}\` was stopped`);
      }
      this.installSession(fresh);
      void this.loadCatalogue(fresh);
      return fresh;
    })();
    this.reinitPromise = p;
    p.then(() => { this.reinitPromise = undefined; }, () => { this.reinitPromise = undefined; });
    return p;
  }

  /** H8: use only what the server declared. */
  private require(session: Session, cap: 'tools' | 'prompts' | 'resources', what: string): void {
    if (!session.client.getServerCapabilities()?.[cap]) {
      throw new McpHostError(`server \`${this.name}\` does not offer ${cap}, so it cannot ${what}`);
    }
  }

  async callTool(tool: string, args: Record<string, unknown>, opts?: RequestOptions): Promise<CallToolResult> {
    const session = await this.ready();
    this.require(session, 'tools', `call tool \`${tool}\``);
    const v = session.catalogue?.toolValidators(tool);
    if (v?.invalid) throw new McpHostError(v.unusable ?? `server \`${this.name}\` cannot call ${v.invalid}`);
    if (v?.input && !v.input(args ?? {})) {
      throw new McpHostError(`invalid arguments for tool \`${tool}\` on server \`${this.name}\`: ${describeAjvErrors(v.input.errors)}`, ProtocolErrorCode.InvalidParams);
    }
    const listed = session.catalogue?.catalogue.tools.find(t => t.name === tool);
    const asTask = this.toolTasks.decide({ tool: listed ?? { name: tool }, capabilities: session.client.getServerCapabilities(), protocolVersion: session.protocolVersion, mode: opts?.task });
    this.log('info', 'lifecycle', `calling tool ${tool}${asTask ? ' as a task' : ''}`);
    // SEP-2243: a tool with x-mcp-header parameters goes through the SDK's callTool, which mirrors them into headers.
    const mirrored = headerMirroredTool(session.catalogue?.catalogue.tools ?? [], tool, session);
    // A URLElicitationRequiredError (-32042) offers its URLs (urlElicitation.ts) and retries once they completed.
    const urlFlow = this.options.features?.elicitUrlRequired;
    const raw = asTask
      ? await this.toolTasks.runTask(tool, args ?? {}, { ...opts, onUpdate: opts?.onTask })
      : await callWithUrlElicitation(
        () => this.toolTasks.timed(tool, () => this.run('tools/call', (c, o) => (mirrored
          ? c.callTool({ name: tool, arguments: args ?? {} }, { ...o, toolDefinition: mirrored })
          : c.request({ method: 'tools/call', params: { name: tool, arguments: args ?? {} } }, LOOSE_RESULT, o)), opts)),
        urlFlow && (e => urlFlow(this.name, e, opts?.signal)));
    return this.checkToolResult(session, tool, raw);
  }

  /** A tool result as the host passes it on: malformed blocks replaced, structuredContent checked (H25). */
  private checkToolResult(session: Session, tool: string, raw: unknown): CallToolResult {
    // A malformed content block becomes a one-line error in its place; the valid blocks are kept.
    const { result, problems } = parseToolResult(this.name, tool, raw);
    for (const p of problems) this.log('warning', 'lifecycle', p);
    // H25: validate structuredContent against the tool's outputSchema (every tool, every page).
    const out = (this.session ?? session).catalogue?.toolValidators(tool)?.output;
    if (out && !result.isError) {
      if (result.structuredContent === undefined) {
        throw new McpHostError(`tool \`${tool}\` on server \`${this.name}\` declares an outputSchema but returned no structuredContent`);
      }
      if (!out(result.structuredContent)) {
        throw new McpHostError(`tool \`${tool}\` on server \`${this.name}\` returned structuredContent that does not match its outputSchema: ${describeAjvErrors(out.errors, 'structuredContent')}`);
      }
    }
    return result;
  }

  get tasks(): readonly TaskInfo[] {
    return this.toolTasks.tasks;
  }

  cancelTask(taskId: string): Promise<void> {
    return this.toolTasks.cancel(taskId);
  }

  async taskResult(taskId: string): Promise<CallToolResult> {
    const tool = this.toolTasks.tasks.find(t => t.taskId === taskId)?.tool ?? 'unknown';
    const raw = await this.toolTasks.result(taskId);
    return this.session ? this.checkToolResult(this.session, tool, raw) : parseToolResult(this.name, tool, raw).result;
  }

  async getPrompt(prompt: string, args: Record<string, string>, opts?: RequestOptions): Promise<GetPromptResult> {
    this.require(await this.ready(), 'prompts', `get prompt \`${prompt}\``);
    return this.run('prompts/get', (c, o) => c.request({ method: 'prompts/get', params: { name: prompt, arguments: args } }, specSchema('GetPromptResult'), o), opts);
  }

  async readResource(uri: string, opts?: RequestOptions): Promise<ReadResourceResult> {
    this.require(await this.ready(), 'resources', `read \`${uri}\``);
    return this.run('resources/read', (c, o) => c.request({ method: 'resources/read', params: { uri } }, specSchema('ReadResourceResult'), o), opts);
  }

  async listResourcesPage(cursor?: string, opts?: RequestOptions): Promise<ListResourcesResult> {
    this.require(await this.ready(), 'resources', 'list resources');
    return this.run('resources/list', (c, o) => c.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } }, specSchema('ListResourcesResult'), o), opts);
  }

  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    opts?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    const session = await this.ready();
    if (!session.client.getServerCapabilities()?.completions) return { values: [] };
    const r = await this.run('completion/complete', (c, o) => c.request({
      method: 'completion/complete',
      params: { ref, argument, ...(context ? { context: { arguments: context } } : {}) },
    }, specSchema('CompleteResult'), o), opts);
    const values = r.completion.values.slice(0, COMPLETION_MAX);
    return { ...r.completion, values };
  }

  /**
   * Subscribes to `notifications/resources/updated` for `uri`: `resources/subscribe` on a legacy session, a
   * `subscriptions/listen` stream with that resource on a modern one.
   */
  async subscribe(uri: string): Promise<void> {
    const session = await this.ready();
    if (!session.client.getServerCapabilities()?.resources?.subscribe) {
      throw new McpHostError(`server \`${this.name}\` does not support resource subscriptions`);
    }
    if (session.era !== 'modern') {
      await this.run('resources/subscribe', (c, o) => c.request({ method: 'resources/subscribe', params: { uri } }, specSchema('EmptyResult'), o));
      return;
    }
    const subs = session.resourceSubs ??= new Map();
    if (subs.has(uri)) return;
    const sub = await this.run('subscriptions/listen', (c, o) => c.listen({ resourceSubscriptions: [uri] }, o));
    if (session.closing) {
      void sub.close().catch(() => undefined);
      return;
    }
    subs.set(uri, sub);
    void sub.closed.then(() => { if (subs.get(uri) === sub) subs.delete(uri); });
  }

  async unsubscribe(uri: string): Promise<void> {
    const session = await this.ready();
    if (!session.client.getServerCapabilities()?.resources?.subscribe) return;
    if (session.era !== 'modern') {
      await this.run('resources/unsubscribe', (c, o) => c.request({ method: 'resources/unsubscribe', params: { uri } }, specSchema('EmptyResult'), o));
      return;
    }
    const sub = session.resourceSubs?.get(uri);
    session.resourceSubs?.delete(uri);
    await sub?.close().catch(() => undefined);
  }

  /** `logging/setLevel` on a legacy session (the 2026-07-28 revision has no such request). */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    if (this._state.kind !== 'running' || !this._state.capabilities.logging || this._state.era === 'modern') return;
    await this.run('logging/setLevel', (c, o) => c.request({ method: 'logging/setLevel', params: { level } }, specSchema('EmptyResult'), o));
  }

  async ping(opts?: RequestOptions): Promise<void> {
    const session = await this.ready();
    await this.run(session.era === 'modern' ? 'server/discover' : 'ping', (_c, o) => this.healthCheck(session, o), opts);
  }

  /**
   * Any request on the running session (starting the server on first use), with this server's timeouts,
   * cancellation, progress and readable errors, in either era (a 2026-07-28 `input_required` round is answered
   * through the same sampling/elicitation/roots handlers). The result is checked against `resultSchema` (any
   * Standard Schema; default: any JSON object).
   */
  async request<T = Record<string, unknown>>(
    method: string, params?: Record<string, unknown>, resultSchema?: StandardSchemaV1<unknown, T>, opts?: RequestOptions,
  ): Promise<T> {
    const schema = (resultSchema ?? LOOSE_RESULT) as StandardSchemaV1<unknown, T>;
    return this.run(method, (c, o) => c.request({ method, ...(params ? { params } : {}) }, schema, o) as Promise<T>, opts);
  }

  /**
   * Completes an OAuth sign-in with the authorization code the redirect brought back (the SDK
   * exchanges it, with the PKCE verifier, for tokens kept by the provider), then starts the server.
   */
  async finishAuth(authorizationCode: string, iss?: string): Promise<void> {
    const def = this._definition;
    const provider = this.options.authProvider;
    if (def.type === 'stdio' || !provider) throw new McpHostError(`server \`${this.name}\` does not use OAuth`);
    let result;
    try {
      result = await auth(provider, { serverUrl: def.url, authorizationCode, fetchFn: this.fetchFn, ...(iss !== undefined ? { iss } : {}) });
    } catch (err) {
      throw new McpHostError(describeError(this.name, 'sign-in', this.redactor.error(err)), undefined, { cause: err });
    }
    if (result !== 'AUTHORIZED') throw new McpHostError(`server \`${this.name}\`: the sign-in did not complete; try again`);
    this.log('info', 'lifecycle', 'signed in');
    if (this._state.kind === 'running') return;
    await this.start();
  }

  setTrace(on: boolean): void {
    this.trace = on;
  }

  /** Sends roots/list_changed when the roots this server sees changed since it last heard (H16). */
  async notifyRootsChanged(): Promise<boolean> {
    const session = this.session;
    if (!session || session.closing || this._state.kind !== 'running') return false;
    // A modern (2026-07-28) server asks for roots within each request that needs them: nothing to announce.
    if (session.era === 'modern') return false;
    const key = JSON.stringify(this.visibleRoots());
    if (key === session.rootsKey) return false;
    session.rootsKey = key;
    try {
      await session.client.sendRootsListChanged();
      return true;
    } catch (err) {
      this.log('warning', 'lifecycle', `could not send roots/list_changed: ${messageOf(err)}`);
      return false;
    }
  }
}

/**
 * The server no longer knows our session: 404 per the spec (H12); many servers (the reference
 * server-everything among them) answer 400 "No valid session ID" instead, after a restart.
 */
function isSessionGone(err: unknown): boolean {
  const status = httpStatusOf(err);
  if (status === 404) return true;
  return status === 400 && /session/i.test(messageOf(err));
}
