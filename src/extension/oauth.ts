import * as vscode from 'vscode';
import { McpOAuthProvider, checkAuthorizationUrl, checkClientMetadataUrl, type Connection, type HostApi, type ServerDefinition } from '../mcp';
import { dialogText, quoted, shownName } from '../mcp/display';
import { ask as askDialog } from './dialogs';

/** SecretStorage as the core's OAuth token storage. */
function storageOf(secrets: vscode.SecretStorage) {
  return {
    get: async (k: string) => secrets.get(k),
    set: async (k: string, v: string) => { await secrets.store(k, v); },
    delete: async (k: string) => { await secrets.delete(k); },
  };
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
  /** The browser step (ask, then openExternal); tests replace it to follow the authorization URL themselves. */
  openBrowser: (server: string, url: string) => Promise<void> = async (server, url) => {
    // Checked again here (not only in the core): only https: (http: on loopback) reaches openExternal.
    const u = checkAuthorizationUrl(server, url);
    const open = 'Open Browser';
    const pick = await askDialog({
      severity: 'info', message: `MCP server ${quoted(server)} asks you to sign in at ${u.origin}`,
      detail: `The browser will open ${dialogText(`${u.origin}${u.pathname}`, 500)}. Continue only if you trust this site.`, buttons: [{ title: open }],
    });
    if (pick === open) await vscode.env.openExternal(vscode.Uri.parse(u.toString(), true));
  };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly host: () => HostApi | undefined,
    private readonly log: (message: string) => void = () => undefined,
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
      storage: storageOf(this.context.secrets),
      clientName: 'MCP Host for VS Code',
      clientMetadataUrl: this.clientMetadataUrl(),
      key: def.url,
      server: def.name,
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
    const raw = vscode.workspace.getConfiguration('mcpHost').inspect<string>('oauth.clientMetadataUrl')?.globalValue?.trim();
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

  /** Starts a server through the extension's gate (set once the controller exists). */
  startServer: ((name: string) => Promise<void>) | undefined;

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
      void vscode.window.showErrorMessage(`Sign-in to ${quoted(name)} failed: ${shownName(q.get('error_description') ?? q.get('error') ?? '', 1000)}`);
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
    void vscode.window.showInformationMessage(`Signed in to MCP server ${quoted(name)}.`);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
