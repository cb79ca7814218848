/**
 * One MCP session (the SDK's Protocol/Client layer, as the host uses it): the SDK v2 Client on a started
 * launch's transport, its era (negotiated as the SDK does it), the client features answered through the
 * Client's request handlers (server requests on a legacy session, `input_required` rounds on a modern one),
 * server notifications, the catalogue glue (list changes: unsolicited, or a `subscriptions/listen` stream),
 * resource subscriptions in both eras, the health check, and the session's end. Supervision (state,
 * restarts, timeouts) is supervisor.ts; launching is launch/.
 */
import { appsClientCapability } from '../apps/meta';
import { skillsClientCapability } from '../skills/skills';
import { Client, type Implementation, type McpSubscription, type ProtocolEra, type RequestOptions as SdkRequestOptions, type SubscriptionFilter, type Transport } from '@modelcontextprotocol/client';
import { DisposableStore } from '../events';
import { CatalogueSession } from '../catalogue/catalogue';
import type { CatalogueKind } from '../catalogue/paging';
import { describeError, httpStatusOf, messageOf } from '../errors';
import { mapMcpLevel } from '../logging/logging';
import type { Limits } from '../limits';
import type { Redactor } from '../logging/redact';
import type { SamplingService } from '../features/sampling';
import { PendingServerRequests } from './serverRequests';
import { BoundedSchemaValidator } from '../schema/sdkValidator';
import { specSchema } from '../spec';
import { StdioTransport } from '../process/stdioTransport';
import { StdioMessageError } from '../process/stdoutReader';
import { endHttpSession } from '../launch/http';
import { RawRequests } from './rawRequests';
import { serverDeclaresTasksExtension, serverTakesToolTasks } from '../tasks/taskPolicy';
import { createTaskSession, type TaskEnabledSession, type TaskInputRequest } from '../tasks/extTaskSession';
import type { Catalogue, ClientFeatures, LogEntry, LogLevel, Root, SamplingPolicy, ServerState } from '../types';

/** Which transport carries a session. */
export type TransportKind = NonNullable<Extract<ServerState, { kind: 'running' }>['transport']>;

/** A server notification as the SDK hands it over (see `Connection.onNotification`). */
export interface ServerNotification {
  method: string;
  params?: Record<string, unknown>;
}

/**
 * How long a stdio server may stay silent on the connect-time `server/discover` probe before it is taken
 * for a legacy (2025-era) server and sent `initialize`. A legacy server that answers "method not found"
 * falls back at once; this bounds the ones that ignore unknown requests before `initialize`.
 */
export const STDIO_PROBE_TIMEOUT = 3000;

/**
 * The one table of a server's list changes, for both eras: the notification (2025 eras: sent at any time; 2026-07-28:
 * on the `subscriptions/listen` stream), the capability that declares it (`capabilities.<capability>.listChanged`),
 * the subscription filter key that asks for it on 2026-07-28, and the catalogue lists it rereads. A new list change
 * is one row here.
 */
export const LIST_CHANGES = [
  { method: 'notifications/tools/list_changed', capability: 'tools', filter: 'toolsListChanged', lists: ['tools'] },
  { method: 'notifications/prompts/list_changed', capability: 'prompts', filter: 'promptsListChanged', lists: ['prompts'] },
  { method: 'notifications/resources/list_changed', capability: 'resources', filter: 'resourcesListChanged', lists: ['resources', 'resourceTemplates'] },
] as const satisfies readonly { method: string; capability: 'tools' | 'prompts' | 'resources'; filter: keyof SubscriptionFilter; lists: readonly CatalogueKind[] }[];

/** What a session needs from its connection (all read when used, so settings changes apply). */
export interface SessionHost {
  name(): string;
  log(level: LogLevel, source: LogEntry['source'], message: string, extra?: Partial<LogEntry>): void;
  redactor(): Redactor;
  limits(): Limits;
  requestTimeout(): number;
  startupTimeout(): number;
  clientInfo?: Implementation;
  features: ClientFeatures;
  sampling: SamplingService;
  samplingPolicy(): SamplingPolicy | undefined;
  roots(): Root[];
  /** 'legacy' pins the initialize handshake; default 'auto'. */
  negotiation?: 'auto' | 'legacy';
  probeTimeoutMs?: number;
  /** Which tools get their schemas compiled when listed (ConnectionOptions.compileToolSchemas; default each on first call). */
  compileToolSchemas?: (server: string, tool: string) => boolean;
  onCatalogue(session: McpSession, c: Catalogue): void;
  onResourceUpdated(uri: string): void;
  onNotification(n: ServerNotification): void;
  /** The transport closed by itself (not through `close`). */
  onClosed(session: McpSession): void;
}

