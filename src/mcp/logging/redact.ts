/**
 * The one redaction path (docs/SECURITY.md, Threat model: "One redaction path"). A `Redactor` is built per server from
 * its resolved definition (`redactorFor`) and hides, in every text the host shows or logs:
 * - the values variable resolution recorded in `def.secrets` (`${input:}` values, header values, URL query
 *   values and credentials, `envFile` values whose names look secret, `${env:}` values placed into args,
 *   headers or the URL), plus what the definition itself shows to be secret (header values, the URL's query,
 *   `env` values whose names look secret);
 * - each of them in raw, JSON-escaped (once and twice) and percent-encoded form;
 * - `Bearer`/`Basic` credentials and values under secret-looking keys of structured data.
 *
 * Redaction always runs before a text is cut (`cap`), so a cut never leaves part of a secret behind; a text
 * that arrives already cut (a stderr line cut by the reader) is redacted with `fragment`, which also hides a
 * secret's beginning at the cut. Editor-free and SDK-free: the extension and the CLI use it too.
 */
import type { ServerDefinition } from '../types';

/** What a hidden value is replaced with. */
export const MASK = '***';

/** Values shorter than this are not hidden (masking "a" everywhere would hide everything). */
export const MIN_SECRET_LENGTH = 4;

/** Environment variable names whose values are treated as secrets (`API_TOKEN`, `DB_PASSWORD`, `AWS_SECRET_ACCESS_KEY`…). */
const SECRET_NAME = /key|token|secret|pass|auth|cred|cookie|session|private|signature/i;

/** Headers that carry protocol plumbing, not credentials: their values are not hidden. */
const PLAIN_HEADERS = /^(accept|accept-language|accept-encoding|content-type|user-agent|mcp-protocol-version|cache-control)$/i;

/** Keys of structured data (log payloads, trace messages) whose values are never shown. */
const SECRET_KEYS = /^(env|headers|authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|token|access_token|refresh_token|id_token|client_secret|api[-_]?key|x-api-key)$/i;

/** `Bearer …` / `Basic …` / `DPoP …` credentials in free text. */
const BEARER = /\b(Bearer|Basic|DPoP)\s+([A-Za-z0-9\-._~+/]+=*)/gi;

/**
 * True when the word after `Bearer`/`Basic` looks like a credential rather than prose ("Basic MCP App",
 * "Bearer token", "the basic built-in router", "a basic well-known form"): it has a digit or a symbol other than a
 * hyphen (a hyphen joins prose words), mixes cases after its first letter, or is long.
 */
export function looksCredential(word: string): boolean {
  return /[^A-Za-z-]/.test(word) || (/[a-z]/.test(word) && /[A-Z]/.test(word.slice(1))) || word.length >= 20;
}

/** True when an environment variable of this name probably holds a secret. */
export function looksSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** The values in a URL that may be secret: every query value and the user name/password. */
export function urlSecrets(url: string): string[] {
  let u: URL;
  try { u = new URL(url); } catch { return []; }
  const out: string[] = [];
  for (const [, v] of u.searchParams) if (v) out.push(v);
  for (const raw of u.search.slice(1).split('&')) {
    const v = raw.slice(raw.indexOf('=') + 1);
    if (raw.includes('=') && v) out.push(v);
  }
  if (u.password) out.push(u.password, safeDecode(u.password));
  if (u.username) out.push(u.username, safeDecode(u.username));
  return out;
}

