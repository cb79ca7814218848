/**
 * The SDK's OAuthClientProvider over injected token storage and an injected browser step.
 * The SDK's `auth()` does discovery (protected resource + authorization server metadata, with the
 * `/authorize`, `/token`, `/register` fallbacks), dynamic client registration, PKCE and refresh;
 * this class only keeps what it hands us, under keys scoped to the server URL.
 * With `clientMetadataUrl` (a client ID metadata document, SEP-991) the SDK uses that URL as the
 * client_id wherever the authorization server advertises `client_id_metadata_document_supported`,
 * and registers dynamically elsewhere. The registration metadata names the `application_type`:
 * `native` for loopback and custom-scheme redirects, `web` for https ones.
 * DPoP (SEP-1932, RFC 9449): where the authorization server advertises ES256 in
 * `dpop_signing_alg_values_supported` (or a stored token is already DPoP-bound), `dpop()` offers a
 * key kept per server and authorization server in the key storage (oauth/dpopKey.ts); the SDK signs
 * the token requests and every request to the server with it and handles both servers' nonces.
 * Workload identity federation (SEP-1933): with `workloadIdentity`, the flow is non-interactive: no
 * redirect, a pre-registered client id, and the RFC 7523 jwt-bearer grant with the workload's token.
 */
import * as l10n from '@vscode/l10n';
import { McpHostError } from '../errors';
import { DpopSession, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { dpopStorageKey, loadOrCreateDpopKey } from './dpopKey';
import { checkAuthorizationUrl } from './urls';
import type {
  OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens,
} from '@modelcontextprotocol/client';

/** Where secrets live (the extension passes SecretStorage; the CLI a file or memory). */
export interface OAuthStorage {
  get(key: string): Promise<string | undefined> | string | undefined;
  set(key: string, value: string): Promise<void> | void;
  delete(key: string): Promise<void> | void;
}

export interface OAuthProviderOptions {
  storage: OAuthStorage;
  /** Opens the authorization URL in the user's browser (after asking them). */
  openBrowser(url: string): Promise<void>;
  /** Where the authorization server sends the user back (a loopback or vscode:// URI). */
  redirectUrl: string;
  clientName: string;
  /** Scopes the storage keys; usually the server URL. */
  key?: string;
  /** The server's name, for messages. */
  server?: string;
  /** Requested scope, if the server needs one. */
  scope?: string;
  /** The https URL of this client's ID metadata document (checked with `checkClientMetadataUrl`); unset: dynamic registration only. */
  clientMetadataUrl?: string;
  /**
   * Where DPoP private keys live (default: `storage`). The extension keeps them in SecretStorage with the
   * tokens; the CLI in a file of its own that only the user may read (src/cli/oauth.ts).
   */
  dpopStorage?: OAuthStorage;
  /** Workload identity federation: sign in without a user, with the jwt-bearer grant (oauth/workloadIdentity.ts). */
  workloadIdentity?: WorkloadIdentity;
}

/** The workload's identity for the RFC 7523 jwt-bearer grant (SEP-1933). */
export interface WorkloadIdentity {
  /** The client id the authorization server knows this workload by (pre-registered; no dynamic registration). */
  clientId: string;
  /** Reads the workload's identity token (a JWT) afresh: platforms rotate it. Throws a readable Error. */
  token(): Promise<string>;
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Checks a client ID metadata document URL (https, with a path: the SDK's rule); an Error naming
 * `where` (the setting) and the fix otherwise.
 */
export function checkClientMetadataUrl(raw: string, where: string): string | Error {
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || url.protocol !== 'https:' || url.pathname === '/' || url.hash) {
    return new McpHostError(l10n.t('{0} must be an https URL with a path (the client ID metadata document), not {1}; leave it empty to register clients dynamically', where, JSON.stringify(raw.slice(0, 200))));
  }
  return url.href;
}

/**
 * The OIDC `application_type` for a redirect URI: `native` for a loopback http redirect or a custom
 * scheme (an editor's own `vscode://`), `web` for https.
 */
export function applicationTypeFor(redirectUrl: string): 'native' | 'web' {
  if (!URL.canParse(redirectUrl)) return 'native';
  const u = new URL(redirectUrl);
  return u.protocol === 'https:' ? 'web' : 'native';
}

export class McpOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  /** One DPoP session per authorization server (its key and the nonces the servers gave), for this provider's life. */
  private readonly dpopSessions = new Map<string, { stored: string; session: DpopSession }>();
  /** A key being read or made, per authorization server (concurrent requests share it). */
  private readonly dpopPending = new Map<string, Promise<DpopSession>>();

  constructor(private readonly opts: OAuthProviderOptions) {}

  private k(name: string): string {
    return `mcpHost.oauth:${this.opts.key ?? this.opts.clientName}:${name}`;
  }

  private async read<T>(name: string): Promise<T | undefined> {
    const raw = await this.opts.storage.get(this.k(name));
    if (!raw) return undefined;
    try { return JSON.parse(raw) as T; } catch { return undefined; }
  }

  private async write(name: string, value: unknown): Promise<void> {
    await this.opts.storage.set(this.k(name), JSON.stringify(value));
  }

  /** Undefined under workload identity: the SDK then runs the non-interactive grant (`prepareTokenRequest`). */
  get redirectUrl(): string | undefined {
    return this.opts.workloadIdentity ? undefined : this.opts.redirectUrl;
  }

  /** The client ID metadata document URL, if configured (the SDK uses it where the authorization server supports it). */
  get clientMetadataUrl(): string | undefined {
    return this.opts.clientMetadataUrl || undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    if (this.opts.workloadIdentity) {
      return {
        client_name: this.opts.clientName, redirect_uris: [], grant_types: [JWT_BEARER], token_endpoint_auth_method: 'none',
        ...(this.opts.scope ? { scope: this.opts.scope } : {}),
      };
    }
    return {
      client_name: this.opts.clientName,
      redirect_uris: [this.opts.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(this.opts.scope ? { scope: this.opts.scope } : {}),
      // SEP-837 / RFC 7591 + OIDC: an authorization server may treat native and web clients differently.
      ...{ application_type: applicationTypeFor(this.opts.redirectUrl) },
    };
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    // Workload identity: the client id is configured (pre-registered), never registered dynamically.
    if (this.opts.workloadIdentity) return { client_id: this.opts.workloadIdentity.clientId };
    // A client id that was a metadata document URL other than the configured one (the setting changed
    // or was cleared) is stale: the SDK then uses the current document or registers again.
    const cimd = await this.read<string>('cimd');
    if (cimd !== undefined && cimd !== this.clientMetadataUrl) return undefined;
    return this.read<OAuthClientInformationMixed>('client');
  }

  async saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    await this.write('client', info);
    if (this.clientMetadataUrl && info.client_id === this.clientMetadataUrl) await this.write('cimd', info.client_id);
    else await this.opts.storage.delete(this.k('cimd'));
  }

  tokens(): Promise<OAuthTokens | undefined> {
    return this.read<OAuthTokens>('tokens');
  }

  saveTokens(tokens: OAuthTokens): Promise<void> {
    return this.write('tokens', tokens);
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    // The server chose this URL: only https: (http: on loopback) is ever handed to a browser.
    const url = checkAuthorizationUrl(this.opts.server ?? this.opts.key ?? this.opts.clientName, authorizationUrl);
    await this.opts.openBrowser(url.toString());
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    this.verifier = codeVerifier;
    await this.opts.storage.set(this.k('verifier'), codeVerifier);
  }

  async codeVerifier(): Promise<string> {
    const v = this.verifier ?? await this.opts.storage.get(this.k('verifier'));
    if (!v) throw new McpHostError(l10n.t('No PKCE code verifier saved: start the sign-in again'));
    return v;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this.write('discovery', state);
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.read<OAuthDiscoveryState>('discovery');
  }

  /**
   * Workload identity: the jwt-bearer grant with the workload's token as the assertion (RFC 7523 §2.1).
   * Otherwise undefined (the SDK's authorization-code exchange).
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    const wif = this.opts.workloadIdentity;
    if (!wif) return undefined;
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: await wif.token() });
    if (scope) params.set('scope', scope);
    return params;
  }

  /**
   * The DPoP session for the authorization server of this sign-in, or undefined (plain Bearer) when that
   * server does not advertise ES256 for DPoP and no DPoP-bound token is stored. The key is read from
   * (or made and written to) the key storage once per authorization server; a key that cannot be used is
   * an Error naming the server and the fix.
   */
  async dpop(): Promise<DpopSession | undefined> {
    const [state, tokens] = await Promise.all([this.discoveryState(), this.tokens()]);
    const bound = tokens?.token_type?.toLowerCase() === 'dpop';
    const asMeta = state?.authorizationServerMetadata as { issuer?: string; dpop_signing_alg_values_supported?: unknown } | undefined;
    const issuer = (bound ? (tokens as { issuer?: string }).issuer : undefined) ?? asMeta?.issuer ?? state?.authorizationServerUrl;
    const algs = asMeta?.dpop_signing_alg_values_supported;
    if (!issuer || (!bound && !(Array.isArray(algs) && algs.includes('ES256')))) return undefined;
    const pending = this.dpopPending.get(issuer);
    if (pending) return pending;
    const storage = this.opts.dpopStorage ?? this.opts.storage;
    const name = this.k(dpopStorageKey(issuer));
    const server = this.opts.server ?? this.opts.key ?? this.opts.clientName;
    // The session (its nonces) lasts while the stored key is the one it signs with: a key deleted by a
    // sign-out elsewhere (the editor's command uses a provider of its own) or replaced is read again.
    const cached = this.dpopSessions.get(issuer);
    if (cached) {
      let now: string | undefined;
      try { now = await storage.get(name); } catch { now = undefined; }
      if (now === cached.stored) return cached.session;
      this.dpopSessions.delete(issuer);
    }
    const made = loadOrCreateDpopKey(storage, name, server, issuer).then(async ({ keyPair, stored }) => {
      const session = await DpopSession.create({ keyPair });
      this.dpopSessions.set(issuer, { stored, session });
      return session;
    });
    this.dpopPending.set(issuer, made);
    try {
      return await made;
    } finally {
      this.dpopPending.delete(issuer);
    }
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    // Signing out forgets the DPoP keys too (the tokens they were bound to are gone): those this provider
    // used and the one of the authorization server last discovered.
    const state = scope === 'all' ? await this.discoveryState() : undefined;
    const issuers = new Set(this.dpopSessions.keys());
    const last = (state?.authorizationServerMetadata as { issuer?: string } | undefined)?.issuer ?? state?.authorizationServerUrl;
    if (last) issuers.add(last);
    const names = scope === 'all' ? ['client', 'cimd', 'tokens', 'verifier', 'discovery'] : scope === 'client' ? ['client', 'cimd'] : [scope];
    for (const n of names) await this.opts.storage.delete(this.k(n));
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all') {
      for (const issuer of issuers) await (this.opts.dpopStorage ?? this.opts.storage).delete(this.k(dpopStorageKey(issuer)));
      this.dpopSessions.clear();
    }
  }
}
