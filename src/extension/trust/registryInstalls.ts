/**
 * The record of servers installed from the MCP Registry (issue 40; the rule: src/mcp/policy/provenance.ts), kept in
 * the host's global state — never in settings, so neither a workspace nor a hand edit can forge one. The install flow
 * writes it when the user confirms the install dialog, before the settings write (whose sync must find it); the
 * controller asks {@link RegistryInstalls.provenance} for each server under `chat.mcp.access: registry`, and the
 * Servers view's tooltip says "installed from <registry>" ({@link RegistryInstalls.installedFrom}).
 */
import type * as vscode from 'vscode';
import { type DefinitionKey, parseServers, type RawServer, MAX_REGISTRY_INSTALLS, parseInstalls, registryKey, registryProvenance, samePlace, type RegistryInstall } from '../../mcp';
import { entryKey } from './addedServers';

/** The global-state entry: the list of {@link RegistryInstall} records. */
export const REGISTRY_INSTALLS_KEY = 'mcpHost.registryInstalls';

export class RegistryInstalls {
  /** `state` is the host's global state; `key` the definition key. */
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>, private readonly key: DefinitionKey) {}

  /**
   * Records each valid entry of `servers` (settings entries by name, as about to be written into `scope`) as installed
   * from `registry`. Call it BEFORE writing: the settings change starts a sync at once, and it must find the record.
   * Resolves the records written (for {@link forget} when the write writes nothing).
   */
  async record(from: { registry: string; entry: string; version?: string }, servers: Record<string, unknown>, scope: 'user' | 'workspace', workspace?: string): Promise<RegistryInstall[]> {
    const made = parseServers(servers).servers.map((raw): RegistryInstall => ({
      registry: registryKey(from.registry), entry: from.entry, ...(from.version ? { version: from.version } : {}), name: raw.name, scope,
      ...(scope === 'workspace' && workspace ? { workspace } : {}), key: entryKey(this.key, raw),
    }));
    if (!made.length) return [];
    // One record per name and place: a reinstall replaces the earlier one.
    const kept = this.list().filter(r => !made.some(m => m.name === r.name && samePlace(r, m.scope, m.workspace)));
    await this.state.update(REGISTRY_INSTALLS_KEY, [...kept, ...made].slice(-MAX_REGISTRY_INSTALLS));
    return made;
  }

  /** Forgets `records` (an install that wrote nothing after all). */
  async forget(records: readonly RegistryInstall[]): Promise<void> {
    if (!records.length) return;
    const list = this.list();
    const next = list.filter(r => !records.some(m => m.name === r.name && samePlace(r, m.scope, m.workspace) && m.key === r.key));
    if (next.length !== list.length) await this.state.update(REGISTRY_INSTALLS_KEY, next.length ? next : undefined);
  }

  /**
   * True when `raw` (defined in `scope`; for a workspace, the one `workspace` names) is what was installed from one of
   * `registries`, unchanged; else why not (policy/provenance.ts).
   */
  provenance(raw: RawServer | undefined, scope: 'user' | 'workspace' | undefined, registries: readonly string[], name: string, workspace?: string): true | string {
    return registryProvenance(this.list(), raw?.name ?? name, scope, raw && entryKey(this.key, raw), registries, workspace);
  }

  /** The install `raw` (defined in `scope`, `workspace`) came from while unchanged since, for the tooltip; else undefined. */
  installedFrom(raw: RawServer | undefined, scope: 'user' | 'workspace' | undefined, workspace?: string): RegistryInstall | undefined {
    if (!raw || !scope) return undefined;
    const k = entryKey(this.key, raw);
    return this.list().filter(r => r.name === raw.name && samePlace(r, scope, workspace) && r.key === k).pop();
  }

  private list(): RegistryInstall[] {
    return parseInstalls(this.state.get<unknown>(REGISTRY_INSTALLS_KEY));
  }
}
