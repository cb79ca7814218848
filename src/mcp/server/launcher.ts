/**
 * How a server is reached, for one start: which transport (stdio, with the `server/discover` probe and the relaunch
 * for a legacy server that closes on it; Streamable HTTP with the SSE fallback and the legacy same-origin issuer
 * retry; SSE), the OS sandbox of a stdio launch, the session's connect, and the protocol trace on the transport.
 * A definition whose era verdict is remembered (eraVerdicts.ts: it answered `initialize` after the probe) starts with
 * `initialize` at once; when that fails the verdict is dropped and the server is probed again in the same start.
 * Connection (connection.ts) hands it to its supervisor as the launch.
 */
import { SdkError, SdkErrorCode, SdkHttpError, UnauthorizedError, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { assertNever } from '../events';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition } from '../types';
import { McpHostError, forbiddenMessage } from '../errors';
import type { Redactor } from '../logging/redact';
import type { Limits } from '../limits';
import type { FetchLike } from '../http/fetch';
import { prepareStdio } from '../launch/stdio';
import { httpTransport, wantsSseFallback, type HttpKind } from '../launch/http';
import { McpSession, type SessionHost } from './session';
import type { LaunchScope } from './supervisor';
import type { ServerLog } from './serverLog';
import { legacySameOriginIssuer } from '../oauth/legacyIssuer';
import { launcherFailed } from '../process/startReason';
import { rediscoverOnRejectedToken } from '../oauth/rediscover';
import { isSandboxed, type SandboxDenial } from '../launch/sandboxPolicy';
import type { ConnectionOptions } from './connection';
import type { EraVerdictStore } from './eraVerdicts';
import { messageOf } from '../errors';
import * as l10n from '@vscode/l10n';

/** What a launch needs of its connection. */
export interface LaunchHost {
  name(): string;
  definition(): ServerDefinition;
  options: Pick<ConnectionOptions, 'sandbox' | 'baseEnv' | 'loadEnvironment' | 'stopGrace' | 'authProvider' | 'reconnection' | 'eraVerdicts' | 'definitionKey' | 'keyReady' | 'negotiation'>;
  limits(): Limits;
  serverLog: ServerLog;
  /** The guarded fetch (every HTTP request of the server). */
  fetch: FetchLike;
  sessionHost: SessionHost;
  /** The folder paths of the visible roots (the sandbox's write boundary). */
  rootPaths(): string[];
  /** True while the protocol trace is on. */
  trace(): boolean;
  redactor(): Redactor;
  onStdoutClosed(session: McpSession): void;
  onDenial(denial: SandboxDenial): void;
}

/** Launches and connects one server's sessions (see the header). */
export class ServerLauncher {
  /** The roots (folder paths) the running sandboxed launch may write: when the visible roots differ, it restarts. */
  sandboxRoots: string | undefined;
  /** The background era probe in flight (H401), if one is. */
  private background?: { scope: LaunchScope; done: Promise<void> };

  constructor(private readonly host: LaunchHost) {}

