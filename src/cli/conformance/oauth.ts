/**
 * Headless OAuth pieces for the conformance client mode: the "browser step" (follow the authorization
 * URL without a browser and take the code from the redirect), and the SEP-990 cross-app access grant
 * (IdP token exchange → ID-JAG → jwt-bearer grant), which the SDK does not implement.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpOAuthProvider } from '../../mcp/oauth/provider';
import type {
  OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens, OAuthProtectedResourceMetadata,
  AuthorizationServerMetadata,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** A provider whose browser step leaves the authorization code behind. */
export interface CodeReturningProvider extends OAuthClientProvider {
  /** The code from the last `redirectToAuthorization`, once. */
  takeCode(): string | undefined;
}

/** What `saveDiscoveryState` hands a provider (the SDK's OAuthDiscoveryState, kept structural). */
export interface DiscoveryState {
  authorizationServerUrl: string;
  resourceMetadataUrl?: string;
  resourceMetadata?: OAuthProtectedResourceMetadata;
  authorizationServerMetadata?: AuthorizationServerMetadata;
}

/**
 * Visits an authorization URL without a browser (the test authorization server redirects straight
 * back) and returns the `code` from the redirect's `Location`. Checks `state` when one was sent.
 */
export async function fetchAuthorizationCode(authorizationUrl: URL): Promise<string> {
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
  return code;
}

/** Adds `offline_access` to an authorization URL's scope when the AS lists it (SEP-2207). */
export function withOfflineAccess(url: URL, as?: AuthorizationServerMetadata): URL {
  const supported = as?.scopes_supported ?? [];
  if (!supported.includes('offline_access')) return url;
  const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
  if (!scopes.includes('offline_access')) scopes.push('offline_access');
  const out = new URL(url);
  out.searchParams.set('scope', scopes.join(' '));
  return out;
}

export interface CrossAppAccessContext {
  client_id: string;
  client_secret: string;
  idp_client_id: string;
  idp_id_token: string;
  idp_token_endpoint: string;
}

const GRANT_TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const GRANT_JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * SEP-990 "Enterprise-managed authorization" as an SDK OAuthClientProvider: a non-interactive flow
 * (no redirect URL) whose token request is a jwt-bearer grant carrying an ID-JAG obtained from the
 * enterprise IdP by token exchange (RFC 8693) of the user's ID token. Client authentication at the
 * MCP authorization server is client_secret_basic with pre-registered credentials.
 */
export class CrossAppAccessProvider implements OAuthClientProvider {
  private _tokens?: OAuthTokens;
  private discovery?: DiscoveryState;

  constructor(private readonly ctx: CrossAppAccessContext, private readonly fetchFn: typeof fetch = fetch) {}

  get redirectUrl(): undefined { return undefined; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'mcp-host', redirect_uris: [], grant_types: [GRANT_JWT_BEARER], token_endpoint_auth_method: 'client_secret_basic' };
  }
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.ctx.client_id, client_secret: this.ctx.client_secret };
  }
  tokens(): OAuthTokens | undefined { return this._tokens; }
  saveTokens(tokens: OAuthTokens): void { this._tokens = tokens; }
  redirectToAuthorization(): void { throw new Error('cross-app access is non-interactive'); }
  saveCodeVerifier(): void { /* no PKCE in a jwt-bearer grant */ }
  codeVerifier(): string { throw new Error('cross-app access uses no code verifier'); }
  saveDiscoveryState(state: DiscoveryState): void { this.discovery = state; }
  discoveryState(): DiscoveryState | undefined { return this.discovery; }
  invalidateCredentials(scope: string): void {
    if (scope === 'all' || scope === 'tokens') this._tokens = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }

  addClientAuthentication = (headers: Headers): void => {
    const user = encodeURIComponent(this.ctx.client_id);
    const pass = encodeURIComponent(this.ctx.client_secret);
    headers.set('Authorization', `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`);
  };

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const as = this.discovery?.authorizationServerMetadata;
    const resource = this.discovery?.resourceMetadata?.resource;
    if (!as?.issuer || !resource) throw new Error('cross-app access needs the authorization server and resource from discovery');
    const exchange = new URLSearchParams({
      grant_type: GRANT_TOKEN_EXCHANGE,
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: as.issuer,
      resource,
      subject_token: this.ctx.idp_id_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      client_id: this.ctx.idp_client_id,
    });
    if (scope) exchange.set('scope', scope);
    const res = await this.fetchFn(this.ctx.idp_token_endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: exchange,
    });
    if (!res.ok) throw new Error(`IdP token exchange failed (${res.status}): ${await res.text()}`);
    const body = await res.json() as { access_token?: string };
    if (!body.access_token) throw new Error('IdP token exchange returned no ID-JAG');
    const grant = new URLSearchParams({ grant_type: GRANT_JWT_BEARER, assertion: body.access_token });
    if (scope) grant.set('scope', scope);
    return grant;
  }
}

/**
 * The core's OAuth provider (src/mcp/oauth/provider.ts) set up for a headless run: tokens in memory,
 * and a "browser" that follows the authorization URL and keeps the code it redirects back with.
 * Adds a URL-based client id (SEP-991) and asks for `offline_access` when the authorization server
 * offers it (SEP-2207), so the session can be refreshed.
 */
export class HeadlessAuthCodeProvider extends McpOAuthProvider implements CodeReturningProvider {
  private code?: string;

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

  /** The browser step: follow the authorization URL and keep the code. */
  override async redirectToAuthorization(url: URL): Promise<void> {
    const as = (await this.discoveryState())?.authorizationServerMetadata;
    this.code = await fetchAuthorizationCode(withOfflineAccess(url, as));
  }

  /** The code from the last authorization, once. */
  takeCode(): string | undefined {
    const c = this.code;
    this.code = undefined;
    return c;
  }
}
