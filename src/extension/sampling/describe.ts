/**
 * Editor-free rendering of a sampling request for the confirmation dialog and the log: who asks,
 * the system prompt, every message (images and audio as placeholders), the limits and the model.
 */
import type { CreateMessageRequest } from '@modelcontextprotocol/client';
import { type ModelDescriptor, describeOfferedTools } from '../../mcp';
import * as l10n from '@vscode/l10n';

type Params = CreateMessageRequest['params'];
type Block = { type: string; text?: string; mimeType?: string; name?: string; [k: string]: unknown };

/** The content blocks of a sampling message (one block or an array of them). */
export function blocksOf(content: unknown): Block[] {
  const list = Array.isArray(content) ? content : [content];
  return list.filter((b): b is Block => !!b && typeof b === 'object' && typeof (b as Block).type === 'string');
}

/** One block as readable text: the text itself, `[image]`, `[audio]`, or `[<type>]`. */
export function blockText(b: Block): string {
  switch (b.type) {
    case 'text': return b.text ?? '';
    case 'image': return b.mimeType ? l10n.t('[image {0}]', b.mimeType) : l10n.t('[image]');
    case 'audio': return b.mimeType ? l10n.t('[audio {0}]', b.mimeType) : l10n.t('[audio]');
    case 'tool_use': return l10n.t('[tool call {0} {1}]', b.name ?? '', JSON.stringify(b.input ?? {}));
    case 'tool_result': {
      const inner = blocksOf(b.content).map(blockText).join(' ');
      return b.isError === true ? l10n.t('[tool result (error): {0}]', inner) : l10n.t('[tool result: {0}]', inner);
    }
    default: return `[${b.type}]`;
  }
}

/** The text of the last user message (what "Edit…" edits), if it has text. */
export function lastUserText(params: Params): string | undefined {
  for (let i = params.messages.length - 1; i >= 0; i--) {
    const m = params.messages[i];
    if (m.role !== 'user') continue;
    const t = blocksOf(m.content).filter(b => b.type === 'text').map(b => b.text ?? '').join('\n');
    return t || undefined;
  }
  return undefined;
}

/** A copy of `params` whose last user message's text is replaced by `text` (other blocks kept). */
export function withLastUserText(params: Params, text: string): Params {
  const messages = [...params.messages];
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role !== 'user') continue;
    const others = blocksOf(messages[i].content).filter(b => b.type !== 'text');
    const content = others.length ? [{ type: 'text', text }, ...others] : { type: 'text', text };
    messages[i] = { ...messages[i], content } as (typeof messages)[number];
    break;
  }
  return { ...params, messages };
}

/** A message's role as the person reads it (the protocol's two roles in words; anything else as sent). */
function roleName(role: string): string {
  return role === 'user' ? l10n.t('user') : role === 'assistant' ? l10n.t('assistant') : role;
}

/**
 * The request as plain text, one fact per line, for the confirmation dialog and the server's log.
 * Says which options the editor's language model API cannot enforce.
 */
export function describeSampling(server: string, params: Params, model: ModelDescriptor): string {
  const lines: string[] = [];
  lines.push(l10n.t('Server: {0}', server));
  lines.push(l10n.t('Model: {0}', `${model.name}${model.name !== model.id ? ` (${model.id})` : ''}`) + (model.vendor ? l10n.t(' from {0}', model.vendor) : ''));
  if (params.systemPrompt) lines.push(l10n.t('System prompt: {0}', params.systemPrompt));
  lines.push(l10n.t('Messages ({0}):', params.messages.length));
  for (const m of params.messages) {
    lines.push(`  ${roleName(m.role)}: ${blocksOf(m.content).map(blockText).join(' ')}`);
  }
  const tools = describeOfferedTools(params);
  if (tools) lines.push(tools);
  lines.push(l10n.t('Max tokens: {0} (passed to the model as a model option)', params.maxTokens));
  if (params.temperature !== undefined) lines.push(l10n.t('Temperature: {0} (passed to the model as a model option)', params.temperature));
  if (params.stopSequences?.length) lines.push(l10n.t('Stop sequences: {0} (applied to the answer)', params.stopSequences.map(s => JSON.stringify(s)).join(', ')));
  const ctx = params.includeContext ?? 'none';
  // "none" reads as a word; the other values are the protocol's names, said to be unsupported.
  lines.push(ctx === 'none' ? l10n.t('Include context: none') : l10n.t('Include context: {0} (not supported: no other context is added)', ctx));
  return lines.join('\n');
}
