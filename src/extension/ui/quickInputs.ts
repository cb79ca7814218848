/**
 * The quick picks and input boxes the commands and `@mcp` show, as shown: title, placeholder, prompt and each item's
 * label and description (the newest 20, newest last), read by tests through the test-only object (`testSupport.quickInputs`, testSupport.ts) to
 * check what a person is given — the pseudo-locale run (issue 40) asserts that none of the host's own words in them
 * is left in English. `showPick` and `showInput` are `vscode.window.showQuickPick` / `showInputBox` plus this record; a
 * quick pick made with `createQuickPick` calls `record` itself.
 */
import * as vscode from 'vscode';

/** One quick pick or input box as shown. */
export interface ShownQuickInput {
  kind: 'pick' | 'input';
  title?: string;
  placeHolder?: string;
  /** An input box's prompt. */
  prompt?: string;
  items: { label: string; description?: string }[];
}

/** What was shown, the newest 20, newest last. */
export const quickInputs: ShownQuickInput[] = [];

/** Adds one quick input to the record (keeps the newest 20). */
export function record(shown: ShownQuickInput): void {
  quickInputs.push({ ...shown, items: shown.items.map(({ label, description }) => ({ label, description })) });
  if (quickInputs.length > 20) quickInputs.shift();
}

/** `vscode.window.showQuickPick`, recorded. */
export function showPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions = {}): Thenable<T | undefined> {
  record({ kind: 'pick', title: options.title, placeHolder: options.placeHolder, items: [...items] });
  return vscode.window.showQuickPick(items, options);
}

/** `vscode.window.showInputBox`, recorded. */
export function showInput(options: vscode.InputBoxOptions): Thenable<string | undefined> {
  record({ kind: 'input', title: options.title, placeHolder: options.placeHolder, prompt: options.prompt, items: [] });
  return vscode.window.showInputBox(options);
}
