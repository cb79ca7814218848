/**
 * The protocol-era verdict cache (H123, H124): which servers answered `initialize` after the `server/discover` probe,
 * so that their next start skips the probe (up to STDIO_PROBE_TIMEOUT for a server that stays silent on unknown
 * methods). Keyed by the definition key (config/definitionKey.ts, a hash: nothing of the resolved definition is
 * stored), one entry per definition, at most MAX_ERA_VERDICTS, each trusted for ERA_VERDICT_MAX_AGE_MS (a server
 * that learned 2026-07-28 and still answers `initialize` is probed again then); one older than ERA_VERDICT_REPROBE_MS
 * is used for the start while the launcher probes the server again in the background (H401). Where it is kept is the owner's
 * business: the extension's workspace state (src/extension/state/eraCache.ts), the CLI's cache file (src/cli/eraCache.ts).
 * The launcher (launcher.ts) reads it, drops a verdict that fails, and records a new one.
 */

/** What is remembered of one definition: it speaks the `initialize` era (2025-11-25 and older), as of `at`. */
export interface EraVerdict {
  era: 'legacy';
  /** When the probe last found it (ms since the epoch). */
  at: number;
}

/** Where verdicts are kept (get and set are synchronous; a store persists when and how it likes). */
export interface EraVerdictStore {
  get(key: string): EraVerdict | undefined;
  /** `undefined` forgets the definition's verdict. */
  set(key: string, verdict: EraVerdict | undefined): void;
  /**
   * True when the definition's verdict is still used but older than ERA_VERDICT_REPROBE_MS: the start uses it and the
   * server is probed again in the background (H401). A store without it is never re-probed before the verdict expires.
   */
  stale?(key: string): boolean;
  /** The store's clock (ms since the epoch), what a new verdict's `at` is taken from; default Date.now. */
  now?(): number;
}

/** Entries kept (the oldest go first). */
export const MAX_ERA_VERDICTS = 256;
/** How long a verdict is trusted before the server is probed again. */
export const ERA_VERDICT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * A verdict older than this is used for the start and re-probed in the background (H401): a server updated to
 * 2026-07-28, or a verdict recorded from a refusal that no longer holds, is found within a day.
 */
export const ERA_VERDICT_REPROBE_MS = 24 * 60 * 60 * 1000;

const KEY_SHAPE = /^[0-9a-f]{64}$/;

/**
 * Verdicts in memory, loaded from and saved through the owner's hooks as plain JSON (`{ [definitionKey]: { era, at } }`);
 * anything malformed in what was loaded is dropped.
 */
export class EraVerdicts implements EraVerdictStore {
  private readonly entries = new Map<string, EraVerdict>();

  constructor(stored: unknown, private readonly save: (data: Record<string, EraVerdict> | undefined) => void = () => undefined, readonly now: () => number = Date.now) {
    if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
      for (const [key, v] of Object.entries(stored as Record<string, unknown>)) {
        const e = v as Partial<EraVerdict> | null;
        if (KEY_SHAPE.test(key) && e && e.era === 'legacy' && typeof e.at === 'number' && Number.isFinite(e.at)) this.entries.set(key, { era: 'legacy', at: e.at });
      }
    }
  }

  get(key: string): EraVerdict | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const age = this.now() - e.at;
    return age >= 0 && age < ERA_VERDICT_MAX_AGE_MS ? e : undefined;
  }

  stale(key: string): boolean {
    const e = this.get(key);
    return !!e && this.now() - e.at >= ERA_VERDICT_REPROBE_MS;
  }

  set(key: string, verdict: EraVerdict | undefined): void {
    if (!KEY_SHAPE.test(key)) return;
    if (!verdict) {
      if (!this.entries.delete(key)) return;
    } else {
      this.entries.delete(key);
      this.entries.set(key, { era: 'legacy', at: verdict.at });
      while (this.entries.size > MAX_ERA_VERDICTS) this.entries.delete(this.entries.keys().next().value as string);
    }
    this.save(this.entries.size ? this.toJSON() : undefined);
  }

  /**
   * Once, when the definition key changed (unsalted → keyed, config/definitionKey.ts keyMigration): verdicts under a
   * key of `map` move to its new key; every other one is dropped.
   */
  rekey(map: ReadonlyMap<string, string>): void {
    const old = [...this.entries];
    this.entries.clear();
    for (const [k, v] of old) { const next = map.get(k); if (next !== undefined && KEY_SHAPE.test(next)) this.entries.set(next, v); }
    this.save(this.entries.size ? this.toJSON() : undefined);
  }

  toJSON(): Record<string, EraVerdict> {
    return Object.fromEntries(this.entries);
  }
}
