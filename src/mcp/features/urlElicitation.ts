/**
 * URL-mode elicitation (MCP 2025-11-25), the editor-free part:
 * - `elicitationTarget` checks the URL a server asks the user to open, through the one parser of
 *   external URLs (src/mcp/features/externalUrl.ts: https:, http: on loopback, no credentials) and
 *   says where it leads: the origin with its domain decoded from punycode, and the ASCII form beside
 *   it when the two differ (so a look-alike domain shows as what it is);
 * - `UrlElicitations` follows the elicitations the user agreed to: `notifications/elicitation/complete`
 *   settles the one it names (closing whatever UI waits on it); bounded per server;
 * - `callWithUrlElicitation` runs a request that may fail with URLElicitationRequiredError (-32042):
 *   the elicitations it carries go through the same flow, and the request is retried once when every
 *   one of them completed.
 * Nothing here opens a URL: the caller does, after the user's consent.
 */
import { UrlElicitationRequiredError, type ElicitRequestURLParams } from '@modelcontextprotocol/client';
import * as l10n from '@vscode/l10n';
import { externalUrlPrompt, parseExternalUrl, type ExternalUrl } from './externalUrl';

/** Where a URL-mode elicitation leads, as the consent UI shows it (and the one value that is opened). */
export type ElicitationTarget = ExternalUrl;

/**
 * Checks a URL-mode elicitation's URL; an Error (with a message naming the server) when it is not one
 * the host opens: not a URL, not https (or http on loopback), or carrying a user name or password.
 */
export function elicitationTarget(server: string, raw: unknown): ElicitationTarget | Error {
  const t = parseExternalUrl(raw);
  return t instanceof Error ? new Error(l10n.t('server `{0}` asked to open {1}', server, t.message)) : t;
}

/** The button that opens, naming the origin (what the user agrees to). */
export function openLabel(target: ElicitationTarget): string {
  return `Open ${target.origin}`;
}

/** The modal's detail: the server's message, the full URL, and the ASCII origin when it differs. */
export function consentDetail(message: string, target: ElicitationTarget): string {
  return externalUrlPrompt('', target, { message }).detail;
}

/** Elicitations followed per server at most; the oldest is dropped (its waiter settles as cancelled). */
export const MAX_FOLLOWED_ELICITATIONS = 32;

interface Followed {
  id: string;
  settle: (how: 'complete' | 'cancelled') => void;
}

/**
 * The URL elicitations the host follows, per server: `follow` before the URL is offered, `complete`
 * when the server says it is done. A completion nobody follows is ignored (the spec's "MUST ignore").
 */
export class UrlElicitations {
  private readonly byServer = new Map<string, Followed[]>();

  /**
   * Follows `id` of `server`: `done` settles 'complete' when the server sends its completion,
   * 'cancelled' when `signal` aborts, `stop` is called, or too many newer ones push it out.
   */
  follow(server: string, id: string, signal?: AbortSignal): { done: Promise<'complete' | 'cancelled'>; stop: () => void } {
    let list = this.byServer.get(server);
    if (!list) this.byServer.set(server, list = []);
    let settle!: (how: 'complete' | 'cancelled') => void;
    const done = new Promise<'complete' | 'cancelled'>(resolve => { settle = resolve; });
    const entry: Followed = {
      id,
      settle: how => {
        this.drop(server, entry);
        signal?.removeEventListener('abort', onAbort);
        settle(how);
      },
    };
    const onAbort = () => entry.settle('cancelled');
    list.push(entry);
    if (list.length > MAX_FOLLOWED_ELICITATIONS) list[0].settle('cancelled');
    if (signal?.aborted) entry.settle('cancelled');
    else signal?.addEventListener('abort', onAbort, { once: true });
    return { done, stop: () => entry.settle('cancelled') };
  }

  /** `notifications/elicitation/complete` from `server`: settles every follower of that id. True when one was waiting. */
  complete(server: string, id: unknown): boolean {
    const hits = (this.byServer.get(server) ?? []).filter(f => f.id === id);
    for (const f of hits) f.settle('complete');
    return hits.length > 0;
  }

  /** Forgets a server (it stopped): everything followed settles as cancelled. */
  forget(server: string): void {
    for (const f of [...(this.byServer.get(server) ?? [])]) f.settle('cancelled');
    this.byServer.delete(server);
  }

  /** How many elicitations of `server` are followed now. */
  size(server: string): number {
    return this.byServer.get(server)?.length ?? 0;
  }

  private drop(server: string, entry: Followed): void {
    const list = this.byServer.get(server);
    if (!list) return;
    const i = list.indexOf(entry);
    if (i >= 0) list.splice(i, 1);
    if (!list.length) this.byServer.delete(server);
  }
}

/** How the URL flow of one elicitation ended: completed (the request may be retried), or not and why. */
export type UrlElicitationOutcome = 'complete' | 'decline' | 'cancel' | 'stopped';

const OUTCOME_TEXT: Record<Exclude<UrlElicitationOutcome, 'complete'>, string> = {
  decline: 'the user declined opening the link',
  cancel: 'the user cancelled opening the link',
  stopped: 'the user stopped waiting for the step in the browser',
};

/**
 * Runs `request`; if it fails with URLElicitationRequiredError, each elicitation it carries goes
 * through `flow` (consent, open, wait for the server's completion), in order, and once every one
 * completed the request runs once more. Otherwise the original error is thrown, its message saying
 * what the user did.
 */
export async function callWithUrlElicitation<T>(
  request: () => Promise<T>,
  flow: ((elicitation: ElicitRequestURLParams) => Promise<UrlElicitationOutcome>) | undefined,
): Promise<T> {
  try {
    return await request();
  } catch (err) {
    const required = flow ? urlElicitationRequired(err) : undefined;
    if (!flow || !required?.elicitations.length) throw err;
    for (const e of required.elicitations) {
      const outcome = await flow({ ...e, mode: 'url' });
      if (outcome !== 'complete') {
        if (err instanceof Error) err.message = `${err.message} (${OUTCOME_TEXT[outcome]})`;
        throw err;
      }
    }
    return await request();
  }
}

/** The URLElicitationRequiredError in `err` or its chain of causes (the host wraps the SDK's errors). */
export function urlElicitationRequired(err: unknown): UrlElicitationRequiredError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UrlElicitationRequiredError) return e;
  }
  return undefined;
}
