/**
 * Readable errors (H30). Everything the core throws at its users or puts into an error state goes
 * through `describeError`, so people read "server `x` did not answer tools/call within 60 s", not
 * "MCP error -32001: Request timed out".
 */
import {
  IssuerMismatchError, AuthorizationServerMismatchError, InsecureTokenEndpointError, InsufficientScopeError, OAuthClientFlowError,
  OAuthError, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode, SdkHttpError, SseError,
  UnauthorizedError, UnsupportedProtocolVersionError,
} from '@modelcontextprotocol/client';

/**
 * The JSON-RPC codes the host gives its own errors for a request that timed out or was cancelled, and
 * for a session that closed (SDK 1.x's -32001 / -32000; SDK v2 reports these locally as SdkError).
 */
export const REQUEST_TIMEOUT_CODE = -32001;
export const CONNECTION_CLOSED_CODE = -32000;

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
 * The HTTP status carried by an SDK transport error (SdkHttpError, SseError), if any.
 * Recognised with `instanceof` on the SDK's exported classes: class names do not survive minification.
 */
export function httpStatusOf(err: unknown): number | undefined {
  if (err instanceof SdkHttpError) {
    const status = err.status;
    return typeof status === 'number' && status >= 100 && status <= 599 ? status : undefined;
  }
  if (!(err instanceof SseError)) return undefined;
  const code = err.code;
  if (typeof code === 'number' && code >= 100 && code <= 599) return code;
  // Some SDK paths put the status only into the message ("SSE error: Non-200 status code (404)").
  const m = /^SSE error: .*?\b(?:HTTP )?(\d{3})\b/.exec(err.message);
  return m ? Number(m[1]) : undefined;
}

/** True for the SDK's authorization failures (no usable token, an OAuth error, or a failed sign-in flow check). */
export function isAuthError(err: unknown): err is Error {
  return err instanceof UnauthorizedError || err instanceof OAuthError || err instanceof OAuthClientFlowError;
}

/** True for the SDK's "the connection closed" (a local error, never a server's own). */
export function isConnectionClosedError(err: unknown): boolean {
  return err instanceof SdkError && (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected);
}

/** The JSON-RPC code of a server's error, if `err` is one. */
export function protocolCodeOf(err: unknown): number | undefined {
  return err instanceof ProtocolError ? err.code : undefined;
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
  [ProtocolErrorCode.ParseError]: 'the server could not parse the message (-32700)',
  [ProtocolErrorCode.InvalidRequest]: 'the server called the request invalid (-32600)',
  [ProtocolErrorCode.MethodNotFound]: 'the server does not implement this method (-32601)',
  [ProtocolErrorCode.InvalidParams]: 'the server rejected the arguments (-32602)',
  [ProtocolErrorCode.InternalError]: 'the server hit an internal error (-32603)',
  [ProtocolErrorCode.ResourceNotFound]: 'resource not found (-32002)',
  [ProtocolErrorCode.MissingRequiredClientCapability]: 'the server needs a client capability this host did not declare (-32021)',
};

/** Strips the SDK's "MCP error -32601: " prefix. */
function bareMessage(err: Error): string {
  return err.message.replace(/^(?:MCP error -?\d+: )+/, ''); // a server's own McpError text carries the prefix too
}

/**
 * One readable sentence for an error from `method` on `server`. Never includes a stack trace.
 * `timeoutMs` names the timeout that applied, for timeouts.
 */
