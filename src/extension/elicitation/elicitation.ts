/**
 * Elicitation (`elicitation/create`). URL mode: url.ts. Form mode as quick inputs: the server's message with
 * Respond / Decline (closing it cancels), then one input per field of the requested schema
 * (text, number, yes/no, one or several choices). Escape in a field cancels the whole form.
 */
import * as vscode from 'vscode';
import type { ElicitRequest, ElicitRequestURLParams, ElicitResult } from '@modelcontextprotocol/client';
import { coerce, fieldsOf, type ElicitField } from './form';
import { setOwn, dialogText, quoted, shownName } from '../../mcp';
import { createUrlElicit } from './url';
import type { Forms } from '../forms/forms';
import type { Dialogs } from '../ui/dialogs';
import { KeyedQueue } from '../trust/grants';
import type { ServerTurns } from '../trust/serverTurns';
import type { TestSeams } from '../testSupport';

export type { ElicitField } from './form';
export type { UrlElicitUi } from './url';

/** The inputs, replaceable for tests. A field answer of undefined cancels the form. */
export interface ElicitUi {
  start(server: string, message: string, fields: readonly ElicitField[]): Promise<'respond' | 'decline' | 'cancel'>;
  /** `error` is set when the previous answer was invalid. */
  ask(server: string, field: ElicitField, index: number, total: number, error?: string): Promise<string | string[] | undefined>;
}


/** The real inputs: a modal (through `dialogs`, the window's one governor), then an input box or quick pick per field. */
export const quickInputElicitUi = (dialogs: Dialogs): ElicitUi => ({
  async start(server, message) {
    // Decline and Cancel are different answers to the server (the dialog's own Cancel is the latter).
    const RESPOND = vscode.l10n.t('Respond…'), DECLINE = vscode.l10n.t('Decline');
    const pick = await dialogs.ask({
      severity: 'info', message: vscode.l10n.t('MCP server {0} asks for information', quoted(server)), detail: dialogText(message),
      buttons: [{ title: RESPOND }, { title: DECLINE }],
    });
    return pick === RESPOND ? 'respond' : pick === DECLINE ? 'decline' : 'cancel';
  },
  async ask(server, field, index, total, error) {
    const title = `${shownName(server)} (${index + 1}/${total}): ${shownName(field.label)}${field.required ? '' : vscode.l10n.t(' (optional)')}`;
    const placeHolder = error ?? (field.description === undefined ? undefined : shownName(field.description, 200));
    if (field.kind === 'boolean' || field.kind === 'enum') {
      const items: PickItem[] = field.kind === 'boolean'
        ? [{ label: vscode.l10n.t('Yes'), value: 'true' }, { label: vscode.l10n.t('No'), value: 'false' }]
        : (field.options ?? []).map(o => ({ label: o.label, description: o.label !== o.value ? o.value : undefined, value: o.value }));
      if (!field.required) items.push({ label: vscode.l10n.t('(skip)'), value: '' });
      return pickOne(items, title, placeHolder, typeof field.initial === 'string' ? field.initial : undefined);
    }
    if (field.kind === 'multi') {
      const initial = Array.isArray(field.initial) ? field.initial : [];
      const picks = await vscode.window.showQuickPick(
        (field.options ?? []).map(o => ({ label: o.label, value: o.value, picked: initial.includes(o.value) })),
        { title, placeHolder, canPickMany: true, ignoreFocusOut: true });
      return picks?.map(p => p.value);
    }
    return vscode.window.showInputBox({
      title, prompt: field.description, placeHolder: error, ignoreFocusOut: true,
      value: typeof field.initial === 'string' ? field.initial : undefined,
      validateInput: v => { const r = coerce(field, v); return 'error' in r ? r.error : undefined; },
    });
  },
});

interface PickItem extends vscode.QuickPickItem { value: string }

/**
 * One choice from a quick pick whose active item is the default (as VS Code's own elicitation does), so
 * Enter alone answers the default. Undefined when the pick is closed.
 */
function pickOne(items: PickItem[], title: string, placeholder: string | undefined, initial: string | undefined): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick<PickItem>();
  qp.title = title;
  qp.placeholder = placeholder;
  qp.ignoreFocusOut = true;
  const active = items.find(i => i.value === initial);
  if (active) active.description = active.description ? vscode.l10n.t('{0} (default)', active.description) : vscode.l10n.t('(default)');
  qp.items = items;
  if (active) qp.activeItems = [active];
  return new Promise(resolve => {
    let answer: string | undefined;
    qp.onDidAccept(() => {
      answer = qp.selectedItems[0]?.value ?? qp.activeItems[0]?.value;
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(answer);
    });
    qp.show();
  });
}

