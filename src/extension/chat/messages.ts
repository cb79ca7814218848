/**
 * MCP content → `vscode.lm` messages: a prompt's messages (text, images, embedded resources, resource
 * links; assistant messages kept as history), tool results, and resource contents as context.
 */
import * as vscode from 'vscode';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/client';

type Block = GetPromptResult['messages'][number]['content'] | CallToolResult['content'][number];

/** Plain text of one content block (images and audio as placeholders, resources with their text). */
export function blockToText(b: Block): string {
  switch (b.type) {
    case 'text': return b.text;
    case 'image': return `[image ${b.mimeType}]`;
    case 'audio': return `[audio ${b.mimeType}]`;
    case 'resource': {
      const r = b.resource;
      return 'text' in r && typeof r.text === 'string'
        ? `Resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}:\n${r.text}`
        : `[binary resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ''}]`;
    }
    case 'resource_link': return `Resource link: ${b.uri}${b.name ? ` (${b.name})` : ''}${b.description ? ` — ${b.description}` : ''}`;
    default: return `[${(b as { type: string }).type}]`;
  }
}

/** One prompt message as `vscode.lm` parts: text as text, images as image data, the rest as text. */
function toParts(b: Block): (vscode.LanguageModelTextPart | vscode.LanguageModelDataPart)[] {
  if (b.type === 'image') return [vscode.LanguageModelDataPart.image(Buffer.from(b.data, 'base64'), b.mimeType)];
  return [new vscode.LanguageModelTextPart(blockToText(b))];
}

/** A prompt's messages as chat messages, roles kept (assistant messages become history). */
export function promptToChatMessages(result: GetPromptResult): vscode.LanguageModelChatMessage[] {
  return result.messages.map(m => m.role === 'assistant'
    ? vscode.LanguageModelChatMessage.Assistant(toParts(m.content))
    : vscode.LanguageModelChatMessage.User(toParts(m.content)));
}

/** A prompt's messages as plain role/text pairs (kept in the chat result for follow-up turns). */
export function promptToTranscript(result: GetPromptResult): { role: 'user' | 'assistant'; text: string }[] {
  return result.messages.map(m => ({ role: m.role, text: blockToText(m.content) }));
}

/** A tool result as the text fed back to the model. */
export function toolResultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map(blockToText);
  if (!parts.length && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent));
  const text = parts.join('\n');
  return result.isError ? `The tool failed: ${text}` : text;
}

/** A resource read as context text. */
export function resourceText(uri: string, result: ReadResourceResult): string {
  return result.contents.map(c => ('text' in c && typeof c.text === 'string'
    ? c.text
    : `[binary content ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}]`)).join('\n') || `(resource ${uri} is empty)`;
}
