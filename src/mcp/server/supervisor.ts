/**
 * Supervision of one server (the state machine stopped → starting → running → error): starts under the
 * startup timeout, restarts after crashes with backoff and stops after a crash loop (its message carries the
 * last stderr line), a periodic health check, the end of a stdio launch whose stdout closed, and shutdown
 * (a stdio launch's whole process tree: stdin EOF → SIGTERM → SIGKILL). What a session is and how it is
 * launched come from the connection (`SupervisorHost.launch`); this file only decides when. The crash-loop guard and
 * the backoff are crashLoopGuard.ts; a call's wait for a start or a restart is restartWait.ts.
 *
 * Every failure becomes state plus a log line; no method leaves an unhandled rejection behind.
 */
import { SdkError, SUPPORTED_PROTOCOL_VERSIONS, UnauthorizedError } from '@modelcontextprotocol/client';
import { Emitter, assertNever, type Event } from '../events';
import { McpHostError, describeError, fmtMs, messageOf } from '../errors';
import type { McpSession } from './session';
import { startFailureReason } from '../process/startReason';
import { awaitsRestart, type LogEntry, type LogLevel, type ServerState } from '../types';
import { CommandNotFoundError } from '../process/resolveCommand';
import * as l10n from '@vscode/l10n';
import { nextState, untilStarted } from './restartWait';
import { CrashLoopGuard, type RestartPolicy } from './crashLoopGuard';

/** The longest a failed start waits for the server's stderr to end before the session is torn down (ms). */
const STDERR_DRAIN_MS = 2000;

/** One start attempt: sessions it opened (to tear down if it fails) and whether it was abandoned. */
export interface LaunchScope {
  aborted: boolean;
  sessions: McpSession[];
}

export interface SupervisorHost {
  name(): string;
  log(level: LogLevel, source: LogEntry['source'], message: string): void;
  /** The one redaction path for what goes into an error state. */
  redact(text: string): string;
  redactError(err: unknown): void;
  stderrTail(): readonly string[];
  startupTimeout(): number;
  restart?: RestartPolicy;
  /** Health check every this many ms while running (default 60 000; 0 = off). Two failures mark the connection dead. */
  pingIntervalMs?: number;
  /** Whether an OAuth provider is configured (an UnauthorizedError then means "finish signing in"). */
  signsIn: boolean;
  /** Launches and connects a session (the catalogue not yet loaded). */
  launch(scope: LaunchScope): Promise<McpSession>;
  /** The running state for a freshly connected session (server info through the redaction path). */
  runningState(session: McpSession): Extract<ServerState, { kind: 'running' }>;
  /** The session is installed: load its catalogue and start listening. */
  installed(session: McpSession): Promise<void>;
  /** The session ended (crash or stop): the views get an empty catalogue. */
  cleared(): void;
}

export class Supervisor {
  private _state: ServerState = { kind: 'stopped' };
  private _session: McpSession | undefined;
  private startPromise: Promise<void> | undefined;
  private reinitPromise: Promise<McpSession> | undefined;
  /** Bumped by every start/stop so stale async work can tell it is stale. */
  private epoch = 0;
  private attempt = 0;
  private readonly crashGuard = new CrashLoopGuard();
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pingFailures = 0;
  private readonly cancelLaunches = new Set<() => void>();
  /** A configuration problem that keeps this server from starting (shown as its error state). */
  private configError: string | undefined;
  /** Launches that ended by themselves and are still being swept (stdio). */
  private readonly sweeps = new Set<Promise<unknown>>();
  private readonly _onDidChangeState = new Emitter<ServerState>();
  readonly onDidChangeState: Event<ServerState> = this._onDidChangeState.event;

  constructor(private readonly host: SupervisorHost) {}

  get state(): ServerState {
    return this._state;
  }

  /** The running session, if any. */
  get session(): McpSession | undefined {
    return this._session;
  }

  private get name(): string {
    return this.host.name();
  }

  private setState(s: ServerState): void {
    if (JSON.stringify(s) === JSON.stringify(this._state)) return;
    this._state = s;
    this._onDidChangeState.fire(s);
  }

  private setError(message: string, crashLoop = false, retryAt?: number, restarting = false, fromSettings = false): void {
    message = this.host.redact(message);
    this.host.log('error', 'lifecycle', message);
    this.setState({ kind: 'error', message, stderrTail: [...this.host.stderrTail()], crashLoop, ...(retryAt ? { retryAt } : {}), ...(restarting ? { restarting: true as const } : {}), ...(fromSettings ? { fromSettings } : {}) });
  }