/**
 * Builds the `elicit` client feature. A server's form requests run one after another, and each asks through the
 * governor in the server's turn (`turns`): a Decline or a dismissed first question refuses the server's later
 * requests without a dialog for the rest of the session (they are answered "decline").
 */
export function createElicit(log: (server: string, level: 'info' | 'warning' | 'error', msg: string) => void, turns: ServerTurns, dialogs: Dialogs, seams?: Pick<TestSeams, 'elicitUi' | 'urlElicitUi' | 'externalUrlUi'>, forms?: Forms) {
  // The real inputs, or (tests) the replacements in the test seams, the rest real; read each time one is asked.
  const real = quickInputElicitUi(dialogs);
  const uiNow = (): ElicitUi => (seams?.elicitUi ? { ...real, ...seams.elicitUi } : real);
  const url = createUrlElicit(log, dialogs, seams);
  const queue = new KeyedQueue();
  const refused = (server: string, why: 'denied' | 'shared' | 'cancelled'): ElicitResult => {
    log(server, 'info', why === 'denied'
      ? 'Elicitation declined without a dialog: the user declined this server\'s requests earlier in this session'
      : 'Elicitation not asked: it was cancelled');
    return { action: why === 'denied' ? 'decline' : 'cancel' };
  };
  const form = async (server: string, params: { message: string; requestedSchema?: { properties?: Record<string, unknown>; required?: string[] } }, fields: ElicitField[], signal: AbortSignal): Promise<ElicitResult> => {
    // More than one field, and the dialogs are the real ones: one form (forms/), checked against the requested schema.
    // Tests that replaced the inputs answer field by field, no form.
    if (!seams?.elicitUi && forms && fields.length > 1) {
      const f = forms;
      const asked = await turns.ask(server, 'elicitation', {
        show: () => f.open({ title: vscode.l10n.t('MCP server "{0}" asks', server), message: params.message, schema: params.requestedSchema ?? {}, decline: true }),
        says: a => (a.action === 'submit' ? 'yes' : 'no'),
        signal,
      });
      if (asked.kind === 'refused') return refused(server, asked.why);
      const a = asked.value;
      if (a.action !== 'submit' || signal.aborted) {
        log(server, 'info', `Elicitation ${a.action === 'decline' ? 'declined' : 'cancelled'} by the user`);
        return { action: a.action === 'decline' ? 'decline' : 'cancel' };
      }
      log(server, 'info', `Elicitation answered (${Object.keys(a.value).join(', ') || 'no fields'})`);
      return { action: 'accept', content: a.value as Record<string, string | number | boolean | string[]> };
    }
    const ui = uiNow();
    const asked = await turns.ask(server, 'elicitation', {
      show: () => ui.start(server, params.message, fields),
      says: a => (a === 'respond' ? 'yes' : 'no'),
      signal,
    });
    if (asked.kind === 'refused') return refused(server, asked.why);
    const start = asked.value;
    if (start !== 'respond' || signal.aborted) {
      log(server, 'info', `Elicitation ${start === 'decline' ? 'declined' : 'cancelled'} by the user`);
      return { action: start === 'decline' ? 'decline' : 'cancel' };
    }
    const content: Record<string, string | number | boolean | string[]> = {};
    for (const [i, field] of fields.entries()) {
      let error: string | undefined;
      for (;;) {
        const raw = await ui.ask(server, field, i, fields.length, error);
        if (raw === undefined || signal.aborted) {
          log(server, 'info', 'Elicitation cancelled by the user');
          return { action: 'cancel' };
        }
        const r = coerce(field, raw);
        if ('error' in r) { error = r.error; continue; }
        if ('value' in r) setOwn(content, field.name, r.value as string | number | boolean | string[]);
        break;
      }
    }
    log(server, 'info', `Elicitation answered (${Object.keys(content).join(', ') || 'no fields'})`);
    return { action: 'accept', content };
  };
  const elicit = async (server: string, request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> => {
    if (request.mode === 'url') return url.elicitUrl(server, request as ElicitRequestURLParams, signal);
    const params = request as { mode?: string; message: string; requestedSchema?: { properties?: Record<string, unknown>; required?: string[] } };
    const fields = fieldsOf(params.requestedSchema ?? {});
    log(server, 'info', `Elicitation: ${params.message} (fields: ${fields.map(f => f.name).join(', ') || 'none'})`);
    // One at a time per server: a request that comes while one is asked waits, then asks in the server's turn.
    return queue.run(server, () => form(server, params, fields, signal), signal);
  };
  return {
    elicit,
    elicitUrlRequired: url.elicitUrlRequired,
    elicitationComplete: url.elicitationComplete,
  };
}
