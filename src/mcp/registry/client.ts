/**
 * A client of the MCP Registry's v0.1 API (`GET <base>/v0.1/servers?search=&cursor=&limit=`): one page of servers,
 * each a `server.json` (read with serverJson.ts). Bounded: a timeout, a cap on the body, no redirect followed, only an
 * https base URL (or a loopback http one, for tests and local registries), at most MAX_REGISTRY_ENTRIES entries read
 * from one answer (the rest cut, with a note). Nothing here is trusted: an entry that is not a server description is
 * left out and counted.
 *
 *   const page = await searchRegistry('https://registry.modelcontextprotocol.io', 'weather');
 */
import * as l10n from '@vscode/l10n';
import { McpHostError } from '../errors';
import { usableUrl } from './serverJson';
import { formatNumber } from '../logging/humanText';

/** A registry answer's body is cut here. */
export const MAX_REGISTRY_BODY_BYTES = 4 * 1024 * 1024;
/** A registry request fails after this long. */
export const REGISTRY_TIMEOUT_MS = 15_000;
/** Servers asked for per page. */
export const REGISTRY_PAGE = 50;
/** Entries read from one answer, whatever the registry sends (it was asked for REGISTRY_PAGE): the rest are cut, with a note. */
export const MAX_REGISTRY_ENTRIES = 2 * REGISTRY_PAGE;

/** One page of a search. */
export interface RegistryPage {
  /** Each entry's `server` object (a server.json), as the registry sent it. */
  servers: unknown[];
  nextCursor?: string;
  /** Entries that were not objects with a `server`. */
  skipped: number;
  /** Entries past MAX_REGISTRY_ENTRIES that were not read (the registry answered more than a page). */
  cut?: number;
  /** Says what was cut, for the user; absent when nothing was. */
  note?: string;
}

/** Searches the registry at `base`; rejects with a readable message. */
export async function searchRegistry(base: string, search = '', cursor?: string, fetchImpl: typeof fetch = fetch): Promise<RegistryPage> {
  if (!usableUrl(base)) throw new McpHostError(l10n.t('The registry URL {0} is not an https URL (or a loopback http one).', base));
  const url = new URL(`${base.replace(/\/+$/, '')}/v0.1/servers`);
  url.searchParams.set('limit', String(REGISTRY_PAGE));
  if (search) url.searchParams.set('search', search);
  if (cursor) url.searchParams.set('cursor', cursor);
  let res: Response;
  try {
    res = await fetchImpl(url, { redirect: 'manual', headers: { accept: 'application/json' }, signal: AbortSignal.timeout(REGISTRY_TIMEOUT_MS) });
  } catch (e) {
    throw new McpHostError(l10n.t('The MCP registry at {0} did not answer ({1}).', url.origin, e instanceof Error ? e.message : String(e)));
  }
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => undefined);
    throw new McpHostError(res.status >= 300 && res.status < 400
      ? l10n.t('The MCP registry at {0} answered {1} (a redirect, not followed).', url.origin, res.status)
      : l10n.t('The MCP registry at {0} answered {1}.', url.origin, res.status));
  }
  const text = await readCapped(res, MAX_REGISTRY_BODY_BYTES, url.origin);
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { throw new McpHostError(l10n.t('The MCP registry at {0} answered something that is not JSON.', url.origin)); }
  const o = doc && typeof doc === 'object' && !Array.isArray(doc) ? doc as Record<string, unknown> : {};
  if (!Array.isArray(o.servers)) throw new McpHostError(l10n.t('The MCP registry at {0} answered without a "servers" list.', url.origin));
  const servers: unknown[] = [];
  let skipped = 0;
  const cut = Math.max(0, o.servers.length - MAX_REGISTRY_ENTRIES);
  for (const e of o.servers.slice(0, MAX_REGISTRY_ENTRIES)) {
    if (e && typeof e === 'object' && !Array.isArray(e) && (e as Record<string, unknown>).server && typeof (e as Record<string, unknown>).server === 'object') servers.push((e as Record<string, unknown>).server);
    else skipped++;
  }
  const meta = o.metadata && typeof o.metadata === 'object' ? o.metadata as Record<string, unknown> : {};
  const next = typeof meta.nextCursor === 'string' && meta.nextCursor.length <= 1024 ? meta.nextCursor : undefined;
  return {
    servers, skipped, ...(next ? { nextCursor: next } : {}),
    ...(cut ? { cut, note: l10n.t('The MCP registry at {0} answered {1} entries for a page of {2}; only the first {3} were read.', url.origin, formatNumber(o.servers.length, 'grouped'), REGISTRY_PAGE, MAX_REGISTRY_ENTRIES) } : {}),
  };
}

async function readCapped(res: Response, max: number, origin: string): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new McpHostError(l10n.t('The MCP registry at {0} answered more than {1} bytes; not read.', origin, max));
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
