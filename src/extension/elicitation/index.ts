/**
 * Elicitation (`elicitation/create`, form mode) as quick inputs: the server's message with
 * Respond / Decline (closing it cancels), then one input per field of the requested schema
 * (text, number, yes/no, one or several choices). Escape in a field cancels the whole form.
 */
import * as vscode from 'vscode';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { coerce, fieldsOf, type ElicitField } from './form';
import { setOwn } from '../../mcp/schema/own';

export type { ElicitField } from './form';

/** The inputs, replaceable for tests. A field answer of undefined cancels the form. */
export interface ElicitUi {
  start(server: string, message: string, fields: readonly ElicitField[]): Promise<'respond' | 'decline' | 'cancel'>;
  /** `error` is set when the previous answer was invalid. */
  ask(server: string, field: ElicitField, index: number, total: number, error?: string): Promise<string | string[] | undefined>;
}

const RESPOND = 'Respond…';
const DECLINE = 'Decline';

/** The real inputs: a modal, then an input box or quick pick per field. */
export const quickInputElicitUi: ElicitUi = {
  async start(server, message) {
    const pick = await vscode.window.showInformationMessage(
      `MCP server "${server}" asks for information`, { modal: true, detail: message }, RESPOND, DECLINE);
    return pick === RESPOND ? 'respond' : pick === DECLINE ? 'decline' : 'cancel';
  },
  async ask(server, field, index, total, error) {
    const title = `${server} (${index + 1}/${total}): ${field.label}${field.required ? '' : ' (optional)'}`;
    const placeHolder = error ?? field.description;
    if (field.kind === 'boolean' || field.kind === 'enum') {
      const items: { label: string; description?: string; value: string }[] = field.kind === 'boolean'
        ? [{ label: 'Yes', value: 'true' }, { label: 'No', value: 'false' }]
        : (field.options ?? []).map(o => ({ label: o.label, description: o.label !== o.value ? o.value : undefined, value: o.value }));
      if (!field.required) items.push({ label: '(skip)', value: '' });
      const pick = await vscode.window.showQuickPick(items, { title, placeHolder, ignoreFocusOut: true });
      return pick?.value;
    }
    if (field.kind === 'multi') {
      const picks = await vscode.window.showQuickPick(
        (field.options ?? []).map(o => ({ label: o.label, value: o.value, picked: Array.isArray(field.default) && field.default.includes(o.value) })),
        { title, placeHolder, canPickMany: true, ignoreFocusOut: true });
      return picks?.map(p => p.value);
    }
    return vscode.window.showInputBox({
      title, prompt: field.description, placeHolder: error, ignoreFocusOut: true,
      value: field.default !== undefined ? String(field.default) : undefined,
      validateInput: v => { const r = coerce(field, v); return 'error' in r ? r.error : undefined; },
    });
  },
};

/** Builds the `elicit` client feature. */
export function createElicit(log: (server: string, level: 'info' | 'warning' | 'error', msg: string) => void) {
  let ui: ElicitUi = quickInputElicitUi;
  const elicit = async (server: string, request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> => {
    const params = request as { mode?: string; message: string; requestedSchema?: { properties?: Record<string, unknown>; required?: string[] } };
    if (params.mode === 'url') {
      log(server, 'warning', 'URL-mode elicitation is not supported; declined');
      return { action: 'decline' };
    }
    const fields = fieldsOf(params.requestedSchema ?? {});
    log(server, 'info', `Elicitation: ${params.message} (fields: ${fields.map(f => f.name).join(', ') || 'none'})`);
    const start = await ui.start(server, params.message, fields);
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
  return { elicit, setUi: (u: ElicitUi | undefined) => { ui = u ?? quickInputElicitUi; } };
}
