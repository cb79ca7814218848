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
import * as l10n from '@vscode/l10n';

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

/** The readable meaning of the JSON-RPC codes (a function: the text is made in the display language, issue 40). */
const CODE_TEXT = (): Record<number, string> => ({
  [ProtocolErrorCode.ParseError]: l10n.t('the server could not parse the message (-32700)'),
  [ProtocolErrorCode.InvalidRequest]: l10n.t('the server called the request invalid (-32600)'),
  [ProtocolErrorCode.MethodNotFound]: l10n.t('the server does not implement this method (-32601)'),
  [ProtocolErrorCode.InvalidParams]: l10n.t('the server rejected the arguments (-32602)'),
  [ProtocolErrorCode.InternalError]: l10n.t('the server hit an internal error (-32603)'),
  [ProtocolErrorCode.ResourceNotFound]: l10n.t('resource not found (-32002)'),
  [ProtocolErrorCode.MissingRequiredClientCapability]: l10n.t('the server needs a client capability this host did not declare (-32021)'),
});

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
    return l10n.t('server `{0}` does not support the protocol versions this host speaks (it supports {1}); update the server or the host', server, err.supported.join(', ') || l10n.t('none it named'));
  }
  if (err instanceof ProtocolError) {
    const detail = bareMessage(err);
    if (err.data === HOST_REJECTED) return detail;
    switch (err.code) {
      case REQUEST_TIMEOUT_CODE:
        if (/cancel/i.test(detail) || (timeoutMs === undefined && !/timed out/i.test(detail))) {
          return detail && !/^Request/.test(detail)
            ? l10n.t('{0} to server `{1}` was cancelled: {2}', method, server, detail)
            : cancelled(server, method);
        }
        return notAnswered(server, method, timeoutMs ?? (err.data as { timeout?: number } | undefined)?.timeout);
      default: {
        const codes = CODE_TEXT();
        const known = Object.hasOwn(codes, err.code) ? codes[err.code] : undefined;
        if (known) return l10n.t('{0} on server `{1}` failed: {2}: {3}', method, server, known, detail);
        return l10n.t('{0} on server `{1}` failed (error {2}): {3}', method, server, err.code, detail);
      }
    }
  }
  if (err instanceof SdkError && !(err instanceof SdkHttpError)) {
    const detail = bareMessage(err);
    switch (err.code) {
      case SdkErrorCode.RequestTimeout:
        if (/cancel/i.test(detail)) return cancelled(server, method);
        return notAnswered(server, method, timeoutMs ?? (err.data as { timeout?: number } | undefined)?.timeout);
      case SdkErrorCode.ConnectionClosed:
      case SdkErrorCode.NotConnected:
        if (/cancel/i.test(detail)) return cancelled(server, method);
        return l10n.t('server `{0}` closed the connection before answering {1}', server, method);
      case SdkErrorCode.CapabilityNotSupported:
        return l10n.t('server `{0}` does not offer what {1} needs: {2}', server, method, detail);
      case SdkErrorCode.InvalidResult:
        return l10n.t('server `{0}` answered {1} with a malformed result: {2}', server, method, detail);
      case SdkErrorCode.EraNegotiationFailed:
        return networkProblem(server, method, err) ?? l10n.t('could not agree on a protocol version with server `{0}`: {1}; check the server\'s `url` or `command` setting, or update the server', server, detail);
      case SdkErrorCode.InputRequiredRoundsExceeded:
        return l10n.t('server `{0}` kept asking for more input during {1}; it was stopped after too many rounds', server, method);
      case SdkErrorCode.MethodNotSupportedByProtocolVersion:
        return l10n.t('server `{0}` speaks a protocol version without {1}', server, method);
      default:
        return l10n.t('{0} on server `{1}` failed ({2}): {3}', method, server, String(err.code), detail);
    }
  }
  if (isAuthError(err)) {
    if (err instanceof IssuerMismatchError || err instanceof AuthorizationServerMismatchError) {
      return l10n.t('server `{0}`: signing in was stopped because the authorization server did not prove it is the one the server names ({1}); check the server\'s `url` setting, then sign in again', server, messageOf(err));
    }
    if (err instanceof InsecureTokenEndpointError) {
      return l10n.t('server `{0}`: signing in was stopped because the authorization server\'s token endpoint is not HTTPS ({1}); fix the authorization server, or set an Authorization header in the server\'s `headers` setting', server, String(err.tokenEndpoint));
    }
    if (err instanceof InsufficientScopeError) {
      return err.requiredScope
        ? l10n.t('server `{0}` needs more access than the sign-in granted (scope {1}); sign in again and grant it', server, err.requiredScope)
        : l10n.t('server `{0}` needs more access than the sign-in granted; sign in again and grant it', server);
    }
    const code = err instanceof OAuthError ? err.code : undefined;
    return code
      ? l10n.t('server `{0}` requires authorization and signing in failed ({1}): {2}. Sign in again, or set an Authorization header in the server\'s `headers` setting', server, code, messageOf(err))
      : l10n.t('server `{0}` requires authorization and signing in failed: {1}. Sign in again, or set an Authorization header in the server\'s `headers` setting', server, messageOf(err));
  }
  const status = httpStatusOf(err);
  if (status === 401) return l10n.t('server `{0}` requires authorization (HTTP 401); sign in or set an Authorization header', server);
  if (status === 403) {
    // Credentials are blamed only when the answer says so (the SDK's ClientHttpForbidden after a WWW-Authenticate
    // insufficient_scope challenge); otherwise the server's own reason is the message (H193). The SDK also names a
    // plain 403 to its era probe ClientHttpForbidden: the launcher, which sees the answer's headers, says that one
    // through forbiddenMessage (H403).
    return forbiddenMessage(server, err, err instanceof SdkHttpError && err.code === SdkErrorCode.ClientHttpForbidden);
  }
  // A redirect has no body to quote: the host's own word on it (where it pointed, that it was not followed) is the reason.
  if (status !== undefined) {
    return status >= 300 && status < 400
      ? l10n.t('{0} on server `{1}` failed ({2}): {3}', method, server, serverReason(err), messageOf(err))
      : l10n.t('{0} on server `{1}` failed ({2})', method, server, serverReason(err));
  }
  if (isAbortError(err)) return cancelled(server, method);
  const net = networkProblem(server, method, err);
  if (net) return net;
  if (isValidationError(err)) {
    return l10n.t('server `{0}` answered {1} with a malformed result: {2}', server, method, zodSummary(err));
  }
  return l10n.t('{0} on server `{1}` failed: {2}', method, server, messageOf(err));
}

