/**
 * The protocol timeline of one server: every tool call, prompt and resource read the user, a model or an app view
 * made (method, target, arguments, when, how long, how large, how it ended), newest last, bounded. The editor shows
 * it as the History view and re-runs an entry with edited arguments, and keeps it across reloads as `StoredHistory`
 * (made here, through the server's redaction path). Editor-free.
 */
import { Emitter, type Event } from '../events';
import { approxJsonSize, approxJsonSizeSliced } from '../jsonWalks';
import type { Redactor } from '../logging/redact';

export type HistoryMethod = 'tools/call' | 'prompts/get' | 'resources/read';
/** Who asked: the user (a command, the CLI), a language model, or an MCP App view. */
export type HistoryOrigin = 'user' | 'model' | 'view';

export interface HistoryEntry {
  id: number;
  server: string;
  method: HistoryMethod;
  /** The tool, prompt or resource URI. */
  target: string;
  /** The arguments (tools/call, prompts/get), as given. */
  args?: Record<string, unknown>;
  by: HistoryOrigin;
  /** The code-mode program that made the call (its id, e.g. `program-1a2b3c4d`), when a program made it. */
  program?: string;
  /** Epoch ms when it was sent. */
  at: number;
  durationMs?: number;
  /** The result's approximate JSON size (bytes); undefined while running or after an error. */
  size?: number;
  status: 'running' | 'ok' | 'error';
  /** The tool said `isError`, or the request failed: the message. */
  error?: string;
  /** The result as JSON, cut at MAX_RESULT_CHARS (made when asked for; kept for the last KEEP_RESULTS entries). */
  readonly result?: string;
}

/** Results kept (by reference, serialised only when shown) for the newest entries; older entries keep the figures. */
export const KEEP_RESULTS = 50;

/** The JSON text of a kept result, cut at MAX_RESULT_CHARS. */
function resultText(r: unknown): string {
  const json = JSON.stringify(r, null, 2) ?? '';
  return json.length > MAX_RESULT_CHARS ? `${json.slice(0, MAX_RESULT_CHARS)}\n… (cut at ${MAX_RESULT_CHARS} characters of ${json.length})` : json;
}

/** Entries kept per server (oldest dropped first). */
export const MAX_HISTORY = 200;
/** Characters of a result kept for the view. */
export const MAX_RESULT_CHARS = 64 * 1024;
/** Characters of arguments kept (larger arguments are replaced by a note). */
const MAX_ARGS_CHARS = 64 * 1024;

let nextId = 0;

/** One entry as kept across reloads: what the view shows, every text through the server's redaction path. */
export type StoredHistoryEntry = Omit<HistoryEntry, 'id' | 'server' | 'status' | 'result'> & {
  status: 'ok' | 'error';
  /** The result's JSON text, redacted then cut at MAX_RESULT_CHARS; absent when it was not kept. */
  result?: string;
};

/** A server's history as kept across reloads (version 1), oldest first, at most MAX_HISTORY entries. */
export interface StoredHistory { version: 1; entries: StoredHistoryEntry[] }

/** One entry; its result's text is made only when asked for (a getter on the class, no per-call serialising). */
class Entry implements HistoryEntry {
  readonly id = ++nextId;
  at = Date.now();
  status: HistoryEntry['status'] = 'running';
  durationMs?: number;
  size?: number;
  error?: string;
  /** The result, kept by reference while small and recent; null when dropped. */
  raw?: unknown;
  /** A restored entry's result text (already redacted and cut). */
  kept?: string;
  program?: string;
  constructor(readonly server: string, readonly method: HistoryMethod, readonly target: string, readonly args: Record<string, unknown> | undefined, readonly by: HistoryOrigin) {}

  get result(): string | undefined {
    if (this.kept !== undefined) return this.kept;
    if (this.raw === undefined) return undefined;
    if (this.raw === null) {
      return (this.size ?? 0) > MAX_RESULT_CHARS * 2
        ? `(a result of about ${this.size} bytes is not kept in the history; run it again to see it)`
        : '(only the last results are kept; run it again to see this one)';
    }
    return resultText(this.raw);
  }
}

export class RequestHistory {
  private readonly list: Entry[] = [];
  private readonly _onDidChange = new Emitter<HistoryEntry>();
  readonly onDidChange: Event<HistoryEntry> = this._onDidChange.event;

  constructor(private readonly server: () => string) {}

  get entries(): readonly HistoryEntry[] { return this.list; }

