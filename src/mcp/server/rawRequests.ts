/**
 * The host's own request coordinator on a session's transport (ext-tasks' `rawDispatch`): sends a
 * JSON-RPC request the SDK's codecs would refuse (the 2026-07-28 Tasks extension's `tools/call` with a
 * task answer, `tasks/get`, `tasks/update`, `tasks/cancel`) on the transport the host owns (its stdio
 * transport, or the Streamable HTTP transport on its guarded fetch) and hands back the response as
 * ext-tasks wants it. Its ids are strings of its own (`mcp-host-raw-N`), so they never meet the SDK's
 * numeric ids; it takes those responses off the transport before the SDK's handler sees them, and passes
 * everything else on unchanged.
 *
 * It also routes the progress of the host's 2026-07-28 task calls (`notifications/progress` whose token is
 * one of `TASK_PROGRESS_PREFIX`, given by extTaskTracker.ts in the call's `_meta`) to the tracker that asked for
 * it; a notification with such a token that nobody waits for (a finished task, a token a server made up)
 * is dropped here, and every other notification passes on to the SDK unchanged.
 *
 * Bounded: a timeout per request, at most `maxPending` waiting at once, every waiter failed when the
 * transport closes. A server's `pollIntervalMs` is clamped to the host's polling bounds on the way in
 * (taskPolicy.ts), so no server can make the host poll faster than it ever does.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { McpHostError } from '../errors';
import { TASK_PROGRESS_PREFIX, pollDelay } from '../tasks/taskPolicy';
import * as l10n from '@vscode/l10n';

/** What ext-tasks expects back from a dispatch. */
export type RawResponse =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly error: { code: number; message: string; data?: unknown } };

export interface RawDispatchOptions {
  readonly signal?: AbortSignal;
  readonly context?: { readonly requestTimeoutMs?: number };
}

interface Waiter {
  resolve(r: RawResponse): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class RawRequests {
  private next = 1;
  private readonly waiting = new Map<string, Waiter>();
  private readonly progress = new Map<string, (params: Record<string, unknown>) => void>();
  private closed = false;
  private installed = false;

  constructor(
    private readonly transport: Transport,
    private readonly o: { server: () => string; requestTimeout: () => number; maxPending?: number },
  ) {}

  /**
   * Puts the coordinator between the transport and the SDK's handler. Call after the SDK connected
   * (it sets `onmessage` and `onclose` in `connect`).
   */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    const t = this.transport;
    const inner = t.onmessage;
    t.onmessage = ((message: JSONRPCMessage, extra?: unknown) => {
      if (this.take(message) || this.takeProgress(message)) return;
      (inner as ((m: JSONRPCMessage, x?: unknown) => void) | undefined)?.call(t, clampTaskPolls(message), extra);
    }) as Transport['onmessage'];
    const innerClose = t.onclose;
    t.onclose = () => {
      this.close(`server \`${this.o.server()}\` closed the connection`);
      innerClose?.call(t);
    };
  }

  /** Sends `request` (its id is replaced by one of ours) and resolves with the response. */
  dispatch = (request: unknown, options: RawDispatchOptions = {}): Promise<RawResponse> => {
    if (this.closed) return Promise.reject(new McpHostError(l10n.t('server `{0}` is not running', this.o.server())));
    if (!this.installed) return Promise.reject(new McpHostError(l10n.t('server `{0}`: the host\'s request coordinator is not connected', this.o.server())));
    if (this.waiting.size >= (this.o.maxPending ?? 256)) {
      return Promise.reject(new McpHostError(l10n.t('server `{0}` has {1} task requests waiting for an answer; no more are sent until some are answered', this.o.server(), this.waiting.size)));
    }
    const r = request as { method?: unknown; params?: unknown };
    if (typeof r?.method !== 'string') return Promise.reject(new McpHostError(l10n.t('a raw request needs a method')));
    const id = `mcp-host-raw-${this.next++}`;
    const method = r.method;
    const message = { jsonrpc: '2.0', id, method, ...(r.params !== undefined && { params: r.params }) } as JSONRPCMessage;
    const timeoutMs = options.context?.requestTimeoutMs ?? this.o.requestTimeout();
    return new Promise<RawResponse>((resolve, reject) => {
      const done = () => {
        clearTimeout(w.timer);
        this.waiting.delete(id);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => { done(); reject(options.signal?.reason instanceof Error ? options.signal.reason : new McpHostError(l10n.t('{0} to server `{1}` was cancelled', method, this.o.server()), -32800)); };
      const w: Waiter = {
        resolve: v => { done(); resolve(v); },
        reject: e => { done(); reject(e); },
        timer: setTimeout(() => w.reject(new McpHostError(l10n.t('server `{0}` did not answer {1} within {2} s', this.o.server(), method, Math.round(timeoutMs / 1000)), -32001)), timeoutMs),
      };
      if (options.signal?.aborted) { onAbort(); return; }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(id, w);
      this.transport.send(message).catch((err: unknown) => w.reject(new McpHostError(l10n.t('could not send {0} to server `{1}`', method, this.o.server()), undefined, { cause: err })));
    });
  };

  /**
   * Hands the `notifications/progress` params carrying `token` (one of TASK_PROGRESS_PREFIX) to `handler`
   * until disposed.
   */
  onProgress(token: string, handler: (params: Record<string, unknown>) => void): { dispose(): void } {
    this.progress.set(token, handler);
    return { dispose: () => { if (this.progress.get(token) === handler) this.progress.delete(token); } };
  }

  /** Fails every waiter; later dispatches fail at once. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const w of [...this.waiting.values()]) w.reject(new McpHostError(reason));
    this.waiting.clear();
    this.progress.clear();
  }

  /** True when `message` is the progress of one of the host's task calls (handed on, or dropped when nobody waits). */
  private takeProgress(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: unknown };
    if (m.method !== 'notifications/progress' || m.id !== undefined) return false;
    const p = m.params as Record<string, unknown> | undefined;
    const token = p !== null && typeof p === 'object' ? p.progressToken : undefined;
    if (typeof token !== 'string' || !token.startsWith(TASK_PROGRESS_PREFIX)) return false;
    this.progress.get(token)?.(p!);
    return true;
  }