const cancelled = (server: string, method: string) => l10n.t('{0} to server `{1}` was cancelled', method, server);
const notAnswered = (server: string, method: string, ms: number | undefined) =>
  l10n.t('server `{0}` did not answer {1} within {2}', server, method, fmtMs(ms));

/**
 * A 403: the server's own reason (serverReason), and the credentials blamed only when `challenged` (the answer carried a
 * WWW-Authenticate challenge).
 */
export function forbiddenMessage(server: string, err: unknown, challenged: boolean): string {
  return challenged
    ? l10n.t('server `{0}` refused access ({1}): the credentials in its `headers` setting or its sign-in do not grant access', server, serverReason(err))
    : l10n.t('server `{0}` refused access ({1}); that is the server\'s own reason: check the server\'s `url` setting and what the server allows', server, serverReason(err));
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
    if (code === 'ECONNREFUSED') return l10n.t('cannot reach server `{0}`: connection refused (is it running, and is the url right?)', server);
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return l10n.t('cannot reach server `{0}`: the host name does not resolve (check the url)', server);
    if (code === 'ECONNRESET') return l10n.t('server `{0}` reset the connection during {1}', server, method);
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
  if (ms === undefined) return l10n.t('the time limit');
  if (ms >= 1000 && ms % 1000 === 0) return `${ms / 1000} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${ms} ms`;
}