  /** Marks the server as unusable because of its configuration (undefined clears it). */
  setConfigError(message: string | undefined): void {
    this.configError = message;
    if (message) this.setError(message, false, undefined, false, true);
    else if (this._state.kind === 'error') this.setState({ kind: 'stopped' });
  }

  // -------------------------------------------------------------------------------------------
  // Start, stop
  // -------------------------------------------------------------------------------------------

  start(): Promise<void> {
    if (this.configError) return Promise.reject(new McpHostError(this.configError));
    if (this._state.kind === 'running') return Promise.resolve();
    if (this.startPromise) return this.startPromise;
    this.cancelRetry();
    this.crashGuard.reset();
    return this.beginStart(false);
  }

  /** `restarting`: the automatic restart of a session that crashed while running (H585: its tools stay offered). */
  private beginStart(afterCrash: boolean, restarting = false): Promise<void> {
    const epoch = ++this.epoch;
    const p = this.doStart(epoch, afterCrash, restarting).finally(() => {
      if (this.startPromise === p) this.startPromise = undefined;
    });
    this.startPromise = p;
    return p;
  }

  private async doStart(epoch: number, afterCrash: boolean, restarting: boolean): Promise<void> {
    this.attempt++;
    this.setState({ kind: 'starting', since: Date.now(), attempt: this.attempt, ...(restarting ? { restarting: true as const } : {}) });
    this.host.log('info', 'lifecycle', `starting (attempt ${this.attempt})`);
    let session: McpSession;
    try {
      session = await this.withStartupTimeout(epoch, s => this.host.launch(s));
    } catch (err) {
      this.host.redactError(err);
      if (epoch !== this.epoch) throw new McpHostError(l10n.t('server `{0}` was stopped while starting', this.name));
      const message = err instanceof UnauthorizedError && this.host.signsIn
        ? l10n.t('server `{0}` needs you to sign in: finish signing in in the browser window that opened, then start the server again', this.name)
        : err instanceof McpHostError ? err.message : describeError(this.name, 'initialize', err);
      if (afterCrash) this.recordCrash(message, false);
      else this.setError(message, false, undefined, false, fromSettings(err));
      throw new McpHostError(message, undefined, { cause: err });
    }
    if (epoch !== this.epoch) {
      await this.teardown(session, false);
      throw new McpHostError(l10n.t('server `{0}` was stopped while starting', this.name));
    }
    this.install(session);
    await this.host.installed(session);
  }

  private install(session: McpSession): void {
    this._session = session;
    this.pingFailures = 0;
    this.setState(this.host.runningState(session));
    this.startPing(session);
  }

  async stop(): Promise<void> {
    this.epoch++;
    this.cancelRetry();
    this.stopPing();
    for (const cancel of [...this.cancelLaunches]) cancel();
    const session = this._session;
    this._session = undefined;
    const pending = this.startPromise;
    if (session) {
      session.stopped = true;
      await this.teardown(session, true);
    }
    if (pending) await pending.catch(() => undefined);
    await Promise.all([...this.sweeps]);
    if (this._state.kind !== 'stopped') {
      this.host.log('info', 'lifecycle', 'stopped');
      this.setState({ kind: 'stopped' });
    }
    this.host.cleared();
  }

  dispose(): void {
    this._onDidChangeState.dispose();
  }

  /**
   * The running session, starting the server on first use. After a crash (H585) it waits for the automatic restart,
   * starting it at once when it still waits for its backoff; bounded by the startup timeout (the start's own bound)
   * and by `signal` (the caller's cancellation).
   */
  async ready(signal?: AbortSignal): Promise<McpSession> {
    if (this.reinitPromise) return this.reinitPromise;
    switch (this._state.kind) {
      case 'running':
        if (this._session) return this._session;
        // The session just ended and the crash is being recorded (a few ms): decide on the state that follows (a stop
        // in progress is not a reason to start the server again).
        if (await nextState(this.onDidChangeState, this.host.startupTimeout(), this.name, signal) && this.state.kind !== 'stopped') return this.ready(signal);
        break;
      case 'starting':
        if (this.startPromise) await untilStarted(this.startPromise, awaitsRestart(this._state), this.name, () => this._state.kind === 'stopped', signal);
        break;
      case 'stopped':
        await this.start();
        break;
      case 'error':
        if (!awaitsRestart(this._state)) throw new McpHostError(l10n.t('server `{0}` is not running: {1}', this.name, this._state.message));
        await untilStarted(this.restartNow(), true, this.name, () => this._state.kind === 'stopped', signal);
        break;
      default:
        assertNever(this._state, 'state');
    }
    if (!this._session) throw new McpHostError(l10n.t('server `{0}` is not running', this.name));
    return this._session;
  }

