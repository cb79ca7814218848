/**
 * A tool result read block by block: a malformed content block becomes a one-line error in its place
 * (a text block naming the server, the tool, the block and the problem) and every valid block is kept,
 * instead of one bad block failing the whole call.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { specParse } from '../spec';
import { McpHostError } from '../errors';
import * as l10n from '@vscode/l10n';

/** Zod issues as one short line: `path: message; …` (at most three, 200 characters). */
function issuesLine(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const text = issues.slice(0, 3).map(i => `${i.path.length ? `${i.path.map(String).join('.')}: ` : ''}${i.message}`).join('; ').replace(/\s+/g, ' ');
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** What the block claims to be, for the message (`image`, or `?`). */
function blockType(block: unknown): string {
  const t = (block as { type?: unknown } | null)?.type;
  return typeof t === 'string' ? t.replace(/[^\w/.-]/g, '').slice(0, 40) || '?' : '?';
}

/**
 * Checks a raw `tools/call` result. Returns the result (malformed blocks replaced by a one-line error
 * each) and those lines; throws an McpHostError when the result itself is not a tool result.
 */
export function parseToolResult(server: string, tool: string, raw: unknown): { result: CallToolResult; problems: string[] } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new McpHostError(l10n.t('tool `{0}` on server `{1}` returned a result that is not an object', tool, server));
  }
  const r = raw as Record<string, unknown>;
  const problems: string[] = [];
  let content = r.content;
  if (content === undefined) content = [];
  if (!Array.isArray(content)) {
    throw new McpHostError(l10n.t('tool `{0}` on server `{1}` returned `content` that is not a list', tool, server));
  }
  const blocks = content.map((block: unknown, i) => {
    const parsed = specParse('ContentBlock', block);
    if (parsed.success) return parsed.data;
    const line = `content block ${i + 1} (${blockType(block)}) from tool \`${tool}\` on server \`${server}\` is malformed and was left out: ${issuesLine(parsed.error.issues)}`;
    problems.push(line);
    return { type: 'text' as const, text: `[${line}]` };
  });
  const checked = specParse('CallToolResult', { ...r, content: blocks });
  if (!checked.success) {
    throw new McpHostError(l10n.t('tool `{0}` on server `{1}` returned an invalid result: {2}', tool, server, issuesLine(checked.error.issues)));
  }
  return { result: checked.data as CallToolResult, problems };
}
