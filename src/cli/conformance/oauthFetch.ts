/**
 * Interactive OAuth as a fetch wrapper, for a connection that takes a `fetch` but should not know
 * about browsers: a 401 (or a 403 `insufficient_scope`) runs the SDK's `auth()` (discovery,
 * registration, PKCE, refresh); when that needs the user, the provider's browser step yields a code,
 * the code is exchanged, and the request is sent again with the new bearer token. At most
 * `maxRounds` authorization rounds per request, so a server that never accepts cannot loop us.
 */
import { auth, extractWWWAuthenticateParams, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** A provider whose browser step leaves the authorization code behind. */
export interface CodeReturningProvider extends OAuthClientProvider {
  /** The code from the last `redirectToAuthorization`, once. */
  takeCode(): string | undefined;
}

export const MAX_AUTH_ROUNDS = 3;

function needsAuth(res: Response): boolean {
  if (res.status === 401) return true;
  return res.status === 403 && extractWWWAuthenticateParams(res).error === 'insufficient_scope';
}

export function oauthFetch(provider: CodeReturningProvider, serverUrl: string | URL, base: FetchLike = fetch, maxRounds = MAX_AUTH_ROUNDS): FetchLike {
  return async (input, init) => {
    const send = async (): Promise<Response> => {
      const headers = new Headers(init?.headers);
      const tokens = await provider.tokens();
      if (tokens?.access_token) headers.set('Authorization', `Bearer ${tokens.access_token}`);
      return base(input, { ...init, headers });
    };
    let res = await send();
    for (let round = 1; needsAuth(res) && round <= maxRounds; round++) {
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
      await res.body?.cancel().catch(() => undefined);
      let result = await auth(provider, { serverUrl, resourceMetadataUrl, scope, fetchFn: base });
      if (result === 'REDIRECT') {
        const authorizationCode = provider.takeCode();
        if (!authorizationCode) throw new UnauthorizedError('authorization did not return a code');
        result = await auth(provider, { serverUrl, resourceMetadataUrl, scope, authorizationCode, fetchFn: base });
      }
      if (result !== 'AUTHORIZED') throw new UnauthorizedError(`authorization ended with ${result}`);
      res = await send();
    }
    return res;
  };
}
