/**
 * The JSON Schema (draft-07) of `mcpHost.servers` and `mcpHost.inputs`, in the shape of VS Code's
 * `mcp.json`. This module is the source of truth; `server-schema.json` next to it is a generated copy
 * (kept in sync by a unit test; `UPDATE_SCHEMA=1` rewrites it) for package.json and other tools.
 *
 * Designed to be embedded in `contributes.configuration`: every property has a `markdownDescription`,
 * defaults, enums and examples, and there are no `$ref`s, so a sub-schema can be copied as it is.
 */
import { TIMEOUT_KEYS, TIMEOUT_LIMITS, type TimeoutKey } from '../limits';
import type { FromSchema } from './schemaType';
import { inputsSchema } from './inputSchema';

export { inputSchema, inputsSchema } from './inputSchema';


/** Keywords the VS Code settings editor understands that plain JSON Schema does not. */
export const EDITOR_KEYWORDS = [
  'markdownDescription', 'markdownEnumDescriptions', 'enumDescriptions', 'deprecationMessage',
  'markdownDeprecationMessage', 'defaultSnippets', 'errorMessage', 'patternErrorMessage', 'order',
  'scope', 'tags', 'editPresentation', 'doNotSuggest', 'allowComments', 'allowTrailingCommas',
] as const;


/** Sampling policy limits. */
export const SAMPLING_LIMITS = {
  maxRequestsPerMinute: { minimum: 0, maximum: 1000, default: 10 },
  maxTokens: { minimum: 1, maximum: 1_000_000 },
} as const;

/** Properties only a stdio server may have. A property in neither list is common to both transports. */
export const STDIO_PROPERTIES = ['command', 'args', 'env', 'envFile', 'cwd', 'sandboxEnabled', 'sandbox'] as const satisfies readonly ServerField[];
/** Properties only an http/sse server may have. */
export const HTTP_PROPERTIES = ['url', 'headers', 'workloadIdentity'] as const satisfies readonly ServerField[];
/** Properties accepted (so that VS Code's `mcp.json` pastes) and ignored: never copied into a parsed definition. */
export const IGNORED_PROPERTIES = ['dev'] as const satisfies readonly ServerField[];

/** A server's `timeout.<key>` property, typed exactly as its row of `TIMEOUT_LIMITS` (src/mcp/limits.ts). */
interface TimeoutProperty<K extends TimeoutKey> {
  readonly type: 'integer';
  readonly minimum: (typeof TIMEOUT_LIMITS)[K]['minimum'];
  readonly maximum: (typeof TIMEOUT_LIMITS)[K]['maximum'];
  readonly default: (typeof TIMEOUT_LIMITS)[K]['default'];
  readonly markdownDescription: string;
  readonly examples: readonly [(typeof TIMEOUT_LIMITS)[K]['default']];
}

/** The `timeout` object's properties: one per row of `TIMEOUT_LIMITS`, in its order (no key is named here). */
function timeoutProperties(): { readonly [K in TimeoutKey]: TimeoutProperty<K> } {
  const property = <K extends TimeoutKey>(k: K): TimeoutProperty<K> => {
    const t = TIMEOUT_LIMITS[k];
    return {
      type: 'integer', minimum: t.minimum, maximum: t.maximum, default: t.default,
      markdownDescription: `${t.schemaDescription} (${t.minimum}–${t.maximum}).`, examples: [t.default],
    };
  };
  return Object.fromEntries(TIMEOUT_KEYS.map(k => [k, property(k)])) as { [K in TimeoutKey]: TimeoutProperty<K> };
}

const variablesNote =
  'Variables: `${workspaceFolder}`, `${workspaceFolder:name}`, `${workspaceFolderBasename}`, `${userHome}`, ' +
  '`${env:NAME}`, `${pathSeparator}` (or `${/}`) and `${input:id}` (an entry of `#mcpHost.inputs#`).';