  /**
   * A call finds the server waiting for its restart's backoff: the restart starts now (VS Code's own host restarts on
   * the call too). The crash-loop guard's bound stays: every crash is still counted in `recordCrash`, so a server that
   * keeps crashing is restarted at most `maxCrashes` times per window whatever the call rate, and then calls fail at
   * once (its state is a crash loop, which does not await a restart).
   */
  private restartNow(): Promise<void> {
    if (this.startPromise) return this.startPromise;
    this.cancelRetry();
    this.host.log('info', 'lifecycle', 'a call is waiting for the server: restarting it now instead of after the backoff');
    const p = this.beginStart(true, true);
    p.catch(() => undefined);
    return p;
  }

  /** A new session in place of `old` (an HTTP server forgot ours). Single-flight. */
  reinitialize(old: McpSession): Promise<McpSession> {
    if (this.reinitPromise) return this.reinitPromise;
    const epoch = this.epoch;
    const p = (async () => {
      this.host.log('info', 'lifecycle', 'the server no longer knows our session; re-initializing');
      old.release();
      void old.client.close().catch(() => undefined);
      const fresh = await this.withStartupTimeout(epoch, s => this.host.launch(s));
      if (epoch !== this.epoch) {
        await this.teardown(fresh, true);
        throw new McpHostError(l10n.t('server `{0}` was stopped', this.name));
      }
      this.install(fresh);
      void this.host.installed(fresh);
      return fresh;
    })();
    this.reinitPromise = p;
    p.then(() => { this.reinitPromise = undefined; }, () => { this.reinitPromise = undefined; });
    return p;
  }

  /**
   * Runs a connect under the startup timeout (H9). On timeout the half-open session is torn down
   * (initialize is never cancelled with notifications/cancelled, as the spec asks).
   */
  private async withStartupTimeout(epoch: number, run: (s: LaunchScope) => Promise<McpSession>): Promise<McpSession> {
    const ms = this.host.startupTimeout();
    const scope: LaunchScope = { aborted: false, sessions: [] };
    let timer: NodeJS.Timeout | undefined;
    let cancel!: (err: Error) => void;
    const timeout = new Promise<never>((_, reject) => {
      cancel = reject;
      timer = setTimeout(() => {
        scope.aborted = true;
        reject(new McpHostError(l10n.t('server `{0}` did not answer initialize within {1} (timeout.startup); check that it is an MCP server and that it writes nothing but JSON-RPC to stdout', this.name, fmtMs(ms))));
      }, ms);
    });
    // stop() during a start abandons it at once (and tears the half-open session down).
    const cancelLaunch = () => { scope.aborted = true; cancel(new McpHostError(l10n.t('server `{0}` was stopped while starting', this.name))); };
    this.cancelLaunches.add(cancelLaunch);
    const attempt = run(scope);
    try {
      return await Promise.race([attempt, timeout]);
    } catch (err) {
      scope.aborted = true;
      attempt.catch(() => undefined);
      // A launch that failed on its own (not a timeout or a stop of ours: the server most likely exited) is torn down
      // only once its stderr has ended, so its last lines are logged and named in the message however late a loaded
      // machine delivers them after the exit (tearing down stops listening to stderr); at most STDERR_DRAIN_MS.
      if (!(err instanceof McpHostError)) {
        await Promise.all(scope.sessions.map(s => s.stderrDone && Promise.race([s.stderrDone, new Promise(r => setTimeout(r, STDERR_DRAIN_MS))])));
      }
      await Promise.all(scope.sessions.map(s => s.closing ? undefined : this.teardown(s, false)));
      // Let the exit status arrive before composing the message.
      await new Promise(r => setTimeout(r, 50));
      if (err instanceof McpHostError || epoch !== this.epoch) throw err;
      const crashed = scope.sessions.find(s => s.exit !== undefined || (s.kind === 'stdio' && s.closing));
      const m = /protocol version is not supported: (.*)$/.exec(messageOf(err));
      if (m) {
        throw new McpHostError(l10n.t('server `{0}` answered with protocol version {1}, which this host does not support (supported: {2}); update the server or the host', this.name, m[1], SUPPORTED_PROTOCOL_VERSIONS.join(', ')));
      }
      if (crashed && crashed.kind === 'stdio' && (crashed.exit !== undefined || err instanceof SdkError)) throw new McpHostError(this.exitMessage(crashed, 'exited during startup'), undefined, { cause: err });
      throw err;
    } finally {
      clearTimeout(timer);
      this.cancelLaunches.delete(cancelLaunch);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Crashes
  // -------------------------------------------------------------------------------------------

  private cancelRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /**
   * A session ended without us asking: error state, then a restart with backoff or a crash-loop stop. `running`: the
   * session had been running (not a failed restart), so its tools stay offered until the restart (H585).
   */
  private recordCrash(message: string, running: boolean): void {
    const now = Date.now();
    const verdict = this.crashGuard.record(this.host.restart ?? {}, now);
    if (verdict.kind === 'off') {
      this.setError(message);
      return;
    }
    if (verdict.kind === 'loop') {
      this.setError(l10n.t('{0}. It crashed {1} times in {2}, so it will not be restarted automatically; fix the problem and start it again', message, verdict.crashes, fmtMs(verdict.windowMs)), true);
      return;
    }
    const delay = verdict.delay;
    this.setError(l10n.t('{0}; restarting in {1}', message, fmtMs(delay)), false, now + delay, running);
    const epoch = this.epoch;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (epoch !== this.epoch) return;
      this.beginStart(true, running).catch(() => undefined);
    }, delay);
    this.retryTimer.unref?.();
  }

