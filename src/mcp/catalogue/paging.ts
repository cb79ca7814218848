/**
 * Every page of one catalogue list (H20: tools, prompts, resources, resource templates) up to the catalogue limits,
 * a repeated cursor caught, the list's freshness from its `ttlMs`, and the size of what was read (`approxJsonSize`,
 * jsonWalks.ts).
 * The catalogue session (catalogue.ts) calls it per list.
 */
import { createHash } from 'node:crypto';
import { MAX_CACHE_TTL_MS, type Client, type RequestOptions as SdkRequestOptions, type ServerCapabilities } from '@modelcontextprotocol/client';
import type { Catalogue } from '../types';
import { LOOSE_RESULT, specSchema } from '../spec';
import { DEFAULT_LIMITS, limitMessage, type Limits } from '../limits';
import { approxJsonSize } from '../jsonWalks';

export type CatalogueKind = keyof Catalogue;
export const CATALOGUE_KINDS: readonly CatalogueKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/** Paging and compiling yield to the event loop after this much work, so a long list never stalls the host. */
export const COMPILE_SLICE_MS = 5;

/** The default page limit (Limits.maxCataloguePages): a safety net against a server whose cursors never end. */
export const MAX_PAGES = DEFAULT_LIMITS.maxCataloguePages;

export function emptyCatalogue(): Catalogue {
  return { tools: [], prompts: [], resources: [], resourceTemplates: [] };
}

/** Each list's method, result schema, field and the capability that declares it. */
export const LIST = {
  tools: { method: 'tools/list', schema: LOOSE_RESULT, field: 'tools', cap: 'tools' },
  prompts: { method: 'prompts/list', schema: specSchema('ListPromptsResult'), field: 'prompts', cap: 'prompts' },
  resources: { method: 'resources/list', schema: specSchema('ListResourcesResult'), field: 'resources', cap: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', schema: specSchema('ListResourceTemplatesResult'), field: 'resourceTemplates', cap: 'resources' },
} as const;

/** The shortest time a list is kept before its `ttlMs` makes it stale (a server sending 0 cannot make every use a refetch). */
export const MIN_TTL_MS = 1000;

/** A list's freshness from its first page's `ttlMs` (2026-07-28 cache hints): when it goes stale, if it does. */
export function expiryOf(ttlMs: unknown, now = Date.now()): number | undefined {
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs)) return undefined;
  return now + Math.min(Math.max(ttlMs, MIN_TTL_MS), MAX_CACHE_TTL_MS);
}

/** Whether the server declared the capability a list needs. */
export function declares(caps: ServerCapabilities | undefined, kind: CatalogueKind): boolean {
  return !!caps?.[LIST[kind].cap];
}

/** Bounds and callbacks for one `fetchAll`. */
export interface FetchBounds {
  /** The server, for limit messages. */
  server: string;
  limits: Pick<Limits, 'maxCataloguePages' | 'maxCatalogueItems'> & Partial<Pick<Limits, 'maxCatalogueBytes'>>;
  /** One line when a limit is hit or the server repeats a cursor; the list is kept partial. */
  warn: (msg: string) => void;
  /**
   * Called with each page's items as it arrives (`more`: another page follows). It may replace an item with an equal
   * one (the previous list's object, so the new copy dies young: issue 41); the list gets what `items` holds when it
   * returns. Returning false stops the fetch (the session was disposed); what was read so far is returned.
   */
  onPage?: (items: unknown[], more: boolean) => boolean | void | Promise<boolean | void>;
  /** The first page's `ttlMs`, when it has one (the whole list's freshness hint). */
  onTtl?: (ttlMs: number) => void;
}

/**
 * Fetches every page of one list, at most `maxCataloguePages` pages, `maxCatalogueItems` items and
 * `maxCatalogueBytes` of items (then a warning and the partial list). Cursors are opaque and live only inside this call (H20); a repeated
 * cursor ends the loop (a cursor of up to 64 characters is kept as it is, a longer one as a digest, so long cursors cost
 * no memory).
 */
export async function fetchAll<K extends CatalogueKind>(
  client: Client, kind: K, options?: SdkRequestOptions, bounds?: FetchBounds,
): Promise<Catalogue[K]> {
  const spec = LIST[kind];
  const { maxCataloguePages, maxCatalogueItems } = bounds?.limits ?? DEFAULT_LIMITS;
  const maxCatalogueBytes = bounds?.limits.maxCatalogueBytes ?? DEFAULT_LIMITS.maxCatalogueBytes;
  let bytes = 0;
  const server = bounds?.server ?? '?';
  const warn = bounds?.warn ?? (() => undefined);
  const out: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxCataloguePages) {
      warn(limitMessage(server, maxCataloguePages, { kind: 'cataloguePages', method: spec.method }));
      break;
    }
    // Tools are checked one by one (buildToolValidators): one malformed tool must not hide the others.
    const result = await client.request(
      { method: spec.method, params: cursor === undefined ? {} : { cursor } },
      spec.schema as typeof LOOSE_RESULT,
      options,
    ) as Record<string, unknown>;
    if (page === 0 && typeof result.ttlMs === 'number') bounds?.onTtl?.(result.ttlMs);
    const items = result[spec.field];
    const pageItems: unknown[] = [];
    let full: 'maxCatalogueItems' | 'maxCatalogueBytes' | undefined;
    if (Array.isArray(items)) {
      let slice = performance.now();
      for (let at = 0; at < items.length; at++) {
        const i: unknown = items[at];
        // A 10,000-item page is measured in slices: the event loop runs between them (the clock read every 64 items).
        if ((at & 63) === 63 && performance.now() - slice > COMPILE_SLICE_MS) {
          await new Promise<void>(r => setImmediate(r));
          slice = performance.now();
        }
        if (kind === 'tools' && typeof (i as { name?: unknown } | null)?.name !== 'string') continue;
        if (out.length + pageItems.length >= maxCatalogueItems) { full = 'maxCatalogueItems'; break; }
        bytes += approxJsonSize(i, maxCatalogueBytes - bytes);
        if (bytes > maxCatalogueBytes) { full = 'maxCatalogueBytes'; break; }
        pageItems.push(i);
      }
    }
    const next = result.nextCursor;
    let more = typeof next === 'string' && next !== '' && !full;
    const digest = more ? cursorKey(next as string) : '';
    if (more && seen.has(digest)) {
      warn(`server \`${server}\` repeated a ${spec.method} cursor; the list is kept as far as it was read`);
      more = false;
    }
    if (full === 'maxCatalogueItems') warn(limitMessage(server, maxCatalogueItems, { kind: 'catalogueItems', method: spec.method }));
    if (full === 'maxCatalogueBytes') warn(limitMessage(server, maxCatalogueBytes, { kind: 'catalogueBytes', field: spec.field, method: spec.method }));
    const go = bounds?.onPage ? await bounds.onPage(pageItems, more) : true;
    // After onPage, which may have put an equal item of the previous list in place of one of this page's.
    for (const i of pageItems) out.push(i);
    if (go === false || !more) break;
    seen.add(digest);
    cursor = next as string;
  }
  return out as Catalogue[K];
}

/** What `fetchAll` keeps of a cursor to see it repeated within the call: a short one itself, a long one its digest. */
function cursorKey(cursor: string): string {
  return cursor.length <= 64 ? `=${cursor}` : `#${createHash('sha256').update(cursor).digest('base64')}`;
}
