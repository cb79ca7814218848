/**
 * SEP-2352 (2026-07-28): credentials belong to the authorization server that issued them, and a client
 * must register anew when the resource moves to another one. The SDK's `auth()` reuses the discovery it
 * cached (protected-resource and authorization-server metadata); when the server rejects a bearer token
 * we sent (401), that cache may name the old server, so it is dropped and `auth()` reads the
 * protected-resource metadata again. A 403 (step-up at the same server) keeps it.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import type { FetchLike } from '../http/fetch';

/** Wraps the transport's fetch to `serverUrl`: a 401 to a request that carried a bearer token drops the cached discovery. */
export function rediscoverOnRejectedToken(serverUrl: string, provider: OAuthClientProvider, base: FetchLike): FetchLike {
  let server: string;
  try { server = new URL(serverUrl).href; } catch { return base; }
  return async (input, init) => {
    const response = await base(input, init);
    if (response.status !== 401 || !provider.invalidateCredentials) return response;
    const target = input instanceof Request ? input.url : String(input);
    const bearer = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)).get('authorization')?.startsWith('Bearer ');
    if (bearer && target === server) await provider.invalidateCredentials('discovery');
    return response;
  };
}