  async launch(scope: LaunchScope): Promise<McpSession> {
    const def = this.host.definition();
    const verdicts = this.host.options.eraVerdicts;
    // H123: the era verdict of this definition (stdio and Streamable HTTP negotiate; SSE is legacy anyway).
    const keyOf = this.host.options.definitionKey;
    const keyed = verdicts && keyOf && def.type !== 'sse' && this.host.options.negotiation !== 'legacy';
    // The owner's key may still be on its way (issue 41: the extension reads it from SecretStorage while the first
    // settings sync decides what starts): this start waits for it, never throws or starts without its verdict.
    if (keyed && this.host.options.keyReady) await this.host.options.keyReady;
    const key = keyed ? keyOf(def) : undefined;
    const cached = key !== undefined ? verdicts?.get(key) : undefined;
    let session: McpSession;
    if (key !== undefined && cached) {
      this.host.serverLog.log('info', 'lifecycle', 'this definition answered initialize before: starting without the server/discover probe');
      try {
        session = await this.launchOnce(def, scope, true);
        // H401: a verdict over a day old serves this start; a probe in the background renews or drops it.
        if (verdicts?.stale?.(key)) this.reprobe(def, key, verdicts);
      } catch (err) {
        // H124: the remembered era failed (the server now speaks only 2026-07-28, or something else changed): forget
        // it and start again with the probe, once. A sign-in the server asks for is no era problem (and must not
        // open a second browser window): it stays as it is.
        if (err instanceof UnauthorizedError) throw err;
        verdicts?.set(key, undefined);
        // Abandoned (the startup timeout: a server that ignores initialize now, or a stop): the next start probes.
        if (scope.aborted) throw err;
        this.host.serverLog.log('info', 'lifecycle', `starting without the probe failed (${messageOf(err)}); probing the protocol era again`);
        await Promise.all(scope.sessions.map(s => s.closing ? undefined : s.close(false)));
        this.host.serverLog.clearStderrTail();
        session = await this.launchOnce(def, scope, false);
      }
    } else {
      session = await this.launchOnce(def, scope, false);
    }
    if (key !== undefined && session.kind !== 'sse') {
      // H194: a verdict only from an answer: a legacy era reached after the whole probe time (a slow start) is not one.
      if (session.era === 'legacy' && !cached && session.eraAnswered) verdicts?.set(key, { era: 'legacy', at: verdicts.now?.() ?? Date.now() });
      else if (session.era === 'legacy' && !cached) this.host.serverLog.log('info', 'lifecycle', 'the protocol probe had no answer in time: initialize was used, and no era verdict is remembered (the next start probes again)');
      else if (session.era === 'modern' && verdicts?.get(key)) verdicts.set(key, undefined);
    }
    return session;
  }

  /**
   * H401: probes the protocol era again apart from the running session (a launch of its own, with the probe), at most
   * one at a time: an answered `initialize` renews the verdict, 2026-07-28 drops it (the next start negotiates it), a
   * probe without an answer in time leaves it as it was. The probe's session is closed (process tree included) as soon
   * as it is known, after the startup timeout at the latest, or by `stopBackground`. Its stderr goes to the server's
   * log; its catalogue, notifications and closing are nobody's business (the running session's state is untouched).
   */
  private reprobe(def: ServerDefinition, key: string, verdicts: EraVerdictStore): void {
    if (this.background) return;
    const log = (message: string) => this.host.serverLog.log('info', 'lifecycle', message);
    log('the era verdict of this definition is over a day old: it served this start, and the protocol era is probed again in the background');
    const scope: LaunchScope = { aborted: false, sessions: [] };
    const quiet: SessionHost = {
      ...this.host.sessionHost, onCatalogue: () => undefined, onResourceUpdated: () => undefined, onNotification: () => undefined, onClosed: () => undefined,
    };
    const prober = new ServerLauncher({
      // No sign-in from a background probe (no browser window the user did not ask for): a server that needs one keeps its verdict.
      ...this.host, options: { ...this.host.options, eraVerdicts: undefined, authProvider: undefined }, sessionHost: quiet, onStdoutClosed: () => undefined,
    });
    const closeAll = () => Promise.all(scope.sessions.map(s => s.closing ? undefined : s.close(false)));
    const timer = setTimeout(() => { scope.aborted = true; void closeAll(); }, this.host.sessionHost.startupTimeout());
    const done = (async () => {
      try {
        const s = await prober.launchOnce(def, scope, false);
        if (scope.aborted) return;
        if (s.era === 'modern') {
          verdicts.set(key, undefined);
          log('the background protocol probe found 2026-07-28: the era verdict is dropped, and the next start negotiates it');
        } else if (s.eraAnswered) {
          verdicts.set(key, { era: 'legacy', at: verdicts.now?.() ?? Date.now() });
          log('the background protocol probe found the initialize era again: the era verdict is renewed');
        } else {
          log('the background protocol probe had no answer in time: the era verdict stays as it was');
        }
      } catch (err) {
        if (!scope.aborted) log(`the background protocol probe failed (${messageOf(err)}): the era verdict stays as it was`);
      } finally {
        clearTimeout(timer);
        await closeAll();
        this.background = undefined;
      }
    })();
    this.background = { scope, done };
  }

