/**
 * OAuth sign-in for remote servers from the command line: the core's McpOAuthProvider with tokens in
 * a file only the user can read, and a browser step that prints the authorization URL (and opens a
 * browser when there is a terminal), then catches the redirect on a loopback listener
 * (http://127.0.0.1:<port>/callback/<server>, RFC 8252) and hands the code to the connection.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { McpOAuthProvider, type OAuthStorage, checkAuthorizationUrl, windowsOpenCommand, workloadIdentityFor, type ServerDefinition, writeFileAtomicSync } from '../mcp';
import { CLI_NAME } from './version';

/** Default loopback port for the redirect (registered with the authorization server, so stable). */
export const DEFAULT_OAUTH_PORT = 33418;

/** `$MCP_HOST_OAUTH_FILE`, else `$XDG_CONFIG_HOME/mcp-host/oauth.json` (~/.config by default). */
export function defaultTokenFile(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCP_HOST_OAUTH_FILE) return env.MCP_HOST_OAUTH_FILE;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'mcp-host', 'oauth.json');
}

/** A JSON file of key → value, written with mode 0600 (tokens, client registrations). */
export function fileStorage(file: string): OAuthStorage {
  const read = (): Record<string, string> => {
    try {
      return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  };
  const write = (data: Record<string, string>): void => {
    writeFileAtomicSync(file, JSON.stringify(data, null, 2), { mode: 0o600, dirMode: 0o700 });
  };
  return {
    get: key => read()[key],
    set: (key, value) => { const d = read(); d[key] = value; write(d); },
    delete: key => { const d = read(); if (key in d) { delete d[key]; write(d); } },
  };
}

/** The DPoP key file beside the token file: `dpop-keys.json` in the same folder. */
export function defaultDpopKeyFile(tokenFile: string): string {
  return path.join(path.dirname(tokenFile), 'dpop-keys.json');
}

/**
 * The DPoP private keys (src/mcp/oauth/dpopKey.ts): a JSON file of key → value like the token file, but
 * strict, because a key that others could have read or swapped must not sign silently. A file other users
 * can read or write (mode not 0600, where modes exist), or one that is not a JSON object, is an Error
 * saying what to do; it is never rewritten or replaced (tokens are bound to the keys in it).
 */
export function dpopKeyStorage(file: string, platform: NodeJS.Platform = process.platform): OAuthStorage {
  const read = (): Record<string, string> => {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    if (platform !== 'win32' && (st.mode & 0o077) !== 0) {
      throw new Error(`the key file ${file} is open to other users (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): run \`chmod 600 ${file}\` if nobody else could have changed it, or delete it to make new keys (and sign in again)`);
    }
    let data: unknown;
    try {
      data = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
      data = undefined;
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) {
      throw new Error(`the key file ${file} is not a JSON object (damaged or written by something else): delete it to make new keys (and sign in again)`);
    }
    return data as Record<string, string>;
  };
  const write = (data: Record<string, string>): void => {
    writeFileAtomicSync(file, JSON.stringify(data, null, 2), { mode: 0o600, dirMode: 0o700 });
  };
  return {
    get: key => { const v = read()[key]; return typeof v === 'string' ? v : v === undefined ? undefined : JSON.stringify(v); },
    set: (key, value) => { const d = read(); d[key] = value; write(d); },
    delete: key => { const d = read(); if (key in d) { delete d[key]; write(d); } },
  };
}

export interface SignInOptions {
  tokenFile?: string;
  port?: number;
  /** Print here (stderr). */
  err: (line: string) => void;
  /** Try to open a browser (only sensible with a terminal). */
  openBrowser?: boolean;
}

interface Waiter {
  promise: Promise<string>;
  resolve(code: string): void;
  reject(err: Error): void;
}

/** One CLI run's sign-ins: providers per HTTP server, the loopback listener, the codes it caught. */
export class CliSignIn {
  private readonly storage: OAuthStorage;
  private readonly dpopStorage: OAuthStorage;
  private readonly port: number;
  private server?: http.Server;
  private listening?: Promise<void>;
  private readonly waiters = new Map<string, Waiter>();

  constructor(private readonly opts: SignInOptions) {
    const tokenFile = opts.tokenFile ?? defaultTokenFile();
    this.storage = fileStorage(tokenFile);
    this.dpopStorage = dpopKeyStorage(defaultDpopKeyFile(tokenFile));
    this.port = opts.port ?? DEFAULT_OAUTH_PORT;
  }

  private redirectUrl(server: string): string {
    return `http://127.0.0.1:${this.port}/callback/${encodeURIComponent(server)}`;
  }

  private waiter(server: string): Waiter {
    let w = this.waiters.get(server);
    if (!w) {
      let resolve!: (code: string) => void;
      let reject!: (err: Error) => void;
      const promise = new Promise<string>((res, rej) => { resolve = res; reject = rej; });
      promise.catch(() => undefined);
      w = { promise, resolve, reject };
      this.waiters.set(server, w);
    }
    return w;
  }

  /** The OAuth provider for an HTTP server (undefined for stdio). */
  providerFor(def: ServerDefinition): McpOAuthProvider | undefined {
    if (def.type === 'stdio') return undefined;
    return new McpOAuthProvider({
      storage: this.storage,
      dpopStorage: this.dpopStorage,
      workloadIdentity: workloadIdentityFor(def),
      clientName: CLI_NAME,
      key: def.url,
      server: def.name,
      redirectUrl: this.redirectUrl(def.name),
      openBrowser: url => this.browserStep(def.name, url),
    });
  }

  /** True when a sign-in for `server` is under way (its URL was printed). */
  isPending(server: string): boolean {
    return this.waiters.has(server);
  }

  /** The code the redirect brings back for `server`; rejects after `timeoutMs`. */
  async waitForCode(server: string, timeoutMs: number): Promise<string> {
    const w = this.waiters.get(server);
    if (!w) throw new Error(`no sign-in is under way for server "${server}"`);
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        w.promise,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`server "${server}": nobody finished signing in within ${Math.round(timeoutMs / 1000)} s; run the command again and open the URL it prints`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.waiters.delete(server);
    }
  }

  private async browserStep(server: string, url: string): Promise<void> {
    // Never print or open a URL of another scheme (file:, smb:, vscode:, …) a server chose.
    url = checkAuthorizationUrl(server, url).toString();
    this.waiter(server);
    await this.listen();
    this.opts.err(`mcp-host: server "${server}" needs you to sign in. Open this URL in a browser:\n  ${url}`);
    if (this.opts.openBrowser) openInBrowser(url);
  }

  private listen(): Promise<void> {
    this.listening ??= new Promise<void>((resolve, reject) => {
      const server = http.createServer((req, res) => this.onCallback(req, res));
      server.once('error', err => reject(new Error(`cannot listen on 127.0.0.1:${this.port} for the sign-in redirect (${err.message}); set MCP_HOST_OAUTH_PORT to a free port`)));
      server.listen(this.port, '127.0.0.1', () => resolve());
      this.server = server;
    });
    return this.listening;
  }

  private onCallback(req: http.IncomingMessage, res: http.ServerResponse): void {
    const u = new URL(req.url ?? '/', `http://127.0.0.1:${this.port}`);
    const m = /^\/callback\/([^/]+)$/.exec(u.pathname);
    const server = m ? decodeURIComponent(m[1]) : undefined;
    const w = server ? this.waiters.get(server) : undefined;
    const reply = (status: number, text: string) => {
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' }).end(text);
    };
    if (!server || !w) return reply(404, 'No sign-in is waiting here.');
    const error = u.searchParams.get('error');
    const code = u.searchParams.get('code');
    if (error) {
      w.reject(new Error(`server "${server}": the authorization server refused the sign-in (${error}${u.searchParams.get('error_description') ? `: ${u.searchParams.get('error_description')}` : ''})`));
      return reply(400, `Sign-in refused: ${error}. You can close this tab.`);
    }
    if (!code) return reply(400, 'The redirect carried no code.');
    w.resolve(code);
    reply(200, `Signed in to "${server}". You can close this tab and return to the terminal.`);
  }

  async dispose(): Promise<void> {
    for (const w of this.waiters.values()) w.reject(new Error('cancelled'));
    this.waiters.clear();
    const s = this.server;
    this.server = undefined;
    if (s) await new Promise<void>(r => { s.closeAllConnections?.(); s.close(() => r()); });
  }
}

/** The opener's command line: xdg-open / open / cmd start (quoted and escaped, see windowsOpenCommand). */
export function browserCommand(url: string, platform: NodeJS.Platform = process.platform): { command: string; args: string[]; verbatim: boolean } {
  if (platform === 'win32') return { ...windowsOpenCommand(url), verbatim: true };
  return { command: platform === 'darwin' ? 'open' : 'xdg-open', args: [url], verbatim: false };
}

/** Best effort: xdg-open / open / start, detached, output ignored. */
function openInBrowser(url: string): void {
  const { command, args, verbatim } = browserCommand(url);
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true, windowsVerbatimArguments: verbatim });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is printed; that is enough.
  }
}
