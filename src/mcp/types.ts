/**
 * The core's public contract: server definitions, connection state, catalogue, client features and
 * log events. Everything here is editor-free; src/extension and src/cli build on these shapes.
 * Protocol payload types come from the SDK (`@modelcontextprotocol/client`).
 */
import type {
  Implementation, ServerCapabilities, Tool, Prompt, Resource, ResourceTemplateType as ResourceTemplate,
  CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult, LoggingLevel,
  ElicitRequestURLParams,
} from '@modelcontextprotocol/client';
import type { UrlElicitationOutcome } from './features/urlElicitation';
import type { CommonProperty, HttpProperty, serverSchema, ServerFields, StdioProperty } from './config/schema';
import type { FromSchema } from './config/schemaType';

// ---------------------------------------------------------------------------------------------
// Configuration (the shape of VS Code's mcp.json, under `mcpHost.servers` / `mcpHost.inputs`)
// ---------------------------------------------------------------------------------------------

// The fields are the server schema's (config/schema.ts `serverSchema`, documented there by `markdownDescription`),
// typed from it: a new property of the schema is a field here with no edit (issue 39).

type Property = typeof serverSchema.properties;

/** Timeouts in milliseconds. `startup` covers spawn/connect + `initialize`; `request` each later request. */
export type TimeoutConfig = FromSchema<Property['timeout']>;

/** Per-server sampling policy: allowed models, a pinned model, requests per minute, a cap on `maxTokens`. */
export type SamplingPolicy = FromSchema<Property['sampling']>;

/** The `sandbox` object of a stdio server, in the shape of VS Code's `mcp.json` (paths absolute or `~/…` once resolved). */
export type SandboxSettings = FromSchema<Property['sandbox']>;

/** `workloadIdentity` of an http/sse server (SEP-1933): exactly one of `tokenFile` (variables resolved) and `tokenEnv`. */
export type WorkloadIdentityConfig = FromSchema<Property['workloadIdentity']>;

/** Fields the resolver always fills (config/variables.ts): optional in settings, present in a resolved definition. */
type Filled<P extends keyof ServerFields, F extends P> = Omit<Pick<ServerFields, P>, F> & Required<Pick<ServerFields, F>>;

interface ServerDefinitionBase extends Pick<ServerFields, CommonProperty> {
  /** The key under `servers`: unique, shown everywhere. */
  name: string;
  /**
   * Values that never appear in any output (set by resolveServer): `${input:}` values, header values, URL
   * query values and credentials, `envFile` and `env` values whose names look secret, and `${env:}` values
   * placed into args, headers or the URL. `redactorFor(def)` (redact.ts) hides them.
   */
  secrets?: string[];
}

/** A stdio server: `command` resolved (an absolute path at spawn time), `args`, `env` (`null` removes a variable), … */
export interface StdioServerDefinition extends ServerDefinitionBase, Filled<StdioProperty, 'command' | 'args' | 'env'> {
  type: 'stdio';
}

export interface HttpServerDefinition extends ServerDefinitionBase, Filled<HttpProperty, 'url' | 'headers'> {
  /** `http` = Streamable HTTP with SSE fallback; `sse` = the 2024-11-05 HTTP+SSE transport only. */
  type: Exclude<ServerFields['type'], 'stdio' | undefined>;
}

/** A fully validated and resolved server definition (no `${…}` left). */
export type ServerDefinition = StdioServerDefinition | HttpServerDefinition;

export interface InputDefinition {
  id: string;
  type: 'promptString';
  description?: string;
  password?: boolean;
  default?: string;
}