/** One server under `mcpHost.servers`. */
export const serverSchema = {
  type: 'object',
  markdownDescription:
    'One MCP server. A **stdio** server is a command the host launches (`command`, `args`, `env`, `envFile`, `cwd`); ' +
    'an **http** or **sse** server is a URL it connects to (`url`, `headers`). `type` may be left out: a server with ' +
    '`command` is stdio, one with `url` is http.',
  defaultSnippets: [
    { label: 'stdio server', body: { type: 'stdio', command: '${1:npx}', args: ['${2:-y}', '${3:@modelcontextprotocol/server-everything}'] } },
    { label: 'http server', body: { type: 'http', url: '${1:https://example.com/mcp}' } },
  ],
  properties: {
    type: {
      type: 'string',
      enum: ['stdio', 'http', 'sse'],
      enumDescriptions: [
        'A local process that speaks MCP over stdin/stdout.',
        'A remote server over Streamable HTTP, falling back to the legacy HTTP+SSE transport.',
        'A remote server over the legacy HTTP+SSE transport (protocol 2024-11-05) only.',
      ],
      markdownDescription:
        'How the host talks to the server. Optional: inferred as `stdio` when `command` is set and as `http` when `url` is.',
    },
    command: {
      type: 'string',
      minLength: 1,
      markdownDescription:
        'The program to launch (stdio). Looked up on `PATH` (with nvm/fnm/volta/asdf shims considered) unless absolute. ' +
        variablesNote,
      examples: ['npx', 'uvx', 'node', 'docker', '${workspaceFolder}/bin/server'],
    },
    args: {
      type: 'array',
      items: { type: 'string' },
      default: [],
      markdownDescription: 'Arguments passed to `command`, one string per argument (no shell splitting). ' + variablesNote,
      examples: [['-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}']],
    },
    env: {
      type: 'object',
      additionalProperties: { type: ['string', 'null'] },
      default: {},
      markdownDescription:
        'Environment variables for the server, merged over your own environment and `envFile`. `null` removes a ' +
        'variable. Put secrets in `${input:id}` rather than here. ' + variablesNote,
      examples: [{ GITHUB_TOKEN: '${input:github-token}', DEBUG: null }],
    },
    envFile: {
      type: 'string',
      minLength: 1,
      markdownDescription:
        'A dotenv file (`KEY=value` lines) loaded before `env`; a relative path is relative to the workspace folder. ' +
        variablesNote,
      examples: ['${workspaceFolder}/.env'],
    },
    cwd: {
      type: 'string',
      minLength: 1,
      markdownDescription:
        'The working directory of the server process; relative paths are relative to the workspace folder the server ' +
        'is defined in. Default: that folder. ' + variablesNote,
      examples: ['${workspaceFolder}', '${workspaceFolder:backend}'],
    },
    url: {
      type: 'string',
      minLength: 1,
      markdownDescription: 'The server\'s MCP endpoint (http/sse), `http://` or `https://`. ' + variablesNote,
      examples: ['https://api.example.com/mcp', 'http://127.0.0.1:3001/sse'],
    },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      default: {},
      markdownDescription:
        'HTTP headers sent with every request (http/sse), e.g. an API key. Use `${input:id}` for secrets. ' + variablesNote,
      examples: [{ Authorization: 'Bearer ${input:api-token}' }],
    },
    workloadIdentity: {
      type: 'object',
      additionalProperties: false,
      required: ['clientId'],
      markdownDescription:
        'Sign in without a user (http/sse; workload identity federation, SEP-1933): the host presents the workload\'s ' +
        'identity token (a JWT its platform issues, e.g. a Kubernetes projected service-account token or a CI job\'s ' +
        'OIDC token) to the authorization server in an OAuth jwt-bearer grant (RFC 7523), as the pre-registered client ' +
        '`clientId`. Give exactly one of `tokenFile` and `tokenEnv`; the token is read afresh at each sign-in. ' + variablesNote,
      defaultSnippets: [
        { label: 'token file', body: { clientId: '${1:my-workload}', tokenFile: '${2:/var/run/secrets/tokens/mcp-token}' } },
        { label: 'token in an environment variable', body: { clientId: '${1:my-workload}', tokenEnv: '${2:MCP_WORKLOAD_TOKEN}' } },
      ],
      properties: {
        clientId: {
          type: 'string',
          minLength: 1,
          markdownDescription: 'The client id the authorization server registered for this workload.',
        },
        tokenFile: {
          type: 'string',
          minLength: 1,
          markdownDescription: 'The file holding the workload\'s identity token (read at each sign-in, at most 64 KiB). ' + variablesNote,
          examples: ['/var/run/secrets/tokens/mcp-token'],
        },
        tokenEnv: {
          type: 'string',
          pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
          markdownDescription: 'The name of the environment variable holding the workload\'s identity token (of the editor\'s or the CLI\'s process).',
          examples: ['MCP_WORKLOAD_TOKEN'],
        },
      },
    },
    disabled: {
      type: 'boolean',
      default: false,
      markdownDescription: 'Keep the definition but never start this server.',
    },
    autoStart: {
      type: 'boolean',
      default: true,
      markdownDescription: 'Start the server when the host starts. When `false` it starts the first time something uses it.',
    },
    timeout: {
      type: 'object',
      additionalProperties: false,
      default: {},
      markdownDescription: `Timeouts in **milliseconds**: ${TIMEOUT_KEYS.map(k => `\`${k}\` ${TIMEOUT_LIMITS[k].schemaSummary}`).join(', ')}.`,
      properties: timeoutProperties(),
    },
    roots: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      uniqueItems: true,
      markdownDescription: 'Names of the workspace folders this server may see as roots. Leave out to expose every folder; `[]` gives the server no root at all.',
      examples: [['frontend', 'backend']],
    },
    sampling: {
      type: 'object',
      additionalProperties: false,
      default: {},
      markdownDescription: 'What this server may do with `sampling/createMessage` (asking your language models for completions). You always confirm each request.',
      properties: {
        allowedModels: {
          type: 'array',
          items: { type: 'string', minLength: 1 },
          uniqueItems: true,
          default: [],
          markdownDescription: 'Model ids (or parts of them) this server may use. Empty: any model.',
          examples: [['gpt-4o-mini', 'claude-3-5-haiku']],
        },
        model: {
          type: 'string',
          minLength: 1,
          markdownDescription: 'Always use this model id, whatever the server\'s `modelPreferences` say.',
          examples: ['gpt-4o-mini'],
        },
        maxRequestsPerMinute: {
          type: 'integer',
          ...SAMPLING_LIMITS.maxRequestsPerMinute,
          markdownDescription: 'At most this many sampling requests per minute from this server (`0` turns sampling off).',
        },
        maxTokens: {
          type: 'integer',
          ...SAMPLING_LIMITS.maxTokens,
          markdownDescription: 'Upper bound on the `maxTokens` the server may ask for.',
          examples: [2048],
        },
      },
    },
    sandboxEnabled: {
      type: 'boolean',
      default: false,
      markdownDescription:
        'Run this stdio server inside the operating system\'s sandbox (bubblewrap on Linux, sandbox-exec on macOS): it may ' +
        'write only inside its roots, its own temporary folder and `sandbox.filesystem.allowWrite`, cannot read your ' +
        'secrets (`~/.ssh`, `~/.aws`, … and `#mcpHost.sandbox.denyRead#`) and reaches only `sandbox.network.allowedDomains`. ' +
        'Where the sandbox is unavailable (Windows; Linux without bubblewrap or user namespaces) the server does not start.',
    },
    sandbox: {
      type: 'object',
      additionalProperties: false,
      default: {},
      markdownDescription: 'What the sandbox lets this server do besides its roots (with `sandboxEnabled`), in the shape of VS Code\'s `mcp.json` `sandbox`.',
      properties: {
        filesystem: {
          type: 'object',
          additionalProperties: false,
          markdownDescription: 'Files: what the server may write besides its roots and temporary folder, and what more it may not read.',
          properties: {
            allowWrite: {
              type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [],
              markdownDescription: 'More folders the server may write (absolute, `~/…`, or relative to its `cwd`). Its roots and temporary folder are always writable.',
              examples: [['~/.cache/my-server']],
            },
            denyRead: {
              type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [],
              markdownDescription: 'More paths the server may not read, on top of the secrets always denied.',
              examples: [['~/private']],
            },
            denyWrite: {
              type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [],
              markdownDescription: 'Paths inside the writable folders that stay read-only.',
              examples: [['${workspaceFolder}/.git']],
            },
          },
        },
        network: {
          type: 'object',
          additionalProperties: false,
          markdownDescription: 'Network: the only hosts the server may reach (through the sandbox\'s proxy); loopback ports only when listed.',
          properties: {
            allowedDomains: {
              type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [],
              markdownDescription: 'The only hosts the server may reach (`example.com`, `*.example.com`, `api.example.com:443`; `127.0.0.1:8080` for a local port). Empty: no network. `npx`/`uvx` launches may also reach their package registry.',
              examples: [['api.github.com']],
            },
            deniedDomains: {
              type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, default: [],
              markdownDescription: 'Hosts refused even when `allowedDomains` matches them.',
            },
          },
        },
      },
    },
    dev: {
      type: 'object',
      markdownDescription: 'VS Code\'s development options (`watch`, `debug`). Accepted so that `mcp.json` pastes, and ignored.',
    },
  },
  additionalProperties: false,
  allOf: [
    {
      if: { properties: { type: { const: 'stdio' } }, required: ['type'] },
      then: { required: ['command'] },
    },
    {
      if: { properties: { type: { enum: ['http', 'sse'] } }, required: ['type'] },
      then: { required: ['url'] },
    },
    {
      if: { not: { required: ['type'] } },
      then: { anyOf: [{ required: ['command'] }, { required: ['url'] }] },
    },
  ],
} as const;

