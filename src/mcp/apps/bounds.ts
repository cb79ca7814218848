/**
 * Bounds on one MCP App view as a requester (docs/SECURITY.md, Threat model: "Every requester is bounded"), editor-free:
 * - `RateBudget`: a token bucket (messages or characters per second, bursts up to twice the rate) that the view's
 *   transport spends before a message is handled; an empty bucket means the message is dropped;
 * - `logPreview`: the start of a view's log data as JSON, built only as far as the log line shows (never the whole);
 * - `OneAtATime`: the view's dialogs (tool confirmations, links) one at a time, in order; closing the view settles
 *   every waiting and showing ask as denied at once and tells the dialog on screen to close (its AbortSignal).
 */

/**
 * Display mode changes (`ui/request-display-mode`) one view may make per second (bursts up to twice that); a request
 * over the budget is answered with the mode in effect and changes nothing.
 */
export const DISPLAY_MODE_CHANGES_PER_SECOND = 1;

/** A token bucket: `rate` tokens a second, at most `2 × rate` saved up. */
export class RateBudget {
  private tokens: number;
  private at: number;

  constructor(private readonly rate: number, private readonly now: () => number = () => performance.now()) {
    this.tokens = 2 * rate;
    this.at = now();
  }

  /** Spends `n` tokens; false (nothing spent) when there are not enough. */
  take(n = 1): boolean {
    const t = this.now();
    this.tokens = Math.min(2 * this.rate, this.tokens + ((t - this.at) / 1000) * this.rate);
    this.at = t;
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

/** The dialogs of one view: one at a time, in order; `close` settles them all as denied. */
export class OneAtATime {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly closed = new AbortController();
  /** Asks waiting or on screen. */
  waiting = 0;

  /** Aborts when the view closes (the dialog on screen should close with it). */
  get signal(): AbortSignal { return this.closed.signal; }

  /**
   * Runs `ask` once every earlier ask settled; resolves `denied` without asking when the view closed before its
   * turn, and at once when the view closes while it is on screen (a late answer is then ignored).
   */
  run<T>(ask: (signal: AbortSignal) => Promise<T>, denied: T): Promise<T> {
    const signal = this.closed.signal;
    if (signal.aborted) return Promise.resolve(denied);
    this.waiting++;
    const turn = this.tail.then(() => signal.aborted ? denied : ask(signal));
    this.tail = turn.catch(() => undefined);
    let onClose!: () => void;
    const closed = new Promise<T>(resolve => { onClose = () => resolve(denied); signal.addEventListener('abort', onClose, { once: true }); });
    return Promise.race([turn, closed]).finally(() => {
      this.waiting--;
      signal.removeEventListener('abort', onClose);
    });
  }

  /** The view closed: every ask resolves denied. */
  close(): void { this.closed.abort(); }
}

/**
 * The first `max` characters of `JSON.stringify(data)` for a parsed JSON value (a view's `notifications/message`
 * data), built only that far: a 4 MiB object is never serialised whole to show 4,096 characters of it (H150).
 * Equal to `JSON.stringify(data)` when that is at most `max` long; deeper than 64 levels shows as `…`.
 */
export function logPreview(data: unknown, max: number): string {
  let out = '';
  const walk = (x: unknown, depth: number): void => {
    if (out.length >= max) return;
    if (typeof x === 'string') { out += JSON.stringify(x.length > max ? x.slice(0, max) : x); return; }
    if (x === null || typeof x !== 'object') { out += JSON.stringify(x) ?? 'null'; return; }
    if (depth >= 64) { out += '…'; return; }
    if (Array.isArray(x)) {
      out += '[';
      for (let i = 0; i < x.length && out.length < max; i++) { if (i) out += ','; walk(x[i] === undefined ? null : x[i], depth + 1); }
      out += ']';
      return;
    }
    out += '{';
    let first = true;
    for (const k of Object.keys(x)) {
      if (out.length >= max) break;
      const v = (x as Record<string, unknown>)[k];
      if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
      out += `${first ? '' : ','}${JSON.stringify(k)}:`;
      first = false;
      walk(v, depth + 1);
    }
    out += '}';
  };
  walk(data, 0);
  return out.length > max ? out.slice(0, max) : out;
}