export function describeError(server: string, method: string, err: unknown, timeoutMs?: number): string {
  if (err instanceof McpHostError) return err.message;
  if (err instanceof UnsupportedProtocolVersionError) {
    return `server \`${server}\` does not support the protocol versions this host speaks (it supports ${err.supported.join(', ') || 'none it named'}); update the server or the host`;
  }
  if (err instanceof ProtocolError) {
    const detail = bareMessage(err);
    if (err.data === HOST_REJECTED) return detail;
    switch (err.code) {
      case REQUEST_TIMEOUT_CODE:
        if (/cancel/i.test(detail) || (timeoutMs === undefined && !/timed out/i.test(detail))) {
          return `${method} to server \`${server}\` was cancelled${detail && !/^Request/.test(detail) ? `: ${detail}` : ''}`;
        }
        return `server \`${server}\` did not answer ${method} within ${fmtMs(timeoutMs ?? (err.data as { timeout?: number } | undefined)?.timeout)}`;
      default: {
        const known = Object.hasOwn(CODE_TEXT, err.code) ? CODE_TEXT[err.code] : undefined;
        if (known) return `${method} on server \`${server}\` failed: ${known}: ${detail}`;
        return `${method} on server \`${server}\` failed (error ${err.code}): ${detail}`;
      }
    }
  }
  if (err instanceof SdkError && !(err instanceof SdkHttpError)) {
    const detail = bareMessage(err);
    switch (err.code) {
      case SdkErrorCode.RequestTimeout:
        if (/cancel/i.test(detail)) return `${method} to server \`${server}\` was cancelled`;
        return `server \`${server}\` did not answer ${method} within ${fmtMs(timeoutMs ?? (err.data as { timeout?: number } | undefined)?.timeout)}`;
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        if (/cancel/i.test(detail)) return `${method} to server \`${server}\` was cancelled`;
        return `server \`${server}\` closed the connection before answering ${method}`;
      case SdkErrorCode.CapabilityNotSupported:
        return `server \`${server}\` does not offer what ${method} needs: ${detail}`;
      case SdkErrorCode.InvalidResult:
        return `server \`${server}\` answered ${method} with a malformed result: ${detail}`;
      case SdkErrorCode.EraNegotiationFailed:
        return networkProblem(server, method, err) ?? `could not agree on a protocol version with server \`${server}\`: ${detail}; check the server's \`url\` or \`command\` setting, or update the server`;
      case SdkErrorCode.InputRequiredRoundsExceeded:
        return `server \`${server}\` kept asking for more input during ${method}; it was stopped after too many rounds`;
      case SdkErrorCode.MethodNotSupportedByProtocolVersion:
        return `server \`${server}\` speaks a protocol version without ${method}`;
      default:
        return `${method} on server \`${server}\` failed (${err.code}): ${detail}`;
    }
  }
  if (isAuthError(err)) {
    if (err instanceof IssuerMismatchError || err instanceof AuthorizationServerMismatchError) {
      return `server \`${server}\`: signing in was stopped because the authorization server did not prove it is the one the server names (${messageOf(err)}); check the server's \`url\` setting, then sign in again`;
    }
    if (err instanceof InsecureTokenEndpointError) {
      return `server \`${server}\`: signing in was stopped because the authorization server's token endpoint is not HTTPS (${err.tokenEndpoint}); fix the authorization server, or set an Authorization header in the server's \`headers\` setting`;
    }
    if (err instanceof InsufficientScopeError) {
      return `server \`${server}\` needs more access than the sign-in granted${err.requiredScope ? ` (scope ${err.requiredScope})` : ''}; sign in again and grant it`;
    }
    const code = err instanceof OAuthError ? err.code : undefined;
    return `server \`${server}\` requires authorization and signing in failed${code ? ` (${code})` : ''}: ${messageOf(err)}. Sign in again, or set an Authorization header in the server's \`headers\` setting`;
  }
  const status = httpStatusOf(err);
  if (status === 401) return `server \`${server}\` requires authorization (HTTP 401); sign in or set an Authorization header`;
  if (status === 403) {
    // Credentials are blamed only when the answer says so (the SDK's ClientHttpForbidden after a WWW-Authenticate
    // insufficient_scope challenge); otherwise the server's own reason is the message (H193). The SDK also names a
    // plain 403 to its era probe ClientHttpForbidden: the launcher, which sees the answer's headers, says that one
    // through forbiddenMessage (H403).
    return forbiddenMessage(server, err, err instanceof SdkHttpError && err.code === SdkErrorCode.ClientHttpForbidden);
  }
  // A redirect has no body to quote: the host's own word on it (where it pointed, that it was not followed) is the reason.
  if (status !== undefined) return `${method} on server \`${server}\` failed (${serverReason(err)})${status >= 300 && status < 400 ? `: ${messageOf(err)}` : ''}`;
  if (isAbortError(err)) {
    return `${method} to server \`${server}\` was cancelled`;
  }
  const net = networkProblem(server, method, err);
  if (net) return net;
  if (isValidationError(err)) {
    return `server \`${server}\` answered ${method} with a malformed result: ${zodSummary(err)}`;
  }
  return `${method} on server \`${server}\` failed: ${messageOf(err)}`;
}

/**
 * A 403: the server's own reason (serverReason), and the credentials blamed only when `challenged` (the answer carried a
 * WWW-Authenticate challenge).
 */
export function forbiddenMessage(server: string, err: unknown, challenged: boolean): string {
  return challenged
    ? `server \`${server}\` refused access (${serverReason(err)}): the credentials in its \`headers\` setting or its sign-in do not grant access`
    : `server \`${server}\` refused access (${serverReason(err)}); that is the server's own reason: check the server's \`url\` setting and what the server allows`;
}

/** How much of an HTTP error's body is quoted in a message. */
export const HTTP_BODY_EXCERPT_CHARS = 300;

/**
 * The server's own reason for an HTTP error: its status line and a bounded excerpt of its body, escaped (JSON string
 * form: no control character or line break of the server's reaches the host's message), e.g.
 * `HTTP 403 Forbidden: "Access is only allowed at localhost:47521"`.
 */
export function serverReason(err: unknown): string {
  const status = httpStatusOf(err);
  const data = err instanceof SdkHttpError ? err.data : undefined;
  const statusText = typeof data?.statusText === 'string' ? data.statusText.replace(/[^\x20-\x7e]/g, '').slice(0, 60) : '';
  const line = `HTTP ${status ?? '?'}${statusText ? ` ${statusText}` : ''}`;
  const raw = typeof data?.text === 'string' ? data.text : err instanceof Error && !(err instanceof SdkHttpError) ? messageOf(err) : '';
  const body = raw.trim();
  if (!body) return line;
  const cut = body.length > HTTP_BODY_EXCERPT_CHARS;
  return `${line}: ${JSON.stringify(cut ? body.slice(0, HTTP_BODY_EXCERPT_CHARS) : body)}${cut ? ` … (${body.length - HTTP_BODY_EXCERPT_CHARS} more characters)` : ''}`;
}

/** A network failure (refused, unresolvable, reset) anywhere in `err`'s cause chain, said readably. */
function networkProblem(server: string, method: string, err: unknown): string | undefined {
  for (let e = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return `cannot reach server \`${server}\`: connection refused (is it running, and is the url right?)`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `cannot reach server \`${server}\`: the host name does not resolve (check the url)`;
    if (code === 'ECONNRESET') return `server \`${server}\` reset the connection during ${method}`;
  }
  return undefined;
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
