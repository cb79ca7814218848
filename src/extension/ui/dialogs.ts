/**
 * The one way MCP Host asks a question in a modal dialog: message, detail and buttons in, the chosen button's
 * title out, always through the consent governor (src/extension/trust/governor.ts): one dialog per key open at a time,
 * none for a requester's turn that ended (denied, cancelled), none twice per key in one turn. This file is the only
 * place that shows a modal (eslint.config.mjs refuses `modal: true` elsewhere).
 *
 * `Dialogs` is a service (issue 39: no module state): extension.ts builds one per window in `activate()` and gives it,
 * at construction, to every feature that asks a modal (consent, sandbox denials, @mcp, sampling, elicitation, App
 * views, the external-URL dialog, the settings commands). Tests answer the dialogs through the test-only object
 * (src/extension/testSupport.ts `setDialogAnswerer`): it sets the `dialogAnswerer` seam this object was given, read
 * each time a dialog is shown; an installed extension is given no seams, so its dialogs are always the real modals.
 *
 * The message names the real server and tool (their names `quoted` by the callers, src/mcp/logging/humanText.ts),
 * the detail carries the server's own text (`dialogText`), and a dialog shows only the decisions: the button that
 * says no is the dialog's close affordance (Escape, the close box), so VS Code adds no separate "Cancel" next to
 * it. `notify` is the same for a notification (not modal) that offers actions.
 */
import * as vscode from 'vscode';
import { Governor, type Dialog, type Outcome, type Question } from '../trust/governor';
import type { TestSeams } from '../testSupport';

export type { Dialog, DialogButton } from '../trust/governor';
export { Turn, type Outcome } from '../trust/governor';

/** Answers a dialog: the title of the chosen button, or undefined when it was dismissed. */
export type DialogAnswerer = (dialog: Dialog) => Promise<string | undefined>;

/** The real modal dialog. */
const shown: DialogAnswerer = async d => {
  const show = d.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const pick = await show<vscode.MessageItem>(d.message, { modal: true, detail: d.detail }, ...d.buttons.map(b => ({ title: b.title, isCloseAffordance: b.isCloseAffordance })));
  return pick?.title;
};

/** The modal dialogs of one window, all through its one governor. */
export class Dialogs {
  /** The one governor of the window: every modal question passes it. */
  readonly governor: Governor;

  /** `seams`: the test-only replacement of the answerer (testSupport.ts; given in test mode only). */
  constructor(seams?: Pick<TestSeams, 'dialogAnswerer'>) {
    this.governor = new Governor(() => d => (seams?.dialogAnswerer ?? shown)(d));
  }

  /**
   * Asks `q` through the governor: what it came to (a dialog's answer, a joined or remembered answer, or refused
   * because the requester's turn ended).
   */
  readonly govern = (q: Question): Promise<Outcome> => this.governor.ask(q);

  /**
   * Shows `dialog` through the governor (or hands it to the test answerer); resolves to the chosen button's title,
   * undefined when dismissed or refused. Without a key, the same message is the same question (concurrent asks join).
   */
  readonly ask = async (dialog: Dialog, q: Omit<Question, 'dialog' | 'key'> & { key?: string } = {}): Promise<string | undefined> => {
    const o = await this.governor.ask({ ...q, key: q.key ?? `message:${dialog.message}`, dialog });
    return o.kind === 'refused' ? undefined : o.answer;
  };
}

/**
 * A notification (not modal) with actions: resolves to the chosen action, or undefined when it was closed. The
 * message follows the same rule as a dialog's: server names `quoted` by the caller.
 */
export function notify(severity: 'info' | 'warning' | 'error', message: string, ...actions: string[]): Promise<string | undefined> {
  const show = severity === 'error' ? vscode.window.showErrorMessage : severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return Promise.resolve(show(message, ...actions));
}
