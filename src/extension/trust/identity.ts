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

/** Late-bound lookup of a server's identity (sampling and chat exist before the controller). */
export interface ServerIdentityLookup { of?: (name: string) => ServerIdentity | undefined }

/** The storage key of a grant: scope, name and definition key, plus `suffix` (e.g. a tool name). */
export function grantKey(id: ServerIdentity, suffix?: string): string {
  return `${id.scopeKey}:${id.name}:${id.definitionKey}${suffix === undefined ? '' : `/${suffix}`}`;
}

