/**
 * Servers MCP Host itself wrote into settings (Import Servers from any source, the MCP Registry, Add Server), kept in
 * the host's global state as definition keys, so their first start asks launch consent in either scope (issue 34):
 * a user-scope server otherwise needs none, and an imported http server sending `Bearer ${input:github-token}` would
 * connect at once with the value the user stored for another server. Once the user allows one it is forgotten here
 * and the usual rules apply (a user-scope server then needs no consent; a workspace one keeps the workspace's).
 *
 * The key is the one definition key (src/mcp/config/definitionKey.ts, the installation's HMAC of the identity fields)
 * of the server as written: its settings entry parsed (`parseServers`), before any `${input:}` or `${env:}` is
 * resolved, since the values the user will type are not known when it is written. The controller computes the same
 * key of the same parsed entry at each sync (`ServerGates.needsConsent`). An entry the user later edits by hand is
 * the user's own definition and no longer counts as added. At most MAX_ADDED keys are kept (oldest forgotten first).
 */
import type * as vscode from 'vscode';
import { type DefinitionKey, type ServerDefinition, parseServers, type RawServer } from '../../mcp';

/** The global-state entry: definition keys of servers the host added and the user has not allowed yet. */
export const ADDED_SERVERS_KEY = 'mcpHost.addedServers';
/** Keys kept (oldest forgotten first). */
export const MAX_ADDED = 500;
const KEY_SHAPE = /^[0-9a-f]{64}$/;

/**
 * The launch consent rule: every server defined in workspace settings or a workspace's `.mcp.json` (stdio, http and
 * sse alike: a remote one receives the roots and its tools reach models and the gateway), and every server a tool
 * wrote rather than the user — one the host added itself (import, registry) until the user allowed it, or one read
 * from another client's file (`~/.copilot/mcp-config.json`) — in either scope. A user-scope server the user wrote in
 * `mcpHost.servers` is the user's own act.
 */
export function needsLaunchConsent(origin: 'user' | 'workspace' | undefined, writtenByTool: boolean): boolean {
  return origin === 'workspace' || writtenByTool;
}

/**
 * The definition key of one parsed settings entry (identity fields as written, variables unresolved): what the
 * records of added servers and of registry installs (registryInstalls.ts) are kept under.
 */
export function entryKey(key: DefinitionKey, raw: RawServer): string {
  // A RawServer carries the identity fields under the names a ServerDefinition does (config/schema.ts); the
  // definition key reads only those (`identityOf`), so `path` and `typeInferred` do not count.
  return key(raw as unknown as ServerDefinition);
}

/** The record of servers the host added (see the header). */
export class AddedServers {
  /** `state` is the host's global state; `key` the definition key. */
  constructor(private readonly state: Pick<vscode.Memento, 'get' | 'update'>, private readonly key: DefinitionKey) {}

  /** The key of one parsed settings entry (identity fields as written, variables unresolved). */
  keyOf(raw: RawServer): string {
    return entryKey(this.key, raw);
  }

  /** True when `raw` is a server the host added and the user has not allowed since. */
  has(raw: RawServer | undefined): boolean {
    return !!raw && this.list().includes(this.keyOf(raw));
  }

  /**
   * True when no server is recorded: then `has` is false for every entry without computing a key (the first settings
   * sync decides a user server before the installation key is read only then; definitionKeys.ts PendingKey).
   */
  isEmpty(): boolean {
    return this.list().length === 0;
  }

  /**
   * Records every valid entry of `servers` (settings entries by name, as about to be written). Call it BEFORE
   * writing: the settings change starts a sync at once, and it must find the record.
   */
  async record(servers: Record<string, unknown>): Promise<void> {
    const keys = parseServers(servers).servers.map(s => this.keyOf(s));
    if (!keys.length) return;
    const list = this.list().filter(k => !keys.includes(k));
    await this.state.update(ADDED_SERVERS_KEY, [...list, ...keys].slice(-MAX_ADDED));
  }

  /** Forgets `raw` (the user allowed it: the usual rules apply from now on). */
  async forget(raw: RawServer | undefined): Promise<void> {
    if (!raw) return;
    const k = this.keyOf(raw);
    const list = this.list();
    if (list.includes(k)) await this.state.update(ADDED_SERVERS_KEY, list.filter(x => x !== k));
  }

  private list(): string[] {
    const v = this.state.get<unknown>(ADDED_SERVERS_KEY);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && KEY_SHAPE.test(x)) : [];
  }
}
