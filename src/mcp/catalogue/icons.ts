/**
 * Icons of servers, tools, prompts and resources (`icons`: src, mimeType, sizes, theme; MCP 2025-11-25),
 * editor-free: which icon to show and where its bytes come from, and an on-disk cache the views read.
 * - Only `data:` image URIs (png, jpeg, webp, gif, svg+xml) up to MAX_ICON_BYTES, and `https:` URLs on
 *   the same origin as an HTTP server's own URL. A stdio server's remote icons are never fetched, nor
 *   any URL on another origin (a server cannot make the editor call a third party).
 * - Remote icons are fetched through the guarded fetch (redirects only within the origin, the body
 *   capped at MAX_ICON_BYTES, no headers or tokens sent), at most MAX_REMOTE_ICONS_PER_SERVER distinct
 *   URLs per server, once each; the content type must be one of the image types above.
 * - Every icon shown is a file in the cache folder (the extension's globalStorage), named by the hash
 *   of its source; at most MAX_CACHED_ICONS files are kept (oldest removed first).
 * - `chooseIcon` picks per theme: an icon for that theme, else one without a theme, else the other's;
 *   among those, a scalable one (svg or sizes `any`), else the size closest to 32 px (at least 16; larger preferred).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeFileAtomic } from '../atomicWrite';
import { createGuardedFetch } from '../http/guardedFetch';
import type { FetchLike } from '../http/fetch';

/** An icon as a server describes it. */
export interface IconSpec {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark' | string;
}

export const MAX_ICON_BYTES = 256 * 1024;
export const MAX_REMOTE_ICONS_PER_SERVER = 100;
export const MAX_CACHED_ICONS = 1000;

const EXT: Record<string, string> = {
  'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif', 'image/svg+xml': 'svg',
};

/** Where an icon's bytes come from, or why it is not used. */
export type IconSource =
  | { kind: 'data'; mimeType: string; bytes: Buffer }
  | { kind: 'remote'; url: string }
  | { kind: 'refused'; reason: string };

/** The icons of an item, if it has a well-formed `icons` array (anything else is none). */
export function iconsOf(item: unknown): IconSpec[] {
  const list = item && typeof item === 'object' ? (item as { icons?: unknown }).icons : undefined;
  if (!Array.isArray(list)) return [];
  return list.filter((i): i is IconSpec => !!i && typeof i === 'object' && typeof (i as IconSpec).src === 'string');
}

function scalable(i: IconSpec): boolean {
  return i.mimeType === 'image/svg+xml' || /^data:image\/svg\+xml[;,]/i.test(i.src) || (i.sizes ?? []).includes('any');
}

/** The best pixel size an icon declares for a ~32 px slot (0 when it declares none). */
function sizeScore(i: IconSpec): number {
  let best = Infinity;
  for (const s of i.sizes ?? []) {
    const m = /^(\d+)x(\d+)$/i.exec(s);
    if (!m) continue;
    const px = Math.min(Number(m[1]), Number(m[2]));
    // Scaling down looks better than scaling up: a smaller icon counts double its distance.
    const score = px < 16 ? 1000 + (16 - px) : px >= 32 ? px - 32 : (32 - px) * 2;
    best = Math.min(best, score);
  }
  return best === Infinity ? 500 : best;
}

/** The icon to show for `theme`, among those `usable` (default: all), or undefined. */
export function chooseIcon(icons: readonly IconSpec[], theme: 'light' | 'dark', usable: (i: IconSpec) => boolean = () => true): IconSpec | undefined {
  const ok = icons.filter(usable);
  const tiers = [ok.filter(i => i.theme === theme), ok.filter(i => i.theme !== 'light' && i.theme !== 'dark'), ok.filter(i => i.theme !== theme)];
  for (const tier of tiers) {
    if (!tier.length) continue;
    return [...tier].sort((a, b) => (scalable(a) ? -1 : 0) - (scalable(b) ? -1 : 0) || sizeScore(a) - sizeScore(b))[0];
  }
  return undefined;
}

/**
 * Where `icon`'s bytes come from for a server whose URL is `serverUrl` (undefined for stdio): a
 * decoded `data:` image, an https URL on the server's origin, or the reason it is refused.
 */
