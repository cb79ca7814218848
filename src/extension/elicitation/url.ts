/**
 * URL-mode elicitation in the editor: a modal names the server, shows its message and, prominently,
 * the origin the link leads to (domain decoded from punycode, the ASCII form beside it when they
 * differ; the full URL in the detail). Dialog and open go through the one confirm-and-open path
 * (src/extension/ui/externalUrl.ts): the URL parsed once is the one shown and opened, only after the user
 * picks "Open"; Decline and closing the dialog answer decline and cancel. Nothing is fetched before.
 * For a URLElicitationRequiredError the same consent runs, then a quick pick waits for the server's
 * `notifications/elicitation/complete` (it closes when that arrives; the user may retry now or stop).
 */
import * as vscode from 'vscode';
import { ProtocolError, ProtocolErrorCode, type ElicitRequestURLParams, type ElicitResult } from '@modelcontextprotocol/client';
import { consentDetail, elicitationTarget, openLabel, UrlElicitations, type ElicitationTarget, type UrlElicitationOutcome, dialogText, quoted, headlineOrigin } from '../../mcp';
import { externalUrlUi, type ExternalUrlUi } from '../ui/externalUrl';
import type { Dialogs } from '../ui/dialogs';
import type { TestSeams } from '../testSupport';

/** The URL-mode dialogs, replaceable for tests. `closed` aborts when the server completed or withdrew the elicitation. */
export interface UrlElicitUi {
  consent(server: string, message: string, target: ElicitationTarget, closed: AbortSignal): Promise<'open' | 'decline' | 'cancel'>;
  /** Opens the URL outside the editor; false when it could not. */
  open(url: string): Promise<boolean>;
  /**
   * Shown while waiting for the server's completion; closes by itself when `done` settles ('complete').
   * The user may retry now (a server that never reports completion) or stop waiting.
   */
  waitForCompletion(server: string, target: ElicitationTarget, done: Promise<unknown>): Promise<'complete' | 'retry' | 'stopped'>;
}


/** The real URL-mode dialogs, over the external-URL dialog and open `ext` (ui/externalUrl.ts). */
export const realUrlElicitUi = (ext: ExternalUrlUi): UrlElicitUi => ({
  async consent(server, message, target) {
    const open = openLabel(target);
    const DECLINE = vscode.l10n.t('Decline');
    const pick = await ext.ask(vscode.l10n.t('MCP server {0} asks you to open a page on {1}', quoted(server), headlineOrigin(target)),
      consentDetail(dialogText(message), target), [open, DECLINE]);
    return pick === open ? 'open' : pick === DECLINE ? 'decline' : 'cancel';
  },
  open: url => ext.open(url),
  waitForCompletion(server, target, done) {
    const qp = vscode.window.createQuickPick<vscode.QuickPickItem & { id: 'retry' | 'stopped' }>();
    qp.title = vscode.l10n.t('MCP Host: {0} is waiting for you to finish on {1}', quoted(server), headlineOrigin(target));
    qp.placeholder = vscode.l10n.t('This closes by itself when the server reports the step done');
    qp.ignoreFocusOut = true;
    qp.items = [
      { id: 'retry', label: vscode.l10n.t('Retry Now'), description: vscode.l10n.t('I finished; the server has not said so') },
      { id: 'stopped', label: vscode.l10n.t('Stop Waiting'), description: vscode.l10n.t('the request fails') },
    ];
    return new Promise(resolve => {
      let outcome: 'complete' | 'retry' | 'stopped' = 'stopped';
      qp.onDidAccept(() => { outcome = qp.selectedItems[0]?.id ?? qp.activeItems[0]?.id ?? 'stopped'; qp.hide(); });
      qp.onDidHide(() => { qp.dispose(); resolve(outcome); });
      void done.then(() => { outcome = 'complete'; qp.hide(); });
      qp.show();
    });
  },
});