/**
 * What each field of a server definition is (issue 35: one identity). *identity*: what runs and where values go — a
 * change is another server (another definition key, so launch consent is asked again, and "always" grants, History,
 * the catalogue cache and era verdicts belong to the old one), and a running server restarts. *tuning*: how the same
 * server is run — a change is adopted in place (`Connection.updateDefinition`), never asks consent, never restarts.
 *
 * The one table: `definitionKey` (definitionKey.ts) hashes the identity fields only, and the host's restart rule is
 * that key; `toRawServer` (validate.ts) copies the fields it lists, the resolver (variables.ts) and the import of other
 * clients' configs (import.ts) carry them over, and `RawServer` and `ServerDefinition` are typed from the schema
 * (`ServerFields`), so a new field is the schema's property and its row here (issue 39). `satisfies` makes a schema
 * property without a class a type error, and test/unit/definitionKey.test.ts checks the schema, package.json and this
 * table agree.
 */
export type FieldClass = 'identity' | 'tuning';

export const SERVER_FIELDS = {
  type: 'identity',
  command: 'identity',
  args: 'identity',
  env: 'identity',
  /** The path; its secret-looking values are read at resolve time into `secrets` (below), so its content counts too. */
  envFile: 'identity',
  cwd: 'identity',
  url: 'identity',
  headers: 'identity',
  /** Who the host signs in as (SEP-1933): where a token goes. */
  workloadIdentity: 'identity',
  /** Which folders the server sees (and, sandboxed, may write). */
  roots: 'identity',
  /** Which of the user's models the server may reach, and how much. */
  sampling: 'identity',
  sandboxEnabled: 'identity',
  sandbox: 'identity',
  /** Whether it runs at all: stopping and starting the same server. */
  disabled: 'tuning',
  autoStart: 'tuning',
  timeout: 'tuning',
  /** VS Code's development options: accepted and ignored. */
  dev: 'tuning',
} as const satisfies Record<keyof typeof serverSchema.properties, FieldClass>;

