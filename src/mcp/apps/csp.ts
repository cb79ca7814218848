/**
 * The Content Security Policy of an MCP App view, built from the resource's declared `_meta.ui.csp` and nothing
 * more: no network unless declared (connect-src), no remote scripts, styles, images or fonts unless declared
 * (resourceDomains), no nested frames unless declared (frameDomains). Inline script and style are allowed, as the
 * spec's default policy does (a view is one self-contained HTML document), and so are scripts and workers from
 * `data:` and `blob:` URLs the view makes itself (pdf.js in server-pdf starts its worker that way): with inline
 * script allowed they give a view nothing it could not do already, and reach no origin. Editor-free.
 */

export interface AppCspDeclaration {
  connectDomains?: unknown;
  resourceDomains?: unknown;
  frameDomains?: unknown;
  baseUriDomains?: unknown;
}

/** The sources a view may use, checked; `dropped` are the declared values that were refused (for the log). */
export interface AppCspSources {
  connect: string[];
  resource: string[];
  frame: string[];
  baseUri: string[];
  dropped: string[];
}

/** Domains kept per directive; more are dropped. */
export const MAX_CSP_DOMAINS = 32;

// An origin: https/wss anywhere (a leading `*.` label allowed), http/ws only on the loopback host; an optional port;
// no path, query, quote, semicolon, comma or whitespace (anything that could end a CSP source expression).
const REMOTE = /^(https|wss):\/\/(\*\.)?[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*(?::\d{1,5})?\/?$/i;
const LOOPBACK = /^(http|https|ws|wss):\/\/(localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?\/?$/i;

/** A declared domain as a CSP source, or undefined when it is not a plain origin. */
export function cspSource(v: unknown): string | undefined {
  if (typeof v !== 'string' || v.length > 253 + 16) return undefined;
  if (!REMOTE.test(v) && !LOOPBACK.test(v)) return undefined;
  return v.replace(/\/$/, '').toLowerCase();
}

/** Checks every declared domain; keeps at most MAX_CSP_DOMAINS per directive. */
export function appCspSources(csp: AppCspDeclaration | undefined): AppCspSources {
  const dropped: string[] = [];
  const take = (list: unknown): string[] => {
    if (list === undefined) return [];
    if (!Array.isArray(list)) { dropped.push(String(list).slice(0, 80)); return []; }
    const out: string[] = [];
    for (const v of list) {
      const s = cspSource(v);
      if (s && out.length < MAX_CSP_DOMAINS) { if (!out.includes(s)) out.push(s); } else dropped.push(String(v).slice(0, 80));
    }
    return out;
  };
  return { connect: take(csp?.connectDomains), resource: take(csp?.resourceDomains), frame: take(csp?.frameDomains), baseUri: take(csp?.baseUriDomains), dropped };
}

/**
 * The policy for the view's document. `extra` adds sources the host itself needs (the editor's own webview origin
 * for the page that frames the view); the view's document gets none.
 */
export function buildAppCsp(s: AppCspSources, extra: { script?: string[] } = {}): string {
  const list = (...parts: (string | string[] | undefined)[]) => parts.flat().filter((x): x is string => !!x).join(' ');
  const res = s.resource;
  return [
    "default-src 'none'",
    `script-src ${list(extra.script, "'unsafe-inline'", 'data:', 'blob:', res)}`,
    `style-src ${list(extra.script, "'unsafe-inline'", res)}`,
    `img-src ${list('data:', 'blob:', res)}`,
    `font-src ${list('data:', res)}`,
    `media-src ${list('data:', 'blob:', res)}`,
    `connect-src ${s.connect.length ? list(s.connect) : "'none'"}`,
    `frame-src ${s.frame.length ? list(s.frame) : "'none'"}`,
    `base-uri ${s.baseUri.length ? list(s.baseUri) : "'none'"}`,
    "form-action 'none'",
    "object-src 'none'",
    'worker-src data: blob:',
  ].join('; ');
}

/**
 * The view's HTML with the policy as its first element (right after a doctype, before any script of the view).
 * The frame also inherits the page's policy, so this only narrows what the view may do.
 */
export function injectCsp(html: string, policy: string): string {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? doctype[0] + meta + html.slice(doctype[0].length) : meta + html;
}

/** The frame's `allow` attribute (Permissions Policy) for what the resource asked for. */
export function allowAttribute(p: { camera: boolean; microphone: boolean; geolocation: boolean; clipboardWrite: boolean }): string {
  return [p.camera && 'camera', p.microphone && 'microphone', p.geolocation && 'geolocation', p.clipboardWrite && 'clipboard-write'].filter(Boolean).join('; ');
}