  /** True when `message` answered one of ours (it was handed to its waiter). */
  private take(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    if (typeof m.id !== 'string' || m.method !== undefined) return false;
    const w = this.waiting.get(m.id);
    if (!w) return m.id.startsWith('mcp-host-raw-');
    if (m.error !== undefined) {
      const e = m.error as { code?: unknown; message?: unknown; data?: unknown };
      w.resolve({ kind: 'error', error: { code: typeof e?.code === 'number' ? e.code : -32603, message: typeof e?.message === 'string' ? e.message : 'error', ...(e?.data !== undefined && { data: e.data }) } });
    } else {
      w.resolve({ kind: 'result', result: clampPoll(m.result) });
    }
    return true;
  }
}

/** A task's `pollIntervalMs` within the host's polling bounds (other results pass as they are). */
function clampPoll(result: unknown): unknown {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return result;
  const r = result as Record<string, unknown>;
  if (!('pollIntervalMs' in r)) return result;
  return { ...r, pollIntervalMs: pollDelay(r.pollIntervalMs) };
}

/**
 * Task polling hints on the SDK's side of the transport, within the same bounds: a 2026-07-28 task status
 * notification's `pollIntervalMs`; a 2025-11-25 task's `pollInterval` in a CreateTaskResult (`task`), a
 * `tasks/get` answer and `notifications/tasks/status` (ext-tasks polls a 2025-11-25 task through the SDK
 * Client, and would follow a `pollInterval` of 0 as fast as every 10 ms). Anything else passes unchanged.
 */
function clampTaskPolls(message: JSONRPCMessage): JSONRPCMessage {
  const m = message as { method?: unknown; id?: unknown; params?: unknown; result?: unknown };
  if (m.method === 'notifications/tasks' && m.id === undefined) return { ...message, params: clampPoll(m.params) } as JSONRPCMessage;
  if (m.method === 'notifications/tasks/status' && m.id === undefined) return { ...message, params: clampLegacyPoll(m.params) } as JSONRPCMessage;
  if (m.method !== undefined || m.result === null || typeof m.result !== 'object') return message;
  // A response is changed in place, never replaced: over Streamable HTTP a replaced response object left
  // its request unanswered in the SDK (seen with server-everything's task calls).
  const r = m.result as Record<string, unknown>;
  const task = r.task as Record<string, unknown> | undefined;
  if (typeof r.taskId === 'string' && 'pollInterval' in r) r.pollInterval = pollDelay(r.pollInterval);
  else if (task !== null && typeof task === 'object' && !Array.isArray(task) && 'pollInterval' in task) task.pollInterval = pollDelay(task.pollInterval);
  return message;
}

/** A 2025-11-25 task's `pollInterval` (any value, a string or null included) within the host's polling bounds. */
function clampLegacyPoll(task: unknown): unknown {
  if (task === null || typeof task !== 'object' || Array.isArray(task)) return task;
  const t = task as Record<string, unknown>;
  return 'pollInterval' in t ? { ...t, pollInterval: pollDelay(t.pollInterval) } : task;
}
