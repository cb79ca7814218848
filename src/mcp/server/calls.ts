/**
 * What the host asks of one server (its calls; what the server asks of the host is serverRequests.ts): each request
 * runs on the running session (starting the server on first use) with the server's timeouts, cancellation,
 * progress and readable, typed errors, in either protocol era; a legacy Streamable HTTP session the server
 * forgot is re-initialized and the request replayed once (H12). Tool calls validate arguments and
 * structured output on the host's bounded schema compiler (the catalogue's validators).
 */
import {
  ProtocolErrorCode,
  type CallToolResult, type CompleteResult, type GetPromptResult, type ListResourcesResult, type LoggingLevel,
  type ReadResourceResult, type RequestOptions as SdkRequestOptions, type StandardSchemaV1, type Tool,
} from '@modelcontextprotocol/client';
import type { RequestOptions } from '../api';
import { nestingMessage, type NestedAnswer } from '../limits';
import { nestsDeeperThan, nestsDeeperThanSliced } from '../jsonWalks';
import { describeAjvErrors } from '../schema/ajvErrors';
import {
  CONNECTION_CLOSED_CODE, McpHostError, REQUEST_TIMEOUT_CODE, describeError, isConnectionClosedError, protocolCodeOf,
} from '../errors';
import type { Redactor } from '../logging/redact';
import { isSessionGone } from '../launch/http';
import type { McpSession } from './session';
import { LOOSE_RESULT, specSchema } from '../spec';
import { parseToolResult } from '../catalogue/toolResult';
import type { ClientFeatures, LogEntry, LogLevel, ServerState } from '../types';
import type { ConnectionTasks } from '../tasks/toolTasks';
import { headerMirroredTool } from '../catalogue/toolHeaders';
import { callWithUrlElicitation } from '../features/urlElicitation';
import * as l10n from '@vscode/l10n';

export const COMPLETION_MAX = 100;

/** What the requests need from their connection (read when used, so settings changes apply). */
export interface RequestHost {
  name(): string;
  state(): ServerState;
  redactor(): Redactor;
  requestTimeout(): number;
  log(level: LogLevel, source: LogEntry['source'], message: string): void;
  /** The running session, starting the server on first use (after a crash: waiting for its restart, cancellable, H585). */
  ready(signal?: AbortSignal): Promise<McpSession>;
  current(): McpSession | undefined;
  reinitialize(old: McpSession): Promise<McpSession>;
  /** Tool calls that run as MCP tasks (toolTasks.ts). */
  toolTasks: ConnectionTasks;
  /** A URLElicitationRequiredError (-32042) offers its URLs and retries once they completed (urlElicitation.ts). */
  elicitUrlRequired?: ClientFeatures['elicitUrlRequired'];
}

/** Each published tools list (a new array on every change) by tool name, the first of a name as `find` gives it. */
const toolsByName = new WeakMap<readonly Tool[], { length: number; byName: Map<string, Tool> }>();

function listedTool(tools: readonly Tool[], name: string): Tool | undefined {
  let index = toolsByName.get(tools);
  if (!index || index.length !== tools.length) {
    const byName = new Map<string, Tool>();
    for (const t of tools) if (!byName.has(t.name)) byName.set(t.name, t);
    index = { length: tools.length, byName };
    toolsByName.set(tools, index);
  }
  return index.byName.get(name);
}

/** Whether a listed tool's inputSchema has x-mcp-header parameters, decided once per tool definition. */
const mirrorsHeaders = new WeakMap<Tool, boolean>();

function mirroredTool(tool: Tool, session: McpSession): Tool | undefined {
  if (session.era !== 'modern' || session.kind !== 'streamableHttp') return undefined;
  let mirrors = mirrorsHeaders.get(tool);
  if (mirrors === undefined) {
    mirrors = headerMirroredTool([tool], tool.name, session) !== undefined;
    mirrorsHeaders.set(tool, mirrors);
  }
  return mirrors ? tool : undefined;
}

/** A declared capability a server may still not serve (H400): its feature is then off for the session. */
type UnservedFeature = 'completions' | 'logging' | 'subscriptions';

/** The capability that declares each feature and what is off without it, as the log line says them. */
const FEATURE: Record<UnservedFeature, { cap: string; off: string }> = {
  completions: { cap: 'completions', off: 'argument completions are off' },
  logging: { cap: 'logging', off: 'its log level is not set' },
  subscriptions: { cap: 'resources.subscribe', off: 'resource subscriptions are off' },
};

