/**
 * External URLs a server, an App view or an authorization server asks the host to open (App links, URL-mode
 * elicitation, OAuth sign-in), the editor-free part of the one confirm-and-open path (docs/SECURITY.md, Threat model: "What is
 * shown is what runs"; the dialog and the open are in src/extension/ui/externalUrl.ts, the CLI prints and opens the same
 * value). A URL is parsed ONCE, with the WHATWG parser browsers use; the normalised `url` it yields is the only
 * value that is then shown and opened, and nothing re-parses the raw text. Refused before anything is shown:
 * - anything but `https:`, and `http:` other than on this machine (loopback);
 * - a user name or password (`https://good.example@evil.example` reads as good.example and goes to evil.example);
 * - backslashes (parsers disagree about whether `\` ends the host), white space, control and invisible formatting
 *   characters anywhere in the raw text (the WHATWG parser drops some of them silently), over-long text.
 * A headline (a dialog's first line, a title) shows the host in ASCII (punycode) when it has international
 * characters (`headlineOrigin`), so a look-alike (mixed-script) domain such as `аррӏе.com` reads `xn--…` where the eye
 * decides; the detail shows the decoded form beside it.
 */
import { domainToUnicode } from 'node:url';
import * as l10n from '@vscode/l10n';

/** A longer URL is refused (authorization URLs with PKCE and state are well under 2 KiB). */
export const MAX_EXTERNAL_URL_CHARS = 8 * 1024;

/** A URL the host may open, as it is shown and opened. */
export interface ExternalUrl {
  /** The one normalised URL (WHATWG `href`): exactly what the dialog shows and what is opened. */
  url: string;
  /** `https://例え.jp` — scheme, host with the domain decoded from punycode, port if not the default. */
  origin: string;
  /** The origin in ASCII (`https://xn--r8jz45g.jp`) when it differs from `origin`, else undefined. */
  asciiOrigin?: string;
}

/** Why a URL is not opened: the message completes "… asked to open <message>". */
export class RefusedUrl extends Error {}

/** localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

// C0 controls and space, DEL, C1 controls, and the invisible formatting characters of src/mcp/logging/humanText.ts (bidi
// embeddings, overrides and isolates, zero-width characters, line and paragraph separators, BOM).
const UNSEEN = /[\x00-\x20\x7f-\x9f\u00a0\u061c\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2069\u3000\ufeff\ufff9-\ufffb]/;

/**
 * Parses `raw` once and says whether the host may open it: the URL as shown and opened, or a RefusedUrl whose
 * message says why (in words that complete "server `x` asked to open …").
 */
export function parseExternalUrl(raw: unknown): ExternalUrl | RefusedUrl {
  if (typeof raw !== 'string') return new RefusedUrl(l10n.t('something that is not a URL'));
  if (raw.length > MAX_EXTERNAL_URL_CHARS) return new RefusedUrl(l10n.t('a URL longer than {0} characters', MAX_EXTERNAL_URL_CHARS));
  if (UNSEEN.test(raw)) return new RefusedUrl(l10n.t('a URL with white space, control or invisible characters in it'));
  if (raw.includes('\\')) return new RefusedUrl(l10n.t('a URL with a backslash in it (programs disagree about where its host ends)'));
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return new RefusedUrl(l10n.t('something that is not a URL: {0}', JSON.stringify(raw.slice(0, 200))));
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') {
    return new RefusedUrl(l10n.t('a `{0}` URL; only https: URLs (and http: on this machine) are opened', u.protocol));
  }
  if (u.username || u.password) return new RefusedUrl(l10n.t('a URL with a user name or password in it; such URLs are not opened'));
  if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
    return new RefusedUrl(l10n.t('an http: URL of another machine ({0}); only https: URLs (and http: on this machine) are opened', u.origin));
  }
  return { url: u.href, ...shownOrigin(u) };
}

/**
 * How an origin is shown: `origin` with the domain decoded from punycode, and `asciiOrigin` (the WHATWG origin) when
 * that differs. Also for a remote server's URL in the launch consent dialog (src/extension/trust/consent.ts).
 */
export function shownOrigin(u: URL): Pick<ExternalUrl, 'origin' | 'asciiOrigin'> {
  const host = u.hostname.startsWith('[') ? u.hostname : domainToUnicode(u.hostname) || u.hostname;
  const origin = `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}`;
  return { origin, asciiOrigin: origin !== u.origin ? u.origin : undefined };
}

/** The origin as a headline shows it: the ASCII (punycode) form when the host has international characters (H356). */
export function headlineOrigin(target: Pick<ExternalUrl, 'origin' | 'asciiOrigin'>): string {
  return target.asciiOrigin ?? target.origin;
}

/**
 * The dialog's text for opening `target`: the question names who asks (server, and the view or purpose) and the
 * origin; the detail holds what the asker said (optional), the full URL that will be opened, and the ASCII form
 * of the domain when it differs. `asker` and `message` must already be display-safe (src/mcp/logging/humanText.ts).
 */
export function externalUrlPrompt(asker: string, target: ExternalUrl, opts: { purpose?: 'signIn'; message?: string } = {}): { question: string; detail: string } {
  const lines: string[] = [];
  if (opts.message) lines.push(opts.message, '');
  lines.push(l10n.t('Full address: {0}', target.url));
  if (target.asciiOrigin) lines.push(l10n.t('The domain has international characters: {0} is written {1}, which is what opens: make sure it is the site you expect.', target.origin, target.asciiOrigin));
  const question = opts.purpose === 'signIn'
    ? l10n.t('{0} asks you to sign in at {1}', asker, headlineOrigin(target))
    : l10n.t('{0} wants to open {1}', asker, headlineOrigin(target));
  return { question, detail: lines.join('\n') };
}
