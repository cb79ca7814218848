/** Human-readable output for the CLI: server summaries, tool results, resource contents, prompts. */
import type {
  CallToolResult, ContentBlock, GetPromptResult, ReadResourceResult, ServerCapabilities,
} from '@modelcontextprotocol/client';
import { type Catalogue, countOf, formatBytes } from '../mcp';

/** `tools(listChanged) prompts resources(subscribe, listChanged) logging`. */
export function describeCapabilities(caps: ServerCapabilities | undefined): string {
  if (!caps) return '(none)';
  const parts: string[] = [];
  for (const [name, value] of Object.entries(caps)) {
    if (value === undefined || value === null) continue;
    const flags = value && typeof value === 'object' ? Object.entries(value).filter(([, v]) => v === true).map(([k]) => k) : [];
    parts.push(flags.length ? `${name}(${flags.join(', ')})` : name);
  }
  return parts.length ? parts.join(' ') : '(none)';
}

const plural = countOf;

export function describeCounts(c: Catalogue): string {
  return [
    plural(c.tools.length, 'tool'),
    plural(c.prompts.length, 'prompt'),
    plural(c.resources.length, 'resource'),
    plural(c.resourceTemplates.length, 'template'),
  ].join(', ');
}

function indent(text: string, by = '  '): string {
  return text.split('\n').map(l => (l ? by + l : l)).join('\n');
}

function describeBytes(base64: string): string {
  const bytes = Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return formatBytes(bytes);
}

/** One content block as text; binary content is summarised, not dumped. */
export function formatContent(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[image ${block.mimeType}, ${describeBytes(block.data)}]`;
    case 'audio':
      return `[audio ${block.mimeType}, ${describeBytes(block.data)}]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    case 'resource': {
      const r = block.resource;
      const head = `[resource ${r.uri}${r.mimeType ? ` ${r.mimeType}` : ''}]`;
      return 'text' in r && typeof r.text === 'string' ? `${head}\n${indent(r.text)}` : `${head} ${describeBytes(String((r as { blob?: string }).blob ?? ''))}`;
    }
    default:
      return JSON.stringify(block);
  }
}

export function formatToolResult(result: CallToolResult): string {
  const lines = (result.content ?? []).map(formatContent);
  if (result.structuredContent !== undefined) lines.push(`structured content:\n${indent(JSON.stringify(result.structuredContent, null, 2))}`);
  return lines.join('\n');
}

export function formatResource(result: ReadResourceResult): string {
  const parts: string[] = [];
  const many = result.contents.length > 1;
  for (const c of result.contents) {
    const head = `${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}`;
    if ('text' in c && typeof c.text === 'string') parts.push(many ? `--- ${head}\n${c.text}` : c.text);
    else parts.push(`--- ${head}: binary, ${describeBytes(String((c as { blob?: string }).blob ?? ''))} (use --json for the base64)`);
  }
  return parts.join('\n');
}

export function formatPrompt(result: GetPromptResult): string {
  const out: string[] = [];
  if (result.description) out.push(`# ${result.description}`);
  for (const m of result.messages) out.push(`[${m.role}]\n${indent(formatContent(m.content as ContentBlock))}`);
  return out.join('\n');
}