export class ServerCalls {
  /** Per session, the declared features the server answered with -32601 (H400). */
  private readonly unserved = new WeakMap<McpSession, Set<UnservedFeature>>();

  constructor(private readonly h: RequestHost) {}

  sdkOptions(opts: RequestOptions | undefined): SdkRequestOptions {
    const timeout = opts?.timeout ?? this.h.requestTimeout();
    const o: SdkRequestOptions = { timeout };
    if (opts?.signal) o.signal = opts.signal;
    if (opts?.onProgress) {
      const cb = opts.onProgress;
      o.onprogress = p => cb({ progress: p.progress, total: p.total, message: p.message });
      o.resetTimeoutOnProgress = true;
      o.maxTotalTimeout = Math.max(timeout * 10, 10 * 60_000);
    }
    return o;
  }

  /**
   * Runs a request on the running session with readable errors. A legacy Streamable HTTP 404 (expired
   * session) re-initializes transparently and replays this one request once (H12).
   */
  async run<T>(method: string, fn: (session: McpSession, o: SdkRequestOptions) => Promise<T>, opts?: RequestOptions): Promise<T> {
    let session = await this.h.ready(opts?.signal);
    const sdkOpts = this.sdkOptions(opts);
    for (let tries = 0; ; tries++) {
      try {
        return await fn(session, sdkOpts);
      } catch (err) {
        this.h.redactor().error(err);
        if (tries === 0 && session.kind === 'streamableHttp' && session.era !== 'modern' && isSessionGone(err) && !session.closing && !opts?.signal?.aborted) {
          session = await this.h.reinitialize(session);
          continue;
        }
        if (opts?.signal?.aborted) throw new McpHostError(l10n.t('{0} to server `{1}` was cancelled', method, this.h.name()), REQUEST_TIMEOUT_CODE, { cause: err });
        // Only a session that really ended is "closed" (a server's own -32000 error is its own).
        if (isConnectionClosedError(err) && (session.closing || session.stopped)) {
          const code = CONNECTION_CLOSED_CODE;
          if (session.stopped) throw new McpHostError(l10n.t('server `{0}` was stopped before answering {1}', this.h.name(), method), code, { cause: err });
          if (session.kind === 'stdio') throw new McpHostError(l10n.t('server `{0}` exited before answering {1}', this.h.name(), method), code, { cause: err });
          throw new McpHostError(l10n.t('server `{0}` closed the connection before answering {1}', this.h.name(), method), code, { cause: err });
        }
        throw new McpHostError(describeError(this.h.name(), method, err, sdkOpts.timeout), protocolCodeOf(err), { cause: err });
      }
    }
  }

  /** H8: use only what the server declared. */
  private require(session: McpSession, cap: 'tools' | 'prompts' | 'resources', what: string): void {
    if (!session.client.getServerCapabilities()?.[cap]) throw new McpHostError(l10n.t('server `{0}` does not offer {1}, so it cannot {2}', this.h.name(), cap, what));
  }

  async callTool(tool: string, args: Record<string, unknown>, opts?: RequestOptions): Promise<CallToolResult> {
    const session = await this.h.ready(opts?.signal);
    this.require(session, 'tools', `call tool \`${tool}\``);
    const v = session.catalogue?.toolValidators(tool);
    if (v?.invalid) throw new McpHostError(v.unusable ?? l10n.t('server `{0}` cannot call {1}', this.h.name(), v.invalid));
    if (v?.input && !v.input(args ?? {})) {
      throw new McpHostError(l10n.t('invalid arguments for tool `{0}` on server `{1}`: {2}', tool, this.h.name(), describeAjvErrors(v.input.errors)), ProtocolErrorCode.InvalidParams);
    }
    const tasks = this.h.toolTasks;
    // The tool looked up by name in the list as held (a call does not refetch a list whose ttlMs ran out: catalogue.ts `held`).
    const listed = session.catalogue ? listedTool(session.catalogue.held.tools, tool) : undefined;
    // SEP-2243: a tool with x-mcp-header parameters goes through the SDK's callTool, which mirrors them into
    // headers (the task session's requests carry no headers of their own, so such a call stays plain).
    const mirrored = listed && mirroredTool(listed, session);
    // On 2026-07-28 with the Tasks extension every other call goes through the task session (the server decides
    // per call whether a task comes back, SEP-2663); on 2025-11-25 the tool's taskSupport and the mode decide.
    const asTask = tasks.decide({ tool: listed ?? { name: tool }, capabilities: session.client.getServerCapabilities(), protocolVersion: session.protocolVersion, mode: opts?.task })
      && !(mirrored && session.era === 'modern');
    this.h.log('info', 'lifecycle', `calling tool ${tool}${asTask ? ' as a task' : ''}`);
    const urlFlow = this.h.elicitUrlRequired;
    const name = this.h.name();
    const raw = await callWithUrlElicitation(
      () => (asTask
        ? tasks.runTask(tool, args ?? {}, { ...opts, onUpdate: opts?.onTask })
        : tasks.timed(tool, () => this.run('tools/call', (s, o) => (mirrored
          ? s.client.callTool({ name: tool, arguments: args ?? {} }, { ...o, toolDefinition: mirrored })
          : s.client.request({ method: 'tools/call', params: { name: tool, arguments: args ?? {} } }, LOOSE_RESULT, o)), opts))),
      urlFlow && (e => urlFlow(name, e, opts?.signal)));
    await this.boundedSliced(raw, { kind: 'tool', name: tool });
    return this.checkToolResult(session, tool, raw);
  }

