/**
 * VS Code's cancellation tokens as the AbortSignals the core takes: one conversion for chat requests, the
 * language-model tools and the palette's progress notifications.
 */
import type * as vscode from 'vscode';

/** An AbortSignal that aborts when `token` is cancelled (Stop in chat, Cancel on a progress notification). */
export function abortSignalOf(token: vscode.CancellationToken): AbortSignal {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  else token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}
