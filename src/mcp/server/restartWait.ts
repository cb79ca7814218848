/**
 * The wait of a call for a server that is starting or restarting (H585; split out of supervisor.ts, issue 39): the
 * next state change after a session ended, and a start awaited under the caller's cancellation, with the readable
 * message of a restart that failed. The supervisor (supervisor.ts) decides when to start; these only wait.
 */
import { McpHostError, messageOf } from '../errors';
import type { Event } from '../events';
import type { ServerState } from '../types';
import * as l10n from '@vscode/l10n';

/** Resolves true on the next state change, false after the startup timeout; the caller's cancellation rejects. */
export function nextState(onDidChangeState: Event<ServerState>, startupTimeout: number, name: string, signal?: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    const done = (v: boolean | Error) => {
      clearTimeout(timer);
      sub.dispose();
      signal?.removeEventListener('abort', onAbort);
      if (v instanceof Error) reject(v); else resolve(v);
    };
    const onAbort = () => done(new McpHostError(cancelledWhile(name, true)));
    const sub = onDidChangeState(() => done(true));
    const timer = setTimeout(() => done(false), startupTimeout);
    if (signal?.aborted) onAbort(); else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits for a start; a failed restart after a crash says so, with the fix; the caller's cancellation ends the wait. */
export async function untilStarted(start: Promise<void>, restart: boolean, name: string, stopped: () => boolean, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new McpHostError(cancelledWhile(name, restart));
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new McpHostError(cancelledWhile(name, restart)));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([start, aborted]);
  } catch (err) {
    if (!restart || signal?.aborted || stopped()) throw err;
    throw new McpHostError(l10n.t('server `{0}` crashed and its automatic restart failed: {1}. See the server\'s log in MCP Host, fix the problem and start the server again', name, messageOf(err)), undefined, { cause: err });
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    aborted.catch(() => undefined);
  }
}

/** A call given up by its caller while the server was starting or restarting (two whole messages, for translators). */
function cancelledWhile(name: string, restart: boolean): string {
  return restart
    ? l10n.t('the call to server `{0}` was cancelled while the server was restarting', name)
    : l10n.t('the call to server `{0}` was cancelled while the server was starting', name);
}
