/**
 * The `@mcp` participant's dialogs, replaceable for tests: the tool-call confirmation (once / session / always for
 * this tool / deny) and the step-by-step ask for a prompt's arguments (with completion values).
 */
import { type ServerHandle, dialogText, jsonText, quoted, readOnlyNote, shownName } from '../../mcp';
import { argumentStep, askWithCompletion } from '../commands/complete';
import type { Grant } from '../trust/grants';
import type { Dialog, Dialogs } from '../ui/dialogs';
import type { QuickInputs } from '../ui/quickInputs';
import * as l10n from '@vscode/l10n';

/** A tool call waiting for the user's decision. */
export interface ToolAsk {
  server: string; tool: string; description?: string; args: Record<string, unknown>;
  /** The server says the tool only reads (`claimsReadOnly`, src/mcp/catalogue/toolClaims.ts); shown as its claim. */
  readOnly?: boolean;
  /** Aborts when whoever asked went away (an App view closed): a dialog that can close should; the answer is ignored. */
  closed?: AbortSignal;
}

/** One prompt argument to ask for. */
export interface ArgumentAsk {
  handle: ServerHandle;
  prompt: string;
  argument: string;
  description?: string;
  required: boolean;
  index: number;
  total: number;
  /** The values given so far (completion context). */
  context: Record<string, string>;
  /** `completion/complete` values for the empty input (empty when the server offers none). */
  suggestions: () => Promise<string[]>;
}

/** The participant's dialogs, replaceable for tests. `askArgument` resolves undefined on cancel, '' to skip. */
export interface ChatUi {
  approveTool(ask: ToolAsk): Promise<Grant>;
  askArgument(ask: ArgumentAsk): Promise<string | undefined>;
}

/** The tool-call confirmation's decisions; "Deny" is also what Escape and the close box mean. */
export function toolButtons(): { once: string; session: string; always: string; deny: string } {
  // A function, not a constant: @vscode/l10n has its bundle only after activation configured it.
  return { once: l10n.t('Allow Once'), session: l10n.t('Allow for This Session'), always: l10n.t('Always Allow This Tool'), deny: l10n.t('Deny') };
}

/**
 * The tool-call confirmation: the first line names the server and the tool (quoted, one line, no control or bidi
 * characters, cut); the detail carries the server's words (full name when it was cut or cleaned, description,
 * arguments) with controls and invisible characters shown as escapes.
 */
export function toolDialog(ask: ToolAsk): Dialog {
  const name = shownName(ask.tool);
  const b = toolButtons();
  const detail = [
    name !== ask.tool ? l10n.t('Tool name as sent: {0}', dialogText(jsonText(ask.tool, 0), 500)) : undefined,
    ask.description ? l10n.t('Description (from the server): {0}', dialogText(ask.description, 1000)) : undefined,
    l10n.t('Arguments:\n{0}', dialogText(jsonText(ask.args), 2000)),
    ask.readOnly ? readOnlyNote() : undefined,
  ].filter(Boolean).join('\n');
  return {
    severity: 'warning',
    message: l10n.t('Run the tool {0} of MCP server {1}?', quoted(ask.tool), quoted(ask.server)),
    detail,
    buttons: [{ title: b.once }, { title: b.session }, { title: b.always }, { title: b.deny, isCloseAffordance: true }],
  };
}

/** The real dialogs: the tool-call confirmation through `dialogs` (the window's one governor), the argument questions as `quickInputs`. */
export const defaultChatUi = (dialogs: Dialogs, quickInputs: QuickInputs): ChatUi => ({
  async approveTool(ask) {
    const pick = await dialogs.ask(toolDialog(ask));
    const b = toolButtons();
    return pick === b.once ? 'once' : pick === b.session ? 'session' : pick === b.always ? 'always' : 'deny';
  },
  askArgument(ask) {
    return askWithCompletion(quickInputs, ask.handle, { type: 'ref/prompt', name: ask.prompt }, ask.argument, ask.context, {
      title: argumentStep(shownName(`${ask.handle.name}.${ask.prompt}`, 120), ask.index, ask.total, shownName(ask.argument), ask.required),
      placeholder: ask.description === undefined ? undefined : shownName(ask.description, 200),
      required: ask.required,
    });
  },
});
