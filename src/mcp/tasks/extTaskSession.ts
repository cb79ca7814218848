/**
 * The host's side of `@modelcontextprotocol/ext-tasks`, the official client side of tasks (the only module that loads
 * it): one task session per server session, made from the SDK Client. On MCP 2026-07-28 (the
 * `io.modelcontextprotocol/tasks` extension, SEP-2663) with the host's request coordinator as `rawDispatch`
 * and the host's client description as `v2RequestFraming` (rawRequests.ts); `input_required` is answered
 * by ext-tasks through the session's input handler (the host's usual elicitation and sampling paths) and
 * sent back with `tasks/update`. On 2025-11-25 (the `tasks` capability, SEP-1686) through the Client itself;
 * the server's requests for a task reach the Client's own handlers.
 *
 * Also what the tracker (extTaskTracker.ts) hands ext-tasks and takes back from it: the codec of a tool result
 * (ANY_OBJECT), and ext-tasks' errors read as the host words them (a malformed answer, a server's JSON-RPC error as
 * the SDK's own class, whether the server answered at all).
 */
import type { ApplicationInputRequest, TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client' with { 'resolution-mode': 'import' };
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { extTasksZod } from '../server/sdkHandover';
import { McpHostError, messageOf } from '../errors';
import type { Redactor } from '../logging/redact';

export type { TaskEnabledSession };
/** A task's input request as ext-tasks hands it to the host (elicitation, sampling or roots). */
export type TaskInputRequest = ApplicationInputRequest;

export interface TaskSessionOptions {
  endpointId: string;
  /** Only for a 2026-07-28 session: the host's request coordinator and its client description (rawRequests.ts). */
  raw?: { dispatch: unknown; framing: { protocolVersion: string; clientInfo: unknown; clientCapabilities: unknown } };
  onInputRequest: (request: TaskInputRequest, signal: AbortSignal) => Promise<unknown>;
  onError: (err: Error) => void;
}

/** ext-tasks' client module once a session loaded it (its error classes, for `instanceof`). */
let loadedExtTasks: Awaited<ReturnType<typeof import('../server/extTasksModule').loadExtTasks>> | undefined;

/**
 * One ext-tasks task session on a session's SDK Client (the only place the host loads ext-tasks; an ES
 * module, loaded with the first task-capable server).
 */
export async function createTaskSession(client: unknown, o: TaskSessionOptions): Promise<TaskEnabledSession> {
  // Its own bundle dist/ext-tasks.js, loaded with the first task-capable server, on this SDK (extTasksModule.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadExtTasks } = require('../server/extTasksModule') as typeof import('../server/extTasksModule');
  const mod = loadedExtTasks = await loadExtTasks({ Client, ProtocolError, z: extTasksZod() });
  const { createTaskSessionFromClient } = mod;
  return createTaskSessionFromClient(client as never, {
    endpointId: o.endpointId,
    ...(o.raw && {
      rawDispatch: o.raw.dispatch as never,
      v2RequestFraming: {
        protocolVersion: o.raw.framing.protocolVersion,
        clientInfo: JSON.parse(JSON.stringify(o.raw.framing.clientInfo)),
        clientCapabilities: JSON.parse(JSON.stringify(o.raw.framing.clientCapabilities)),
      },
    }),
    onInputRequest: ((request: ApplicationInputRequest, ctx: { signal?: AbortSignal }) => o.onInputRequest(request, ctx.signal ?? new AbortController().signal)) as never,
    onError: o.onError,
  } as never);
}

/**
 * A tool result as the host takes it from ext-tasks: any JSON object (with or without `resultType`); the
 * connection checks it as every tool result (parseToolResult, the outputSchema).
 */
export const ANY_OBJECT = {
  parse: (value: unknown) => (value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { success: true as const, value: value as Record<string, unknown> }
    : { success: false as const, error: new Error('the tool result is not an object') as never }),
};

/** The error is a JSON-RPC error answer: the SDK's ProtocolError or ext-tasks' JsonRpcResponseError. */
function isRpcError(e: unknown): e is Error & { code: number; data?: unknown } {
  return e instanceof ProtocolError || (loadedExtTasks !== undefined && e instanceof loadedExtTasks.JsonRpcResponseError);
}

/** The error is the server's JSON-RPC answer (not the connection closing, -32000, or a request timing out, -32001). */
export function serverAnswered(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (isRpcError(e)) return e.code !== -32000 && e.code !== -32001;
  }
  return false;
}

/** An error of ext-tasks as the host's readable error: `what` failed, the message redacted. */
export function readableTaskError(err: unknown, what: string, redactor: Redactor): Error {
  if (err instanceof McpHostError) return err;
  const code = (err as { code?: unknown }).code;
  // A server's JSON-RPC error (ext-tasks' JsonRpcResponseError) as the SDK's own error class for its code (a URL
  // elicitation required, -32042, becomes the SDK's UrlElicitationRequiredError), so the host's URL flow and
  // codeOf/errorDataOf see it as on a plain call.
  const rpc = isRpcError(err) ? err : undefined;
  const cause = rpc ? ProtocolError.fromError(rpc.code, rpc.message, rpc.data) : err;
  return new McpHostError(`${what}: ${redactor.text(messageOf(err))}`, typeof code === 'number' ? code : undefined, { cause });
}

/** Why a task failed, in words (a malformed answer of the server says what is wrong with it). */
export function taskFailure(err: unknown, redactor: Redactor): string {
  const bad = schemaProblem(err);
  return bad ? `the server's answer about it is malformed: ${redactor.cap(bad, 300).text}` : messageOf(err);
}

/**
 * What is wrong with a server's answer ext-tasks refused (its schema check, through causes): the first
 * problem as "`path`: message", or undefined for any other error.
 */
export function schemaProblem(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const issues = (e as { issues?: unknown }).issues;
    if (Array.isArray(issues) && issues.length > 0) {
      const first = issues[0] as { path?: unknown; message?: unknown };
      const where = Array.isArray(first.path) && first.path.length ? `\`${first.path.map(String).join('.')}\`: ` : '';
      return `${where}${String(first.message ?? 'invalid')}`;
    }
  }
  return undefined;
}
