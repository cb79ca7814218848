/**
 * What the `@mcp` participant writes into chat, as markdown source, with every piece of server text (server,
 * prompt, tool and argument names, descriptions, error messages, task status) taken through `src/mcp/logging/humanText.ts`
 * (threat model: "server text is data in every renderer"). Chat renders `stream.markdown`, `stream.progress` and
 * `errorDetails.message` as markdown; none of it is trusted: actions are buttons and follow-ups, never command
 * links (VS Code's own chat renders tool names through its own escaping the same way).
 * No `vscode` import: the unit tests render with these directly.
 */
import { markdownCode, markdownText, shownName } from '../../mcp';
import * as l10n from '@vscode/l10n';

/** Longest description shown in a listing, in characters (the first line of it). */
export const MAX_LISTED_DESCRIPTION = 200;
/** Longest name in a follow-up chip's label. */
export const MAX_CHIP_LABEL = 60;

export interface ListedPrompt { name: string; description?: string; arguments?: readonly { name: string; required?: boolean }[] }

/** The first line of a description, cut, as markdown text. */
function description(s: string | undefined): string {
  return s ? markdownText(String(s).split('\n').find(l => l.trim()) ?? '', MAX_LISTED_DESCRIPTION) : '';
}

/** How a prompt is typed after `@mcp`: `/<server>.<prompt>`. */
export function promptCommand(server: string, prompt: string): string {
  return `/${server}.${prompt}`;
}

/** A prompt that can be typed: `/<server>.<prompt>` parses back to the same names (no white space in them). */
export function typeable(server: string, prompt: string): boolean {
  return !/\s/.test(server) && !/\s/.test(prompt) && server !== '' && prompt !== '';
}

/**
 * The `/prompts` listing (untrusted markdown): per server a bold name, then one item per prompt with its name as a
 * code span, its arguments (optional ones in brackets) and the first line of its description.
 */
export function promptListing(servers: readonly { name: string; prompts: readonly ListedPrompt[] }[], offer: boolean): string {
  let md = offer
    ? l10n.t('Run a server prompt with `@mcp /<server>.<prompt> name=value …`, or pick one below:\n\n')
    : l10n.t('Prompts of the running MCP servers — type one after `@mcp`, or pick one below:\n\n');
  for (const s of servers) {
    md += `**${markdownText(s.name)}**\n\n`;
    for (const p of s.prompts) {
      const args = (p.arguments ?? []).map(a => (a.required ? a.name : `[${a.name}]`)).join(' ');
      const desc = description(p.description);
      md += `- ${markdownCode(promptCommand(s.name, p.name))}${args ? ` ${markdownText(args)}` : ''}${desc ? ` — ${desc}` : ''}\n`;
    }
    md += '\n';
  }
  return md;
}

/** A follow-up chip's label (chips render their label as markdown). */
export function chipLabel(command: string): string {
  return markdownText(command, MAX_CHIP_LABEL);
}

/** The `/tools` listing (untrusted markdown): the model-safe name, the tool's own name, its server and description. */
export function toolListing(tools: readonly (readonly [name: string, e: { server: string; tool: string; description?: string }])[]): string {
  if (!tools.length) return l10n.t('No running MCP server offers tools.\n');
  let md = l10n.t('Tools the language model may call from `@mcp` (each call asks first):\n\n');
  for (const [name, e] of tools) {
    const desc = description(e.description);
    md += `- ${markdownCode(name)} — ${l10n.t('**{0}** of {1}', markdownText(e.tool, 120), markdownCode(e.server))}${desc ? `: ${desc}` : ''}\n`;
  }
  return md;
}

/** `tool` (server) as markdown, for the notes around a tool call. */
export function toolRef(tool: string, server: string): string {
  return `${markdownCode(tool, 120)} (${markdownText(server, 120)})`;
}

/** The note after a tool call: called, declined, or failed with the (server's) error text. */
export function toolCallNote(kind: 'called' | 'reported-error' | 'declined' | 'failed', tool: string, server: string, error?: string): string {
  const ref = toolRef(tool, server);
  switch (kind) {
    case 'called': return l10n.t('\n\n_Called {0}._\n\n', ref);
    case 'reported-error': return l10n.t('\n\n_Called {0}: it reported an error._\n\n', ref);
    case 'declined': return l10n.t('\n\n_You declined the call of {0}._\n\n', ref);
    case 'failed': return l10n.t('\n\n_The call of {0} failed: {1}_\n\n', ref, markdownText(error ?? '', 1000));
  }
}

/** A progress line (chat renders progress as markdown): the parts are server text, the template is ours. */
export function progressText(template: TemplateStringsArray, ...values: unknown[]): string {
  return template.reduce((out, part, i) => out + part + (i < values.length ? markdownText(String(values[i]), 200) : ''), '');
}

/** The values of a localised progress line (`l10n.t('Calling {0} of {1}…', ...progressArgs(tool, server))`), escaped as {@link progressText} escapes them. */
export function progressArgs(...values: unknown[]): string[] {
  return values.map(v => markdownText(String(v), 200));
}

/** An error for `ChatResult.errorDetails.message` (rendered as markdown): one escaped paragraph. */
export function errorMarkdown(message: string): string {
  return markdownText(message, 2000);
}

/** A button's title (plain text): one line, cut. */
export function buttonTitle(s: string): string {
  return shownName(s, 100);
}