/**
 * Fields of a resolved definition (types.ts `ServerDefinition`) that are not written in settings: `name` (the key under
 * `servers`) and `secrets` (the resolved `${input:}`, header, URL and envFile secret values: resolveServer).
 */
export const RESOLVED_FIELDS = {
  name: 'identity',
  secrets: 'identity',
} as const satisfies Record<string, FieldClass>;

/** Every field of a resolved definition, classified. */
export const DEFINITION_FIELDS = { ...SERVER_FIELDS, ...RESOLVED_FIELDS } as const;

/** The identity fields, in table order. */
export const IDENTITY_FIELDS = (Object.keys(DEFINITION_FIELDS) as (keyof typeof DEFINITION_FIELDS)[])
  .filter(k => DEFINITION_FIELDS[k] === 'identity');

/** A property of the server schema: a key of the table. */
export type ServerField = keyof typeof serverSchema.properties;
export type StdioProperty = typeof STDIO_PROPERTIES[number];
export type HttpProperty = typeof HTTP_PROPERTIES[number];
export type IgnoredProperty = typeof IGNORED_PROPERTIES[number];
/** A property both transport types may have (besides `type`): computed from the table and the two lists above. */
export type CommonProperty = Exclude<ServerField, 'type' | StdioProperty | HttpProperty | IgnoredProperty>;

/**
 * A server definition as settings hold it, typed from the schema (schemaType.ts): every property optional (the schema's
 * `allOf` requires `command` or `url`). `RawServer` (validate.ts) and `ServerDefinition` (types.ts) are derived from it,
 * so a new property of the schema needs no type written anywhere else.
 */
export type ServerFields = FromSchema<typeof serverSchema>;

/** True when `key` is a property of the server schema (an own key of the table, so never `constructor` or `__proto__`). */
export function isServerField(key: string): key is ServerField {
  return Object.prototype.hasOwnProperty.call(SERVER_FIELDS, key);
}

const NOT_COMMON: readonly string[] = ['type', ...STDIO_PROPERTIES, ...HTTP_PROPERTIES, ...IGNORED_PROPERTIES];

/** Properties both transport types may have (besides `type`), in table order: the table's fields in neither list. */
export const COMMON_PROPERTIES: readonly CommonProperty[] = (Object.keys(SERVER_FIELDS) as ServerField[])
  .filter((k): k is CommonProperty => !NOT_COMMON.includes(k));

/** `mcpHost.servers`. */
export const serversSchema = {
  type: 'object',
  default: {},
  markdownDescription:
    'The MCP servers to run, by name, in the shape of VS Code\'s `mcp.json` `servers`. Example: ' +
    '`{ "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] } }`.',
  propertyNames: { minLength: 1 },
  additionalProperties: serverSchema,
} as const;

/** The whole document (`.vscode/mcp.json` shape): `{ servers, inputs }`. */
export const configSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://mcp-host.dev/schemas/server-schema.json',
  title: 'MCP Host servers and inputs',
  type: 'object',
  markdownDescription: 'MCP servers (`servers`) and the inputs they use (`inputs`).',
  properties: {
    servers: serversSchema,
    inputs: inputsSchema,
  },
} as const;

export default configSchema;
