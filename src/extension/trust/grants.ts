/**
 * What the user has granted, and one dialog at a time: grants (once / session / always, kept in the scope where the
 * server is defined) for sampling and tool calls, and a per-key promise chain so concurrent requests of one server
 * wait behind one dialog. Used by sampling (src/extension/sampling/) and by `@mcp`'s tool approvals
 * (src/extension/chat/toolLoop.ts). No `vscode` import: unit-tested in plain mocha.
 */

/** Runs tasks one after another per key; tasks of different keys run concurrently. */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Number of keys with a task queued or running. */
  get size(): number {
    return this.tails.size;
  }

  /**
   * Runs `task` after every earlier task of `key` has settled. If `signal` aborts while the task is
   * still waiting, the returned promise rejects and the task never runs.
   */
  run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const mine = prev.then(() => {
      if (signal?.aborted) throw abortError(signal);
      return task();
    });
    const tail = mine.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => { if (this.tails.get(key) === tail) this.tails.delete(key); });
    if (!signal) return mine;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(abortError(signal));
      if (signal.aborted) { onAbort(); return; }
      signal.addEventListener('abort', onAbort, { once: true });
      mine.then(v => { signal.removeEventListener('abort', onAbort); resolve(v); },
        e => { signal.removeEventListener('abort', onAbort); reject(e); });
    });
  }
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('The request was cancelled');
}

/** What the user chose for a request that needs approval. */
export type Grant = 'once' | 'session' | 'always' | 'deny';

/** Persistent storage for "always" grants (the extension passes globalState or workspaceState, by scope). */
export interface GrantMemento {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

/**
 * Remembers "session" grants in memory and "always" grants in a memento under `storageKey`.
 * Keys are free-form (a server name for sampling, `server/tool` for tools).
 */
export class Grants {
  private readonly session = new Set<string>();

  constructor(private readonly memento: GrantMemento | undefined, private readonly storageKey: string) {}

  /** The standing grant for `key`: 'always', 'session', or undefined (ask). */
  standing(key: string): 'always' | 'session' | undefined {
    if (this.always().includes(key)) return 'always';
    if (this.session.has(key)) return 'session';
    return undefined;
  }

  /** Records a choice; 'once' and 'deny' leave nothing behind. */
  async record(key: string, grant: Grant): Promise<void> {
    if (grant === 'session') this.session.add(key);
    if (grant === 'always' && !this.always().includes(key)) {
      await this.memento?.update(this.storageKey, [...this.always(), key]);
    }
  }

  /** Forgets every grant (session and always). */
  async clear(): Promise<void> {
    this.session.clear();
    await this.memento?.update(this.storageKey, undefined);
  }

  /** Forgets the grants whose key `match`es (session and always); resolves how many were forgotten. */
  async forget(match: (key: string) => boolean): Promise<number> {
    let n = 0;
    for (const k of [...this.session]) if (match(k)) { this.session.delete(k); n++; }
    const always = this.always();
    const kept = always.filter(k => !match(k));
    if (kept.length !== always.length) await this.memento?.update(this.storageKey, kept.length ? kept : undefined);
    return n + always.length - kept.length;
  }

  private always(): string[] {
    const v = this.memento?.get<unknown>(this.storageKey);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  }
}

/** Where a server is defined: its grants are kept there. */
export type GrantScope = 'user' | 'workspace';

/**
 * Grants kept in the scope where the server is defined: a user-settings server's "always" in the
 * user's storage, a workspace server's in that workspace's storage. Keys carry the scope, the server
 * name and its definition key (never a bare name), so a grant never follows a name into
 * another workspace or onto an edited definition.
 */
export class ScopedGrants {
  private readonly scopes: Record<GrantScope, Grants>;

  constructor(mementos: Partial<Record<GrantScope, GrantMemento>>, storageKey: string) {
    this.scopes = { user: new Grants(mementos.user, storageKey), workspace: new Grants(mementos.workspace, storageKey) };
  }

  standing(scope: GrantScope, key: string): 'always' | 'session' | undefined {
    return this.scopes[scope].standing(key);
  }

  record(scope: GrantScope, key: string, grant: Grant): Promise<void> {
    return this.scopes[scope].record(key, grant);
  }

  /** Forgets every grant in both scopes. */
  async clear(): Promise<void> {
    await this.scopes.user.clear();
    await this.scopes.workspace.clear();
  }

  /** Forgets the grants whose key `match`es, in both scopes; resolves how many were forgotten. */
  async forget(match: (key: string) => boolean): Promise<number> {
    return await this.scopes.user.forget(match) + await this.scopes.workspace.forget(match);
  }
}
