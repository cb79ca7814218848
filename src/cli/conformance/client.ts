/**
 * The client side of `@modelcontextprotocol/conformance`: the suite starts a scenario server, then runs
 * `mcp-host conformance <server-url>` with `MCP_CONFORMANCE_SCENARIO`, `MCP_CONFORMANCE_PROTOCOL_VERSION`
 * (0.2) and, for some scenarios, `MCP_CONFORMANCE_CONTEXT` (a JSON object) in the environment. Each
 * scenario expects a well-behaved client to connect, list what the server offers and use it; the suite's
 * server grades what it saw. What each scenario drives follows the SDK's reference client
 * (test/conformance/src/everythingClient.ts of the TypeScript SDK).
 */
import {
  ClientCredentialsProvider, CrossAppAccessProvider, PrivateKeyJwtProvider, requestJwtAuthorizationGrant,
  type ElicitRequest, type ElicitResult, type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { type FetchLike, McpOAuthProvider, workloadIdentityFor } from '../../mcp';
import { HeadlessAuthCodeProvider } from './oauth';
import { connectSession, type Session } from './session';
import { CLI_NAME, CLI_VERSION } from '../version';

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

/** SEP-990 (enterprise-managed authorization): the SDK's cross-app access provider, the ID-JAG from the IdP. */
function crossAppAccess(ctx: ScenarioContext): OAuthClientProvider {
  return new CrossAppAccessProvider({
    clientId: str(ctx, 'client_id'),
    clientSecret: str(ctx, 'client_secret'),
    assertion: async authCtx => (await requestJwtAuthorizationGrant({
      tokenEndpoint: str(ctx, 'idp_token_endpoint'),
      audience: authCtx.authorizationServerUrl,
      resource: authCtx.resourceUrl,
      idToken: str(ctx, 'idp_id_token'),
      clientId: str(ctx, 'idp_client_id'),
      fetchFn: authCtx.fetchFn,
    })).jwtAuthGrant,
  });
}

/**
 * SEP-1933 (workload identity federation): the product's path, a server definition whose
 * `workloadIdentity` names an environment variable holding the workload's token (the scenario's valid JWT).
 */
function workloadIdentity(url: string, ctx: ScenarioContext): OAuthClientProvider {
  const memory = new Map<string, string>();
  const def = {
    name: 'conformance', type: 'http' as const, url, headers: {},
    workloadIdentity: { clientId: str(ctx, 'client_id'), tokenEnv: 'MCP_HOST_WORKLOAD_TOKEN' },
  };
  return new McpOAuthProvider({
    storage: { get: k => memory.get(k), set: (k, v) => { memory.set(k, v); }, delete: k => { memory.delete(k); } },
    redirectUrl: 'http://127.0.0.1:33418/callback',
    clientName: 'mcp-host',
    server: def.name,
    openBrowser: async () => { throw new Error('workload identity never opens a browser'); },
    workloadIdentity: workloadIdentityFor(def, { MCP_HOST_WORKLOAD_TOKEN: str(ctx, 'valid_jwt') }),
  });
}

/** Picks the auth provider a scenario needs (none for the non-auth scenarios). */
export function providerFor(scenario: string, ctx: ScenarioContext, url = ''): OAuthClientProvider | undefined {
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
    case 'auth/enterprise-managed-authorization':
      return crossAppAccess(ctx);
    case 'auth/wif-jwt-bearer':
      return workloadIdentity(url, ctx);
    case 'auth/pre-registration':
      return new HeadlessAuthCodeProvider(undefined, { client_id: str(ctx, 'client_id'), client_secret: str(ctx, 'client_secret') });
    default:
      return scenario.startsWith('auth/') ? new HeadlessAuthCodeProvider(CLIENT_METADATA_URL) : undefined;
  }
}

/**
 * The scenario servers of the 2026-07-28 header and multi-round-trip scenarios implement only the
 * methods they grade (no `server/discover`, and an `initialize` a 2026 client cannot use), so, as the
 * SDK's reference client does, the connect-time discovery is answered here and every other request
 * reaches the scenario server. The capabilities are what each scenario server implements.
 */
export const LOCAL_DISCOVERY: Record<string, Record<string, object>> = {
  'http-standard-headers': { tools: {}, resources: {}, prompts: {} },
  'http-custom-headers': { tools: {} },
  'http-invalid-tool-headers': { tools: {} },
  'sep-2322-client-request-state': { tools: {} },
};

export function withLocalDiscovery(capabilities: Record<string, object>, base: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    if (typeof init?.body === 'string') {
      let message: { method?: string; id?: unknown } | undefined;
      try { message = JSON.parse(init.body) as { method?: string; id?: unknown }; } catch { message = undefined; }
      if (message?.method === 'server/discover') {
        return Response.json({
          jsonrpc: '2.0',
          id: message.id,
          result: {
            supportedVersions: ['2026-07-28'],
            capabilities,
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'conformance-scenario', version: '1.0.0' } },
          },
        });
      }
    }
    return base(input, init);
  };
}

/** Arguments for the tools the suite's scenario servers expose. */
function argumentsFor(tool: string): Record<string, unknown> {
  if (tool === 'add_numbers') return { a: 5, b: 3 };
  return {};
}

/** What a scenario does once connected (default: list the tools and call each one). */
type Drive = (session: Session, ctx: ScenarioContext, log: (line: string) => void) => Promise<void>;

const callEach: Drive = async (session, _ctx, log) => {
  for (const tool of session.catalogue().tools) {
    const result = await session.callTool(tool.name, argumentsFor(tool.name));
    log(`called ${tool.name}: ${result.isError ? 'tool error' : 'ok'}`);
  }
};

const connectOnly: Drive = async () => undefined;

