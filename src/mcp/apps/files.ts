/**
 * What a view may get from or give to the host beyond tool calls, checked here, editor-free:
 * - `ui/download-file`: the file's name a view proposes, made safe to show and to offer in a Save dialog (no path
 *   parts, no control, format or bidi characters, no reserved names, cut), and its contents decoded and bounded;
 * - resource reads from the view (`resources/read`): which URIs go to the view's own server (listed by it, or of a
 *   scheme it lists) and which are refused (another server's, an unlisted scheme), and the cap on what comes back.
 */
/** A longer file name is cut (its extension kept). */
export const MAX_DOWNLOAD_NAME_CHARS = 100;
/** At most this many files in one `ui/download-file` request (each asked about); more and the request is refused. */
export const MAX_DOWNLOAD_ITEMS = 4;
/** The largest file a view may hand over, or a resource read it gets back (its text and base64 characters). */
export const MAX_VIEW_FILE_CHARS = 4 * 1024 * 1024;
/** A longer URI a view asks to read is refused. */
export const MAX_VIEW_READ_URI_CHARS = 2048;

const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

/**
 * A file name from what a view says (a name, a URI or a path): its last path part (after `/` or `\`, percent-decoded
 * once), without control, format (bidi overrides, zero-width) or separator characters, without characters Windows
 * refuses, without leading dots or trailing dots and spaces, not a reserved device name, at most
 * MAX_DOWNLOAD_NAME_CHARS characters (the extension kept). `fallback` when nothing is left.
 */
export function safeFileName(raw: unknown, fallback = 'download'): string {
  let s = typeof raw === 'string' ? raw.slice(0, 4096) : '';
  if (/^[a-z][a-z0-9+.-]*:/i.test(s)) s = s.replace(/[?#].*$/s, ''); // a URI's query and fragment
  try { s = decodeURIComponent(s); } catch { /* kept as it is */ }
  s = s.split(/[\\/]/).pop() ?? '';
  s = s.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u{FFF9}-\u{FFFB}]/gu, '');
  s = s.replace(/[<>:"|?*]/g, '_').replace(/\s+/g, ' ');
  s = s.replace(/^[\s.]+/, '').replace(/[\s.]+$/, '');
  if (RESERVED.test(s)) s = `_${s}`;
  const chars = Array.from(s);
  if (chars.length > MAX_DOWNLOAD_NAME_CHARS) {
    const dot = s.lastIndexOf('.');
    const ext = dot > 0 && s.length - dot <= 16 ? Array.from(s.slice(dot)) : [];
    s = chars.slice(0, MAX_DOWNLOAD_NAME_CHARS - ext.length).join('').replace(/[\s.]+$/, '') + ext.join('');
  }
  return s || fallback;
}

/** One file of a `ui/download-file` request, checked. */
export interface DownloadItem {
  /** The safe name (`safeFileName`). */
  name: string;
  /** The MIME type the view gave (shown, bounded), if any. */
  mimeType?: string;
  /** Embedded contents (decoded), or a link to read from the view's own server. */
  bytes?: Uint8Array;
  link?: string;
  /** Bytes, when known (embedded, or the size a link declares). */
  size?: number;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
}

function mime(v: unknown): string | undefined {
  return typeof v === 'string' && /^[\w.+-]{1,64}\/[\w.+-]{1,64}(\s*;[^\p{Cc}\p{Cf}]{0,100})?$/u.test(v) ? v : undefined;
}

/** Base64 (standard or URL-safe, padding optional), or undefined when it is not. */
function base64(s: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s.replace(/\s+/g, ''))) return undefined;
  return new Uint8Array(Buffer.from(s.replace(/\s+/g, ''), s.includes('-') || s.includes('_') ? 'base64url' : 'base64'));
}

/**
 * The files of a `ui/download-file` request (EmbeddedResource or ResourceLink items), checked; throws a message for
 * the view when the request is malformed, has too many items or a file over MAX_VIEW_FILE_CHARS.
 */
