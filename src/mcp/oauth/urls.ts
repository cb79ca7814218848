/**
 * Which authorization URLs may be opened: a server (or the metadata it points to) chooses the URL, so
 * only `https:` is opened, and `http:` only on a loopback host. Everything else (`file:`, `smb:`,
 * `vscode:`, `javascript:`, …) could run or reach something on the user's machine and is refused.
 */
import { McpHostError } from '../errors';

/** localhost, 127.0.0.0/8 and ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(h) || h === '::1';
}

/** The URL when it may be opened; otherwise throws an error naming the server and the URL's scheme/origin. */
export function checkAuthorizationUrl(server: string, url: string | URL): URL {
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    throw new McpHostError(`server \`${server}\` asked to open an authorization URL that is not a valid URL; refused`);
  }
  if (u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname))) return u;
  const shown = u.protocol === 'http:' ? u.origin : `${u.protocol}…`;
  throw new McpHostError(`server \`${server}\` asked to open an authorization URL (${shown}) that is not https: (or http: on this machine); refused, nothing was opened`);
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
