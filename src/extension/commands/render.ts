import type { CallToolResult, GetPromptResult, ContentBlock } from '@modelcontextprotocol/client';

/** Renders a tool result as markdown: text, images (inline), audio, resource links, embedded resources, structured content, isError. */
export function renderToolResult(server: string, tool: string, args: Record<string, unknown>, r: CallToolResult): string {
  const out = [`# ${tool} — ${server}`, ''];
  if (r.isError) out.push('**The tool reported an error** (`isError: true`).', '');
  out.push('## Arguments', '', fence(JSON.stringify(args, null, 2), 'json'), '', '## Result', '');
  for (const block of r.content ?? []) out.push(renderBlock(block), '');
  if (r.structuredContent !== undefined) out.push('## Structured content', '', fence(JSON.stringify(r.structuredContent, null, 2), 'json'), '');
  if (!(r.content ?? []).length && r.structuredContent === undefined) out.push('_(empty result)_');
  return out.join('\n');
}

/** Renders a prompt's messages as markdown, one section per message. */
export function renderPromptResult(server: string, prompt: string, r: GetPromptResult): string {
  const out = [`# ${prompt} — ${server}`, ''];
  if (r.description) out.push(`_${r.description}_`, '');
  for (const m of r.messages) out.push(`## ${m.role}`, '', renderBlock(m.content as ContentBlock), '');
  return out.join('\n');
}

function renderBlock(b: ContentBlock): string {
  switch (b.type) {
    case 'text': return b.text;
    case 'image': return `![image (${b.mimeType})](data:${b.mimeType};base64,${b.data})`;
    case 'audio': return `_[audio ${b.mimeType}, ${Math.round(b.data.length * 0.75)} bytes]_`;
    case 'resource_link': return `Resource link: [${b.title ?? b.name}](${b.uri})${b.mimeType ? ` (${b.mimeType})` : ''}${b.description ? ` — ${b.description}` : ''}`;
    case 'resource': {
      const res = b.resource;
      return `Embedded resource \`${res.uri}\`${res.mimeType ? ` (${res.mimeType})` : ''}:\n\n${'text' in res ? fence(res.text, '') : `_[binary, ${Math.round(res.blob.length * 0.75)} bytes]_`}`;
    }
    default: return fence(JSON.stringify(b, null, 2), 'json');
  }
}

function fence(text: string, lang: string): string {
  const ticks = text.includes('```') ? '~~~~' : '```';
  return `${ticks}${lang}\n${text}\n${ticks}`;
}
