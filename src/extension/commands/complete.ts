import * as vscode from 'vscode';
import type { ServerHandle } from '../../mcp';
import type { QuickInputs } from '../ui/quickInputs';

/** Debounce of completion requests while typing (H23). */
const DEBOUNCE_MS = 200;

/**
 * The title of one step when arguments are asked one at a time: "<what> (2/3): <argument>", "(optional)" after an
 * optional one (a tool's fields, a prompt's arguments from the palette and from `@mcp`). `what` and `argument` are
 * server text, shown as the caller made them safe.
 */
export function argumentStep(what: string, index: number, total: number, argument: string, required: boolean): string {
  return required
    ? vscode.l10n.t('{0} ({1}/{2}): {3}', what, index + 1, total, argument)
    : vscode.l10n.t('{0} ({1}/{2}): {3} (optional)', what, index + 1, total, argument);
}

/**
 * Asks for one argument value in a quick pick whose items come from `completion/complete` as the
 * user types (debounced); the typed text itself is always acceptable. Resolves undefined on cancel. `quickInputs`
 * records it as shown (test mode).
 */
export function askWithCompletion(
  quickInputs: QuickInputs,
  h: ServerHandle,
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
  argument: string,
  context: Record<string, string>,
  opts: { title: string; placeholder?: string; required: boolean },
): Promise<string | undefined> {
  return new Promise(resolve => {
    const qp = vscode.window.createQuickPick();
    qp.title = opts.title;
    qp.placeholder = opts.placeholder ?? (opts.required ? vscode.l10n.t('Value for {0}', argument) : vscode.l10n.t('Value for {0} (optional, Enter to skip)', argument));
    qp.ignoreFocusOut = true;
    qp.matchOnDescription = false;
    let timer: NodeJS.Timeout | undefined;
    let seq = 0;
    let done = false;
    const supported = h.state.kind === 'running' && h.state.capabilities.completions !== undefined;
    const update = (value: string) => {
      const asTyped = vscode.l10n.t('(as typed)');
      const typed = value ? [{ label: value, description: asTyped }] : [];
      qp.items = [...typed, ...qp.items.filter(i => i.description !== asTyped && i.label !== value)];
      if (!supported) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(async () => {
        const mine = ++seq;
        qp.busy = true;
        try {
          const c = await h.complete(ref, { name: argument, value }, context);
          if (mine !== seq || done) return;
          qp.items = [...(qp.value ? [{ label: qp.value, description: vscode.l10n.t('(as typed)') }] : []),
            ...c.values.filter(v => v !== qp.value).map(v => ({ label: v }))];
        } catch {
          // Completion is a help, not a requirement.
        } finally {
          if (mine === seq) qp.busy = false;
        }
      }, DEBOUNCE_MS);
    };
    qp.onDidChangeValue(update);
    qp.onDidAccept(() => {
      const value = qp.selectedItems[0]?.label ?? qp.value;
      if (!value && opts.required) return;
      done = true;
      resolve(value);
      qp.hide();
    });
    qp.onDidHide(() => {
      if (timer) clearTimeout(timer);
      if (!done) resolve(undefined);
      done = true;
      qp.dispose();
    });
    qp.show();
    update('');
    quickInputs.record({ kind: 'pick', title: qp.title, placeHolder: qp.placeholder, items: [...qp.items] });
  });
}
