/**
 * Readable errors (H30). Everything the core throws at its users or puts into an error state goes
 * through `describeError`, so people read "server `x` did not answer tools/call within 60 s", not
 * "MCP error -32001: Request timed out".
 */
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';

/** An error whose message is already meant for a person. */
export class McpHostError extends Error {
  constructor(message: string, readonly code?: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpHostError';
  }
}

/**
 * The `data` of a JSON-RPC error that the host itself made up for a request (a response too large or
 * malformed to deliver): compared by identity, so no server can forge it. `describeError` shows its
 * message as is (it already names the server, and the limit and setting where one applies).
 */
export const HOST_REJECTED: Readonly<Record<string, never>> = Object.freeze({});

/**
 * The HTTP status carried by an SDK transport error (StreamableHTTPError, SseError), if any.
 * Recognised with `instanceof` on the SDK's exported classes: class names do not survive minification.
 */
export function httpStatusOf(err: unknown): number | undefined {
  if (!(err instanceof StreamableHTTPError || err instanceof SseError)) return undefined;
  const code = err.code;
  if (typeof code === 'number' && code >= 100 && code <= 599) return code;
  // Some SDK paths put the status only into the message ("SSE error: Non-200 status code (404)").
  const m = /^(?:Streamable HTTP|SSE) error: .*?\b(?:HTTP )?(\d{3})\b/.exec(err.message);
  return m ? Number(m[1]) : undefined;
}

/** True for the SDK's authorization failures (no usable token, or an OAuth error from the authorization server). */
export function isAuthError(err: unknown): err is Error {
  return err instanceof UnauthorizedError || err instanceof OAuthError;
}

/** True for a request aborted through an AbortSignal (a DOMException or Node AbortError: platform names, never minified). */
export function isAbortError(err: unknown): boolean {
  return err instanceof Error && err.name === 'AbortError';
}

/** True for a schema validation error (zod's issues list), recognised by shape, not by class name. */
function isValidationError(err: unknown): err is Error & { issues: unknown[] } {
  return err instanceof Error && Array.isArray((err as { issues?: unknown }).issues);
}

const CODE_TEXT: Record<number, string> = {
  [ErrorCode.ParseError]: 'the server could not parse the message (-32700)',
  [ErrorCode.InvalidRequest]: 'the server called the request invalid (-32600)',
  [ErrorCode.MethodNotFound]: 'the server does not implement this method (-32601)',
  [ErrorCode.InvalidParams]: 'the server rejected the arguments (-32602)',
  [ErrorCode.InternalError]: 'the server hit an internal error (-32603)',
  [-32002]: 'resource not found (-32002)',
};

/** Strips the SDK's "MCP error -32601: " prefix. */
function bareMessage(err: McpError): string {
  return err.message.replace(/^(?:MCP error -?\d+: )+/, ''); // a server's own McpError text carries the prefix too
}

/**
 * One readable sentence for an error from `method` on `server`. Never includes a stack trace.
 * `timeoutMs` names the timeout that applied, for timeouts.
 */
export function describeError(server: string, method: string, err: unknown, timeoutMs?: number): string {
  if (err instanceof McpHostError) return err.message;
  if (err instanceof McpError) {
    const detail = bareMessage(err);
    if (err.data === HOST_REJECTED) return detail;
    switch (err.code) {
      case ErrorCode.RequestTimeout:
        if (/cancel/i.test(detail) || (timeoutMs === undefined && !/timed out/i.test(detail))) {
          return `${method} to server \`${server}\` was cancelled${detail && !/^Request/.test(detail) ? `: ${detail}` : ''}`;
        }
        return `server \`${server}\` did not answer ${method} within ${fmtMs(timeoutMs ?? (err.data as { timeout?: number } | undefined)?.timeout)}`;
      case ErrorCode.ConnectionClosed:
        if (/cancel/i.test(detail)) return `${method} to server \`${server}\` was cancelled`;
        // The SDK's own "Connection closed"; anything else with -32000 is the server's own error, said as it is.
        if (detail === 'Connection closed') return `server \`${server}\` closed the connection before answering ${method}`;
        return `${method} on server \`${server}\` failed (error ${err.code}): ${detail}`;
      default: {
        const known = CODE_TEXT[err.code];
        if (known) return `${method} on server \`${server}\` failed: ${known}: ${detail}`;
        return `${method} on server \`${server}\` failed (error ${err.code}): ${detail}`;
      }
    }
  }
  if (isAuthError(err)) {
    const code = err instanceof OAuthError ? err.errorCode : undefined;
    return `server \`${server}\` requires authorization and signing in failed${code ? ` (${code})` : ''}: ${messageOf(err)}. Sign in again, or set an Authorization header in the server's \`headers\` setting`;
  }
  const status = httpStatusOf(err);
  if (status === 401) return `server \`${server}\` requires authorization (HTTP 401); sign in or set an Authorization header`;
  if (status === 403) return `server \`${server}\` refused access (HTTP 403): the credentials in its \`headers\` setting or its sign-in do not grant access`;
  if (status !== undefined) return `${method} on server \`${server}\` failed with HTTP ${status}: ${messageOf(err)}`;
  if (isAbortError(err)) {
    return `${method} to server \`${server}\` was cancelled`;
  }
  const code = (err as { code?: unknown } | undefined)?.code ?? ((err as { cause?: { code?: unknown } } | undefined)?.cause)?.code;
  if (code === 'ECONNREFUSED') return `cannot reach server \`${server}\`: connection refused (is it running, and is the url right?)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot reach server \`${server}\`: the host name does not resolve (check the url)`;
  if (code === 'ECONNRESET') return `server \`${server}\` reset the connection during ${method}`;
  if (isValidationError(err)) {
    return `server \`${server}\` answered ${method} with a malformed result: ${zodSummary(err)}`;
  }
  return `${method} on server \`${server}\` failed: ${messageOf(err)}`;
}

/** The message of anything thrown, single line, no stack. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    const base = err.message || err.name;
    if (cause instanceof Error && cause.message && !base.includes(cause.message)) return `${base} (${cause.message})`;
    return base;
  }
  if (typeof err === 'string') return err;
  try { return JSON.stringify(err); } catch { return String(err); }
}

function zodSummary(err: unknown): string {
  const issues = (err as { issues?: { path?: unknown[]; message?: string }[] }).issues;
  if (!Array.isArray(issues) || issues.length === 0) return messageOf(err);
  return issues.slice(0, 3).map(i => `${(i.path ?? []).join('.') || '(root)'}: ${i.message}`).join('; ');
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) return 'the time limit';
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${ms} ms`;
}
