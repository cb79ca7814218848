/**
 * The client side of `@modelcontextprotocol/conformance`: the suite starts a scenario server, then runs
 * `mcp-host conformance <server-url>` with `MCP_CONFORMANCE_SCENARIO` (and, for some scenarios,
 * `MCP_CONFORMANCE_CONTEXT`, a JSON object) in the environment. Each scenario expects a well-behaved
 * client to connect, list tools and call the scenario's tool; the suite's server grades what it saw.
 */
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { CrossAppAccessProvider, HeadlessAuthCodeProvider, type CrossAppAccessContext } from './oauth';
import { connectSession, type Session } from './session';

/** A URL-based client id (SEP-991); the suite's servers accept it without fetching it. */
export const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

export interface ScenarioContext {
  name?: string;
  [key: string]: unknown;
}

function str(ctx: ScenarioContext, key: string): string {
  const v = ctx[key];
  if (typeof v !== 'string' || !v) throw new Error(`MCP_CONFORMANCE_CONTEXT lacks "${key}"`);
  return v;
}

/**
 * Fills in `default`s from the requested schema for fields the user left out (SEP-1034), so a
 * server always gets the values the form showed.
 */
export function applyElicitDefaults(params: ElicitRequest['params'], content: Record<string, unknown>): Record<string, unknown> {
  const out = { ...content };
  const schema = 'requestedSchema' in params ? params.requestedSchema : undefined;
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    const def = (prop as { default?: unknown }).default;
    if (!(key in out) && def !== undefined) out[key] = def;
  }
  return out;
}

/** The elicitation answer of a headless client: accept, with every default applied. */
async function acceptWithDefaults(params: ElicitRequest['params']): Promise<ElicitResult> {
  return { action: 'accept', content: applyElicitDefaults(params, {}) as ElicitResult['content'] };
}

/** Picks the auth provider a scenario needs (none for the non-auth scenarios). */
export function providerFor(scenario: string, ctx: ScenarioContext): OAuthClientProvider | undefined {
  switch (scenario) {
    case 'auth/client-credentials-basic':
      return new ClientCredentialsProvider({ clientId: str(ctx, 'client_id'), clientSecret: str(ctx, 'client_secret') });
    case 'auth/client-credentials-jwt':
      return new PrivateKeyJwtProvider({
        clientId: str(ctx, 'client_id'),
        privateKey: str(ctx, 'private_key_pem'),
        algorithm: typeof ctx.signing_algorithm === 'string' ? ctx.signing_algorithm : 'ES256',
      });
    case 'auth/cross-app-access-complete-flow':
      return new CrossAppAccessProvider(ctx as unknown as CrossAppAccessContext);
    case 'auth/pre-registration':
      return new HeadlessAuthCodeProvider(undefined, { client_id: str(ctx, 'client_id'), client_secret: str(ctx, 'client_secret') });
    default:
      return scenario.startsWith('auth/') ? new HeadlessAuthCodeProvider(CLIENT_METADATA_URL) : undefined;
  }
}

/** Arguments for the tools the suite's scenario servers expose. */
function argumentsFor(tool: string): Record<string, unknown> {
  if (tool === 'add_numbers') return { a: 5, b: 3 };
  return {};
}

/**
 * Runs one scenario against `url`. Resolves when the client did what the scenario asks; rejects
 * (readably) otherwise. `log` gets one line per step.
 */
export async function runScenario(url: string, scenario: string, ctx: ScenarioContext, log: (line: string) => void): Promise<void> {
  const provider = providerFor(scenario, ctx);
  // Authorization-code providers go through the connection's sign-in path (start → "needs you to
  // sign in" → finishAuth(code)); non-interactive grants (client credentials, jwt-bearer) are plain
  // transport providers.
  const auth = provider instanceof HeadlessAuthCodeProvider ? { interactive: provider } : { authProvider: provider };
  const session: Session = await connectSession(url, { ...auth, elicit: acceptWithDefaults, log });
  try {
    log(`connected: ${session.serverInfo.name} ${session.serverInfo.version}, protocol ${session.protocolVersion}`);
    const tools = await session.listTools();
    log(`tools: ${tools.map(t => t.name).join(', ') || '(none)'}`);
    if (scenario === 'initialize') return;
    for (const tool of tools) {
      const result = await session.callTool(tool.name, argumentsFor(tool.name));
      log(`called ${tool.name}: ${result.isError ? 'tool error' : 'ok'}`);
    }
  } finally {
    await session.close();
  }
}
