/**
 * One MCP session for the conformance client, through the core's `Connection` (the same code the
 * extension and the other CLI commands use): Streamable HTTP with the era negotiated as the product
 * does it ('auto': `server/discover`, then `initialize` for a 2025 server), the catalogue with every
 * page, tool argument validation, elicitation as an injected callback, and OAuth through the core's
 * McpOAuthProvider and the connection's sign-in path (`finishAuth` with the RFC 9207 `iss`), or a
 * non-interactive SDK provider.
 */
import type {
  CallToolResult, ElicitRequest, ElicitResult, GetPromptResult, Implementation, OAuthClientProvider, ReadResourceResult,
} from '@modelcontextprotocol/client';
import { Connection, everyTimeout, type FetchLike, type Catalogue, type HttpServerDefinition, type LoadedSkillFile, type SkillInfo } from '../../mcp';
import type { CodeReturningProvider } from './oauth';
import { CLI_NAME, CLI_VERSION } from '../version';

export interface SessionOptions {
  /** A non-interactive OAuth provider (client credentials, jwt-bearer), handed to the transport. */
  authProvider?: OAuthClientProvider;
  /**
   * An interactive provider whose browser step leaves a code behind: the connection's own sign-in
   * path (start fails "needs you to sign in", then `finishAuth(code, iss)`), also for step-up mid-session.
   */
  interactive?: CodeReturningProvider;
  elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  /** The fetch under the connection's own (a scenario server that needs a stand-in answer). */
  fetch?: FetchLike;
  log?: (line: string) => void;
  /** Startup and request timeout (ms). */
  timeout?: number;
}

export interface Session {
  readonly serverInfo: Implementation;
  readonly protocolVersion: string;
  readonly era: 'modern' | 'legacy';
  /** The catalogue as the core keeps it (tools with an unusable definition left out). */
  catalogue(): Catalogue;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  readResource(uri: string): Promise<ReadResourceResult>;
  getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult>;
  /** The server's skills as listed (SEP-2640): nothing of them read. */
  skills(): readonly SkillInfo[];
  /** Loads one file of a listed skill (default its SKILL.md), verified (skills/skills.ts). */
  loadSkill(name: string, ref?: string): Promise<LoadedSkillFile>;
  close(): Promise<void>;
}

/** Authorization rounds (browser steps) one operation may take before we give up. */
export const MAX_AUTH_ROUNDS = 3;

export async function connectSession(url: string, opts: SessionOptions): Promise<Session> {
  const log = opts.log ?? (() => undefined);
  const timeout = opts.timeout ?? 20_000;
  const def: HttpServerDefinition = { name: 'conformance', type: 'http', url, headers: {}, timeout: everyTimeout(timeout) };
  const elicit = opts.elicit;
  const interactive = opts.interactive;
  const connection = new Connection(def, {
    clientInfo: { name: CLI_NAME, version: CLI_VERSION },
    features: elicit ? { elicit: (_server, params) => elicit(params) } : {},
    authProvider: interactive ?? opts.authProvider,
    restart: { enabled: false },
    pingIntervalMs: 0,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  /** The last "could not load the catalogue" warning of the current session. */
  let catalogueFailure: string | undefined;
  const sub = connection.onLog(e => {
    if (e.level === 'trace' || e.level === 'debug') return;
    if (e.source === 'lifecycle' && /^starting/.test(e.message)) catalogueFailure = undefined;
    if (e.source === 'lifecycle' && /could not load the catalogue/.test(e.message)) catalogueFailure = e.message;
    log(`${e.source}: ${e.message}`);
  });

  /** Hands the browser step's code (and `iss`) to the connection; false when there was none. */
  const signIn = async (round: number, why: string): Promise<boolean> => {
    const r = interactive?.takeCode();
    if (!r) return false;
    log(`sign-in round ${round} (${why}): finishing with the authorization code${r.iss !== undefined ? ` (iss ${r.iss})` : ''}`);
    await connection.finishAuth(r.code, r.iss);
    return true;
  };

  /**
   * Runs `op`; when it failed because the user had to sign in (the browser step left a code), hands
   * the code to the connection and tries again, at most MAX_AUTH_ROUNDS times.
   */
  const withSignIn = async <T>(op: () => Promise<T>): Promise<T> => {
    for (let round = 1; ; round++) {
      try {
        return await op();
      } catch (err) {
        if (round > MAX_AUTH_ROUNDS || !(await signIn(round, 'request'))) throw err;
      }
    }
  };

  try {
    await withSignIn(() => connection.start());
    // A list the server guards (initialize was open, tools/list was not) sends the user to sign in
    // while the catalogue loads; once signed in, load it again in a fresh session. Bounded: a server
    // that keeps asking for more scope gets MAX_AUTH_ROUNDS authorizations in all.
    for (let round = 1; await signIn(round, 'catalogue'); round++) {
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
    era: state.era,
    catalogue: () => connection.catalogue,
    callTool: (name, args) => withSignIn(() => connection.callTool(name, args)),
    readResource: uri => withSignIn(() => connection.readResource(uri)),
    getPrompt: (name, args) => withSignIn(() => connection.getPrompt(name, args)),
    skills: () => connection.skills,
    loadSkill: (name, ref) => withSignIn(() => connection.loadSkill(name, ref)),
    close: async () => {
      await connection.dispose();
      sub.dispose();
    },
  };
}
