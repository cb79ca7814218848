/**
 * The one way MCP Host asks a question in a modal dialog: message, detail and buttons in, the chosen button's
 * title out. The message names the real server and tool (their names `quoted` by the callers, src/mcp/logging/display.ts),
 * the detail carries the server's own text (`dialogText`), and a dialog shows only the decisions: the button that
 * says no is the dialog's close affordance (Escape, the close box), so VS Code adds no separate "Cancel" next to
 * it. Tests replace the answerer to read exactly what would be shown and answer it. `notify` is the same for a
 * notification (not modal) that offers actions.
 */
import * as vscode from 'vscode';

export interface DialogButton {
  title: string;
  /** The button that Escape and the close box stand for (VS Code then adds no "Cancel" of its own). */
  isCloseAffordance?: boolean;
}

/** A modal question, as shown. */
export interface Dialog {
  severity: 'info' | 'warning';
  /** The first line: what is asked, naming the server (and tool). */
  message: string;
  detail?: string;
  buttons: readonly DialogButton[];
}

/** Answers a dialog: the title of the chosen button, or undefined when it was dismissed. */
export type DialogAnswerer = (dialog: Dialog) => Promise<string | undefined>;

const shown: DialogAnswerer = async d => {
  const show = d.severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const pick = await show<vscode.MessageItem>(d.message, { modal: true, detail: d.detail }, ...d.buttons.map(b => ({ title: b.title, isCloseAffordance: b.isCloseAffordance })));
  return pick?.title;
};

let answerer: DialogAnswerer = shown;

/** Shows `dialog` (or hands it to the test answerer); resolves to the chosen button's title. */
export function ask(dialog: Dialog): Promise<string | undefined> {
  return answerer(dialog);
}

/** Replaces how dialogs are answered (tests); undefined restores the real modal dialogs. */
export function setDialogAnswerer(a: DialogAnswerer | undefined): void {
  answerer = a ?? shown;
}

/**
 * A notification (not modal) with actions: resolves to the chosen action, or undefined when it was closed. The
 * message follows the same rule as a dialog's: server names `quoted` by the caller.
 */
export function notify(severity: 'info' | 'warning' | 'error', message: string, ...actions: string[]): Promise<string | undefined> {
  const show = severity === 'error' ? vscode.window.showErrorMessage : severity === 'warning' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  return Promise.resolve(show(message, ...actions));
}
