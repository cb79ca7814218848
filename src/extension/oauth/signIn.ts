/**
 * OAuth sign-in in the editor: the browser step through the one confirm-and-open path (src/extension/ui/externalUrl.ts),
 * the redirect back through a URI handler, tokens and DPoP keys in SecretStorage; a server with `workloadIdentity`
 * signs in without the browser (jwt-bearer grant).
 */
import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { oauthClientMetadataUrl } from '../settings';
import { quoted, shownName, McpOAuthProvider, checkAuthorizationUrl, checkClientMetadataUrl, workloadIdentityFor, type Connection, type HostApi, type ServerDefinition } from '../../mcp';
import { confirmAndOpen, externalUrlUi } from '../ui/externalUrl';
import type { Dialogs } from '../ui/dialogs';
import type { TestSeams } from '../testSupport';

/**
 * SecretStorage as the core's OAuth token storage for one server URL. The storage keys carry a hash of the URL, never
 * the URL: the editor keeps SecretStorage's keys in clear beside the encrypted values, and a URL can carry a secret
 * (`?key=${input:…}`). Tokens kept under the URL itself (before) move to the hashed key when first read.
 */
function storageOf(secrets: vscode.SecretStorage, url: string) {
  const hashed = urlKey(url);
  const legacy = (k: string) => k.replace(`mcpHost.oauth:${hashed}:`, `mcpHost.oauth:${url}:`);
  return {
    get: async (k: string) => {
      const v = await secrets.get(k);
      const old = legacy(k);
      if (v !== undefined || old === k) return v;
      const before = await secrets.get(old);
      if (before !== undefined) { await secrets.store(k, before); await secrets.delete(old); }
      return before;
    },
    set: async (k: string, v: string) => { await secrets.store(k, v); },
    delete: async (k: string) => { await secrets.delete(k); const old = legacy(k); if (old !== k) await secrets.delete(old); },
  };
}

/** What OAuth storage keys are scoped by: a sha256 of the server URL. */
function urlKey(url: string): string {
  return createHash('sha256').update(url).digest('hex');
}

/**
 * OAuth for HTTP servers: the browser step through `vscode.env.openExternal` (after the user agrees),
 * the redirect back into the editor through a URI handler (`<scheme>://<extension id>/oauth/<server>`,
 * made reachable with `asExternalUri`, so it also works in the browser), tokens in SecretStorage.
 */