  /** A task's result, checked as a plain call's is. */
  async taskResult(taskId: string): Promise<CallToolResult> {
    const tool = this.h.toolTasks.tasks.find(t => t.taskId === taskId)?.tool ?? 'unknown';
    const raw = await this.h.toolTasks.result(taskId);
    await this.boundedSliced(raw, { kind: 'tool', name: tool });
    const session = this.h.current();
    return session ? this.checkToolResult(session, tool, raw) : parseToolResult(this.h.name(), tool, raw).result;
  }

  /** Refuses an answer nested deeper than MAX_NESTING_DEPTH before anything recursive walks it; returns it. */
  private bounded<T>(result: T, what: NestedAnswer): T {
    if (nestsDeeperThan(result)) throw new McpHostError(nestingMessage(this.h.name(), what));
    return result;
  }

  /** {@link bounded} for a tool result, which may be big: the walk yields to the event loop every few ms. */
  private async boundedSliced(result: unknown, what: NestedAnswer): Promise<void> {
    if (await nestsDeeperThanSliced(result)) throw new McpHostError(nestingMessage(this.h.name(), what));
  }

  /** A tool result as the host passes it on: malformed blocks replaced, structuredContent checked (H25). */
  private checkToolResult(session: McpSession, tool: string, raw: unknown): CallToolResult {
    // A malformed content block becomes a one-line error in its place; the valid blocks are kept.
    const { result, problems } = parseToolResult(this.h.name(), tool, raw);
    for (const p of problems) this.h.log('warning', 'lifecycle', p);
    // H25: validate structuredContent against the tool's outputSchema (every tool, every page), on the bounded compiler.
    const out = (this.h.current() ?? session).catalogue?.toolValidators(tool)?.output;
    if (out && !result.isError) {
      if (result.structuredContent === undefined) {
        throw new McpHostError(l10n.t('tool `{0}` on server `{1}` declares an outputSchema but returned no structuredContent', tool, this.h.name()));
      }
      if (!out(result.structuredContent)) {
        throw new McpHostError(l10n.t('tool `{0}` on server `{1}` returned structuredContent that does not match its outputSchema: {2}', tool, this.h.name(), describeAjvErrors(out.errors, 'structuredContent')));
      }
    }
    return result;
  }

  async getPrompt(prompt: string, args: Record<string, string>, opts?: RequestOptions): Promise<GetPromptResult> {
    this.require(await this.h.ready(), 'prompts', `get prompt \`${prompt}\``);
    return this.bounded(await this.run('prompts/get', (s, o) => s.client.request({ method: 'prompts/get', params: { name: prompt, arguments: args } }, specSchema('GetPromptResult'), o), opts), { kind: 'prompt', name: prompt });
  }

  async readResource(uri: string, opts?: RequestOptions): Promise<ReadResourceResult> {
    this.require(await this.h.ready(), 'resources', `read \`${uri}\``);
    return this.bounded(await this.run('resources/read', (s, o) => s.client.request({ method: 'resources/read', params: { uri } }, specSchema('ReadResourceResult'), o), opts), { kind: 'resource', name: uri });
  }