export function downloadItems(contents: unknown): DownloadItem[] {
  if (!Array.isArray(contents) || contents.length === 0) throw new Error('ui/download-file: no contents');
  if (contents.length > MAX_DOWNLOAD_ITEMS) throw new Error(`ui/download-file: at most ${MAX_DOWNLOAD_ITEMS} files at a time`);
  return contents.map((c, i) => {
    const item = obj(c);
    if (item?.type === 'resource') {
      const r = obj(item.resource);
      const uri = typeof r?.uri === 'string' ? r.uri : '';
      let bytes: Uint8Array | undefined;
      if (typeof r?.text === 'string') {
        if (r.text.length > MAX_VIEW_FILE_CHARS) throw new Error(`ui/download-file: file ${i + 1} is over ${MAX_VIEW_FILE_CHARS / 1024 / 1024} MiB`);
        bytes = new TextEncoder().encode(r.text);
      } else if (typeof r?.blob === 'string') {
        if (r.blob.length > MAX_VIEW_FILE_CHARS) throw new Error(`ui/download-file: file ${i + 1} is over ${MAX_VIEW_FILE_CHARS / 1024 / 1024} MiB`);
        bytes = base64(r.blob);
        if (!bytes) throw new Error(`ui/download-file: file ${i + 1} is not valid base64`);
      } else throw new Error(`ui/download-file: file ${i + 1} has neither text nor blob`);
      return { name: safeFileName(uri), mimeType: mime(r?.mimeType), bytes, size: bytes.byteLength };
    }
    if (item?.type === 'resource_link' && typeof item.uri === 'string') {
      const size = typeof item.size === 'number' && Number.isFinite(item.size) && item.size >= 0 ? Math.round(item.size) : undefined;
      return { name: safeFileName(typeof item.name === 'string' && item.name ? item.name : item.uri), mimeType: mime(item.mimeType), link: item.uri, size };
    }
    throw new Error(`ui/download-file: file ${i + 1} is neither an embedded resource nor a resource link`);
  });
}

/** A byte count for people: `812 B`, `12.3 KiB`, `4.0 MiB`. */
export function byteSize(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** The catalogue parts the read rule looks at. */
export interface ListedResources { resources: readonly { uri: string }[]; resourceTemplates: readonly { uriTemplate: string }[] }

const scheme = (uri: string) => /^([a-z][a-z0-9+.-]{0,31}):/i.exec(uri)?.[1]?.toLowerCase();

/**
 * Whether a view of server `own` may read `uri` (sent to `own` only): undefined when it may, else why not. It may
 * read what its server lists, `ui://` resources, and URIs of a scheme its server lists (resources or templates);
 * never a URI another server lists and its own does not, nor a scheme its server does not list.
 */
export function viewReadRefusal(uri: unknown, own: ListedResources, others: readonly ListedResources[]): string | undefined {
  if (typeof uri !== 'string' || !uri) return 'the view asked to read a resource without a URI';
  if (uri.length > MAX_VIEW_READ_URI_CHARS) return `the view asked to read a URI longer than ${MAX_VIEW_READ_URI_CHARS} characters`;
  const s = scheme(uri);
  if (!s) return 'the view asked to read something that is not a URI';
  if (own.resources.some(r => r.uri === uri)) return undefined;
  if (others.some(o => o.resources.some(r => r.uri === uri))) return `${uri.slice(0, 200)} is a resource of another server; a view reads only its own server's resources`;
  if (s === 'ui') return undefined;
  const schemes = new Set([...own.resources.map(r => scheme(r.uri)), ...own.resourceTemplates.map(t => scheme(t.uriTemplate))]);
  if (!schemes.has(s)) return `the view's server lists no resource of scheme "${s}:"; refused`;
  return undefined;
}

/** The characters of a read result's contents (text and base64), to cap what goes back to a view. */
export function contentsChars(contents: unknown): number {
  if (!Array.isArray(contents)) return 0;
  let n = 0;
  for (const c of contents) {
    const x = obj(c);
    if (typeof x?.text === 'string') n += x.text.length;
    if (typeof x?.blob === 'string') n += x.blob.length;
  }
  return n;
}
