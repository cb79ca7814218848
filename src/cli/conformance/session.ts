/**
 * One MCP session for the conformance client, through the core's `Connection` (the same code the
 * extension and the other CLI commands use): Streamable HTTP, the catalogue with every page, tool
 * argument validation, elicitation as an injected callback, and OAuth through the core's
 * McpOAuthProvider and the connection's sign-in path (`finishAuth`), or a non-interactive provider.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult, ElicitRequest, ElicitResult, Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Connection } from '../../mcp/connection';
import type { CodeReturningProvider } from './oauth';
import type { HttpServerDefinition } from '../../mcp/types';
import { CLI_NAME, CLI_VERSION } from '../version';

export interface SessionOptions {
  /** A non-interactive OAuth provider (client credentials, jwt-bearer), handed to the transport. */
  authProvider?: OAuthClientProvider;
  /**
   * An interactive provider whose browser step leaves a code behind: the connection's own sign-in
   * path (start fails "needs you to sign in", then `finishAuth(code)`), also for step-up mid-session.
   */
  interactive?: CodeReturningProvider;
  elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  log?: (line: string) => void;
  /** Startup and request timeout (ms). */
  timeout?: number;
}

export interface Session {
  readonly serverInfo: Implementation;
  readonly protocolVersion: string;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Authorization rounds (browser steps) one operation may take before we give up. */
export const MAX_AUTH_ROUNDS = 3;

export async function connectSession(url: string, opts: SessionOptions): Promise<Session> {
  const log = opts.log ?? (() => undefined);
  const timeout = opts.timeout ?? 20_000;
  const def: HttpServerDefinition = { name: 'conformance', type: 'http', url, headers: {}, timeout: { startup: timeout, request: timeout } };
  const elicit = opts.elicit;
  const interactive = opts.interactive;
  const connection = new Connection(def, {
    clientInfo: { name: CLI_NAME, version: CLI_VERSION },
    features: elicit ? { elicit: (_server, params) => elicit(params) } : {},
    authProvider: interactive ?? opts.authProvider,
    restart: { enabled: false },
    pingIntervalMs: 0,
  });
  /** The last "could not load the catalogue" warning of the current session. */
  let catalogueFailure: string | undefined;
  const sub = connection.onLog(e => {
    if (e.level === 'trace' || e.level === 'debug') return;
    if (e.source === 'lifecycle' && /^starting/.test(e.message)) catalogueFailure = undefined;
    if (e.source === 'lifecycle' && /could not load the catalogue/.test(e.message)) catalogueFailure = e.message;
    log(`${e.source}: ${e.message}`);
  });

  /**
   * Runs `op`; when it failed because the user had to sign in (the browser step left a code), hands
   * the code to the connection and tries again, at most MAX_AUTH_ROUNDS times.
   */
  const withSignIn = async <T>(op: () => Promise<T>): Promise<T> => {
    for (let round = 1; ; round++) {
      try {
        return await op();
      } catch (err) {
        const code = interactive?.takeCode();
        if (!code || round > MAX_AUTH_ROUNDS) throw err;
        log(`sign-in round ${round}: finishing with the authorization code`);
        await connection.finishAuth(code);
      }
    }
  };

  try {
    await withSignIn(() => connection.start());
    // A list the server guards (initialize was open, tools/list was not) sends the user to sign in
    // while the catalogue loads; once signed in, load it again in a fresh session. Bounded: a server
    // that keeps asking for more scope gets MAX_AUTH_ROUNDS authorizations in all.
    for (let round = 1, code = interactive?.takeCode(); code; code = interactive?.takeCode(), round++) {
      await connection.finishAuth(code);
      if (round >= MAX_AUTH_ROUNDS) break;
      log(`signed in while loading the catalogue (round ${round}); reconnecting`);
      await connection.restart();
    }
    if (catalogueFailure) throw new Error(catalogueFailure);
  } catch (err) {
    sub.dispose();
    await connection.dispose().catch(() => undefined);
    throw err;
  }
  const state = connection.state;
  if (state.kind !== 'running') throw new Error(`connection is ${state.kind}`);
  return {
    serverInfo: state.serverInfo,
    protocolVersion: state.protocolVersion,
    // The core speaks SDK v2; this harness still has SDK 1.x types until it is ported (same JSON shapes).
    listTools: async () => connection.catalogue.tools as unknown as Tool[],
    callTool: (name, args) => withSignIn(() => connection.callTool(name, args) as unknown as Promise<CallToolResult>),
    close: async () => {
      await connection.dispose();
      sub.dispose();
    },
  };
}
