import * as vscode from 'vscode';
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/client';
import { quoted } from '../../mcp';
import { pickServer, requireRunning, running, shownError, type ServerAccess } from './args';
import { argumentStep, askWithCompletion } from './complete';
import { renderPromptResult } from './render';
import { resultDocuments } from '../documents/results';

/**
 * MCP Host: Run Prompt. Arguments: a tree node or server name, a prompt name and its arguments (when
 * given, nothing is asked). Each missing argument is asked with completion values from the server;
 * the messages open as a markdown document. Resolves the result (undefined on cancel).
 */
export async function runPromptCommand(access: ServerAccess, arg?: unknown, promptName?: string, args?: Record<string, string>): Promise<GetPromptResult | undefined> {
  const picked = await pickServer(access, arg, { filter: running(access.startOnUse, 'prompts'), none: vscode.l10n.t('No running MCP server offers prompts.') });
  const h = picked && await requireRunning(access, picked);
  if (!h) return undefined;
  const name = promptName ?? (arg as { prompt?: Prompt } | undefined)?.prompt?.name ?? (await access.quickInputs.showPick(
    h.catalogue.prompts.map(p => ({ label: p.name, description: p.title, detail: p.description })),
    { placeHolder: vscode.l10n.t('Prompt of {0}', h.name), matchOnDetail: true },
  ))?.label;
  if (!name) return undefined;
  const prompt = h.catalogue.prompts.find(p => p.name === name);
  if (!prompt) {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} has no prompt named {1}.', quoted(h.name), quoted(name)));
    return undefined;
  }
  let values = args;
  if (!values) {
    values = {};
    const list = prompt.arguments ?? [];
    for (const [i, a] of list.entries()) {
      const v = await askWithCompletion(access.quickInputs, h, { type: 'ref/prompt', name: prompt.name }, a.name, values, {
        title: argumentStep(prompt.name, i, list.length, a.name, a.required === true),
        placeholder: a.description,
        required: a.required === true,
      });
      if (v === undefined) return undefined;
      if (v !== '') values[a.name] = v;
    }
  }
  let result: GetPromptResult;
  const at = new Date();
  try {
    result = await h.getPrompt(prompt.name, values);
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Prompt {0} of {1} failed: {2}', quoted(prompt.name), quoted(h.name), shownError(err)));
    return undefined;
  }
  await resultDocuments.openResult(h.name, `${prompt.name} prompt`, renderPromptResult(h.name, prompt.name, result), at);
  return result;
}