  /** Records a request around `run`; the entry updates when it ends. */
  track<T>(method: HistoryMethod, target: string, args: Record<string, unknown> | undefined, by: HistoryOrigin, run: () => Promise<T>, program?: string): Promise<T> {
    const kept = args === undefined || approxJsonSize(args, MAX_ARGS_CHARS) <= MAX_ARGS_CHARS ? args : { note: `arguments larger than ${MAX_ARGS_CHARS} characters are not kept` };
    const e = new Entry(this.server(), method, target, kept, by);
    if (program !== undefined) e.program = program.slice(0, 64);
    this.list.push(e);
    if (this.list.length > MAX_HISTORY) this.list.splice(0, this.list.length - MAX_HISTORY);
    const old = this.list[this.list.length - 1 - KEEP_RESULTS];
    if (old?.raw) old.raw = null;
    this._onDidChange.fire(e);
    const t0 = performance.now();
    return run().then(async r => {
      e.durationMs = Math.round(performance.now() - t0);
      // Sized in slices: the walk of a big result (500,000 objects) would hold the thread as long as its parse.
      e.size = await approxJsonSizeSliced(r);
      // A large result is never held (nor serialised) for the timeline: only its size.
      e.raw = e.size <= MAX_RESULT_CHARS * 2 ? r : null;
      const isError = (r as { isError?: unknown } | undefined)?.isError === true;
      e.status = isError ? 'error' : 'ok';
      if (isError) e.error = 'the tool reported an error (isError)';
      this._onDidChange.fire(e);
      return r;
    }, (err: unknown) => {
      e.durationMs = Math.round(performance.now() - t0);
      e.status = 'error';
      e.error = err instanceof Error ? err.message : String(err);
      this._onDidChange.fire(e);
      throw err;
    });
  }

  /**
   * This history as kept across reloads: entries that ended, arguments, targets, errors and results through
   * `redactor` (redaction before truncation); a result over the size cap or past the last KEEP_RESULTS is not kept.
   */
  toStored(redactor: Redactor): StoredHistory {
    const entries: StoredHistoryEntry[] = [];
    for (const e of this.list) {
      if (e.status === 'running') continue;
      let args: Record<string, unknown> | undefined;
      if (e.args !== undefined) {
        try { args = JSON.parse(redactor.value(e.args)) as Record<string, unknown>; } catch { args = { note: 'the arguments could not be kept' }; }
      }
      let result: string | undefined;
      if (e.kept !== undefined) result = redactor.text(e.kept);
      else if (e.raw !== undefined && e.raw !== null) {
        const json = redactor.text(JSON.stringify(e.raw, null, 2) ?? '');
        result = json.length > MAX_RESULT_CHARS ? `${json.slice(0, MAX_RESULT_CHARS)}\n… (cut at ${MAX_RESULT_CHARS} characters of ${json.length})` : json;
      }
      entries.push({
        method: e.method, target: redactor.text(e.target), ...(args !== undefined && { args }), by: e.by, ...(e.program !== undefined && { program: e.program }), at: e.at,
        ...(e.durationMs !== undefined && { durationMs: e.durationMs }), ...(e.size !== undefined && { size: e.size }),
        status: e.status, ...(e.error !== undefined && { error: redactor.text(e.error) }), ...(result !== undefined && { result }),
      });
    }
    return { version: 1, entries };
  }

  /**
   * Puts entries kept from an earlier window before the current ones (bounded as ever); anything that does not
   * look like a StoredHistory is ignored. Fires one change.
   */
  restore(stored: unknown): void {
    const list = (stored as Partial<StoredHistory> | undefined)?.version === 1 ? (stored as StoredHistory).entries : undefined;
    if (!Array.isArray(list)) return;
    const METHODS: readonly string[] = ['tools/call', 'prompts/get', 'resources/read'];
    const BY: readonly string[] = ['user', 'model', 'view'];
    const restored: Entry[] = [];
    for (const s of list.slice(-MAX_HISTORY)) {
      if (!s || typeof s !== 'object' || !METHODS.includes(s.method) || typeof s.target !== 'string' || typeof s.at !== 'number') continue;
      const args = s.args && typeof s.args === 'object' && !Array.isArray(s.args) ? s.args : undefined;
      const e = new Entry(this.server(), s.method, s.target, args, BY.includes(s.by) ? s.by : 'user');
      e.at = s.at;
      if (typeof s.program === 'string') e.program = s.program.slice(0, 64);
      e.status = s.status === 'ok' ? 'ok' : 'error';
      if (typeof s.durationMs === 'number') e.durationMs = s.durationMs;
      if (typeof s.size === 'number') e.size = s.size;
      if (typeof s.error === 'string') e.error = s.error;
      if (typeof s.result === 'string') e.kept = s.result.length > MAX_RESULT_CHARS * 2 ? s.result.slice(0, MAX_RESULT_CHARS) : s.result;
      restored.push(e);
    }
    if (!restored.length) return;
    this.list.unshift(...restored);
    if (this.list.length > MAX_HISTORY) this.list.splice(0, this.list.length - MAX_HISTORY);
    // Results are kept for the newest KEEP_RESULTS entries only, restored ones included.
    for (const e of this.list.slice(0, Math.max(0, this.list.length - KEEP_RESULTS))) { e.kept = undefined; if (e.raw) e.raw = null; }
    this._onDidChange.fire(this.list[this.list.length - 1]);
  }

  dispose(): void { this._onDidChange.dispose(); }
}