export class McpSession {
  readonly client: Client;
  readonly store = new DisposableStore();
  pid?: number;
  exit?: { code: number | null; signal: NodeJS.Signals | null };
  /** A stdio launch: resolves when its stderr has ended and every line of it was logged. */
  stderrDone?: Promise<void>;
  protocolVersion?: string;
  /** The negotiated era: 'modern' (2026-07-28 and later, stateless) or 'legacy' (initialize). */
  era?: ProtocolEra;
  catalogue?: CatalogueSession;
  closing = false;
  /** Set when we (stop/restart) ended the session, as opposed to a crash. */
  stopped = false;
  rootsKey?: string;
  private listChanges?: McpSubscription;
  /** What the host declares (the Client's capabilities), for the Tasks extension's request framing. */
  private clientCapabilities: Record<string, unknown> = {};
  /** The host's own requests on this transport (the 2026-07-28 Tasks extension's methods). */
  readonly raw: RawRequests;
  private pendingRequests?: PendingServerRequests;
  private readonly resourceSubs = new Map<string, McpSubscription>();
  /** The era probe's time limit when this session negotiated ('auto'); undefined when it started legacy-only. */
  private probeMs?: number;
  /**
   * H194: true when the era was decided by an answer (the server answered or refused `server/discover` before the
   * probe's time limit ran out, or the session did not probe). A legacy era reached after the whole probe time may be
   * a slow start, not a refusal: it is no verdict to remember.
   */
  eraAnswered = true;

  constructor(readonly transport: Transport, readonly kind: TransportKind, private readonly host: SessionHost, legacyOnly = false) {
    this.client = this.makeClient(legacyOnly);
    this.raw = new RawRequests(transport, { server: () => host.name(), requestTimeout: () => host.requestTimeout() });
  }

  // -------------------------------------------------------------------------------------------
  // The Client and the client features
  // -------------------------------------------------------------------------------------------

  private makeClient(legacyOnly: boolean): Client {
    const h = this.host;
    // SSE is a 2024-11-05 transport: only the legacy handshake. Stdio and Streamable HTTP negotiate the era
    // as the SDK does ('auto'): server/discover first, initialize for older servers. On stdio a silent probe
    // means a legacy server, so it waits only briefly; on HTTP silence is an outage, so the startup timeout applies.
    const mode = this.kind === 'sse' || legacyOnly || h.negotiation === 'legacy' ? 'legacy' : 'auto';
    const probeMs = this.kind === 'stdio' ? Math.min(h.probeTimeoutMs ?? STDIO_PROBE_TIMEOUT, h.startupTimeout()) : h.startupTimeout();
    if (mode === 'auto') this.probeMs = probeMs;
    const f = h.features;
    const capabilities = {
        roots: { listChanged: true },
        // Tasks (2025-11-25): the host makes task-augmented tool calls; it takes none itself (no list, cancel, requests).
        tasks: {},
        ...(h.sampling.enabled ? { sampling: { tools: {} } } : {}),
        ...(f.elicit ? { elicitation: { form: {}, url: {} } } : {}),
        // MCP Apps: the editor renders tools' `ui://` views (the CLI names their URIs). Skills (SEP-2640): listed,
        // loaded on use and verified (skills/skills.ts).
        extensions: { ...appsClientCapability(), ...skillsClientCapability() },
    };
    this.clientCapabilities = capabilities;
    const client = new Client(h.clientInfo ?? { name: 'mcp-host', version: '0.1.0' }, {
      capabilities,
      versionNegotiation: { mode, probe: { timeoutMs: probeMs } },
      // Whatever the SDK validates against a server's JSON Schema goes through the host's bounded compiler.
      jsonSchemaValidator: new BoundedSchemaValidator(() => h.name(), () => h.limits(), m => h.log('warning', 'lifecycle', m)),
    });
    // Server→client requests waiting at once, per session: the rest are refused (serverRequests.ts). The same
    // handlers answer a 2026-07-28 server's `input_required` rounds (the SDK fulfils them through these).
    const pending = this.pendingRequests = new PendingServerRequests(() => h.name(), h.limits().maxPendingServerRequests);
    client.setRequestHandler('roots/list', () => pending.run('roots/list', () => ({ roots: h.roots().map(r => ({ ...r })) })));
    if (h.sampling.enabled) {
      client.setRequestHandler('sampling/createMessage', (req, ctx) => pending.run('sampling/createMessage', async () => {
        h.log('info', 'lifecycle', 'sampling request received');
        try {
          return await h.sampling.handle(h.name(), h.samplingPolicy(), req.params, ctx.mcpReq.signal);
        } catch (err) {
          h.log('warning', 'lifecycle', `sampling request refused: ${messageOf(err).replace(/^MCP error -?\d+: /, '')}`);
          throw err;
        }
      }));
    }
    const elicit = f.elicit;
    if (elicit) {
      client.setRequestHandler('elicitation/create', (req, ctx) => pending.run('elicitation/create', () => elicit(h.name(), req.params, ctx.mcpReq.signal)));
    }
    client.setNotificationHandler('notifications/elicitation/complete', n => {
      f.elicitationComplete?.(h.name(), n.params.elicitationId);
      h.onNotification(n);
    });
    client.setNotificationHandler('notifications/message', n => {
      const { level, logger, data } = n.params;
      const message = typeof data === 'string' ? data : h.redactor().value(data);
      h.log(mapMcpLevel(level), 'server', message, { mcpLevel: level, ...(logger ? { logger: h.redactor().cap(logger, 256).text } : {}) });
      h.onNotification(n);
    });
    for (const change of LIST_CHANGES) {
      client.setNotificationHandler(change.method, n => {
        for (const list of change.lists) this.catalogue?.changed(list);
        h.onNotification(n);
      });
    }
    client.setNotificationHandler('notifications/resources/updated', n => { h.onResourceUpdated(n.params.uri); h.onNotification(n); });
    // Every other notification reaches the listeners of its method (onNotification).
    client.fallbackNotificationHandler = async n => { h.onNotification(n); };
    client.onerror = err => this.onClientError(err);
    client.onclose = () => { if (!this.closing) h.onClosed(this); };
    return client;
  }

