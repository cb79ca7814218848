/**
 * History commands: open an entry (its request and result as a read-only document) and re-run one with edited
 * arguments (a JSON box prefilled with the old ones; the call is the user's, so it runs like Call Tool / Run Prompt).
 */
import * as vscode from 'vscode';
import { type HistoryEntry, type HostApi, countOf, quoted } from '../../mcp';
import type { HistoryNode, HistoryTreeProvider } from '../../views/historyTree';
import { resultDocuments } from '../documents/results';
import { CommandIds } from '../../views/commandIds';

export async function openHistoryEntry(tree: HistoryTreeProvider, node: HistoryNode): Promise<vscode.TextDocument | undefined> {
  const e = tree.entry(node);
  if (!e) return undefined;
  const lines = [
    `# ${e.method} ${e.target} — ${e.server}`, '',
    `- when: ${new Date(e.at).toISOString()}`, `- by: ${e.by}${e.program ? ` (code-mode ${e.program})` : ''}`, `- status: ${e.status}${e.error ? ` (${e.error})` : ''}`,
    ...(e.durationMs !== undefined ? [`- took: ${e.durationMs} ms`] : []), ...(e.size !== undefined ? [`- size: ${countOf(e.size, 'byte')}`] : []), '',
    ...(e.args ? ['## Arguments', '', '```json', JSON.stringify(e.args, null, 2), '```', ''] : []),
    ...(e.result !== undefined ? ['## Result', '', '```json', e.result, '```'] : []),
  ];
  return resultDocuments.open(e.server, `${e.method.replace('/', ' ')} ${e.target}`, lines.join('\n'), 'md', new Date(e.at));
}

/** Re-runs an entry; `args` skips the box (tests). Resolves the command's result. */
export async function rerunHistoryEntry(host: HostApi, tree: HistoryTreeProvider, node: HistoryNode, args?: Record<string, unknown>): Promise<unknown> {
  const e: HistoryEntry | undefined = tree.entry(node);
  if (!e) return undefined;
  let input = args;
  if (!input && e.method !== 'resources/read') {
    const text = await vscode.window.showInputBox({
      title: vscode.l10n.t('Re-run {0} {1} on {2}', e.method, e.target, e.server), prompt: vscode.l10n.t('The arguments as a JSON object'), value: JSON.stringify(e.args ?? {}), ignoreFocusOut: true,
      validateInput: v => { try { const o = JSON.parse(v); return o && typeof o === 'object' && !Array.isArray(o) ? undefined : vscode.l10n.t('a JSON object, e.g. {"message": "hi"}'); } catch (err) { return vscode.l10n.t('not JSON: {0}', err instanceof Error ? err.message : String(err)); } },
    });
    if (text === undefined) return undefined;
    input = JSON.parse(text) as Record<string, unknown>;
  }
  if (!host.get(e.server)) { void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} is no longer configured.', quoted(e.server))); return undefined; }
  switch (e.method) {
    case 'tools/call': return vscode.commands.executeCommand(CommandIds.callTool, e.server, e.target, input ?? {});
    case 'prompts/get': return vscode.commands.executeCommand(CommandIds.runPrompt, e.server, e.target, input ?? {});
    case 'resources/read': return vscode.commands.executeCommand(CommandIds.openResource, e.server, e.target);
  }
}
