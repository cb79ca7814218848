/**
 * One MCP session over Streamable HTTP for the conformance client, with the OAuth "come back with the
 * code" loop: when the transport answers UnauthorizedError after sending the user to the authorization
 * endpoint, finish the flow with the code and try again (a bounded number of times, so a server that
 * keeps asking for more scope cannot loop us forever).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import {
  ElicitRequestSchema, type CallToolResult, type ElicitRequest, type ElicitResult, type Implementation, type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CLI_NAME, CLI_VERSION } from '../version';

/** Authorization rounds (browser steps) one operation may take before we give up. */
export const MAX_AUTH_ROUNDS = 3;

export interface SessionOptions {
  /** A non-interactive OAuth provider, handed to the transport. */
  authProvider?: OAuthClientProvider;
  /** The fetch to use (e.g. the interactive OAuth wrapper). */
  fetch?: FetchLike;
  elicit?: (params: ElicitRequest['params']) => Promise<ElicitResult>;
  log?: (line: string) => void;
}

export interface Session {
  readonly serverInfo: Implementation;
  readonly protocolVersion: string;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

interface CodeHolder { takeCode(): string | undefined }
function hasCode(p: unknown): p is CodeHolder {
  return typeof (p as CodeHolder | undefined)?.takeCode === 'function';
}

export async function connectSession(url: string, opts: SessionOptions): Promise<Session> {
  const log = opts.log ?? (() => undefined);
  let rounds = 0;
  /** After an UnauthorizedError: hand the code to the transport, or rethrow when there is none. */
  const finish = async (transport: StreamableHTTPClientTransport, err: unknown): Promise<void> => {
    const code = err instanceof UnauthorizedError && hasCode(opts.authProvider) ? opts.authProvider.takeCode() : undefined;
    if (!code || ++rounds > MAX_AUTH_ROUNDS) throw err;
    log(`authorization round ${rounds}: exchanging the code`);
    await transport.finishAuth(code);
  };

  for (;;) {
    const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: opts.authProvider, fetch: opts.fetch });
    const client = new Client(
      { name: CLI_NAME, version: CLI_VERSION },
      { capabilities: opts.elicit ? { elicitation: { form: { applyDefaults: true } } } : {} },
    );
    if (opts.elicit) {
      const elicit = opts.elicit;
      client.setRequestHandler(ElicitRequestSchema, req => elicit(req.params));
    }
    try {
      await client.connect(transport);
    } catch (err) {
      await client.close().catch(() => undefined);
      await finish(transport, err);
      continue;
    }
    const withAuth = async <T>(op: () => Promise<T>): Promise<T> => {
      for (;;) {
        try {
          return await op();
        } catch (err) {
          await finish(transport, err);
        }
      }
    };
    return {
      serverInfo: client.getServerVersion() ?? { name: '?', version: '?' },
      protocolVersion: transport.protocolVersion ?? '?',
      listTools: async () => {
        const tools: Tool[] = [];
        let cursor: string | undefined;
        do {
          const page = await withAuth(() => client.listTools(cursor ? { cursor } : undefined));
          tools.push(...page.tools);
          cursor = page.nextCursor;
        } while (cursor);
        return tools;
      },
      callTool: (name, args) => withAuth(async () => await client.callTool({ name, arguments: args }) as CallToolResult),
      close: async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
  }
}
