/**
 * The last known catalogue of every server, kept in the workspace state and shown at once on the next activation
 * (marked "cached lists" until the server answers). Keyed by server name and definition fingerprint: a changed
 * definition shows nothing stale. Bounded: a server's lists over MAX_ENTRY_CHARS, or servers beyond MAX_SERVERS, are
 * not kept. Written at most every few seconds.
 */
import type * as vscode from 'vscode';
import { approxJsonSize, type Catalogue, type HostApi } from '../mcp';

export const CATALOGUE_CACHE_KEY = 'mcpHost.catalogueCache';
const MAX_ENTRY_CHARS = 1024 * 1024;
const MAX_SERVERS = 64;
const WRITE_DELAY_MS = 2_000;

interface Entry { fp: string; at: number; catalogue: Catalogue }

export class CatalogueCache implements vscode.Disposable {
  private readonly entries: Record<string, Entry>;
  private timer?: ReturnType<typeof setTimeout>;
  private readonly subs: { dispose(): void }[] = [];

  constructor(private readonly memento: vscode.Memento, private readonly host: HostApi, private readonly fingerprint: (server: string) => string | undefined) {
    const stored = memento.get<unknown>(CATALOGUE_CACHE_KEY);
    this.entries = stored && typeof stored === 'object' && !Array.isArray(stored) ? { ...(stored as Record<string, Entry>) } : {};
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

  /** Seeds every configured server that is not running with its cached lists (same definition only). */
  seed(): void {
    for (const h of this.host.servers) {
      if (h.state.kind === 'running' || h.catalogueStale) continue;
      const e = this.entries[h.name];
      if (e && e.fp === this.fingerprint(h.name) && e.catalogue) h.seedCatalogue(e.catalogue);
    }
  }

  private remember(server: string): void {
    const h = this.host.get(server);
    const fp = this.fingerprint(server);
    if (!h || h.state.kind !== 'running' || !fp) return;
    const c = h.catalogue;
    const catalogue: Catalogue = { tools: c.tools, prompts: c.prompts, resources: c.resources, resourceTemplates: c.resourceTemplates };
    if (approxJsonSize(catalogue) > MAX_ENTRY_CHARS) { delete this.entries[server]; return; }
    this.entries[server] = { fp, at: Date.now(), catalogue };
    const names = Object.keys(this.entries).sort((a, b) => this.entries[b].at - this.entries[a].at);
    for (const n of names.slice(MAX_SERVERS)) delete this.entries[n];
    this.timer ??= setTimeout(() => { this.timer = undefined; void this.memento.update(CATALOGUE_CACHE_KEY, this.entries); }, WRITE_DELAY_MS);
  }

  dispose(): void {
    if (this.timer) { clearTimeout(this.timer); void this.memento.update(CATALOGUE_CACHE_KEY, this.entries); }
    this.subs.forEach(s => s.dispose());
  }
}
