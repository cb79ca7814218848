/**
 * Language models that are still arriving. Right after start-up, `vscode.lm` may list no model yet (the provider
 * extension has not activated), and the first request to a model may fail as unavailable; a retry a moment later
 * works. Chat and sampling wait for a model instead (bounded), and say so.
 */
import * as vscode from 'vscode';

/**
 * What a request that needs a model says when there is none, and how the user picks one. Listing (`@mcp /prompts`,
 * `@mcp` alone, `/tools`, `/skill` without a name) and asking a prompt's arguments need no model. VS Code itself
 * refuses a chat request before any participant sees it ("Language model unavailable") when the chat view has no
 * model selected and no Copilot default: `chat.defaultModel` (a model's id or family) selects one in every new chat.
 */
// Plain text: chat shows an error as escaped markdown (render.ts errorMarkdown).
export const PICK_A_MODEL = vscode.l10n.t('Pick a language model in the model picker under the chat input, or set the setting chat.defaultModel to a model\'s id or family (listing prompts, tools and skills needs no model).');

/** A request needs a language model and has none (the message says how to pick one). */
export class NoLanguageModelError extends Error {
  constructor(why = vscode.l10n.t('This request needs a language model, and none is available.')) {
    super(`${why} ${PICK_A_MODEL}`);
    this.name = 'NoLanguageModelError';
  }
}

/** How long a request waits for a language model to appear. */
export const MODEL_WAIT_MS = 10_000;

/** `vscode.lm.selectChatModels(selector)`, waiting up to `ms` for one to appear; empty when none did. */
export async function chatModels(selector: vscode.LanguageModelChatSelector = {}, ms = MODEL_WAIT_MS, token?: vscode.CancellationToken): Promise<vscode.LanguageModelChat[]> {
  const now = await vscode.lm.selectChatModels(selector);
  if (now.length || ms <= 0) return now;
  return new Promise(resolve => {
    const subs: vscode.Disposable[] = [];
    let done = false;
    const finish = (models: vscode.LanguageModelChat[]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      subs.forEach(s => s.dispose());
      resolve(models);
    };
    const timer = setTimeout(() => void vscode.lm.selectChatModels(selector).then(finish, () => finish([])), ms);
    subs.push(vscode.lm.onDidChangeChatModels(async () => {
      const models = await vscode.lm.selectChatModels(selector).then(m => m, () => []);
      if (models.length) finish(models);
    }));
    if (token) subs.push(token.onCancellationRequested(() => finish([])));
  });
}

/** A request failed because the model is not there (yet): worth one wait and retry. */
export function isModelUnavailable(err: unknown): boolean {
  if (err instanceof vscode.LanguageModelError && err.code === vscode.LanguageModelError.NotFound().code) return true;
  return err instanceof Error && /language model (is )?unavailable|model not found|no (language )?model/i.test(err.message);
}
