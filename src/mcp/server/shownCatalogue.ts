/**
 * The catalogue a connection shows (split out of connection.ts, issue 39): the running session's; the crashed
 * session's, held while its automatic restart is awaited and until the restarted session has listed its own (H585);
 * or the last known one from the cache (a seed) until the server answers. Nothing is called from a held or seeded
 * catalogue: it is what the views, `@mcp`, the language-model tools and the gateway list. The connection
 * (connection.ts) tells it of each published catalogue, a restarted session's listing and a session's end.
 */
import { Emitter, type Event } from '../events';
import { awaitsRestart, type Catalogue, type ServerState } from '../types';
import { CATALOGUE_KINDS, emptyCatalogue, type CatalogueKind } from '../catalogue/paging';
import type { McpSession } from './session';

export class ShownCatalogue {
  private readonly _onDidChange = new Emitter<Catalogue>();
  readonly onDidChange: Event<Catalogue> = this._onDidChange.event;
  /** The catalogue the running session published last (H585: kept for a crashed server awaiting its restart). */
  private lastLive?: Catalogue;
  /** The crashed session's catalogue, from the crash until the restarted session has listed its own (H585). */
  private held?: Catalogue;
  /** The last known catalogue (a cache), shown until the server answers; nothing is called from it. */
  private seed?: Catalogue;

  constructor(private readonly state: () => ServerState, private readonly session: () => McpSession | undefined) {}

  get current(): Catalogue {
    const state = this.state();
    // H585: while the restart after a crash is awaited, and until the new session has listed, the crashed one's catalogue.
    if (this.held && (awaitsRestart(state) || state.kind === 'running')) return this.held;
    if (state.kind === 'running') {
      const session = this.session();
      const live = session?.catalogue?.catalogue;
      if (live) return live;
      // The session just ended and its crash is being recorded (a few ms): what it listed, not nothing.
      if (!session && this.lastLive) return this.lastLive;
    }
    if (this.lastLive && awaitsRestart(state)) return this.lastLive;
    return this.seed ?? emptyCatalogue();
  }

  get stale(): boolean { return this.state().kind !== 'running' && this.seed !== undefined; }

  seedWith(c: Catalogue | undefined): void {
    this.seed = c;
    if (this.state().kind !== 'running') this._onDidChange.fire(this.current);
  }

  /**
   * Tools that cannot be called, with the reason, as far as known without compiling (the list's checks, and the tools
   * compiled so far: a schema is compiled on its tool's first call).
   */
  get invalidTools(): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    const c = this.session()?.catalogue;
    if (!c) return out;
    for (const t of c.catalogue.tools) {
      const why = c.toolProblem(t.name);
      if (why) out.set(t.name, why);
    }
    return out;
  }

  async refresh(kind?: CatalogueKind): Promise<void> {
    const c = this.session()?.catalogue;
    if (c) await Promise.all((kind ? [kind] : CATALOGUE_KINDS).map(k => c.refresh(k)));
  }

  /** The running session published a catalogue. */
  changed(c: Catalogue): void {
    this.lastLive = c;
    if (this.held) return; // published once the new session has listed everything (installed)
    // Nothing here compiles a tool's schemas (they are compiled on the tool's first call).
    this._onDidChange.fire(c);
  }

  /** H585: the new session listed its own; the crashed session's catalogue is no longer held. */
  listed(): void {
    if (this.held) { this.held = undefined; this._onDidChange.fire(this.current); }
  }

  /**
   * The session ended (crash or stop). H585: a crashed server awaiting its automatic restart keeps offering what it
   * listed; otherwise nothing.
   */
  cleared(): void {
    this.held = awaitsRestart(this.state()) ? this.lastLive : undefined;
    if (!this.held) this.lastLive = undefined;
    this._onDidChange.fire(this.held ?? emptyCatalogue());
  }

  dispose(): void {
    this._onDidChange.dispose();
  }
}
