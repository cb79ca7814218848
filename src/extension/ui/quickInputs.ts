/**
 * The quick picks and input boxes the commands and `@mcp` show: `QuickInputs` is `vscode.window.showQuickPick` /
 * `showInputBox` plus, in test mode only, a record of each as shown (title, placeholder, prompt and each item's label
 * and description), read by tests through the test-only object (`testSupport.quickInputs`, testSupport.ts) to check
 * what a person is given — the pseudo-locale run (issue 40) asserts that none of the host's own words in them is left
 * in English. A quick pick made with `createQuickPick` calls `record` itself.
 *
 * Issue 39: no module state. extension.ts builds one `QuickInputs` in `activate()` over the test seams and gives it to
 * the commands and `@mcp` at construction; the recorder is the `recordQuickInput` seam, which only `createTestSupport`
 * sets (it keeps the newest 20). An installed extension is given no seams: nothing is recorded and no record exists.
 */
import * as vscode from 'vscode';
import type { TestSeams } from '../testSupport';

/** One quick pick or input box as shown. */
export interface ShownQuickInput {
  kind: 'pick' | 'input';
  title?: string;
  placeHolder?: string;
  /** An input box's prompt. */
  prompt?: string;
  items: { label: string; description?: string }[];
}

/** The window's quick picks and input boxes, recorded (test mode) through the seam it was given. */
export class QuickInputs {
  /** `seams`: the test-only recorder (testSupport.ts; given in test mode only). */
  constructor(private readonly seams?: Pick<TestSeams, 'recordQuickInput'>) {}

  /** Hands one quick input as shown to the test recorder, if there is one (labels and descriptions only). */
  record(shown: ShownQuickInput): void {
    this.seams?.recordQuickInput?.({ ...shown, items: shown.items.map(({ label, description }) => ({ label, description })) });
  }

  /** `vscode.window.showQuickPick`, recorded. */
  showPick<T extends vscode.QuickPickItem>(items: readonly T[], options: vscode.QuickPickOptions = {}): Thenable<T | undefined> {
    this.record({ kind: 'pick', title: options.title, placeHolder: options.placeHolder, items: [...items] });
    return vscode.window.showQuickPick(items, options);
  }

  /** `vscode.window.showInputBox`, recorded. */
  showInput(options: vscode.InputBoxOptions): Thenable<string | undefined> {
    this.record({ kind: 'input', title: options.title, placeHolder: options.placeHolder, prompt: options.prompt, items: [] });
    return vscode.window.showInputBox(options);
  }
}
