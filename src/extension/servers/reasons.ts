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

/**
 * A server the first settings sync could not decide before the installation key was read (issue 41): whether it may
 * start is kept under its definition key (launch consent, or MCP Host's record of servers it added). It does not start
 * and is not asked about until the key is read; then it is decided like any other (definitionKeys.ts PendingKey).
 */
export const CONSENT_STATE = 'waiting for its stored launch consent to be read';

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
  if (reason === CONSENT_STATE) return l10n.t('waiting for its stored launch consent to be read');
  if (reason === RESTRICTED) return l10n.t('Restricted Mode: trust the workspace to start it');
  if (reason.startsWith(`${NEEDS_INPUT} `)) return l10n.t('needs input {0}', reason.slice(NEEDS_INPUT.length + 1));
  return reason;
}

/** What a settings sync knows of one resolved server when it decides whether the server starts (serverController.ts). */
export interface StartFacts {
  /** Where it is defined. */
  origin: 'user' | 'workspace';
  /** The workspace is trusted. */
  trusted: boolean;
  /** The `${input:}` ids it uses that have no value. */
  missing: readonly string[];
  /** Its settings want it started now (not turned off, not waiting for its first use). */
  wantsStart: boolean;
  /**
   * It starts only with launch consent (addedServers.ts needsLaunchConsent); undefined when that is not known before
   * the installation key is read (a user server while MCP Host's record of the servers it added is not empty).
   */
  needsConsent: boolean | undefined;
  /** Its stored launch-consent answer, when the installation key was read (the answers are kept under its key). */
  consent?: () => 'allowed' | 'denied' | 'none';
}

/**
 * Whether a configured server is held back (`reason`), and whether its start asks for launch consent now (`ask`): the
 * one rule of the settings sync. Restricted Mode, then missing inputs, then launch consent; a server whose consent
 * state is keyed while the key is not read yet is held back as CONSENT_STATE and never asked about (H641).
 */
export function startGate(f: StartFacts): { reason?: string; ask: boolean } {
  if (f.origin === 'workspace' && !f.trusted) return { reason: RESTRICTED, ask: false };
  if (f.missing.length) return { reason: `${NEEDS_INPUT} ${f.missing.map(i => `\${input:${i}}`).join(', ')}`, ask: false };
  if (f.needsConsent === false) return { ask: false };
  if (f.needsConsent === undefined || !f.consent) return { reason: CONSENT_STATE, ask: false };
  const answer = f.consent();
  if (answer === 'allowed') return { ask: false };
  return answer === 'denied' ? { reason: DENIED, ask: false } : { reason: WAITING, ask: f.wantsStart };
}
