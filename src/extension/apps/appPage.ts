/**
 * The webview page that frames one MCP App view (its script and style are media/apps/host.js and host.css), and the
 * checks on what that page reports back (its size, theme variables, probes). The page's policy, the frame's sandbox
 * and `allow`, and the view's document are all fixed here, when the extension generates the page (docs/SECURITY.md,
 * Threat model: "Webview pages trust only the extension"); the panel that shows it is view.ts.
 */
import * as vscode from 'vscode';
import { allowAttribute, buildAppCsp, injectCsp, VIEW_LIMITS, type AppResource } from '../../mcp';
import { MAX_VIEW_MESSAGE_CHARS } from './transport';

/** Theme variables taken from the page (count, value length). */
const MAX_STYLE_VARIABLES = 80;
const MAX_STYLE_VALUE = 300;

/** What the page reports it shows (`AppView.probe`, for tests). */
export interface PageState {
  banner: string;
  /** The frame's title (what a screen reader says of the view). */
  title: string;
  /** The strings the page was given (`pageStrings`), as it read them. */
  strings: Record<string, string>;
  allow: string;
  sandbox: string;
  srcdocChars: number;
  csp: string[];
}

/** What a page is made of: the view's server and tool, and (once loaded) its resource and the view's own policy. */
export interface PageParts {
  server: string;
  tool: { name: string; title?: string };
  /** The page's number among this panel's pages: each differs, so the webview reloads even for the same resource. */
  load: number;
  res?: AppResource;
  /** The Content Security Policy of the view's document (buildAppCsp of the resource's). */
  viewPolicy?: string;
}

/**
 * The page that frames the view: its own script and style from media/apps; its policy, the frame's sandbox and
 * `allow`, and the view's document (with the view's policy first). Without a resource: no frame content and no
 * network at all. Returns the page and its policy (the frame inherits it: the view's sources plus the page's script).
 */
export function appPage(webview: vscode.Webview, extensionUri: vscode.Uri, p: PageParts): { html: string; policy: string } {
  const media = (f: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'apps', f)).toString();
  const none = { connect: [], resource: [], frame: [], baseUri: [], dropped: [] };
  const res = p.res;
  const policy = buildAppCsp(res?.csp ?? none, { script: [webview.cspSource] });
  const allow = res ? allowAttribute(res.permissions) : '';
  // JSON with every `<` escaped cannot end the script element that holds it.
  const view = res && p.viewPolicy ? `<script type="application/json" id="view-html">${JSON.stringify(injectCsp(res.html, p.viewPolicy)).replace(/</g, '\\u003c')}</script>\n` : '';
  const html = `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(policy)}">
<link rel="stylesheet" href="${media('host.css')}"></head>
<body data-load="${p.load}" data-limits="${esc(JSON.stringify(pageLimits()))}" data-strings="${esc(JSON.stringify(pageStrings()))}"><div id="banner" hidden><span id="banner-text"></span><button id="banner-button" hidden></button></div>
<iframe id="app" title="${esc(vscode.l10n.t('{0} (MCP App of {1})', p.tool.title ?? p.tool.name, p.server))}" sandbox="allow-scripts allow-forms" allow="${esc(allow)}"></iframe>
${view}<script src="${media('host.js')}"></script></body></html>`;
  return { html, policy };
}

/** The caps the page enforces before the extension's own checks (docs/SECURITY.md, Threat model: "Every requester is bounded"). */
function pageLimits(): Record<string, number> {
  return {
    maxChars: MAX_VIEW_MESSAGE_CHARS, messagesPerSecond: VIEW_LIMITS.maxViewMessagesPerSecond, charsPerSecond: VIEW_LIMITS.maxViewCharsPerSecond,
    inFlight: VIEW_LIMITS.maxViewCharsInFlight, part: VIEW_LIMITS.viewPartChars, queued: VIEW_LIMITS.maxViewCharsQueued,
  };
}

/**
 * What the page (media/apps/host.js) may say, in the editor's language: it writes no text of its own (H632). The
 * refusals answer a view's request the page turns away before it reaches the extension (a view may show them).
 */
export function pageStrings(): Record<string, string> {
  return {
    tooFast: vscode.l10n.t('Refused: the view sent messages faster than the host takes them (messages per second)'),
    tooLarge: vscode.l10n.t('Refused: the message is larger than {0} characters', MAX_VIEW_MESSAGE_CHARS),
    tooMuch: vscode.l10n.t('Refused: the view sent more than the host takes in a second (characters per second)'),
  };
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

/** A count or size the page reported: a whole number from 0 below 100 000, else 0. */
export function pageNumber(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 100_000 ? Math.round(v) : 0;
}

/** Theme variables from the page, checked: known shape of name, bounded value, no markup. */
export function styleVariables(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!v || typeof v !== 'object') return out;
  for (const [k, val] of Object.entries(v as Record<string, unknown>).slice(0, MAX_STYLE_VARIABLES)) {
    if (/^--[a-z0-9-]{1,60}$/.test(k) && typeof val === 'string' && val.length <= MAX_STYLE_VALUE && !/[<>{};]/.test(val)) out[k] = val;
  }
  return out;
}

/** A probe's answer from the page, each part bounded. */
export function pageState(msg: Record<string, unknown>): PageState {
  const str = (v: unknown) => typeof v === 'string' ? v.slice(0, 10_000) : '';
  const strings: Record<string, string> = {};
  if (msg.strings && typeof msg.strings === 'object') {
    for (const [k, v] of Object.entries(msg.strings as Record<string, unknown>).slice(0, 20)) if (typeof v === 'string') strings[k.slice(0, 40)] = str(v);
  }
  return { banner: str(msg.banner), title: str(msg.title), strings, allow: str(msg.allow), sandbox: str(msg.sandbox), srcdocChars: pageNumber(msg.srcdocChars),
    csp: Array.isArray(msg.csp) ? msg.csp.slice(0, 8).map(str) : [] };
}
