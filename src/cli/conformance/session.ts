/**
 * One MCP session for the conformance client, through the core's `Connection` (the same code the
 * extension and the other CLI commands use): Streamable HTTP, the catalogue with every page, tool
 * argument validation, elicitation as an injected callback, and OAuth either as the transport's
 * provider (non-interactive grants) or as the interactive fetch wrapper.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, ElicitRequest, ElicitResult, Implementation, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Connection } from '../../mcp/connection';
import type { HttpServerDefinition } from '../../mcp/types';
import { CLI_NAME, CLI_VERSION } from '../version';

export interface SessionOptions {
  /** A non-interactive OAuth provider, handed to the transport. */
  authProvider?: OAuthClientProvider;
  /** The fetch to use (e.g. the interactive OAuth wrapper). */
  fetch?: FetchLike;
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

export async function connectSession(url: string, opts: SessionOptions): Promise<Session> {
  const log = opts.log ?? (() => undefined);
  const timeout = opts.timeout ?? 20_000;
  const def: HttpServerDefinition = { name: 'conformance', type: 'http', url, headers: {}, timeout: { startup: timeout, request: timeout } };
  const elicit = opts.elicit;
  const connection = new Connection(def, {
    clientInfo: { name: CLI_NAME, version: CLI_VERSION },
    features: elicit ? { elicit: (_server, params) => elicit(params) } : {},
    authProvider: opts.authProvider,
    fetch: opts.fetch,
    restart: { enabled: false },
    pingIntervalMs: 0,
  });
  const sub = connection.onLog(e => { if (e.level !== 'trace' && e.level !== 'debug') log(`${e.source}: ${e.message}`); });
  try {
    await connection.start();
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
    listTools: async () => connection.catalogue.tools,
    callTool: (name, args) => connection.callTool(name, args),
    close: async () => {
      await connection.dispose();
      sub.dispose();
    },
  };
}
