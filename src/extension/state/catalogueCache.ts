/**
 * The last known catalogue of every server, kept in the workspace state and shown at once on the next activation
 * (marked "cached lists" until the server answers). Keyed by server name and the definition key (a keyed hash,
 * `src/mcp/config/definitionKey.ts`): a changed definition shows nothing stale, and nothing of the resolved definition
 * (`${input:}` values, env, headers) is stored. Entries from before (keyed by the definition's text) are dropped when
 * the cache is built. A catalogue that carries one of the server's secrets (a server echoing its token into a tool
 * description) is not kept. Bounded: a server's lists over MAX_ENTRY_CHARS, or servers beyond MAX_SERVERS, are not
 * kept. Written at most every few seconds. Imports only types: tested in plain Node with a fake memento and host.
 */
import type * as vscode from 'vscode';
import type { Catalogue, HostApi } from '../../mcp';

export const CATALOGUE_CACHE_KEY = 'mcpHost.catalogueCache';
const MAX_ENTRY_CHARS = 1024 * 1024;
const MAX_SERVERS = 64;
const WRITE_DELAY_MS = 2_000;
/** The shape of a definition key (sha256, hex). */
const KEY_SHAPE = /^[0-9a-f]{64}$/;

interface Entry { fp: string; at: number; catalogue: Catalogue }

/** The memento operations the cache uses (vscode.Memento has them). */
export type CacheMemento = Pick<vscode.Memento, 'get' | 'update'>;

export class CatalogueCache implements vscode.Disposable {
  private readonly entries: Record<string, Entry> = {};
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subs: { dispose(): void }[] = [];

  /** `key` answers a server's definition key (undefined for an unknown server). */
  constructor(private readonly memento: CacheMemento, private readonly host: HostApi, private readonly key: (server: string) => string | undefined) {
    const stored = memento.get<unknown>(CATALOGUE_CACHE_KEY);
    let dropped = stored !== undefined && !isRecord(stored);
    if (isRecord(stored)) {
      for (const [name, e] of Object.entries(stored)) {
        // Before: `fp` was the resolved definition in clear. Only hashed entries are kept.
        if (isRecord(e) && typeof e.fp === 'string' && KEY_SHAPE.test(e.fp) && isRecord(e.catalogue) && typeof e.at === 'number') {
          this.entries[name] = e as unknown as Entry;
        } else dropped = true;
      }
    }
    if (dropped) void memento.update(CATALOGUE_CACHE_KEY, Object.keys(this.entries).length ? { ...this.entries } : undefined);
    this.subs.push(
      host.onDidChangeCatalogue(({ server }) => this.remember(server)),
      // A server that stopped or failed keeps showing its last lists, marked cached.
      // (The lists may arrive before the state says running: remembered then too.)
      host.onDidChangeState(({ server, state }) => {
        if (state.kind === 'running') this.remember(server);
        else if (state.kind === 'stopped' || state.kind === 'error') this.seed();
      }),
    );
  }

  /** Once, when the definition key changed (definitionKeys.ts): entries re-keyed by `map`, the rest dropped. */
  rekey(map: ReadonlyMap<string, string>): void {
    for (const [name, e] of Object.entries(this.entries)) {
      const next = map.get(e.fp);
      if (next === undefined) delete this.entries[name]; else e.fp = next;
    }
    void this.memento.update(CATALOGUE_CACHE_KEY, Object.keys(this.entries).length ? { ...this.entries } : undefined);
  }

  /** Seeds every configured server that is not running with its cached lists (same definition only). */
  seed(): void {
    for (const h of this.host.servers) {
      if (h.state.kind === 'running' || h.catalogueStale) continue;
      const e = Object.prototype.hasOwnProperty.call(this.entries, h.name) ? this.entries[h.name] : undefined;
      if (e && e.fp === this.key(h.name) && e.catalogue) h.seedCatalogue(e.catalogue);
    }
  }

  private remember(server: string): void {
    const h = this.host.get(server);
    const fp = this.key(server);
    if (!h || h.state.kind !== 'running' || !fp) return;
    const c = h.catalogue;
    const catalogue: Catalogue = { tools: c.tools, prompts: c.prompts, resources: c.resources, resourceTemplates: c.resourceTemplates };
    const json = JSON.stringify(catalogue);
    // Over the bound, or carrying a secret of the server's definition: not kept.
    if (json.length > MAX_ENTRY_CHARS || h.redactor.text(json) !== json) {
      if (this.entries[server]) { delete this.entries[server]; this.schedule(); }
      return;
    }
    this.entries[server] = { fp, at: Date.now(), catalogue };
    const names = Object.keys(this.entries).sort((a, b) => this.entries[b].at - this.entries[a].at);
    for (const n of names.slice(MAX_SERVERS)) delete this.entries[n];
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => { this.timer = undefined; void this.memento.update(CATALOGUE_CACHE_KEY, this.entries); }, WRITE_DELAY_MS);
  }

  dispose(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; void this.memento.update(CATALOGUE_CACHE_KEY, this.entries); }
    this.subs.forEach(s => s.dispose());
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
