/** What grants for a server are keyed by (no `vscode` import: shared by the controller, sampling and chat). */

/** Where a server is defined plus the definition key: what grants are keyed by. */
export interface ServerIdentity {
  /** `user`, or `workspace` (kept in that workspace's storage). */
  scope: 'user' | 'workspace';
  /** `user`, or `ws-<hash>` of the workspace. */
  scopeKey: string;
  name: string;
  /** The definition key (`src/mcp/config/definitionKey.ts`: an HMAC of its identity fields under the installation key). */
  definitionKey: string;
}

/**
 * A server's identity by name, given at construction: sampling and chat are built before the controller that answers it
 * (extension.ts passes a function that asks the controller once it exists; undefined before).
 */
export type ServerIdentityLookup = (name: string) => ServerIdentity | undefined;

/** The storage key of a grant: scope, name and definition key, plus `suffix` (e.g. a tool name). */
export function grantKey(id: ServerIdentity, suffix?: string): string {
  return `${id.scopeKey}:${id.name}:${id.definitionKey}${suffix === undefined ? '' : `/${suffix}`}`;
}

