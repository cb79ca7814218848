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
