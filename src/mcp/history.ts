/**
 * The protocol timeline of one server: every tool call, prompt and resource read the user, a model or an app view
 * made (method, target, arguments, when, how long, how large, how it ended), newest last, bounded. The editor shows
 * it as the History view and re-runs an entry with edited arguments. Editor-free.
 */
import { Emitter, type Event } from './events';
import { approxJsonSize } from './catalogue';

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
  /** Epoch ms when it was sent. */
  at: number;
  durationMs?: number;
  /** The result's approximate JSON size (bytes); undefined while running or after an error. */
  size?: number;
  status: 'running' | 'ok' | 'error';
  /** The tool said `isError`, or the request failed: the message. */
  error?: string;
  /** The result as JSON, cut at MAX_RESULT_CHARS. */
  result?: string;
}

/** Entries kept per server (oldest dropped first). */
export const MAX_HISTORY = 200;
/** Characters of a result kept for the view. */
export const MAX_RESULT_CHARS = 64 * 1024;
/** Characters of arguments kept (larger arguments are replaced by a note). */
const MAX_ARGS_CHARS = 64 * 1024;

let nextId = 0;

export class RequestHistory {
  private readonly list: HistoryEntry[] = [];
  private readonly _onDidChange = new Emitter<HistoryEntry>();
  readonly onDidChange: Event<HistoryEntry> = this._onDidChange.event;

  constructor(private readonly server: () => string) {}

  get entries(): readonly HistoryEntry[] { return this.list; }

  /** Records a request around `run`; the entry updates when it ends. */
  async track<T>(method: HistoryMethod, target: string, args: Record<string, unknown> | undefined, by: HistoryOrigin, run: () => Promise<T>): Promise<T> {
    const kept = args === undefined || approxJsonSize(args) <= MAX_ARGS_CHARS ? args : { note: `arguments larger than ${MAX_ARGS_CHARS} characters are not kept` };
    const e: HistoryEntry = { id: ++nextId, server: this.server(), method, target, args: kept, by, at: Date.now(), status: 'running' };
    this.list.push(e);
    if (this.list.length > MAX_HISTORY) this.list.splice(0, this.list.length - MAX_HISTORY);
    this._onDidChange.fire(e);
    const t0 = performance.now();
    try {
      const r = await run();
      e.durationMs = Math.round(performance.now() - t0);
      e.size = approxJsonSize(r);
      // Serialised only when small enough to keep: a 20 MB result is not stringified for the timeline.
      if (e.size <= MAX_RESULT_CHARS * 2) {
        const json = JSON.stringify(r, null, 2) ?? '';
        e.result = json.length > MAX_RESULT_CHARS ? `${json.slice(0, MAX_RESULT_CHARS)}\n… (cut at ${MAX_RESULT_CHARS} characters of ${json.length})` : json;
      } else {
        e.result = `(a result of about ${e.size} bytes is not kept in the history; run it again to see it)`;
      }
      const isError = (r as { isError?: unknown } | undefined)?.isError === true;
      e.status = isError ? 'error' : 'ok';
      if (isError) e.error = 'the tool reported an error (isError)';
      return r;
    } catch (err) {
      e.durationMs = Math.round(performance.now() - t0);
      e.status = 'error';
      e.error = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      this._onDidChange.fire(e);
    }
  }

  dispose(): void { this._onDidChange.dispose(); }
}