/** A configuration problem that names the server, the setting path and the fix. */
export interface ConfigError {
  /** Server name, or undefined for a problem with the whole document. */
  server?: string;
  /** Setting path, e.g. `mcpHost.servers.github.env.TOKEN`. */
  path: string;
  /** One readable sentence with the bad value and how to fix it. */
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Connection state (a tagged union; every switch ends in assertNever)
// ---------------------------------------------------------------------------------------------

export type ServerState =
  | { kind: 'stopped' }
  | {
      kind: 'starting';
      since: number;
      attempt: number;
      /** The automatic restart after a running session crashed (H585): its tools stay offered, calls wait for it. */
      restarting?: true;
    }
  | {
      kind: 'running';
      since: number;
      /** The negotiated protocol version (e.g. `2026-07-28`, `2025-11-25`). */
      protocolVersion: string;
      /**
       * The protocol era the SDK negotiated: 'modern' (2026-07-28 and later: stateless, `server/discover`,
       * `input_required` rounds, `subscriptions/listen`) or 'legacy' (the `initialize` handshake, 2024-11-05 to 2025-11-25).
       */
      era: 'modern' | 'legacy';
      serverInfo: Implementation;
      capabilities: ServerCapabilities;
      instructions?: string;
      /** Which transport carries the session (for `http`: Streamable HTTP, or SSE after the fallback). */
      transport?: 'stdio' | 'streamableHttp' | 'sse';
    }
  | {
      kind: 'error';
      /** What went wrong, readable (no stack traces). */
      message: string;
      /** The last stderr lines (at most 50). */
      stderrTail: string[];
      /** True when restarts were given up after a crash loop. */
      crashLoop: boolean;
      /** When the next automatic restart happens (epoch ms), if one is scheduled. */
      retryAt?: number;
      /**
       * A running session crashed and its automatic restart is scheduled (H585): its tools stay offered and a call
       * starts the restart at once and waits for it. Not set after a failed restart, a crash loop or a user's stop.
       */
      restarting?: true;
      /**
       * True when the fix is in the server's settings (a problem of its definition, a command not found, a missing
       * file or folder): known from the error itself, never from the message's words, which are localised (issue 40).
       */
      fromSettings?: boolean;
    };

export type ServerStateKind = ServerState['kind'];

/**
 * True while a crashed server waits for (or is in) its automatic restart (H585): its last tools stay offered to models
 * and a call waits for the restart instead of failing. False once the restart failed or the crash-loop guard gave up.
 */
export function awaitsRestart(s: ServerState): boolean {
  return (s.kind === 'error' || s.kind === 'starting') && s.restarting === true;
}

/** True when a server's tools may be called now or after its automatic restart (running, or {@link awaitsRestart}). */
export function runsOrRestarts(s: ServerState): boolean {
  return s.kind === 'running' || awaitsRestart(s);
}

/** Everything a server offers, every page fetched. */
export interface Catalogue {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

// ---------------------------------------------------------------------------------------------
// Client features, injected by the host's owner (the extension or the CLI)
// ---------------------------------------------------------------------------------------------

export interface Root {
  /** A `file://` URI. */
  uri: string;
  name?: string;
}

/** A language model the host can offer for sampling (the extension maps vscode.lm models to these). */
export interface ModelDescriptor {
  id: string;
  name: string;
  family?: string;
  vendor?: string;
  /** 0..1, higher = more expensive / faster / smarter; used with modelPreferences priorities. */
  cost?: number;
  speed?: number;
  intelligence?: number;
}

export interface SamplingContext {
  server: string;
  request: CreateMessageRequest['params'];
  /** The model the core picked from modelPreferences and the server's policy. */
  model: ModelDescriptor;
  signal: AbortSignal;
}

export interface ClientFeatures {
  /** Models available for sampling; sampling is declared only when this and `sample` are given. */
  listModels?: () => Promise<ModelDescriptor[]>;
  /** Approve, run and review a sampling request; throw (or reject) to refuse. */
  sample?: (ctx: SamplingContext) => Promise<CreateMessageResult>;
  /** Elicitation, form and URL mode (`params.mode === 'url'`); declared only when given. */
  elicit?: (server: string, request: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>;
  /** `notifications/elicitation/complete` from a server: closes whatever waits on that elicitation. */
  elicitationComplete?: (server: string, elicitationId: string) => void;
  /**
   * The URL flow for one elicitation of a URLElicitationRequiredError (-32042) a request failed with:
   * consent, open, wait for the server's completion. 'complete' retries the request (urlElicitation.ts).
   */
  elicitUrlRequired?: (server: string, elicitation: ElicitRequestURLParams, signal?: AbortSignal) => Promise<UrlElicitationOutcome>;
}

// ---------------------------------------------------------------------------------------------
// Logs
// ---------------------------------------------------------------------------------------------

export type LogLevel = 'trace' | 'debug' | 'info' | 'warning' | 'error';

export interface LogEntry {
  server: string;
  level: LogLevel;
  /** Where the line came from. */
  source: 'stderr' | 'server' | 'lifecycle' | 'trace' | 'sandbox';
  message: string;
  /** For `server` entries: the MCP logger name and level as sent. */
  logger?: string;
  mcpLevel?: LoggingLevel;
  time: number;
}