export function iconSource(icon: IconSpec, serverUrl: string | undefined): IconSource {
  const src = icon.src.trim();
  if (/^data:/i.test(src)) {
    if (src.length > MAX_ICON_BYTES * 2) return { kind: 'refused', reason: `the data URI is over ${MAX_ICON_BYTES} bytes` };
    const m = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/is.exec(src);
    if (!m) return { kind: 'refused', reason: 'the data URI is malformed' };
    const mimeType = m[1].toLowerCase();
    if (!Object.hasOwn(EXT, mimeType)) return { kind: 'refused', reason: `\`${mimeType}\` is not an image type the host shows (png, jpeg, webp, gif, svg)` };
    let bytes: Buffer;
    try {
      bytes = /;base64/i.test(m[2]) ? Buffer.from(m[3], 'base64') : Buffer.from(decodeURIComponent(m[3]), 'utf8');
    } catch {
      return { kind: 'refused', reason: 'the data URI does not decode' };
    }
    if (bytes.length > MAX_ICON_BYTES) return { kind: 'refused', reason: `the icon is over ${MAX_ICON_BYTES} bytes` };
    if (!bytes.length) return { kind: 'refused', reason: 'the icon is empty' };
    return { kind: 'data', mimeType, bytes };
  }
  if (!URL.canParse(src)) return { kind: 'refused', reason: 'the icon source is not a URL' };
  const url = new URL(src);
  if (url.protocol !== 'https:') return { kind: 'refused', reason: `\`${url.protocol}\` icons are not loaded (only data: and https:)` };
  if (!serverUrl) return { kind: 'refused', reason: 'a stdio server\'s remote icons are not fetched' };
  if (!URL.canParse(serverUrl) || new URL(serverUrl).origin !== url.origin) {
    return { kind: 'refused', reason: `the icon is not on the server's origin (${URL.canParse(serverUrl) ? new URL(serverUrl).origin : serverUrl})` };
  }
  if (url.username || url.password) return { kind: 'refused', reason: 'the icon URL carries credentials' };
  return { kind: 'remote', url: url.href };
}

/** True when `icon` may be shown for a server at `serverUrl` (no fetch is made to decide). */
export function usableIcon(icon: IconSpec, serverUrl: string | undefined): boolean {
  return iconSource(icon, serverUrl).kind !== 'refused';
}

/** The file of one icon in the cache, or why there is none. */
export type CachedIcon = { file: string } | { error: string };

/**
 * The on-disk icon cache of the views. `file` resolves an icon to a file (writing a data icon, or
 * fetching a remote one once); results are remembered in memory for the session, failures too.
 */
export class IconStore {
  private readonly known = new Map<string, Promise<CachedIcon>>();
  private readonly remoteCount = new Map<string, number>();

  constructor(private readonly dir: string, private readonly baseFetch?: FetchLike) {}

  /** The cached file of `icon` of `server` (at `serverUrl`, undefined for stdio). */
  file(server: string, icon: IconSpec, serverUrl: string | undefined): Promise<CachedIcon> {
    const source = iconSource(icon, serverUrl);
    if (source.kind === 'refused') return Promise.resolve({ error: source.reason });
    const key = source.kind === 'remote' ? `remote:${source.url}` : `data:${icon.src}`;
    let p = this.known.get(key);
    if (!p) {
      if (source.kind === 'remote') {
        const n = this.remoteCount.get(server) ?? 0;
        if (n >= MAX_REMOTE_ICONS_PER_SERVER) return Promise.resolve({ error: `server \`${server}\` names more than ${MAX_REMOTE_ICONS_PER_SERVER} remote icons; the rest are not fetched` });
        this.remoteCount.set(server, n + 1);
      }
      p = this.resolve(server, key, source).catch((err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }));
      this.known.set(key, p);
    }
    return p;
  }

  private async resolve(server: string, key: string, source: Exclude<IconSource, { kind: 'refused' }>): Promise<CachedIcon> {
    const hash = createHash('sha256').update(key).digest('hex').slice(0, 40);
    await fs.mkdir(this.dir, { recursive: true });
    for (const ext of Object.values(EXT)) {
      const existing = path.join(this.dir, `${hash}.${ext}`);
      if (await fs.stat(existing).then(() => true, () => false)) return { file: existing };
    }
    const { mimeType, bytes } = source.kind === 'data' ? source : await this.fetchIcon(server, source.url);
    const file = path.join(this.dir, `${hash}.${EXT[mimeType]}`);
    await writeFileAtomic(file, bytes);
    await this.prune();
    return { file };
  }

  private async fetchIcon(server: string, url: string): Promise<{ mimeType: string; bytes: Buffer }> {
    const guarded = createGuardedFetch(() => ({ server, url, maxMessageBytes: MAX_ICON_BYTES }), this.baseFetch);
    const res = await guarded(url, { method: 'GET', headers: { accept: Object.keys(EXT).join(', ') } });
    if (!res.ok) throw new Error(`server \`${server}\` icon ${url}: HTTP ${res.status}`);
    const mimeType = (res.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (!Object.hasOwn(EXT, mimeType)) throw new Error(`server \`${server}\` icon ${url}: \`${mimeType || 'no content type'}\` is not an image type the host shows`);
    const bytes = Buffer.from(await res.arrayBuffer());
    if (bytes.length > MAX_ICON_BYTES) throw new Error(`server \`${server}\` icon ${url} is over ${MAX_ICON_BYTES} bytes`);
    return { mimeType, bytes };
  }

  /** Keeps at most MAX_CACHED_ICONS files, removing the oldest. */
  private async prune(): Promise<void> {
    const names = (await fs.readdir(this.dir)).filter(n => !n.endsWith('.tmp'));
    if (names.length <= MAX_CACHED_ICONS) return;
    const stats = await Promise.all(names.map(async n => ({ n, t: (await fs.stat(path.join(this.dir, n)).catch(() => undefined))?.mtimeMs ?? 0 })));
    stats.sort((a, b) => a.t - b.t);
    for (const { n } of stats.slice(0, names.length - MAX_CACHED_ICONS)) await fs.rm(path.join(this.dir, n), { force: true });
  }
}
