/**
 * The History view's text for one entry, as plain strings (no `vscode`: unit-tested directly): the label and the
 * tooltip's markdown. The target (tool, prompt, URI), the arguments and the error are server or model text, taken
 * through `src/mcp/logging/humanText.ts` (threat model: "server text is data in every renderer"): a backtick cannot end the
 * code span, a blank line cannot start markdown of its own.
 */
import { type HistoryEntry, markdownCode, markdownText, shownName } from '../mcp';

/** Longest target shown in a label or tooltip, in characters. */
const MAX_TARGET = 200;
/** The arguments shown in the tooltip are cut here (characters of their JSON). */
const MAX_ARGS_CHARS = 2000;

/** The tree item's label: `tools/call echo`, one line. */
export function historyLabel(e: Pick<HistoryEntry, 'method' | 'target'>): string {
  return `${e.method} ${shownName(e.target, MAX_TARGET)}`;
}

/** A fenced code block whose fence is longer than any backtick run in `code`. */
export function codeBlock(code: string, lang = ''): string {
  const longest = Math.max(2, ...Array.from(code.matchAll(/`+/g), m => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${code}\n${fence}\n`;
}

/** The tooltip (markdown): method, target, who asked and when; the error; the arguments as JSON. */
export function historyTooltip(e: Pick<HistoryEntry, 'method' | 'target' | 'by' | 'error' | 'args' | 'program'>, when: string): string {
  let md = `**${e.method}** ${markdownCode(e.target, MAX_TARGET)} (${e.by}${e.program ? ` via ${markdownText(e.program)}` : ''}) — ${markdownText(when)}\n\n`;
  if (e.error) md += `${markdownText(e.error, MAX_ARGS_CHARS)}\n\n`;
  if (e.args && Object.keys(e.args).length) md += codeBlock(JSON.stringify(e.args, null, 2).slice(0, MAX_ARGS_CHARS), 'json');
  return md;
}