  private onClientError(err: Error): void {
    const h = this.host;
    if (this.closing) return;
    if (err instanceof StdioMessageError) {
      h.log('warning', 'lifecycle', err.message);
      return;
    }
    const msg = messageOf(err);
    // The answer to the connect-time era probe, arriving after the probe gave up on it (a slow legacy server).
    if (/unknown message ID/i.test(msg) && /server-discover-probe/.test(msg)) {
      h.log('debug', 'lifecycle', 'a late answer to the protocol probe was ignored');
      return;
    }
    // An HTTP status from the transport is not a malformed message: the request that met it reports it.
    if (httpStatusOf(err) === undefined && /Unknown message type|JSON|Unexpected token|invalid_union|invalid_type|is not valid JSON/i.test(msg)) {
      h.log('warning', 'lifecycle', `ignored a message that is not valid JSON-RPC: ${h.redactor().cap(msg, 300).text}`);
    } else {
      h.log('debug', 'lifecycle', `transport: ${h.redactor().cap(msg, 500).text}`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Connect, catalogue, list changes
  // -------------------------------------------------------------------------------------------

  /** Connects (the era probe, then discover or initialize) and sets up the catalogue (not loaded yet). */
  async connect(): Promise<void> {
    const h = this.host;
    // The SDK timeout is a backstop only: the supervisor's startup timer fires first and never cancels initialize.
    // The SDK falls back to initialize on a refusal of the probe or when the probe's time runs out; only the first is
    // an answer. Which one it was shows in when initialize is sent: at once after a refusal, only after the probe's
    // whole time otherwise (a refusal in the last moment counts as no answer: it costs one probe more, never a pin).
    let probeSentAt: number | undefined;
    let probeWaitedMs: number | undefined;
    const send = this.transport.send.bind(this.transport);
    if (this.probeMs !== undefined) {
      this.transport.send = (message, options) => {
        const method = (message as { method?: unknown }).method;
        if (method === 'server/discover' && probeSentAt === undefined) probeSentAt = performance.now();
        else if (method === 'initialize' && probeSentAt !== undefined && probeWaitedMs === undefined) probeWaitedMs = performance.now() - probeSentAt;
        return send(message, options);
      };
    }
    try {
      await this.client.connect(this.transport, { timeout: h.startupTimeout() + 60_000 });
    } finally {
      if (this.probeMs !== undefined) this.transport.send = send;
    }
    this.protocolVersion = this.client.getNegotiatedProtocolVersion();
    this.era = this.client.getProtocolEra() ?? 'legacy';
    // H194: the SDK's probe timer starts before our send is seen and fires on the event loop's cached clock, so on a
    // loaded machine a timed-out probe can measure a little under probeMs here: anything past 90% of it is no answer
    // (the safe side: a late answer only means the next start probes again).
    if (this.era === 'legacy' && this.probeMs !== undefined && (probeWaitedMs === undefined || probeWaitedMs >= this.probeMs * 0.9)) this.eraAnswered = false;
    this.raw.install();
    this.catalogue = new CatalogueSession({
      client: this.client,
      capabilities: this.client.getServerCapabilities(),
      timeout: h.requestTimeout(),
      server: h.name(),
      limits: h.limits(),
      headerAnnotations: this.era === 'modern' && this.kind === 'streamableHttp',
      ...(h.compileToolSchemas && { compileTool: (tool: string) => h.compileToolSchemas!(h.name(), tool) }),
      onChange: c => { if (!this.closing) h.onCatalogue(this, c); },
      warn: m => h.log('warning', 'lifecycle', m),
    });
  }

  /** Reads every declared list; a failure is a warning (the server still runs). */
  async loadCatalogue(): Promise<void> {
    try {
      await this.catalogue?.loadAll();
    } catch (err) {
      if (!this.closing) this.host.log('warning', 'lifecycle', `could not load the catalogue: ${describeError(this.host.name(), 'list', err)}`);
    }
  }

  /**
   * Modern era: list changes arrive only on a `subscriptions/listen` stream. One stream for the lists the
   * server says change; opened again if it ends while the session lives (the lists are reread then, since
   * changes in between were missed). `current` says whether this is still the connection's session.
   */
  async listenForChanges(current: () => boolean, reopened = false): Promise<void> {
    if (this.era !== 'modern') return;
    const caps = this.client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {};
    for (const change of LIST_CHANGES) if (caps[change.capability]?.listChanged) filter[change.filter] = true;
    if (!Object.keys(filter).length || this.closing) return;
    try {
      const sub = await this.client.listen(filter, { timeout: this.host.requestTimeout() });
      if (this.closing || !current()) {
        void sub.close().catch(() => undefined);
        return;
      }
      this.listChanges = sub;
      if (reopened) void this.catalogue?.loadAll().catch(() => undefined);
      void sub.closed.then(how => {
        if (how === 'local' || this.closing || !current()) return;
        this.host.log('info', 'lifecycle', `the server ended the list-change subscription (${how}); listening again`);
        setTimeout(() => { void this.listenForChanges(current, true); }, 1000).unref?.();
      });
    } catch (err) {
      if (!this.closing) this.host.log('warning', 'lifecycle', `could not listen for list changes: ${describeError(this.host.name(), 'subscriptions/listen', this.host.redactor().error(err))}`);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Tasks on 2026-07-28 (the io.modelcontextprotocol/tasks extension)
  // -------------------------------------------------------------------------------------------

  /** The server speaks 2026-07-28 and declares the Tasks extension. */
  get declaresTasksExtension(): boolean {
    return this.era === 'modern' && serverDeclaresTasksExtension(this.protocolVersion, this.client.getServerCapabilities() as Record<string, unknown> | undefined);
  }

  /** A 2025-11-25 session whose server declares task tool calls (`capabilities.tasks.requests.tools.call`). */
  get takesLegacyTasks(): boolean {
    return this.era !== 'modern' && serverTakesToolTasks(this.client.getServerCapabilities() as Record<string, unknown> | undefined);
  }

  /**
   * An ext-tasks session on this Client (one per session), for either era. On 2026-07-28 its task traffic
   * goes through the host's request coordinator, framed with what the host declares plus the extension, and
   * `input_required` requests are answered by the host's usual elicitation, sampling and roots paths; on
   * 2025-11-25 it uses the Client itself, and the server's requests reach the Client's own handlers.
   */
  taskSession(): Promise<TaskEnabledSession> {
    const h = this.host;
    const info = h.clientInfo ?? { name: 'mcp-host', version: '0.1.0' };
    return createTaskSession(this.client, {
      endpointId: `mcp-host:${h.name()}`,
      ...(this.era === 'modern' && {
        raw: { dispatch: this.raw.dispatch, framing: { protocolVersion: this.protocolVersion ?? '2026-07-28', clientInfo: info, clientCapabilities: this.clientCapabilities } },
      }),
      onInputRequest: (request, signal) => this.answerInput(request, signal),
      onError: err => h.log('warning', 'lifecycle', `tasks: ${h.redactor().cap(messageOf(err), 500).text}`),
    });
  }

  /** A task's input request, answered as the same request from the server would be. */
  private async answerInput(request: TaskInputRequest, signal: AbortSignal): Promise<unknown> {
    const h = this.host;
    const pending = this.pendingRequests!;
    if (request.kind === 'roots') return pending.run('roots/list', () => ({ roots: h.roots().map(r => ({ ...r })) }));
    if (request.kind === 'sampling') {
      if (!h.sampling.enabled) throw new Error(`server \`${h.name()}\` asked for sampling, which this host does not offer`);
      h.log('info', 'lifecycle', 'sampling request received (task input)');
      return pending.run('sampling/createMessage', () => h.sampling.handle(h.name(), h.samplingPolicy(), request.params as never, signal));
    }
    const elicit = h.features.elicit;
    if (!elicit) return { action: 'decline' };
    return pending.run('elicitation/create', () => elicit(h.name(), request.params as never, signal));
  }

  // -------------------------------------------------------------------------------------------
  // Resource subscriptions and health
  // -------------------------------------------------------------------------------------------

  /** `resources/subscribe` on a legacy session; a `subscriptions/listen` stream with that resource on a modern one. */
  async subscribe(uri: string, o: SdkRequestOptions): Promise<void> {
    if (this.era !== 'modern') {
      await this.client.request({ method: 'resources/subscribe', params: { uri } }, specSchema('EmptyResult'), o);
      return;
    }
    if (this.resourceSubs.has(uri)) return;
    const sub = await this.client.listen({ resourceSubscriptions: [uri] }, o);
    if (this.closing) {
      void sub.close().catch(() => undefined);
      return;
    }
    this.resourceSubs.set(uri, sub);
    void sub.closed.then(() => { if (this.resourceSubs.get(uri) === sub) this.resourceSubs.delete(uri); });
  }

  async unsubscribe(uri: string, o: SdkRequestOptions): Promise<void> {
    if (this.era !== 'modern') {
      await this.client.request({ method: 'resources/unsubscribe', params: { uri } }, specSchema('EmptyResult'), o);
      return;
    }
    const sub = this.resourceSubs.get(uri);
    this.resourceSubs.delete(uri);
    await sub?.close().catch(() => undefined);
  }

  /**
   * A cheap round trip that proves the server still answers: `ping` on a legacy session; the 2026-07-28
   * revision has no ping, so `server/discover` there.
   */
  healthCheck(o: SdkRequestOptions): Promise<unknown> {
    return this.era === 'modern' ? this.client.discover(o) : this.client.ping(o);
  }

  /** Sends roots/list_changed when `key` (the roots this server sees) changed; a modern server asks per request. */
  async rootsChanged(key: string): Promise<boolean> {
    if (this.era === 'modern' || key === this.rootsKey) return false;
    this.rootsKey = key;
    await this.client.sendRootsListChanged();
    return true;
  }

  // -------------------------------------------------------------------------------------------
  // The end
  // -------------------------------------------------------------------------------------------

  /** Stops listening and frees the catalogue; the transport is left to `close`. */
  release(): void {
    this.closing = true;
    this.raw.close(`server \`${this.host.name()}\` stopped`);
    void this.listChanges?.close().catch(() => undefined);
    for (const sub of this.resourceSubs.values()) void sub.close().catch(() => undefined);
    this.resourceSubs.clear();
    this.catalogue?.dispose();
    this.store.dispose();
  }

  /**
   * Ends the session: a stdio launch's whole process tree (stdin EOF → SIGTERM → SIGKILL), a Streamable HTTP
   * session politely when `graceful`, then the Client.
   */
  async close(graceful: boolean): Promise<void> {
    this.release();
    if (this.transport instanceof StdioTransport) {
      try {
        const r = await this.transport.stop();
        if (r?.pids.length) this.host.log('debug', 'lifecycle', `process tree ${r.pids.join(', ')} stopped (${r.phase})`);
      } catch (err) {
        this.host.log('warning', 'lifecycle', `could not stop the process tree of pid ${this.pid}: ${messageOf(err)}`);
      }
    } else if (graceful && this.kind === 'streamableHttp' && this.era !== 'modern') {
      await endHttpSession(this.transport);
    }
    await this.client.close().catch(() => undefined);
  }
}
