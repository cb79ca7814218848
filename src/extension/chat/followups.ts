/**
 * How the chat is reached from outside a request: the follow-up chips after a prompt listing, and the palette /
 * tree commands that open the chat with `@mcp /<server>.<prompt>` or `@mcp /resource <server> <uri>`.
 */
import * as vscode from 'vscode';
import { type HostApi, quoted, shownName } from '../../mcp';
import { CommandIds } from '../../views/commandIds';
import { chipLabel, promptCommand, typeable } from './render';
import { isRunning } from './chatServices';
import type { QuickInputs } from '../ui/quickInputs';

/** Commands of this module (palette and tree items). */
export const ChatCommandIds = { runPromptInChat: CommandIds.runPromptInChat, attachResourceToChat: CommandIds.attachResourceToChat } as const;

/**
 * After a prompt listing: the first prompts as follow-ups; one click runs one (missing arguments are asked). VS Code
 * sends a follow-up with the command of the request it follows unless it names one (`command ?? request.command`),
 * which would send `/prompts /<server>.<prompt>` and list the prompts again: `command: ''` sends `@mcp /<server>.<prompt>`.
 * Chips render their label as markdown: escaped.
 */
export function promptFollowups(result: vscode.ChatResult): vscode.ChatFollowup[] {
  const prompts = (result.metadata as { prompts?: unknown } | undefined)?.prompts;
  return Array.isArray(prompts)
    ? prompts.filter((p): p is string => typeof p === 'string').slice(0, 6).map(p => ({ prompt: p, label: chipLabel(p), command: '' }))
    : [];
}

/** Opens the chat with `@mcp /<server>.<prompt>` (sent at once when the prompt has no arguments). */
export async function runPromptInChat(host: HostApi, quickInputs: QuickInputs, node?: { server?: string; prompt?: { name: string } }): Promise<void> {
  let server = node?.server;
  let prompt = node?.prompt?.name;
  if (!server || !prompt) {
    // Labels and details are server text: one line, no controls or bidi overrides, no `$(icon)` of the server's.
    const items = host.servers.filter(isRunning).flatMap(h => h.catalogue.prompts.filter(p => typeable(h.name, p.name)).map(p => ({
      label: shownName(promptCommand(h.name, p.name), 120).replace(/\$\(/g, '$\u200b('),
      detail: p.description === undefined ? undefined : shownName(p.description, 200).replace(/\$\(/g, '$\u200b('),
      server: h.name, prompt: p.name,
    })));
    if (!items.length) { void vscode.window.showInformationMessage(vscode.l10n.t('No running MCP server offers prompts.')); return; }
    const pick = await quickInputs.showPick(items, { placeHolder: vscode.l10n.t('Run an MCP prompt in chat'), matchOnDetail: true });
    if (!pick) return;
    ({ server, prompt } = pick);
  }
  if (!typeable(server, prompt)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('The prompt {0} of MCP server {1} has white space in its name, so it cannot be run as @mcp /<server>.<prompt>.', quoted(prompt), quoted(server)));
    return;
  }
  const p = host.get(server)?.catalogue.prompts.find(x => x.name === prompt);
  const partial = !!p?.arguments?.length;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp /${server}.${prompt}${partial ? ' ' : ''}`, isPartialQuery: partial });
}

/** Opens the chat with `@mcp /resource <server> <uri> ` for the user to add a question. */
export async function attachResourceToChat(host: HostApi, quickInputs: QuickInputs, node?: { server?: string; resource?: { uri: string } }): Promise<void> {
  let server = node?.server;
  let uri = node?.resource?.uri;
  if (!server || !uri) {
    const items = host.servers.filter(isRunning).flatMap(h => h.catalogue.resources.map(r => ({ label: r.name, description: r.uri, server: h.name, uri: r.uri })));
    if (!items.length) { void vscode.window.showInformationMessage(vscode.l10n.t('No running MCP server offers resources.')); return; }
    const pick = await quickInputs.showPick(items, { placeHolder: vscode.l10n.t('Attach an MCP resource to chat'), matchOnDescription: true });
    if (!pick) return;
    ({ server, uri } = pick);
  }
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp /resource ${server} ${uri} `, isPartialQuery: true });
}