  /** Ends a background era probe (the server stops or is disposed) and resolves once its process tree is stopped. */
  async stopBackground(): Promise<void> {
    const b = this.background;
    if (!b) return;
    b.scope.aborted = true;
    await Promise.all(b.scope.sessions.map(s => s.closing ? undefined : s.close(false)));
    await b.done;
  }

  /** One launch by the definition's type; `legacyOnly` starts with `initialize` (no probe). */
  private async launchOnce(def: ServerDefinition, scope: LaunchScope, legacyOnly: boolean): Promise<McpSession> {
    switch (def.type) {
      case 'stdio':
        try {
          return await this.launchStdio(def, scope, legacyOnly);
        } catch (err) {
          // A server that closes the pipe on the `server/discover` probe (some SDKs end on any request before
          // initialize) is a legacy server: launch it again for the plain initialize handshake.
          if (legacyOnly || !(err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed) || scope.aborted) throw err;
          // A launcher that failed (npm's 404, a missing command or module) is no legacy server: once is enough.
          if (launcherFailed(this.host.serverLog.stderrTail)) throw err;
          this.host.serverLog.log('info', 'lifecycle', 'the server ended the connection on the protocol probe; starting it again for the legacy handshake');
          await Promise.all(scope.sessions.map(s => s.closing ? undefined : s.close(false)));
          // The error state shows the launch that counts: the probe launch's stderr is in the log already.
          this.host.serverLog.clearStderrTail();
          return await this.launchStdio(def, scope, true);
        }
      case 'sse':
        return this.connectHttp(def, 'sse', scope);
      case 'http':
        try {
          return await this.connectHttp(def, 'streamableHttp', scope, false, legacyOnly);
        } catch (err) {
          const status = wantsSseFallback(err);
          if (status === undefined || scope.aborted) throw err;
          this.host.serverLog.log('info', 'lifecycle', `Streamable HTTP answered ${status}; trying the legacy SSE transport`);
          return await this.connectHttp(def, 'sse', scope);
        }
      default:
        return assertNever(def, 'server type');
    }
  }

  private async launchStdio(def: StdioServerDefinition, scope: LaunchScope, legacyOnly = false): Promise<McpSession> {
    // The launch's events arrive once the session exists (the Client's connect spawns the process).
    const ref: { session?: McpSession } = {};
    let stderrOpen = true;
    let stderrEnded!: () => void;
    const stderrDone = new Promise<void>(resolve => { stderrEnded = resolve; });
    const log = this.host.serverLog;
    const sandboxed = isSandboxed(def, this.host.options.sandbox);
    const sandbox = sandboxed ? {
      options: this.host.options.sandbox ?? {}, roots: this.host.rootPaths(),
      onDenial: (d: SandboxDenial) => {
        log.log('warning', 'sandbox', `denied: ${d.kind === 'network' ? `connection to ${d.target}` : d.kind === 'write' ? `write to ${d.target}` : d.line} (${d.line})`);
        this.host.onDenial(d);
      },
    } : undefined;
    const launch = await prepareStdio(def, {
      sandbox,
      name: this.host.name(), baseEnv: this.host.options.baseEnv, loadEnvironment: this.host.options.loadEnvironment, limits: this.host.limits(),
      stopGrace: this.host.options.stopGrace, warn: m => log.log('warning', 'lifecycle', m), aborted: () => scope.aborted,
    }, {
      stderr: (line, more) => { if (stderrOpen) log.pushStderr(line, more); },
      spawn: pid => { if (ref.session) ref.session.pid = pid; },
      exit: (code, signal) => { if (ref.session) ref.session.exit = { code, signal }; },
      stdoutEnd: () => { if (ref.session) this.host.onStdoutClosed(ref.session); },
      stderrEnd: () => stderrEnded(),
      dropped: err => { if (!ref.session?.closing) log.log('warning', 'lifecycle', err.message); },
    }).catch(err => {
      if ((err as { secrets?: readonly string[] }).secrets) log.setLaunchSecrets((err as { secrets: readonly string[] }).secrets);
      throw err;
    });
    log.setLaunchSecrets(launch.secrets);
    const session = ref.session = new McpSession(launch.transport, 'stdio', this.host.sessionHost, legacyOnly);
    session.stderrDone = stderrDone;
    session.store.add({ dispose: () => { stderrOpen = false; } });
    if (launch.sandbox) {
      const p = launch.sandbox.policy;
      this.sandboxRoots = JSON.stringify(p.roots);
      session.store.add({ dispose: launch.sandbox.dispose });
      log.log('info', 'sandbox', `sandboxed: writes only in ${p.allowWrite.join(', ')}; reading denied for ${p.denyRead.length} secret paths (${p.denyRead.slice(0, 6).join(', ')}${p.denyRead.length > 6 ? ', …' : ''}${process.platform === 'linux' ? '; they read as empty or missing, and the sandbox does not report each read' : ''}); ` +
        `network: ${p.allowedDomains.length ? p.allowedDomains.join(', ') : 'none'}`);
    }
    return this.connect(session, scope);
  }

