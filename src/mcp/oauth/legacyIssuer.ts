/**
 * MCP 2025-03-26 authorization, before protected-resource metadata (RFC 9728): the authorization server is
 * the MCP server's own origin, and its metadata is read from `<origin>/.well-known/oauth-authorization-server`.
 * Some such servers mount the authorization server under a path and publish that path as `issuer`
 * (`<origin>/oauth`), which RFC 8414 §3.3's echo check (the SDK's default, and what 2026-07-28 requires)
 * refuses. The check exists against mix-up attacks across authorization servers; when the issuer is on the
 * MCP server's own origin and the server publishes no protected-resource metadata at all, there is no other
 * authorization server to be mixed up with. Only then may the connection retry without the echo check.
 */
import { IssuerMismatchError, discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/client';
import type { FetchLike } from '../http/fetch';

/** Why `err` may be retried without the issuer echo check for the server at `serverUrl`, or undefined. */
export async function legacySameOriginIssuer(err: unknown, serverUrl: string, fetchFn: FetchLike): Promise<string | undefined> {
  const mismatch = findIssuerMismatch(err);
  if (!mismatch || mismatch.kind !== 'metadata' || !mismatch.expected || !mismatch.received) return undefined;
  let server: URL, expected: URL, received: URL;
  try {
    server = new URL(serverUrl);
    expected = new URL(mismatch.expected);
    received = new URL(mismatch.received);
  } catch {
    return undefined;
  }
  // The metadata was looked up at the server's origin (the 2025-03-26 fallback), and names an issuer there.
  if (expected.href !== new URL('/', server).href || received.origin !== server.origin) return undefined;
  // A server with protected-resource metadata is a 2025-06-18+ server: the echo check stays.
  try {
    await discoverOAuthProtectedResourceMetadata(server, undefined, fetchFn);
    return undefined;
  } catch (e) {
    if (e instanceof TypeError) return undefined; // the network failed: decide nothing
  }
  return `its authorization server's metadata (found at the server's origin, as MCP 2025-03-26 servers without `
    + `protected-resource metadata publish it) names the issuer ${received.href}; accepted because it is on the server's own origin`;
}

function findIssuerMismatch(err: unknown): IssuerMismatchError | undefined {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof IssuerMismatchError) return e;
  }
  return undefined;
}
