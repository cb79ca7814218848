/**
 * What a `@mcp` request carries besides the user's words: earlier `@mcp` turns (prompts as the model saw them,
 * attached resources, answers, kept in the response's metadata), the user's `#` attachments and attached resources.
 */
import * as vscode from 'vscode';

export const PARTICIPANT_ID = 'mcpHost.mcp';

/** What a response keeps for later turns (ChatResult.metadata.mcp). */
export interface TurnMemo {
  /** The prompt's messages as the model saw them. */
  messages?: { role: 'user' | 'assistant'; text: string }[];
  /** Resources attached as context. */
  attached?: { server: string; uri: string; text: string }[];
  /** The question asked with an attached resource. */
  question?: string;
  /** The model's answer (without the participant's own notes). */
  answer?: string;
  /** Tools the model activated over the tool budget (`server/tool`), offered again in the next turns. */
  activated?: string[];
}

/** The tools activated in the latest `@mcp` turn that kept any (progressive discovery). */
export function activatedTools(context: vscode.ChatContext): unknown {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const t = context.history[i];
    if (t instanceof vscode.ChatResponseTurn && t.participant === PARTICIPANT_ID) {
      const memo = t.result.metadata?.mcp as TurnMemo | undefined;
      if (memo?.activated) return memo.activated;
    }
  }
  return undefined;
}

/** Earlier `@mcp` turns as messages: prompts as the model saw them, attached resources, answers. */
export function history(context: vscode.ChatContext): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  const turns = context.history;
  for (let i = 0; i < turns.length; i++) {
    const t = turns[i];
    if (t.participant !== PARTICIPANT_ID) continue;
    if (t instanceof vscode.ChatRequestTurn) {
      const next = turns[i + 1];
      const memo = next instanceof vscode.ChatResponseTurn ? (next.result.metadata?.mcp as TurnMemo | undefined) : undefined;
      if (memo?.messages) continue; // the response turn carries the prompt's messages instead
      if (t.command) continue; // listings are not conversation
      out.push(vscode.LanguageModelChatMessage.User(t.prompt));
    } else if (t instanceof vscode.ChatResponseTurn) {
      const memo = t.result.metadata?.mcp as TurnMemo | undefined;
      for (const m of memo?.messages ?? []) {
        out.push(m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.text) : vscode.LanguageModelChatMessage.User(m.text));
      }
      for (const a of memo?.attached ?? []) out.push(contextMessage(a));
      if (memo?.question) out.push(vscode.LanguageModelChatMessage.User(memo.question));
      const text = memo?.answer ?? (memo ? '' : t.response
        .filter((p): p is vscode.ChatResponseMarkdownPart => p instanceof vscode.ChatResponseMarkdownPart)
        .map(p => p.value.value).join(''));
      if (text) out.push(vscode.LanguageModelChatMessage.Assistant(text));
    }
  }
  return out;
}

/** The user's `#` attachments (files, selections, values) as context messages; unreadable ones are named only. */
export async function referenceMessages(request: vscode.ChatRequest): Promise<vscode.LanguageModelChatMessage[]> {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const ref of request.references ?? []) {
    const v = ref.value;
    try {
      if (typeof v === 'string') out.push(vscode.LanguageModelChatMessage.User(`Context (${ref.modelDescription ?? ref.id}):\n${v}`));
      else if (v instanceof vscode.Uri) {
        const doc = await vscode.workspace.openTextDocument(v);
        out.push(vscode.LanguageModelChatMessage.User(`Context: the file ${vscode.workspace.asRelativePath(v)}:\n${doc.getText()}`));
      } else if (v instanceof vscode.Location) {
        const doc = await vscode.workspace.openTextDocument(v.uri);
        out.push(vscode.LanguageModelChatMessage.User(`Context: ${vscode.workspace.asRelativePath(v.uri)} lines ${v.range.start.line + 1}-${v.range.end.line + 1}:\n${doc.getText(v.range)}`));
      }
    } catch {
      out.push(vscode.LanguageModelChatMessage.User(`Context: ${ref.modelDescription ?? ref.id} (could not be read)`));
    }
  }
  return out;
}

export function contextMessage(a: { server: string; uri: string; text: string }): vscode.LanguageModelChatMessage {
  return vscode.LanguageModelChatMessage.User(`Context: the resource ${a.uri} of MCP server "${a.server}":\n${a.text}`);
}