type Log = (server: string, level: 'info' | 'warning' | 'error', msg: string) => void;

/** The URL-mode half of elicitation, plus the completion notification and the -32042 flow. */
export function createUrlElicit(log: Log, dialogs: Dialogs, seams?: Pick<TestSeams, 'urlElicitUi' | 'externalUrlUi'>) {
  // The real dialogs, or (tests) the replacements in the test seams, the rest real; read each time one is asked.
  const uiNow = (): UrlElicitUi => {
    const real = realUrlElicitUi(externalUrlUi(dialogs, seams));
    return seams?.urlElicitUi ? { ...real, ...seams.urlElicitUi } : real;
  };
  const followed = new UrlElicitations();

  /** Consent then open; `follow` is the follower already watching for the completion. */
  const consentAndOpen = async (server: string, params: ElicitRequestURLParams, closed: AbortSignal): Promise<ElicitResult> => {
    const target = elicitationTarget(server, params.url);
    if (target instanceof Error) {
      log(server, 'warning', `URL elicitation refused: ${target.message}`);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, target.message);
    }
    log(server, 'info', `URL elicitation: ${params.message} (${target.origin}; id ${params.elicitationId})`);
    const answer = await uiNow().consent(server, params.message, target, closed);
    if (closed.aborted) {
      log(server, 'info', 'URL elicitation completed or withdrawn before the user answered; nothing opened');
      return { action: 'cancel' };
    }
    if (answer !== 'open') {
      log(server, 'info', `URL elicitation ${answer === 'decline' ? 'declined' : 'cancelled'} by the user`);
      return { action: answer };
    }
    if (!await uiNow().open(target.url)) {
      log(server, 'warning', `URL elicitation: the link to ${target.origin} could not be opened`);
      return { action: 'decline' };
    }
    log(server, 'info', `URL elicitation: opened ${target.origin}`);
    return { action: 'accept' };
  };

  /** `elicitation/create` in URL mode. The consent closes (answering cancel) if the server completes it first. */
  const elicitUrl = async (server: string, params: ElicitRequestURLParams, signal: AbortSignal): Promise<ElicitResult> => {
    const closed = new AbortController();
    const f = followed.follow(server, String(params.elicitationId), signal);
    void f.done.then(() => closed.abort());
    try {
      return await consentAndOpen(server, params, closed.signal);
    } finally {
      f.stop();
    }
  };

  /** One elicitation of a URLElicitationRequiredError: consent, open, then wait for the completion. */
  const elicitUrlRequired = async (server: string, params: ElicitRequestURLParams, signal?: AbortSignal): Promise<UrlElicitationOutcome> => {
    const target = elicitationTarget(server, params.url);
    const f = followed.follow(server, String(params.elicitationId), signal);
    try {
      const consentClosed = new AbortController();
      signal?.addEventListener('abort', () => consentClosed.abort(), { once: true });
      const r = await consentAndOpen(server, params, consentClosed.signal);
      if (r.action !== 'accept') return r.action;
      if (target instanceof Error) return 'cancel';
      const outcome = await uiNow().waitForCompletion(server, target, f.done);
      if (outcome === 'retry') {
        log(server, 'info', `URL elicitation ${params.elicitationId}: the user asked to retry the request`);
        return 'complete';
      }
      if (outcome !== 'complete' || await f.done !== 'complete') return 'stopped';
      log(server, 'info', `URL elicitation ${params.elicitationId} completed; retrying the request`);
      return 'complete';
    } catch (err) {
      if (err instanceof ProtocolError) return 'cancel';
      throw err;
    } finally {
      f.stop();
    }
  };

  const elicitationComplete = (server: string, elicitationId: string): void => {
    if (!followed.complete(server, elicitationId)) log(server, 'info', `Elicitation ${elicitationId} completed (nothing was waiting for it)`);
  };

  return {
    elicitUrl, elicitUrlRequired, elicitationComplete,
  };
}