  /** The session's transport closed by itself. */
  onSessionClosed(session: McpSession): void {
    if (session.closing || session !== this._session) return;
    this._session = undefined;
    this.stopPing();
    session.release();
    // What the crashed launch left (a daemon) is being ended; stop() waits for that.
    if (session.kind === 'stdio') {
      const sweep: Promise<unknown> = session.close(false).catch(() => undefined).finally(() => this.sweeps.delete(sweep));
      this.sweeps.add(sweep);
    }
    // Let the exit status and the last stderr lines arrive.
    setTimeout(() => {
      if (this._session || this._state.kind !== 'running') return;
      // The state first: what `cleared` publishes depends on whether a restart is awaited (H585).
      this.recordCrash(this.exitMessage(session, 'exited unexpectedly'), true);
      this.host.cleared();
    }, 50);
  }

  /**
   * The server closed its stdout but its process lives on: nothing it says can arrive, and every
   * request would wait for its timeout. Stop the process tree and treat it as a crash.
   */
  onStdoutClosed(session: McpSession): void {
    // A normal exit closes stdout too: give the exit event time to arrive first.
    setTimeout(() => {
      if (session.closing || session.exit !== undefined || session !== this._session) return;
      this.stopPing();
      this._session = undefined;
      const epoch = this.epoch;
      this.host.log('warning', 'lifecycle', `pid ${session.pid} closed its stdout but is still running; stopping it`);
      void this.teardown(session, false).then(() => {
        if (epoch !== this.epoch) return;
        this.recordCrash(`server \`${this.name}\` closed its stdout but kept running, so none of its answers can arrive; it was stopped`, true);
        this.host.cleared();
      });
    }, 200).unref?.();
  }

  exitMessage(session: McpSession, what: string): string {
    const exit = session.exit;
    const status = exit ? (exit.signal ? ` (signal ${exit.signal})` : exit.code !== null ? ` (exit code ${exit.code})` : '') : '';
    const last = startFailureReason(this.host.stderrTail());
    if (session.kind === 'stdio') return `server \`${this.name}\` ${what}${status}${last ? `: ${last}` : ''}`;
    return `server \`${this.name}\` closed the connection`;
  }

  async teardown(session: McpSession, graceful: boolean): Promise<void> {
    await session.close(graceful);
  }

  // -------------------------------------------------------------------------------------------
  // Health
  // -------------------------------------------------------------------------------------------

  private startPing(session: McpSession): void {
    this.stopPing();
    const every = this.host.pingIntervalMs ?? 60_000;
    if (!every) return;
    this.pingTimer = setInterval(() => {
      if (session !== this._session || session.closing) return;
      session.healthCheck({ timeout: Math.min(every, 10_000) }).then(
        () => { this.pingFailures = 0; },
        err => {
          if (session !== this._session || session.closing) return;
          this.pingFailures++;
          this.host.log('warning', 'lifecycle', `ping failed (${this.pingFailures}): ${describeError(this.name, 'ping', err)}`);
          if (this.pingFailures >= 2) {
            this.stopPing();
            this._session = undefined;
            const epoch = this.epoch;
            void this.teardown(session, false).then(() => {
              if (epoch === this.epoch) this.recordCrash(`server \`${this.name}\` stopped answering ping`, true);
            });
          }
        },
      );
    }, every);
    this.pingTimer.unref?.();
  }

  private stopPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }
}

/** A start failure whose fix is in the settings: a command not found, or a file or folder missing or not allowed (by the error, not its words). */
function fromSettings(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof CommandNotFoundError) return true;
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') return true;
  }
  return false;
}