  async listResourcesPage(cursor?: string, opts?: RequestOptions): Promise<ListResourcesResult> {
    this.require(await this.h.ready(), 'resources', 'list resources');
    return this.run('resources/list', (s, o) => s.client.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } }, specSchema('ListResourcesResult'), o), opts);
  }

  async complete(
    ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
    argument: { name: string; value: string },
    context?: Record<string, string>,
    opts?: RequestOptions,
  ): Promise<CompleteResult['completion']> {
    const session = await this.h.ready();
    if (!session.client.getServerCapabilities()?.completions) return { values: [] };
    const r = await this.declared(session, 'completions', 'completion/complete', () => this.run('completion/complete', (s, o) => s.client.request({
      method: 'completion/complete', params: { ref, argument, ...(context ? { context: { arguments: context } } : {}) },
    }, specSchema('CompleteResult'), o), opts));
    return r ? { ...r.completion, values: r.completion.values.slice(0, COMPLETION_MAX) } : { values: [] };
  }

  /** Subscribes to `notifications/resources/updated` for `uri` (legacy: resources/subscribe; modern: subscriptions/listen). */
  async subscribe(uri: string): Promise<void> {
    const session = await this.h.ready();
    const unsupported = `server \`${this.h.name()}\` does not support resource subscriptions`;
    if (!session.client.getServerCapabilities()?.resources?.subscribe) throw new McpHostError(unsupported);
    const method = session.era === 'modern' ? 'subscriptions/listen' : 'resources/subscribe';
    const done = await this.declared(session, 'subscriptions', method, async () => { await this.run(method, (s, o) => s.subscribe(uri, o)); return true; });
    if (!done) throw new McpHostError(l10n.t('{0} (it declares resources.subscribe but answered {1} with -32601)', unsupported, method), ProtocolErrorCode.MethodNotFound);
  }

  async unsubscribe(uri: string): Promise<void> {
    const session = await this.h.ready();
    if (!session.client.getServerCapabilities()?.resources?.subscribe || this.unserved.get(session)?.has('subscriptions')) return;
    await this.run('resources/unsubscribe', (s, o) => s.unsubscribe(uri, o));
  }

  /** `logging/setLevel` on a legacy session (the 2026-07-28 revision has no such request). */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    const st = this.h.state();
    const session = this.h.current();
    if (st.kind !== 'running' || !st.capabilities.logging || st.era === 'modern' || !session) return;
    await this.declared(session, 'logging', 'logging/setLevel', () => this.run('logging/setLevel', (s, o) => s.client.request({ method: 'logging/setLevel', params: { level } }, specSchema('EmptyResult'), o)));
  }

  /**
   * H400: a request of a capability the server declared (completions, logging, resources.subscribe). Answered with
   * -32601 Method not found, the feature is off for this session with one log line, as a declared list the server
   * does not implement is empty (H190): undefined now and for every later request of it, without asking again; the
   * rest of the server works. Any other failure is the caller's.
   */
  private async declared<T>(session: McpSession, feature: UnservedFeature, method: string, fn: () => Promise<T>): Promise<T | undefined> {
    if (this.unserved.get(session)?.has(feature)) return undefined;
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof McpHostError && err.code === ProtocolErrorCode.MethodNotFound)) throw err;
      let off = this.unserved.get(session);
      if (!off) this.unserved.set(session, off = new Set());
      if (!off.has(feature)) {
        off.add(feature);
        this.h.log('warning', 'lifecycle', `server \`${this.h.name()}\` declares ${FEATURE[feature].cap} but does not implement ${method} (-32601): ${FEATURE[feature].off} for it`);
      }
      return undefined;
    }
  }

  /** Proves the server answers: ping (legacy), server/discover (modern, which has no ping). */
  async ping(opts?: RequestOptions): Promise<void> {
    const session = await this.h.ready();
    await this.run(session.era === 'modern' ? 'server/discover' : 'ping', (s, o) => s.healthCheck(o), opts);
  }

  /**
   * Any request on the running session (starting the server on first use), with this server's timeouts,
   * cancellation, progress and readable errors, in either era (a 2026-07-28 `input_required` round is answered
   * through the same sampling/elicitation/roots handlers). The result is checked against `resultSchema` (any
   * Standard Schema; default: any JSON object).
   */
  async request<T = Record<string, unknown>>(
    method: string, params?: Record<string, unknown>, resultSchema?: StandardSchemaV1<unknown, T>, opts?: RequestOptions,
  ): Promise<T> {
    const schema = (resultSchema ?? LOOSE_RESULT) as StandardSchemaV1<unknown, T>;
    return this.run(method, (s, o) => s.client.request({ method, ...(params ? { params } : {}) }, schema, o) as Promise<T>, opts);
  }
}
