/**
 * The crash-loop guard and the backoff of automatic restarts (split out of supervisor.ts, issue 39): the restart policy
 * and its defaults, the crashes counted within its window, and what one more crash means (no restart, a crash loop
 * that stops restarting, or a restart after a delay doubled per crash up to its cap). The supervisor (supervisor.ts)
 * records each crash here and acts on the verdict (state, message, timer).
 */

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

/** What one more crash means: restarting is off, a crash loop (`crashes` within `windowMs`), or a restart after `delay` ms. */
export type CrashVerdict =
  | { kind: 'off' }
  | { kind: 'loop'; crashes: number; windowMs: number }
  | { kind: 'retry'; delay: number };

/** The crashes of one server within the policy's window (reset by a start the user asked for). */
export class CrashLoopGuard {
  private crashes: number[] = [];

  reset(): void {
    this.crashes = [];
  }

  /** Counts a crash at `now` (every crash, whatever follows) and says what it means under `policy`. */
  record(policy: RestartPolicy, now: number): CrashVerdict {
    const windowMs = policy.windowMs ?? 180_000;
    const maxCrashes = policy.maxCrashes ?? 5;
    this.crashes = this.crashes.filter(t => now - t < windowMs);
    this.crashes.push(now);
    if (policy.enabled === false) return { kind: 'off' };
    if (this.crashes.length >= maxCrashes) return { kind: 'loop', crashes: this.crashes.length, windowMs };
    return { kind: 'retry', delay: Math.min((policy.initialDelayMs ?? 1000) * 2 ** (this.crashes.length - 1), policy.maxDelayMs ?? 30_000) };
  }
}
