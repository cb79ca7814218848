/**
 * Which authorization URLs may be opened: a server (or the metadata it points to) chooses the URL, so
 * only `https:` is opened, and `http:` only on a loopback host. Everything else (`file:`, `smb:`,
 * `vscode:`, `javascript:`, …) could run or reach something on the user's machine and is refused.
 */
import { McpHostError } from '../errors';
import { isLoopbackHost, parseExternalUrl } from '../features/externalUrl';
import * as l10n from '@vscode/l10n';

export { isLoopbackHost };

/**
 * The URL when it may be opened (parsed once by src/mcp/features/externalUrl.ts: https:, http: on loopback, no user
 * info, no backslash or hidden characters); otherwise throws an error naming the server and why.
 */
export function checkAuthorizationUrl(server: string, url: string | URL): URL {
  const t = parseExternalUrl(String(url));
  if (t instanceof Error) throw new McpHostError(l10n.t('server `{0}` asked to open an authorization URL ({1}); refused, nothing was opened', server, t.message));
  return new URL(t.url);
}

/**
 * The command that opens `url` in the browser on Windows: `cmd.exe /d /s /c "start "" "<url>""`,
 * with the URL quoted and every cmd metacharacter (`&`, `|`, `%`, `^`, `"`, …) escaped with `^`, so
 * the whole URL reaches `start` as one argument and nothing in it runs or expands. Spawn it with
 * `windowsVerbatimArguments: true`.
 */
export function windowsOpenCommand(url: string): { command: string; args: string[] } {
  // Quote for the C runtime (backslashes before a quote doubled, quotes escaped), then caret-escape for cmd.
  const quoted = `"${url.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, '$1$1')}"`;
  const escaped = quoted.replace(/[()[\]%!^"`<>&|;, *?]/g, '^$&');
  return { command: 'cmd.exe', args: ['/d', '/s', '/c', `"start "" ${escaped}"`] };
}
