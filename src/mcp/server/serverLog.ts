/**
 * One server's log and stderr tail, through the one redaction path (redact.ts): every entry redacted, then
 * cut at maxLogEntryBytes; stderr lines redacted before they are cut at maxStderrLineBytes, the last ones kept
 * (at most STDERR_TAIL lines and maxStderrTailBytes) for error states. Each first cut is reported once.
 */
import { Emitter, type Event } from '../events';
import { limitMessage, type Limits } from '../limits';
import { redactorFor, type Redactor } from '../logging/redact';
import { cutLine, trimTail } from '../process/stderrLines';
import { stderrLevel } from '../logging/stderrLevel';
import type { LogEntry, LogLevel, ServerDefinition } from '../types';

export const STDERR_TAIL = 50;

export class ServerLog {
  private tail: string[] = [];
  private logCapReported = false;
  private stderrCutSaid = false;
  /** Secret-looking values of the environment the last launch got from `envFile`/`env`. */
  private launchSecrets: readonly string[] = [];
  private redactorCache: { def: ServerDefinition; extra: readonly string[]; redactor: Redactor } | undefined;
  private readonly _onLog = new Emitter<LogEntry>();
  readonly onLog: Event<LogEntry> = this._onLog.event;

  constructor(private readonly definition: () => ServerDefinition, private readonly limits: () => Limits) {}

  private get name(): string {
    return this.definition().name;
  }

  /** This server's part of the one redaction path: its definition's secrets and its launch environment's. */
  get redactor(): Redactor {
    const def = this.definition();
    const c = this.redactorCache;
    if (c && c.def === def && c.extra === this.launchSecrets) return c.redactor;
    const redactor = redactorFor(def).with(this.launchSecrets);
    this.redactorCache = { def, extra: this.launchSecrets, redactor };
    return redactor;
  }

  /** The secrets of the launch now starting (hidden from then on). */
  setLaunchSecrets(secrets: readonly string[]): void {
    this.launchSecrets = secrets;
  }

  get stderrTail(): readonly string[] {
    return this.tail;
  }

  /** Forgets the tail (a launch that does not count, such as a protocol probe's). */
  clearStderrTail(): void {
    this.tail = [];
  }

  /** Every log entry: redacted, then cut at maxLogEntryBytes; the first cut is reported once. */
  log(level: LogLevel, source: LogEntry['source'], message: string, extra?: Partial<LogEntry>): void {
    const max = this.limits().maxLogEntryBytes;
    const { text, cut } = this.redactor.cap(message, max);
    this._onLog.fire({ server: this.name, level, source, message: text, time: Date.now(), ...extra });
    if (cut && !this.logCapReported) {
      this.logCapReported = true;
      this.log('warning', 'lifecycle', limitMessage(this.name, max, source === 'server' ? { kind: 'logMessageCut' } : { kind: 'logLineCut', source }));
    }
  }

  pushStderr(line: string, moreBytes = 0): void {
    // Redact first (a line the transport already cut is a fragment: a secret's beginning at its end is hidden
    // too), then cut: the one redaction path runs before any truncation.
    const limits = this.limits();
    const text = line.replace(/\r$/, '');
    const redacted = moreBytes > 0 ? this.redactor.fragment(text) : this.redactor.text(text);
    const { text: clean, cut } = cutLine(redacted, limits.maxStderrLineBytes, moreBytes);
    if (cut && !this.stderrCutSaid) {
      this.stderrCutSaid = true;
      this.log('warning', 'lifecycle', limitMessage(this.name, limits.maxStderrLineBytes, { kind: 'stderrLineCut' }));
    }
    this.tail.push(clean);
    trimTail(this.tail, STDERR_TAIL, limits.maxStderrTailBytes);
    this.log(stderrLevel(clean), 'stderr', clean);
  }

  dispose(): void {
    this._onLog.dispose();
  }
}
