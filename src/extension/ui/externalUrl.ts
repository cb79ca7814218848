/**
 * The one confirm-and-open path for external URLs in the editor: App links (`ui/open-link`), URL-mode elicitation
 * and the OAuth sign-in all ask and open here (docs/SECURITY.md, Threat model: "What is shown is what runs"). The URL is
 * parsed once (src/mcp/features/externalUrl.ts); the modal names the server (and who asks for it) and shows the
 * origin, decoded from punycode with the ASCII form beside it, and the full normalised URL; that same string, and
 * nothing re-parsed, is what `open` hands to the editor.
 */
import * as vscode from 'vscode';
import type { Dialogs } from './dialogs';
import { externalUrlPrompt, parseExternalUrl, type ExternalUrl } from '../../mcp';
import type { TestSeams } from '../testSupport';

/** The dialog and the open, replaceable for tests (they see exactly the text shown and the string opened). */
export interface ExternalUrlUi {
  /** Shows the modal; resolves the button picked (undefined when the dialog was closed). */
  ask(question: string, detail: string, buttons: readonly string[]): Promise<string | undefined>;
  /** Opens the URL outside the editor; false when it could not. */
  open(url: string): Promise<boolean>;
}

/** The real dialog (through `dialogs`, the window's one governor) and the real open. */
export const realExternalUrlUi = (dialogs: Dialogs): ExternalUrlUi => ({
  // The one modal of the host (src/extension/ui/dialogs.ts): the decisions only, Escape is the "no".
  ask: (question, detail, buttons) => dialogs.ask({ severity: 'warning', message: question, detail, buttons: buttons.map(title => ({ title })) }),
  async open(url) {
    // The string itself, not a vscode.Uri: the extension host hands a string to the opener unchanged (a Uri would be
    // re-encoded on the way, and then what opens could differ from what was shown). VS Code's own extensions do this.
    return vscode.env.openExternal(url as unknown as vscode.Uri);
  },
});

/**
 * The dialog and the open a feature uses now: the real ones, or (tests) the replacements in the test seams the feature
 * was given at construction (issue 39: no module state), the rest real. Read each time one is asked.
 */
export function externalUrlUi(dialogs: Dialogs, seams: Pick<TestSeams, 'externalUrlUi'> | undefined): ExternalUrlUi {
  const real = realExternalUrlUi(dialogs);
  return seams?.externalUrlUi ? { ...real, ...seams.externalUrlUi } : real;
}

/** What `confirmAndOpen` did. */
export type ExternalUrlOutcome =
  | { outcome: 'opened' | 'declined' | 'failed'; target: ExternalUrl }
  | { outcome: 'refused'; reason: string };

/**
 * Parses `raw` once; refuses what may not be opened (without asking); otherwise asks "<asker> wants to open
 * <origin>" with the full URL in the detail and opens that same URL if the user picks `button` (and `closed`, the
 * asker's lifetime, has not ended meanwhile).
 * `asker` must be display-safe already (names through src/mcp/logging/humanText.ts). `ui`: `externalUrlUi(dialogs, seams)`.
 */
export async function confirmAndOpen(raw: unknown, ask: { asker: string; purpose?: 'signIn'; message?: string; button: string; closed?: AbortSignal }, ui: ExternalUrlUi): Promise<ExternalUrlOutcome> {
  const target = parseExternalUrl(raw);
  if (target instanceof Error) return { outcome: 'refused', reason: target.message };
  const { question, detail } = externalUrlPrompt(ask.asker, target, { purpose: ask.purpose, message: ask.message });
  if (await ui.ask(question, detail, [ask.button]) !== ask.button || ask.closed?.aborted) return { outcome: 'declined', target };
  return { outcome: await ui.open(target.url) ? 'opened' : 'failed', target };
}
