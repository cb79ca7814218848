import * as l10n from '@vscode/l10n';
/**
 * Why a configured server is held back from starting (the reasons the views show) and the error a start refused by
 * the user's launch-consent answer rejects with.
 */

/** A server whose launch the user did not allow (asked again only by an explicit Start). */
export const DENIED = 'launch not allowed (start it to be asked again)';

/**
 * A start refused because the user did not allow the server (now, or before for this same definition). `answered`:
 * the user has just said so in the dialog, so no other message repeats it.
 */
export class ConsentDeniedError extends Error {
  constructor(readonly server: string, readonly answered = false) {
    super(`MCP server "${server}" was not allowed to start (launch consent denied). To allow it, run "MCP Host: Start Server" and choose "${server}", or use Start on it in the MCP Servers view.`);
    this.name = 'ConsentDeniedError';
  }
}

/** A workspace server whose launch consent has not been asked yet. */
export const WAITING = 'waiting for launch consent';

/** A workspace server that Restricted Mode holds back. */
export const RESTRICTED = 'Restricted Mode: trust the workspace to start it';

/** The prefix of the reason of a server that waits for `${input:}` values (`needs input ${input:a}, …`). */
export const NEEDS_INPUT = 'needs input';

/**
 * A reason as the views show it: the held-back reasons above (kept in English, as the gates compare them) in the
 * display language; any other reason (the organisation's policy, the core's words) as it is.
 */
export function shownReason(reason: string | undefined): string | undefined {
  if (reason === undefined) return undefined;
  if (reason === DENIED) return l10n.t('launch not allowed (start it to be asked again)');
  if (reason === WAITING) return l10n.t('waiting for launch consent');
  if (reason === RESTRICTED) return l10n.t('Restricted Mode: trust the workspace to start it');
  if (reason.startsWith(`${NEEDS_INPUT} `)) return l10n.t('needs input {0}', reason.slice(NEEDS_INPUT.length + 1));
  return reason;
}
