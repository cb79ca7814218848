/**
 * Server text shown to a person, made safe for where it goes (threat model: "server text is data in every
 * renderer"). Names, descriptions, error messages and content come from servers, App views and models; each
 * renderer takes them through one of these:
 * - `shownName` / `quoted`: a dialog, a notification, a tree label, a quick pick — one line, no control or
 *   bidirectional-override characters, no `[label](command:…)` link (VS Code's notifications and dialogs make
 *   those clickable, commands included), cut to a length a person can read;
 * - `dialogText`: a dialog's detail — several lines, controls and invisible characters shown as escapes, links
 *   broken, cut;
 * - `markdownText`: inside a `MarkdownString` (trusted or not) — every markdown token escaped and newlines folded,
 *   so server text can never end a list item, open a link, a command link, an image or HTML;
 * - `markdownCode`: inside an inline code span — a fence longer than any backtick run in the text;
 * - `escapeControls`: a terminal — C0, C1, ESC and DEL as visible escapes (newline and tab kept);
 * - `jsonText`: JSON for a terminal or a pipe — what `JSON.stringify` leaves raw (DEL, C1, U+2028/9) as `\u` escapes.
 * Plain functions on strings: the core, the CLI and the extension share them.
 */
import * as l10n from '@vscode/l10n';

/** C0 (but tab and newline), DEL and C1 controls. */
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/**
 * Characters that change how the text around them is shown without being seen: bidirectional embeddings,
 * overrides and isolates (Trojan Source), marks, zero-width joiners and spaces, the line and paragraph
 * separators, the BOM and interlinear annotations.
 */
const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

/** One character as a `\uXXXX` escape. */
const u4 = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Longest server, tool or prompt name shown in a dialog or a label, in characters. */
export const MAX_SHOWN_NAME = 80;

/**
 * One line of server text for a dialog, label or picker: controls and invisible formatting characters removed,
 * every run of white space (newlines included) folded to one space, cut to `max` characters with an ellipsis.
 */
export function shownName(s: string, max = MAX_SHOWN_NAME): string {
  const flat = breakLinks(String(s).replace(CONTROLS, ' ').replace(INVISIBLE, '').replace(/\s+/g, ' ').trim());
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, Math.max(1, max - 1)).join('')}…` : flat;
}

/**
 * `[label](target)` is a link in a VS Code notification or dialog (`command:` ones run a command when clicked):
 * a space between `]` and `(` leaves the text as it reads and makes it no link.
 */
function breakLinks(s: string): string {
  return s.replace(/\]\s*\(/g, '] (');
}

/** Longest dialog detail made of server text, in characters. */
export const MAX_DIALOG_TEXT = 4000;

/**
 * Several lines of server text for a dialog's detail (a description, arguments, a message): C0 (but newline and
 * tab), C1 and DEL as `\x..` escapes, invisible formatting characters (bidi overrides, zero-width) as `\u....`
 * escapes (shown, not hidden: the user sees that they are there), links broken, cut to `max` characters.
 */
export function dialogText(s: string, max = MAX_DIALOG_TEXT): string {
  const shown = breakLinks(escapeControls(String(s)).replace(INVISIBLE, u4));
  const chars = Array.from(shown);
  return chars.length > max ? `${chars.slice(0, Math.max(1, max - 1)).join('')}…` : shown;
}

/** `shownName` in double quotes, its own double quotes turned into single ones: `"a 'b' c"`. */
export function quoted(s: string, max = MAX_SHOWN_NAME): string {
  return `"${shownName(s, max).replace(/"/g, "'")}"`;
}

/**
 * Server text inside markdown: `shownName`'s clean-up without the cut (unless `max` is given), then every character
 * markdown or HTML gives a meaning escaped with a backslash, so the text renders as itself and nothing else.
 */
