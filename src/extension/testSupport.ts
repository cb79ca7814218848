/**
 * The one test-only object (issue 39): every dialog a test answers without UI goes in here, and nowhere else.
 *
 * `TestSeams` is what the features are given at construction (consent, inputs, @mcp, sampling and elicitation, OAuth):
 * each reads its seam at the moment it asks, and asks through the real dialog while the seam is unset. `TestSupport`
 * is how the editor tests set the seams, the answerer of every modal dialog (ui/dialogs.ts's `Dialogs`, built once in
 * `activate()` and given to the features that ask a modal) among them.
 *
 * Who can reach it: extension.ts builds the seams and returns `testSupport` on its API only when the extension runs in
 * test mode (`vscode.ExtensionMode.Test`: the editor test runner's extensionDevelopmentPath plus extensionTestsPath,
 * scripts/editor/run-editor-tests.mjs). An installed extension is given no seams: its features have no hook to replace
 * a dialog, and its API has no `testSupport`.
 */
import type * as vscode from 'vscode';
import type { ChatUi } from './chat/ui';
import type { ElicitUi, UrlElicitUi } from './elicitation/elicitation';
import type { SamplingUi } from './sampling/clientFeatures';
import type { ConsentBatchPrompt, ConsentPrompt } from './trust/consent';
import type { DialogAnswerer } from './ui/dialogs';
import type { ExternalUrlUi } from './ui/externalUrl';
import type { ShownQuickInput } from './ui/quickInputs';

/** The replaced dialogs, read by the features given this object at construction; unset: the real dialog. */
export interface TestSeams {
  /** Every modal dialog (ui/dialogs.ts `Dialogs`): tests read exactly what would be shown and answer it. */
  dialogAnswerer?: DialogAnswerer;
  /** The launch-consent dialog for one server. */
  consentPrompt?: ConsentPrompt;
  /** The dialog about several servers at once; unset while `consentPrompt` is set: each is reviewed through it. */
  consentBatchPrompt?: ConsentBatchPrompt;
  /** The `${input:}` input box. */
  inputPrompt?: (options: vscode.InputBoxOptions) => Thenable<string | undefined>;
  /** The @mcp participant's dialogs (the rest stay real). */
  chatUi?: Partial<ChatUi>;
  /** The sampling dialogs (approve, review). */
  samplingUi?: SamplingUi;
  /** The elicitation inputs, all or some (the rest stay real; set: field by field, no form). */
  elicitUi?: Partial<ElicitUi>;
  /** The URL-mode elicitation dialogs (consent, open, wait), all or some. */
  urlElicitUi?: Partial<UrlElicitUi>;
  /** OAuth's browser step (tests follow the authorization URL themselves). */
  openBrowser?: (server: string, url: string) => Promise<void>;
  /** The external-URL dialog and open (App links, URL elicitation, OAuth sign-in), all or some. */
  externalUrlUi?: Partial<ExternalUrlUi>;
  /** Where ui/quickInputs.ts's `QuickInputs` records each quick pick and input box shown (set by createTestSupport only). */
  recordQuickInput?: (shown: ShownQuickInput) => void;
  /**
   * Not a dialog: the record of every server a launch-consent question was asked about (by the dialog or the seam),
   * with `performance.now()` then, newest last; kept by LaunchConsent from activation on, in test mode only (H641).
   */
  consentAsked?: { server: string; at: number }[];
}

/** What the editor tests replace (undefined restores the real dialog); `activate` returns it in test mode only. */
export interface TestSupport {
  /** The launch-consent dialog (tests answer without UI). */
  setConsentPrompt(prompt: ConsentPrompt | undefined): void;
  /** The dialog that asks about several servers at once (undefined: review each through the one-server prompt). */
  setConsentBatchPrompt(prompt: ConsentBatchPrompt | undefined): void;
  /** How modal dialogs with server text are answered (tests read them as shown). */
  setDialogAnswerer(answerer: DialogAnswerer | undefined): void;
  /** The `${input:}` input box. */
  setInputPrompt(ask: ((options: vscode.InputBoxOptions) => Thenable<string | undefined>) | undefined): void;
  /** The one confirm-and-open path for external URLs: its dialog and open (tests see the text shown and the URL opened). */
  setExternalUrlUi(ui: Partial<ExternalUrlUi> | undefined): void;
  /** The @mcp participant's dialogs (tool confirmation, argument questions; App views' tool confirmation too). */
  setChatUi(ui: Partial<ChatUi> | undefined): void;
  /** The sampling dialogs. */
  setSamplingUi(ui: SamplingUi | undefined): void;
  /** The elicitation inputs, all or some. */
  setElicitUi(ui: Partial<ElicitUi> | undefined): void;
  /** The URL-mode elicitation dialogs, all or some. */
  setUrlElicitUi(ui: Partial<UrlElicitUi> | undefined): void;
  /** OAuth's browser step. */
  setOpenBrowser(open: ((server: string, url: string) => Promise<void>) | undefined): void;
  /** Every server a launch-consent question was asked about since activation (`at`: performance.now()), oldest first. */
  readonly consentAsked: readonly { server: string; at: number }[];
  /** Every quick pick and input box the commands and `@mcp` showed (title, placeholder, prompt, items), the newest 20, newest last. */
  readonly quickInputs: readonly ShownQuickInput[];
}

/** The test support over `seams` (the object the features were given). */
export function createTestSupport(seams: TestSeams): TestSupport {
  // The record of quick inputs exists only here, in test mode (an installed extension keeps none).
  const quickInputs: ShownQuickInput[] = [];
  seams.recordQuickInput = shown => {
    quickInputs.push(shown);
    if (quickInputs.length > 20) quickInputs.shift();
  };
  // The record LaunchConsent keeps from activation on (it may hold the first sync's questions already).
  const consentAsked = seams.consentAsked = seams.consentAsked ?? [];
  return {
    setConsentPrompt: p => { seams.consentPrompt = p; },
    setConsentBatchPrompt: p => { seams.consentBatchPrompt = p; },
    setDialogAnswerer: a => { seams.dialogAnswerer = a; },
    setInputPrompt: ask => { seams.inputPrompt = ask; },
    setExternalUrlUi: ui => { seams.externalUrlUi = ui; },
    setChatUi: ui => { seams.chatUi = ui; },
    setSamplingUi: ui => { seams.samplingUi = ui; },
    setElicitUi: ui => { seams.elicitUi = ui; },
    setUrlElicitUi: ui => { seams.urlElicitUi = ui; },
    setOpenBrowser: open => { seams.openBrowser = open; },
    consentAsked,
    quickInputs,
  };
}