/**
 * SEP-2640: a host lists skills on connect (the Connection does) and reads a skill's files only when one is used: load
 * each listed skill (its SKILL.md, verified by the SDK), then each other file it lists; a file that fails
 * verification is refused and nothing more of that skill is read.
 */
const useSkills: Drive = async (session, _ctx, log) => {
  for (const skill of session.skills()) {
    try {
      const md = await session.loadSkill(skill.uri);
      log(`loaded skill ${skill.name} (${md.verified ? 'verified' : 'dynamic'})`);
    } catch (err) {
      log(`skill ${skill.name} refused: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    log(`skill ${skill.name}: ${skill.files ?? 0} files listed`);
  }
};

const DRIVES: Record<string, Drive> = {
  initialize: connectOnly,
  'request-metadata': connectOnly,
  'json-schema-ref-no-deref': connectOnly,
  // SEP-2640: the list only; nothing of a skill is read before it is used.
  'sep-2640-client-no-prefetch': connectOnly,
  'sep-2640-client-verify-digest': useSkills,
  'sep-2640-client-verify-size': useSkills,
  'sep-2640-client-verify-frontmatter': useSkills,
  // SEP-2243: Mcp-Method / Mcp-Name on each verb: call, read and get the first of each the server lists.
  'http-standard-headers': async (session, _ctx, log) => {
    const { tools, resources, prompts } = session.catalogue();
    if (tools[0]) await session.callTool(tools[0].name, {});
    if (resources[0]) await session.readResource(resources[0].uri);
    if (prompts[0]) await session.getPrompt(prompts[0].name, {});
    log('called, read and got one of each');
  },
  // SEP-2243: the calls the suite names, whose x-mcp-header parameters go out as Mcp-Param-* headers.
  // The host checks arguments against the tool's inputSchema before sending, and a null for a
  // non-nullable parameter is invalid there; the suite's null means "no value" (its check: the header
  // is omitted "when the value is null or not provided"), so a null optional argument is left out, as
  // an empty optional field of a form would be.
  'http-custom-headers': async (session, ctx, log) => {
    const calls = Array.isArray(ctx.toolCalls) ? ctx.toolCalls as { name: string; arguments?: Record<string, unknown> }[] : [];
    for (const call of calls) {
      const required = new Set(session.catalogue().tools.find(t => t.name === call.name)?.inputSchema.required ?? []);
      const args = Object.fromEntries(Object.entries(call.arguments ?? {}).filter(([k, v]) => v !== null || required.has(k)));
      await session.callTool(call.name, args);
      log(`called ${call.name}`);
    }
  },
  // SEP-2243: tools with invalid x-mcp-header annotations are left out; the valid ones still work.
  'http-invalid-tool-headers': async (session, _ctx, log) => {
    for (const tool of session.catalogue().tools) {
      await session.callTool(tool.name, { region: 'us-west1' }).then(
        () => log(`called ${tool.name}`),
        (err: unknown) => log(`call ${tool.name} refused: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  },
  // SEP-2322: input_required rounds (the embedded elicitation answered, requestState echoed), an
  // unrelated call in between, and a result without resultType (refused without a retry).
  'sep-2322-client-request-state': async (session, _ctx, log) => {
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_unrelated']) {
      const r = await session.callTool(name, {});
      log(`called ${name}: ${r.isError ? 'tool error' : 'ok'}`);
    }
    await session.callTool('test_mrtr_no_result_type', {}).then(
      () => log('called test_mrtr_no_result_type'),
      (err: unknown) => log(`test_mrtr_no_result_type refused (no retry): ${err instanceof Error ? err.message : String(err)}`),
    );
  },
  // SEP-1613 / SEP-2106: hand the focal tool's inputSchema back as the catalogue holds it.
  'json-schema-2020-12-preservation': async (session, _ctx, log) => {
    const focal = session.catalogue().tools.find(t => t.name === 'json_schema_2020_12_tool');
    if (!focal) throw new Error('the server lists no json_schema_2020_12_tool');
    await session.callTool('json_schema_echo', { schema: focal.inputSchema });
    log('echoed the inputSchema');
  },
};

/** Elicitation answers per scenario: the multi-round-trip scenario confirms; the rest accept with defaults. */
function elicitFor(scenario: string): (params: ElicitRequest['params']) => Promise<ElicitResult> {
  if (scenario === 'sep-2322-client-request-state') return async () => ({ action: 'accept', content: { confirmed: true } });
  return acceptWithDefaults;
}

/**
 * Runs one scenario against `url`. Resolves when the client did what the scenario asks; rejects
 * (readably) otherwise. `log` gets one line per step.
 */
export async function runScenario(url: string, scenario: string, ctx: ScenarioContext, log: (line: string) => void): Promise<void> {
  const provider = providerFor(scenario, ctx, url);
  // Authorization-code providers go through the connection's sign-in path (start → "needs you to
  // sign in" → finishAuth(code, iss)); non-interactive grants (client credentials, jwt-bearer) are
  // plain transport providers.
  const auth = provider instanceof HeadlessAuthCodeProvider ? { interactive: provider } : { authProvider: provider };
  const session = await connectSession(url, {
    ...auth,
    elicit: elicitFor(scenario),
    log,
    ...(LOCAL_DISCOVERY[scenario] ? { fetch: withLocalDiscovery(LOCAL_DISCOVERY[scenario]) } : {}),
  });
  try {
    log(`connected: ${session.serverInfo.name} ${session.serverInfo.version}, protocol ${session.protocolVersion} (${session.era} era), as ${CLI_NAME} ${CLI_VERSION}`);
    log(`tools: ${session.catalogue().tools.map(t => t.name).join(', ') || '(none)'}`);
    await (DRIVES[scenario] ?? callEach)(session, ctx, log);
  } finally {
    await session.close();
  }
}