export function markdownText(s: string, max = Infinity): string {
  return shownName(s, max).replace(/[\\`*_{}[\]()<>#+\-.!|~:&="'$^]/g, c => `\\${c}`);
}

/** Server text as an inline code span (one line, cleaned): fenced with more backticks than it contains. */
export function markdownCode(s: string, max = Infinity): string {
  const text = shownName(s, max);
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), m => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || text === '' ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Server text for a label the editor renders with icons (a status bar item's text, a quick pick's label): `$(name)`
 * there draws an icon, so a server could dress its text up as the editor's own (a `$(error)` or `$(lock)` badge).
 * `\$(` is the editor's escape for a literal `$(`.
 */
export function iconFreeText(s: string): string {
  return s.replace(/\$\(/g, '\\$(');
}

/** Text for a terminal: C0 (but newline and tab), ESC, DEL and C1 controls as visible escapes (`\x1b`, `\r`, `\x9b`). */
export function escapeControls(s: string): string {
  return s.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/g, c => {
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

/**
 * `JSON.stringify` whose text carries no raw control character: it escapes C0 itself, but leaves DEL, the C1
 * controls (U+0080–U+009F: U+009B is a terminal's CSI) and U+2028/9 raw; those become `\u` escapes, and so do the
 * invisible formatting characters (bidi overrides: the JSON reads in the order it is stored). Same value when parsed.
 */
export function jsonText(value: unknown, indent = 2): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  return json.replace(/[\x7f-\x9f\u2028\u2029]/g, u4).replace(INVISIBLE, u4);
}

/** How `formatNumber` writes a number: whole, with one decimal, or whole with the language's digit grouping. */
export type NumberStyle = 'whole' | 'tenths' | 'grouped';

function numberFormats(language: string): Record<NumberStyle, Intl.NumberFormat> {
  return {
    whole: new Intl.NumberFormat(language, { useGrouping: false }),
    tenths: new Intl.NumberFormat(language, { useGrouping: false, minimumFractionDigits: 1, maximumFractionDigits: 1 }),
    grouped: new Intl.NumberFormat(language),
  };
}

/** Numbers are written the display language's way; until `configureDisplayLanguage` (the CLI never calls it): en-US. */
let numbers = numberFormats('en-US');

/**
 * The language numbers in the core's text are written in (the extension passes `vscode.env.language` at activation,
 * beside `l10n.config`; the CLI keeps en-US). A language `Intl` does not know falls back to en-US.
 */
export function configureDisplayLanguage(language: string): void {
  let lang = 'en-US';
  try { lang = Intl.NumberFormat.supportedLocalesOf([language])[0] ?? 'en-US'; } catch { /* not a language tag: en-US */ }
  numbers = numberFormats(lang);
}

/**
 * A number as the display language writes it: `whole` and `tenths` (one decimal, `toFixed(1)`'s rounding) without
 * digit grouping, so counts and sizes read "1023 B" and "12345 bytes" in English as they always did; `grouped` for a
 * limit ("10,000" in English, what `toLocaleString('en-US')` wrote).
 */
export function formatNumber(n: number, style: NumberStyle = 'whole'): string {
  return numbers[style].format(n);
}

/**
 * A byte count as people read it, in binary units: "812 B", "12.3 KiB", "64 MiB" (a whole number of units without
 * decimals, so a size just over a limit never reads as the limit itself: "16.0 MiB" is more than "16 MiB"). The one
 * formatter of sizes for the core, the CLI, the views and the extension; each unit is a message (`l10n.t`), the
 * number written the display language's way (`formatNumber`).
 */
export function formatBytes(n: number): string {
  const shown = (v: number) => formatNumber(v, Number.isInteger(v) ? 'whole' : 'tenths');
  if (n >= 1024 * 1024 * 1024) return l10n.t('{0} GiB', shown(n / (1024 * 1024 * 1024)));
  if (n >= 1024 * 1024) return l10n.t('{0} MiB', shown(n / (1024 * 1024)));
  if (n >= 1024) return l10n.t('{0} KiB', shown(n / 1024));
  return l10n.t('{0} B', formatNumber(n));
}

/** The things the host counts in text for people (`countOf`): each has a message for one and one for more. */
export type CountNoun = 'byte' | 'file' | 'line' | 'prompt' | 'request' | 'resource' | 'server' | 'template' | 'tool';

/**
 * A count with its word agreeing: "1 request", "2 requests". One whole message per form (1, and any other number),
 * so a translation words each phrase itself; the number written the display language's way.
 */
export function countOf(n: number, noun: CountNoun): string {
  const c = formatNumber(n);
  const one = n === 1;
  switch (noun) {
    case 'byte': return one ? l10n.t('{0} byte', c) : l10n.t('{0} bytes', c);
    case 'file': return one ? l10n.t('{0} file', c) : l10n.t('{0} files', c);
    case 'line': return one ? l10n.t('{0} line', c) : l10n.t('{0} lines', c);
    case 'prompt': return one ? l10n.t('{0} prompt', c) : l10n.t('{0} prompts', c);
    case 'request': return one ? l10n.t('{0} request', c) : l10n.t('{0} requests', c);
    case 'resource': return one ? l10n.t('{0} resource', c) : l10n.t('{0} resources', c);
    case 'server': return one ? l10n.t('{0} server', c) : l10n.t('{0} servers', c);
    case 'template': return one ? l10n.t('{0} template', c) : l10n.t('{0} templates', c);
    case 'tool': return one ? l10n.t('{0} tool', c) : l10n.t('{0} tools', c);
  }
}

/** The first line of a text, trimmed and cut to `max` characters (with "…"); undefined for undefined. */
export function firstLine(s: string, max: number): string;
export function firstLine(s: string | undefined, max: number): string | undefined;
export function firstLine(s: string | undefined, max: number): string | undefined {
  const line = s?.split('\n')[0]?.trim();
  return line !== undefined && line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