  private async connectHttp(def: HttpServerDefinition, kind: HttpKind, scope: LaunchScope, skipIssuerMetadataValidation = false, legacyOnly = false): Promise<McpSession> {
    // SEP-2352: a rejected bearer token makes the SDK's auth() discover the authorization server again.
    const guarded = this.host.options.authProvider ? rediscoverOnRejectedToken(def.url, this.host.options.authProvider, this.host.fetch) : this.host.fetch;
    // H403: whether a 403 of this connection carried a WWW-Authenticate challenge (only then are credentials to blame).
    let challenged = false;
    const fetch: FetchLike = async (url, init) => {
      const r = await guarded(url, init);
      if (r.status === 403 && r.headers.has('www-authenticate')) challenged = true;
      return r;
    };
    const transport = httpTransport(def, kind, {
      name: this.host.name(), fetch, authProvider: this.host.options.authProvider, reconnection: this.host.options.reconnection, skipIssuerMetadataValidation,
    });
    const session = new McpSession(transport, kind, this.host.sessionHost, legacyOnly);
    try {
      return await this.connect(session, scope);
    } catch (err) {
      if (!session.closing) {
        session.release();
        await session.client.close().catch(() => undefined);
      }
      // A 2025-03-26 server whose authorization server lives under a path of its own origin (legacyIssuer.ts).
      const why = !skipIssuerMetadataValidation && !scope.aborted ? await legacySameOriginIssuer(err, def.url, this.host.fetch) : undefined;
      if (why) {
        this.host.serverLog.log('warning', 'lifecycle', `server \`${this.host.name()}\`: ${why}`);
        return this.connectHttp(def, kind, scope, true, legacyOnly);
      }
      // A 403 the SDK's era probe calls ClientHttpForbidden whatever the answer said: credentials only with a challenge.
      if (err instanceof SdkHttpError && err.code === SdkErrorCode.ClientHttpForbidden && !challenged) {
        throw new McpHostError(forbiddenMessage(this.host.name(), err, false), undefined, { cause: err });
      }
      throw err;
    }
  }

  private async connect(session: McpSession, scope: LaunchScope): Promise<McpSession> {
    scope.sessions.push(session);
    this.instrument(session.transport);
    await session.connect();
    if (scope.aborted) throw new McpHostError(l10n.t('server `{0}` start was abandoned', this.host.name()));
    return session;
  }

  /** Wraps our transport's send and onmessage for the trace (the SDK chains a pre-set onmessage). */
  private instrument(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      if (this.host.trace()) this.host.serverLog.log('trace', 'trace', `→ ${this.host.redactor().value(message)}`);
      return send(message, options);
    };
    transport.onmessage = (message: JSONRPCMessage) => {
      if (this.host.trace()) this.host.serverLog.log('trace', 'trace', `← ${this.host.redactor().value(message)}`);
    };
  }
}