export class OAuthBridge implements vscode.Disposable {
  /** Redirect URIs per server, in the form the browser can reach (after asExternalUri). */
  private readonly redirects = new Map<string, string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The browser step (ask, then openExternal); tests replace it (test seams) to follow the authorization URL themselves. */
  readonly openBrowser = async (server: string, url: string): Promise<void> => {
    if (this.seams?.openBrowser) return this.seams.openBrowser(server, url);
    // The one confirm-and-open path: parsed once (https:, http: on loopback, no user info), the dialog shows the
    // full URL that is then opened.
    const r = await confirmAndOpen(url, { asker: vscode.l10n.t('MCP server {0}', quoted(server)), purpose: 'signIn', message: vscode.l10n.t('Continue only if you trust this site.'), button: vscode.l10n.t('Open Browser') }, externalUrlUi(this.dialogs, this.seams));
    if (r.outcome === 'refused') throw new Error(`server \`${server}\` asked to open an authorization URL (${r.reason}); refused, nothing was opened`);
  };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: () => HostApi | undefined,
    /** The window's modal dialogs (ui/dialogs.ts): the browser step's confirmation. */
    private readonly dialogs: Dialogs,
    private readonly log: (message: string) => void = () => undefined,
    /** Starts a server through the extension's gate (launch consent, trust); default: the connection's own start. */
    private readonly startServer?: (name: string) => Promise<void>,
    /** Test-only replacement of the browser step (testSupport.ts; given in test mode only). */
    private readonly seams?: Pick<TestSeams, 'openBrowser' | 'externalUrlUi'>,
  ) {
    this.disposables.push(vscode.window.registerUriHandler({ handleUri: uri => this.handle(uri) }));
  }

  /** The provider for one server (HostOptions.authProvider); undefined for stdio servers. */
  providerFor(def: ServerDefinition): McpOAuthProvider | undefined {
    if (def.type === 'stdio') return undefined;
    const raw = vscode.Uri.parse(`${vscode.env.uriScheme}://${this.context.extension.id}/oauth/${encodeURIComponent(def.name)}`);
    if (!this.redirects.has(def.name)) {
      this.redirects.set(def.name, raw.toString(true));
      // In a browser-hosted editor the app scheme is not reachable: use the workbench's callback form.
      void vscode.env.asExternalUri(raw).then(u => { this.redirects.set(def.name, u.toString(true)); }, () => undefined);
    }
    const redirect = () => this.redirects.get(def.name) ?? raw.toString(true);
    return new McpOAuthProvider({
      storage: storageOf(this.context.secrets, def.url),
      clientName: 'MCP Host for VS Code',
      clientMetadataUrl: this.clientMetadataUrl(),
      key: urlKey(def.url),
      server: def.name,
      // Workload identity (remote development hosts, unattended): the token file or variable is read where
      // the extension host runs.
      workloadIdentity: workloadIdentityFor(def),
      // A getter: the external form of the redirect is known only once asExternalUri answers.
      get redirectUrl() { return redirect(); },
      openBrowser: url => {
        const u = checkAuthorizationUrl(def.name, url);
        this.log(`${def.name}: sign-in needed, asking to open ${u.origin}`);
        return this.openBrowser(def.name, u.toString());
      },
    });
  }

  /**
   * `mcpHost.oauth.clientMetadataUrl` from user settings (application scope: a workspace cannot set it);
   * an invalid value is reported once and ignored (dynamic registration).
   */
  private clientMetadataUrl(): string | undefined {
    const raw = oauthClientMetadataUrl();
    if (!raw) return undefined;
    const checked = checkClientMetadataUrl(raw, 'The setting `mcpHost.oauth.clientMetadataUrl`');
    if (checked instanceof Error) {
      if (this.reportedMetadataUrl !== raw) {
        this.reportedMetadataUrl = raw;
        this.log(checked.message);
        void vscode.window.showWarningMessage(shownName(checked.message, 1000));
      }
      return undefined;
    }
    return checked;
  }

  private reportedMetadataUrl: string | undefined;

  /** Forgets the tokens and client registration of an HTTP server. */
  async signOut(def: ServerDefinition): Promise<void> {
    await this.providerFor(def)?.invalidateCredentials('all');
  }

  /** Completes a sign-in from the redirect URI (`…/oauth/<server>?code=…`): the URI handler calls this. */
  async handle(uri: vscode.Uri): Promise<void> {
    const q = new URLSearchParams(uri.query);
    // Either the app URI itself or the workbench's callback form, which carries the path as `vscode-path`.
    const m = /\/oauth\/([^/]+)$/.exec(q.get('vscode-path') ?? uri.path);
    if (!m) {
      this.log(`ignored a redirect that is not a sign-in: ${uri.scheme}://${uri.authority}${uri.path}`);
      return;
    }
    const name = decodeURIComponent(m[1]);
    const conn = this.host()?.get(name) as Connection | undefined;
    this.log(`${name}: sign-in redirect received${q.get('error') ? ` with error ${q.get('error')}` : ''}`);
    if (q.get('error')) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Sign-in to {0} failed: {1}', quoted(name), shownName(q.get('error_description') ?? q.get('error') ?? '', 1000)));
      return;
    }
    const code = q.get('code');
    if (!conn || !code) return;
    try {
      await conn.finishAuth(code);
    } catch (err) {
      // The redirect can land while the start that asked for it is still failing; with the tokens
      // saved, one more start is all it takes. Without tokens the sign-in itself failed.
      const signedIn = (await this.providerFor(conn.definition)?.tokens()) !== undefined;
      const start = this.startServer ?? (() => conn.start());
      if (!signedIn || !(await start(name).then(() => true, () => false))) {
        this.log(`${name}: sign-in failed: ${err instanceof Error ? err.message : String(err)}`);
        void vscode.window.showErrorMessage(shownName(err instanceof Error ? err.message : String(err), 1000));
        return;
      }
    }
    void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to MCP server {0}.', quoted(name)));
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
