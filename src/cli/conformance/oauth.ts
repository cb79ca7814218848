/**
 * Headless OAuth pieces for the conformance client mode: the "browser step" (follow the authorization
 * URL without a browser and take the code, and the RFC 9207 `iss`, from the redirect). Everything else
 * (discovery, registration, PKCE, scopes, `offline_access`, the `iss` and metadata `issuer` checks,
 * re-registration when the authorization server changes) is the SDK's `auth()`, driven by the core.
 */
import type { OAuthClientInformationMixed, OAuthClientProvider } from '@modelcontextprotocol/client';
import { McpOAuthProvider } from '../../mcp';

/** What an authorization redirect carries back: the code, and the issuer when the server names it (RFC 9207). */
export interface AuthorizationResponse {
  code: string;
  iss?: string;
}

/** A provider whose browser step leaves the authorization response behind. */
export interface CodeReturningProvider extends OAuthClientProvider {
  /** The response of the last `redirectToAuthorization`, once. */
  takeCode(): AuthorizationResponse | undefined;
}

/**
 * Visits an authorization URL without a browser (the test authorization server redirects straight
 * back) and returns the `code` and `iss` from the redirect's `Location`. Checks `state` when one was
 * sent; `iss` is checked by the SDK (`auth(…, { iss })`).
 */
export async function fetchAuthorizationCode(authorizationUrl: URL): Promise<AuthorizationResponse> {
  const response = await fetch(authorizationUrl, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (!location) throw new Error(`authorization endpoint ${authorizationUrl.origin} answered ${response.status} without a redirect`);
  const redirect = new URL(location, authorizationUrl);
  const error = redirect.searchParams.get('error');
  if (error) throw new Error(`authorization refused: ${error} ${redirect.searchParams.get('error_description') ?? ''}`.trim());
  const sentState = authorizationUrl.searchParams.get('state');
  if (sentState && redirect.searchParams.get('state') !== sentState) throw new Error('authorization redirect carried a different state (possible CSRF)');
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error('authorization redirect carried no code');
  const iss = redirect.searchParams.get('iss');
  return iss === null ? { code } : { code, iss };
}

/**
 * The core's OAuth provider (src/mcp/oauth/provider.ts) set up for a headless run: tokens in memory,
 * and a "browser" that follows the authorization URL and keeps the code it redirects back with.
 * Offers a URL-based client id (SEP-991) when given one.
 */
export class HeadlessAuthCodeProvider extends McpOAuthProvider implements CodeReturningProvider {
  private response?: AuthorizationResponse;

  constructor(clientMetadataUrl?: string, preRegistered?: OAuthClientInformationMixed) {
    const memory = new Map<string, string>();
    super({
      storage: { get: k => memory.get(k), set: (k, v) => { memory.set(k, v); }, delete: k => { memory.delete(k); } },
      redirectUrl: 'http://127.0.0.1:33418/callback',
      clientName: 'mcp-host',
      openBrowser: async () => { throw new Error('headless: redirectToAuthorization follows the URL itself'); },
      clientMetadataUrl,
    });
    if (preRegistered) void this.saveClientInformation(preRegistered);
  }

  /** The browser step: follow the authorization URL and keep the response. */
  override async redirectToAuthorization(url: URL): Promise<void> {
    this.response = await fetchAuthorizationCode(url);
  }

  /** The response of the last authorization, once. */
  takeCode(): AuthorizationResponse | undefined {
    const r = this.response;
    this.response = undefined;
    return r;
  }
}
