import * as vscode from 'vscode';
import { McpOAuthProvider, type Connection, type HostApi, type ServerDefinition } from '../mcp';

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
  private base: string;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly context: vscode.ExtensionContext, private readonly host: () => HostApi | undefined) {
    this.base = `${vscode.env.uriScheme}://${context.extension.id}`;
    void vscode.env.asExternalUri(vscode.Uri.parse(this.base)).then(u => { this.base = u.toString().replace(/\/$/, ''); }, () => undefined);
    this.disposables.push(vscode.window.registerUriHandler({ handleUri: uri => this.handle(uri) }));
  }

  /** The provider for one server (HostOptions.authProvider); undefined for stdio servers. */
  providerFor(def: ServerDefinition): McpOAuthProvider | undefined {
    if (def.type === 'stdio') return undefined;
    const redirect = () => `${this.base}/oauth/${encodeURIComponent(def.name)}`;
    return new McpOAuthProvider({
      storage: storageOf(this.context.secrets),
      clientName: 'MCP Host for VS Code',
      key: def.url,
      // A getter: the external form of the redirect is known only after asExternalUri answers.
      get redirectUrl() { return redirect(); },
      openBrowser: async url => {
        const open = 'Open Browser';
        const pick = await vscode.window.showInformationMessage(
          `MCP server "${def.name}" asks you to sign in at ${new URL(url).host}.`, { modal: true }, open);
        if (pick === open) await vscode.env.openExternal(vscode.Uri.parse(url, true));
      },
    });
  }

  /** Forgets the tokens and client registration of an HTTP server. */
  async signOut(def: ServerDefinition): Promise<void> {
    await this.providerFor(def)?.invalidateCredentials('all');
  }

  private async handle(uri: vscode.Uri): Promise<void> {
    const m = /^\/oauth\/([^/]+)$/.exec(uri.path);
    if (!m) return;
    const name = decodeURIComponent(m[1]);
    const q = new URLSearchParams(uri.query);
    const conn = this.host()?.get(name) as Connection | undefined;
    if (q.get('error')) {
      void vscode.window.showErrorMessage(`Sign-in to "${name}" failed: ${q.get('error_description') ?? q.get('error')}`);
      return;
    }
    const code = q.get('code');
    if (!conn || !code) return;
    try {
      await conn.finishAuth(code);
      void vscode.window.showInformationMessage(`Signed in to MCP server "${name}".`);
    } catch (err) {
      void vscode.window.showErrorMessage(err instanceof Error ? err.message : String(err));
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
