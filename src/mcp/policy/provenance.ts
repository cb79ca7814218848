/**
 * Which servers came from the MCP Registry (issue 40): what `chat.mcp.access: registry` lets run. The install flow
 * (src/extension/commands/registry.ts) writes a record at the moment the user confirms the install — the registry's
 * URL, the entry's name and version, where it was written (user or workspace settings) and the definition key
 * (src/mcp/config/definitionKey.ts: the installation's HMAC of the identity fields of the entry as written) — into
 * the host's own state, never into settings, so no settings file can forge one. The policy check asks
 * {@link registryProvenance} on every sync: a server is "from the registry" while a record names it, its scope and
 * its current identity key, from a registry that is still the configured one. Editing an identity field (command,
 * args, env, url, headers…: the identity table in config/schema.ts; a timeout is tuning and keeps the key) or
 * hand-writing the same name elsewhere makes it a server of the user's own again. Editor-free.
 */

/** One install from a registry, as kept in the host's state. */
export interface RegistryInstall {
  /** The registry's URL as the install used it (normalised: {@link registryKey}). */
  registry: string;
  /** The entry's registry name (`io.github.example/weather`) and version, for the messages. */
  entry: string;
  version?: string;
  /** The server's name in settings. */
  name: string;
  /** Where it was written; for a workspace, which one (`ws-<hash>` of its file or first folder: inputs.ts scopeKey). */
  scope: 'user' | 'workspace';
  workspace?: string;
  /** The definition key of the entry as written (identity fields, variables unresolved). */
  key: string;
}

/** Records kept (oldest forgotten first). */
export const MAX_REGISTRY_INSTALLS = 500;

/** A registry URL compared by what it addresses: scheme, host and port lower-cased, no trailing `/`, no query. */
export function registryKey(url: string): string {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.trim().replace(/\/+$/, '');
  }
}

const isInstall = (v: unknown): v is RegistryInstall => {
  const r = v as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && typeof r.registry === 'string' && typeof r.entry === 'string' && typeof r.name === 'string'
    && (r.scope === 'user' || r.scope === 'workspace') && typeof r.key === 'string' && /^[0-9a-f]{64}$/.test(r.key)
    && (r.version === undefined || typeof r.version === 'string') && (r.workspace === undefined || typeof r.workspace === 'string');
};

/** The records of a stored value (anything malformed left out). */
export function parseInstalls(v: unknown): RegistryInstall[] {
  return Array.isArray(v) ? v.filter(isInstall) : [];
}

/** How to make a server a registry server again (the end of every "not from the registry" reason). */
export const REINSTALL_FIX = 'reinstall it from the registry with "MCP Host: Browse MCP Servers…"';

/** True when `r` was written where the server is defined now (`scope`; for a workspace, the same `workspace`). */
export function samePlace(r: RegistryInstall, scope: 'user' | 'workspace' | undefined, workspace?: string): boolean {
  return r.scope === scope && (scope !== 'workspace' || r.workspace === workspace);
}

/**
 * Whether the server `name` (defined in `scope` — for a workspace, `workspace` — its identity key now `key`) was
 * installed from one of `registries` (the configured registry URLs) and is unchanged since: true, or why not (a clause
 * for the blocked row's reason, ending with the fix).
 */
export function registryProvenance(installs: readonly RegistryInstall[], name: string, scope: 'user' | 'workspace' | undefined, key: string | undefined, registries: readonly string[], workspace?: string): true | string {
  const allowed = new Set(registries.map(registryKey));
  const mine = installs.filter(r => r.name === name);
  const shown = registries.length ? registries.map(registryKey).join(', ') : 'none configured';
  if (!mine.length) return `it was not installed from the registry (${shown}); ${REINSTALL_FIX}`;
  const exact = mine.filter(r => r.key === key && samePlace(r, scope, workspace));
  if (exact.some(r => allowed.has(registryKey(r.registry)))) return true;
  if (exact.length) return `it was installed from ${exact[exact.length - 1].registry}, which is not the configured registry (${shown}); ${REINSTALL_FIX}`;
  const here = mine.filter(r => samePlace(r, scope, workspace));
  const last = here[here.length - 1];
  if (!last) {
    const there = mine[mine.length - 1];
    const into = there.scope === 'user' ? 'user settings' : scope === 'workspace' ? 'another workspace\'s settings' : 'workspace settings';
    const from = scope === 'user' ? 'user settings' : scope === 'workspace' ? 'this workspace\'s settings' : 'a file another tool reads';
    return `it was installed from the registry into ${into}, and this definition in ${from} is not that install; ${REINSTALL_FIX}`;
  }
  return `its definition changed after it was installed from ${last.registry} (${last.entry}${last.version ? ` ${last.version}` : ''}): what runs (command, arguments, environment, URL or headers) is no longer what the registry gave; ${REINSTALL_FIX}`;
}