/** A header value and, for `Scheme credentials`, the credentials alone. */
export function headerSecrets(name: string, value: string): string[] {
  if (PLAIN_HEADERS.test(name) || !value) return [];
  const bare = value.replace(/^\S+\s+/, '');
  return bare !== value ? [value, bare] : [value];
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/**
 * The forms a value takes in output: raw, JSON-escaped (once, twice), percent-encoded (URL and form style), and inside
 * a shell-quoted word (`'` as `'\''`: commandLine.ts shellQuote, the command lines the dialogs and the sandbox show).
 */
function formsOf(v: string): string[] {
  const json = JSON.stringify(v).slice(1, -1);
  const json2 = JSON.stringify(json).slice(1, -1);
  const pct = encodeURIComponent(v);
  const form = new URLSearchParams({ v }).toString().slice(2);
  return [v, json, json2, pct, form, pct.replace(/%[0-9A-F]{2}/g, m => m.toLowerCase()), v.replace(/'/g, `'\\''`)];
}

/** The smallest period of `s` (KMP failure function): `s[i] === s[i + p]` wherever both exist. */
function periodOf(s: string): number {
  const fail = new Int32Array(s.length);
  for (let i = 1, k = 0; i < s.length; i++) {
    while (k > 0 && s.charCodeAt(i) !== s.charCodeAt(k)) k = fail[k - 1];
    if (s.charCodeAt(i) === s.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return s.length - (s.length ? fail[s.length - 1] : 0);
}

/**
 * The length of the longest beginning of `needle` (shorter than the whole of it) that `text` ends with, by
 * KMP over at most `min(needle.length, text.length)` characters: linear, whatever the needle.
 */
function overlapAtEnd(text: string, needle: string): number {
  const m = Math.min(needle.length - 1, text.length);
  if (m <= 0) return 0;
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = fail[k - 1];
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    fail[i] = k;
  }
  let q = 0;
  for (let i = text.length - m; i < text.length; i++) {
    const c = text.charCodeAt(i);
    while (q > 0 && (q === m || c !== needle.charCodeAt(q))) q = fail[q - 1];
    if (c === needle.charCodeAt(q)) q++;
  }
  return q;
}

/** One hidden string and its smallest period (to cover a run of overlapping occurrences in one step). */
interface Needle { readonly text: string; readonly period: number }

/**
 * `s` with every occurrence of every needle replaced by `mask`; overlapping occurrences (of one needle or of
 * several) become one mask, so no part of any of them shows. Literal search (`indexOf`), no regular
 * expression: the cost is linear in `s` per needle, whatever the needles' number, length or content, and it
 * cannot throw on a huge needle (one joined RegExp did: "Regular expression too large").
 */
function hideAll(s: string, needles: readonly Needle[], mask: string): string {
  const spans: [number, number][] = [];
  for (const { text: n, period } of needles) {
    if (n.length > s.length) continue;
    for (let i = s.indexOf(n); i !== -1; i = s.indexOf(n, i + 1)) {
      // A periodic continuation holds further (overlapping) occurrences at multiples of the period: take them at once.
      let r = i + n.length;
      while (r < s.length && s.charCodeAt(r) === s.charCodeAt(r - period)) r++;
      const last = i + Math.floor((r - i - n.length) / period) * period;
      spans.push([i, last + n.length]);
      i = last;
    }
  }
  if (!spans.length) return s;
  spans.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let at = 0;
  let end = -1;
  for (const [a, b] of spans) {
    if (a < end) { end = Math.max(end, b); continue; }
    if (end >= 0) { parts.push(mask); at = end; }
    parts.push(s.slice(at, a));
    end = b;
  }
  parts.push(mask, s.slice(end));
  return parts.join('');
}

/** What `text` returns when it cannot check a text (it never shows an unchecked text). */
function unchecked(length: number): string {
  return `[${length} characters not shown: they could not be checked for secrets]`;
}

/** Hides secrets in text. Immutable; cheap to call on every line (a literal search per hidden form, linear). */
export class Redactor {
  /** A redactor that knows no values (it still hides `Bearer` credentials and secret keys). */
  static readonly none = new Redactor([]);

  /** The hidden strings, every form, longest first. */
  readonly needles: readonly string[];
  private readonly search: readonly Needle[];
  private readonly values: readonly string[];

  constructor(values: Iterable<string>) {
    this.values = [...new Set([...values].filter(v => typeof v === 'string' && v.length >= MIN_SECRET_LENGTH))];
    const needles = new Set<string>();
    for (const v of this.values) for (const f of formsOf(v)) if (f.length >= MIN_SECRET_LENGTH) needles.add(f);
    this.needles = [...needles].sort((a, b) => b.length - a.length);
    this.search = this.needles.map(text => ({ text, period: periodOf(text) }));
  }

  /** This redactor plus more values (e.g. the secret-looking variables of a loaded envFile). */
  with(values: Iterable<string>): Redactor {
    const more = [...values].filter(v => v.length >= MIN_SECRET_LENGTH && !this.values.includes(v));
    return more.length ? new Redactor([...this.values, ...more]) : this;
  }

  /** One redactor hiding what each of `redactors` hides (the CLI's, over every server it loaded). */
  static merge(redactors: Iterable<Redactor>): Redactor {
    return new Redactor([...redactors].flatMap(r => r.values));
  }

  /**
   * Hides every known value and every `Bearer`/`Basic` credential. Never throws: a text it cannot check (no
   * memory for the result) is replaced by a note saying so, never shown as it was.
   */
  text(s: string, mask = MASK): string {
    try {
      let out = this.search.length && s.length >= MIN_SECRET_LENGTH ? hideAll(s, this.search, mask) : s;
      if (out.includes('earer') || out.includes('asic')) out = out.replace(BEARER, (m, scheme: string, cred: string) => looksCredential(cred) ? `${scheme} ${mask}` : m);
      return out;
    } catch {
      return unchecked(typeof s === 'string' ? s.length : 0);
    }
  }

  /**
   * For text cut at its end by someone else: `text`, and a trailing beginning of a secret (at least
   * MIN_SECRET_LENGTH - 1 characters) is hidden too.
   */
  fragment(s: string, mask = MASK): string {
    const out = this.text(s, mask);
    let k = 0;
    for (const n of this.needles) k = Math.max(k, overlapAtEnd(out, n));
    return k >= MIN_SECRET_LENGTH - 1 ? `${out.slice(0, out.length - k)}${mask}` : out;
  }

  /**
   * A line that may carry a cut marker (`… (N more bytes)` / `(N more characters)`): the part before the
   * marker is a fragment.
   */
  line(s: string, mask = MASK): string {
    const m = /^([\s\S]*?)(…? ?\(\d+ more (?:bytes|characters)\))$/.exec(s);
    return m ? `${this.fragment(m[1], mask)}${m[2]}` : this.text(s, mask);
  }

  /** Structured data as JSON with values under secret-looking keys replaced, then `text`. */
  value(v: unknown): string {
    let json: string;
    try {
      json = JSON.stringify(v, (key, x) => {
        if (key && SECRET_KEYS.test(key)) {
          if (x && typeof x === 'object') return Object.fromEntries(Object.keys(x as object).map(k => [k, MASK]));
          return x === undefined || x === null ? x : MASK;
        }
        return x;
      }) ?? String(v);
    } catch {
      json = String(v);
    }
    return this.text(json);
  }

  /**
   * A URL for display: credentials and every query value hidden, the rest (origin, path, parameter names)
   * kept; then `text`. Not a URL: `text` with anything after `?` hidden.
   */
  url(s: string): string {
    let u: URL;
    try { u = new URL(s); } catch { return this.text(s.replace(/\?.*$/s, `?${MASK}`)); }
    const cred = u.username || u.password ? `${MASK}@` : '';
    const query = u.search
      ? `?${u.search.slice(1).split('&').map(p => (p.includes('=') ? `${p.slice(0, p.indexOf('='))}=${MASK}` : p)).join('&')}`
      : '';
    const rest = u.host ? `//${cred}${u.host}${u.pathname}` : u.pathname;
    return this.text(`${u.protocol}${rest}${query}${u.hash ? '#…' : ''}`);
  }

  /** Rewrites the message (and stack) of `err` and of every error in its `cause` chain; returns `err`. */
  error<E>(err: E): E {
    const seen = new Set<unknown>();
    for (let e: unknown = err; e instanceof Error && !seen.has(e); e = (e as { cause?: unknown }).cause) {
      seen.add(e);
      const clean = this.text(e.message);
      if (clean !== e.message) {
        try { e.message = clean; } catch { /* frozen */ }
      }
      if (typeof e.stack === 'string') {
        const stack = this.text(e.stack);
        if (stack !== e.stack) try { e.stack = stack; } catch { /* frozen */ }
      }
    }
    return err;
  }

  /**
   * Redacts, then cuts to `maxBytes` of UTF-8 with `… (N more bytes)`. A text far over the cap is redacted
   * only as far as it is kept (plus the longest secret), with the kept end treated as a fragment.
   */
  cap(s: string, maxBytes: number): { text: string; cut: boolean } {
    if (s.length <= maxBytes / 3) return { text: this.text(s), cut: false };
    const total = Buffer.byteLength(s);
    if (total <= maxBytes) {
      const t = this.text(s);
      return { text: t, cut: false };
    }
    const longest = this.needles[0]?.length ?? 0;
    const windowed = s.length > 4 * maxBytes + longest;
    const window = windowed ? this.fragment(s.slice(0, maxBytes + longest)) : this.text(s);
    const head = cutBytes(window, maxBytes);
    if (!windowed && head.length === window.length) return { text: head, cut: false };
    return { text: `${head}… (${Math.max(total - Buffer.byteLength(head), 1)} more bytes)`, cut: true };
  }
}

/** The longest prefix of `s` of at most `maxBytes` UTF-8 bytes, never splitting a character. */
export function cutBytes(s: string, maxBytes: number): string {
  if (s.length <= maxBytes / 3 || Buffer.byteLength(s) <= maxBytes) return s;
  const buf = Buffer.from(s.slice(0, maxBytes), 'utf8');
  if (buf.length <= maxBytes) return s.slice(0, maxBytes);
  let end = maxBytes;
  while (end > 0 && (buf[end] & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/**
 * Every value of a resolved definition that may be secret: what resolution recorded (`def.secrets`) plus
 * what the definition shows (header values, the URL's query values and credentials, `env` values whose
 * names look secret), so a definition built by hand is covered too.
 */
export function definitionSecrets(def: ServerDefinition): string[] {
  const out = [...(def.secrets ?? [])];
  if (def.type === 'stdio') {
    for (const [k, v] of Object.entries(def.env ?? {})) if (v && looksSecretName(k)) out.push(v);
  } else {
    for (const [k, v] of Object.entries(def.headers ?? {})) out.push(...headerSecrets(k, v));
    out.push(...urlSecrets(def.url));
  }
  return out;
}

const cache = new WeakMap<ServerDefinition, Redactor>();

/** The redactor of one server (cached per definition object). */
export function redactorFor(def: ServerDefinition): Redactor {
  let r = cache.get(def);
  if (!r) {
    r = new Redactor(definitionSecrets(def));
    cache.set(def, r);
  }
  return r;
}

/**
 * The values of an environment that came from the server's configuration (they differ from `baseEnv`) under
 * secret-looking names: what a loaded `envFile` (or `env`) adds to a server's redactor at launch.
 */
export function environmentSecrets(env: Record<string, string | undefined>, baseEnv: Record<string, string | undefined> = {}): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env)) if (v && (!Object.hasOwn(baseEnv, k) || v !== baseEnv[k]) && looksSecretName(k)) out.push(v);
  return out;
}
