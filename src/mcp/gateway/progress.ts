/**
 * Progress of a tool call forwarded through the gateway: the owning server's `notifications/progress` go back to
 * VS Code under the progress token of VS Code's own request. Bounded against a flood: only increasing progress is
 * passed on (the spec's rule), at most one notification per {@link PROGRESS_MIN_INTERVAL_MS} (the latest one wins;
 * the last one waiting is sent when the interval ends), at most {@link MAX_PROGRESS_PER_CALL} per call, and a message
 * is cut to {@link MAX_PROGRESS_MESSAGE_CHARS}. Nothing is sent after the call ended.
 *
 *   const f = new ProgressForwarder(token, n => ctx.mcpReq.notify(n));
 *   h.callTool(name, args, { onProgress: p => f.progress(p) }).finally(() => f.close());
 */

/** Progress notifications forwarded per tool call at most. */
export const MAX_PROGRESS_PER_CALL = 100;
/** At most one forwarded notification per this many milliseconds and call. */
export const PROGRESS_MIN_INTERVAL_MS = 100;
/** Characters of a progress message passed on. */
export const MAX_PROGRESS_MESSAGE_CHARS = 500;

type Progress = { progress: number; total?: number; message?: string };
type Notify = (n: { method: 'notifications/progress'; params: { progressToken: string | number } & Progress }) => Promise<void>;

/** One forwarded call's progress; see the module comment. */
export class ProgressForwarder {
  /** Notifications sent so far. */
  sent = 0;
  private last = -Infinity;
  private lastAt = 0;
  private waiting: Progress | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly token: string | number, private readonly notify: Notify, private readonly log?: (m: string) => void) {}

  /** One progress notification from the server. */
  progress(p: Progress): void {
    if (this.closed || this.sent >= MAX_PROGRESS_PER_CALL) return;
    if (typeof p?.progress !== 'number' || !Number.isFinite(p.progress) || p.progress <= this.last) return;
    const clean: Progress = { progress: p.progress };
    if (typeof p.total === 'number' && Number.isFinite(p.total)) clean.total = p.total;
    if (typeof p.message === 'string') clean.message = p.message.slice(0, MAX_PROGRESS_MESSAGE_CHARS);
    this.last = p.progress;
    const wait = this.lastAt + PROGRESS_MIN_INTERVAL_MS - Date.now();
    if (wait <= 0 && !this.timer) { this.send(clean); return; }
    this.waiting = clean;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const w = this.waiting;
      this.waiting = undefined;
      if (w && !this.closed) this.send(w);
    }, Math.max(wait, 0));
  }

  /** The call ended: nothing more is sent. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting = undefined;
  }

  private send(p: Progress): void {
    if (this.sent >= MAX_PROGRESS_PER_CALL) return;
    this.sent++;
    this.lastAt = Date.now();
    this.notify({ method: 'notifications/progress', params: { progressToken: this.token, ...p } })
      .catch(e => this.log?.(`MCP Host gateway: could not forward progress (${e instanceof Error ? e.message : String(e)})`));
  }
}
