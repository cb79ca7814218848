/**
 * Caps on everything a server fills (docs/SECURITY.md, Threat model: "Bounded"). One place for the defaults and the
 * setting that raises each, so every "limit hit" message names the same setting the user can change.
 * The extension reads `mcpHost.limits.*` into a `Partial<Limits>`; the CLI takes the same keys from the
 * config file's `limits` object. Servers never set these.
 */
import * as l10n from '@vscode/l10n';
import { formatBytes, formatNumber } from './logging/humanText';

export interface Limits {
  /** Largest single JSON-RPC message read from a server (stdio line, HTTP JSON body, one SSE event). */
  maxMessageBytes: number;
  /** Longest stderr line kept (the rest of the line is cut with "(N more bytes)"). */
  maxStderrLineBytes: number;
  /** Bytes of the stderr tail kept for error states and crash reports. */
  maxStderrTailBytes: number;
  /** Longest log entry (a stderr line, a `notifications/message` payload, a trace line) after redaction. */
  maxLogEntryBytes: number;
  /** Pages read per catalogue list before the list is kept partial. */
  maxCataloguePages: number;
  /** Items kept per catalogue list (tools, prompts, resources, templates). */
  maxCatalogueItems: number;
  /** Bytes (as JSON) of the items kept per catalogue list, so a few huge items cannot fill the heap either. */
  maxCatalogueBytes: number;
  /** Server→client requests (sampling, elicitation, roots) waiting per server; the rest are refused. */
  maxPendingServerRequests: number;
  /**
   * Size of one tool schema (`inputSchema` or `outputSchema`) compiled into a validator, in JSON nodes (every
   * object, array and value): the compile budget that keeps a huge schema from stalling the host. A tool over
   * it is unusable (with this message), never the whole server.
   */
  maxSchemaNodes: number;
  /** Characters of all `pattern`s and `patternProperties` keys in one tool schema (compiled for RE2 up front). */
  maxSchemaPatternChars: number;
  /** Tasks (tool calls run as MCP tasks) running at once per server; another call is refused until one ends. */
  maxTasksPerServer: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = /* @__PURE__ */ Object.freeze({
  maxMessageBytes: 64 * 1024 * 1024,
  maxStderrLineBytes: 16 * 1024,
  maxStderrTailBytes: 64 * 1024,
  maxLogEntryBytes: 64 * 1024,
  maxCataloguePages: 10_000,
  maxCatalogueItems: 100_000,
  maxCatalogueBytes: 32 * 1024 * 1024,
  maxPendingServerRequests: 16,
  maxSchemaNodes: 2_000,
  maxSchemaPatternChars: 8_192,
  maxTasksPerServer: 32,
});

/**
 * A server's timeouts, in milliseconds: the default (the settings `mcpHost.timeout.startup` / `.request`, whose
 * `package.json` defaults test/unit/limits.test.ts checks against this, the CLI without `--timeout`, and a server without
 * its own `timeout`) and the range a server's `timeout` may take. The one list of timeout keys (issue 39): the server
 * schema's `timeout` properties (src/mcp/config/schema.ts, texts from `schemaSummary` and `schemaDescription`, English
 * like every text of that schema), the extension's reader (`readTimeouts`), the connection's accessor
 * (`Connection.timeout`) and the CLI's `--timeout` (`everyTimeout`) take every row, so a new timeout is a new row here,
 * its setting in `package.json` and the code that waits on it.
 */
export const TIMEOUT_LIMITS = {
  /** Launch or connect, then `initialize`. */
  startup: {
    minimum: 1000, maximum: 600_000, default: 30_000, setting: 'mcpHost.timeout.startup',
    schemaSummary: 'for launch/connect plus `initialize`',
    schemaDescription: 'Milliseconds to wait for the server to start and answer `initialize`',
  },
  /** Each later request (progress notifications reset it). */
  request: {
    minimum: 1000, maximum: 3_600_000, default: 60_000, setting: 'mcpHost.timeout.request',
    schemaSummary: 'for each later request (progress notifications reset it)',
    schemaDescription: 'Milliseconds to wait for each request\'s answer; progress resets it',
  },
} as const;

/** A row of `TIMEOUT_LIMITS`. */
export type TimeoutKey = keyof typeof TIMEOUT_LIMITS;

/** Every timeout key, in the table's order. */
export const TIMEOUT_KEYS: readonly TimeoutKey[] = /* @__PURE__ */ Object.freeze(Object.keys(TIMEOUT_LIMITS) as TimeoutKey[]);

/** A value for every timeout, in milliseconds. */
export type Timeouts = { [K in TimeoutKey]: number };

/** Each timeout read through `get` (its setting's full name, e.g. `mcpHost.timeout.startup`, and its default). */
export function readTimeouts(get: (setting: string, fallback: number) => number): Timeouts {
  const out = {} as Timeouts;
  for (const k of TIMEOUT_KEYS) out[k] = get(TIMEOUT_LIMITS[k].setting, TIMEOUT_LIMITS[k].default);
  return out;
}

/** The same `ms` for every timeout (the CLI's `--timeout`). */
export function everyTimeout(ms: number): Timeouts {
  return readTimeouts(() => ms);
}

/** The timeout `key` of a server whose own `timeout` is `own`: its own value, else the default. */
export function timeoutOf(own: Partial<Timeouts> | undefined, key: TimeoutKey): number {
  return own?.[key] ?? TIMEOUT_LIMITS[key].default;
}

/** The setting that raises each limit, as the user writes it. */
export const LIMIT_SETTING: Readonly<Record<keyof Limits, string>> = /* @__PURE__ */ Object.freeze({
  maxMessageBytes: 'mcpHost.limits.maxMessageBytes',
  maxStderrLineBytes: 'mcpHost.limits.maxStderrLineBytes',
  maxStderrTailBytes: 'mcpHost.limits.maxStderrTailBytes',
  maxLogEntryBytes: 'mcpHost.limits.maxLogEntryBytes',
  maxCataloguePages: 'mcpHost.limits.maxCataloguePages',
  maxCatalogueItems: 'mcpHost.limits.maxCatalogueItems',
  maxCatalogueBytes: 'mcpHost.limits.maxCatalogueBytes',
  maxPendingServerRequests: 'mcpHost.limits.maxPendingServerRequests',
  maxSchemaNodes: 'mcpHost.limits.maxSchemaNodes',
  maxSchemaPatternChars: 'mcpHost.limits.maxSchemaPatternChars',
  maxTasksPerServer: 'mcpHost.limits.maxTasksPerServer',
});

/**
 * Caps on one MCP App view (docs/SECURITY.md, Threat model: "Every requester is bounded"): a view is a requester like a server,
 * bounded the same way, but these are fixed (no setting raises them). Enforced in src/extension/apps/transport.ts
 * and media/apps/host.js (rates), src/mcp/apps/bounds.ts (one dialog at a time).
 */
export const VIEW_LIMITS = /* @__PURE__ */ Object.freeze({
  /** Requests of one view waiting for an answer (tool calls, links, chat messages, …); more are refused with an error. */
  maxPendingViewRequests: 16,
  /** Messages per second from one view (bursts up to twice that); more are dropped. */
  maxViewMessagesPerSecond: 100,
  /** Characters per second from one view (bursts up to twice that: two messages of the 4 MiB maximum); more are dropped. */
  maxViewCharsPerSecond: 4 * 1024 * 1024,
  /**
   * Characters of one view's messages on their way to the extension host and not yet handled there: the page relays a
   * message in parts of at most `viewPartChars` and sends more only as the extension acknowledges what it handled, so
   * the extension host never has more than this of one view's text to take in at once (docs/PERFORMANCE.md).
   */
  maxViewCharsInFlight: 512 * 1024,
  /** Characters of one part of a view's message on its way to the extension host. */
  viewPartChars: 256 * 1024,
  /** Characters the page holds for the extension while earlier parts are in flight; a message that does not fit is refused. */
  maxViewCharsQueued: 8 * 1024 * 1024,
});

/** The message for a view limit that was hit: names the view, the limit and that it is fixed. */
export function viewLimitMessage(view: string, limit: keyof typeof VIEW_LIMITS, what: string): string {
  const v = VIEW_LIMITS[limit];
  const shown = limit === 'maxViewCharsPerSecond' ? `${v / (1024 * 1024)} MiB per second`
    : limit === 'maxViewMessagesPerSecond' ? `${v} messages per second`
      : limit === 'maxPendingViewRequests' ? `${v} pending requests` : `${v / 1024} KiB`;
  return `${view} ${what}: over the limit of ${shown} for an MCP App view (${limit})`;
}

/** Defaults overlaid with the valid (positive, finite) values of `partial`. */
export function resolveLimits(partial?: Partial<Record<keyof Limits, unknown>>): Limits {
  const out: Limits = { ...DEFAULT_LIMITS };
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = partial?.[k];
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) out[k] = Math.floor(v);
  }
  return out;
}

/**
 * What hit a limit, for `limitMessage`: each kind is one whole message (issue 40: translatable as a sentence, not an
 * English fragment joined into one), with the values it names.
 */
export type LimitSituation =
  | { kind: 'schemaTooLarge'; label: string }
  | { kind: 'schemaPatterns'; label: string }
  | { kind: 'logMessageCut' }
  | { kind: 'logLineCut'; source: string }
  | { kind: 'stderrLineCut' }
  | { kind: 'pendingRequests'; method: string }
  | { kind: 'skillItems' }
  | { kind: 'skillBytes' }
  | { kind: 'answerTooLarge'; request: string }
  | { kind: 'stdoutDropped'; size: string; request?: string }
  | { kind: 'tooManyTasks' }
  | { kind: 'httpBody' }
  | { kind: 'sseEvent' }
  | { kind: 'cataloguePages'; method: string }
  | { kind: 'catalogueItems'; method: string }
  | { kind: 'catalogueBytes'; field: string; method: string };

/** The limit each situation is over (so a message always names the setting that raises it). */
const LIMIT_OF: Readonly<Record<LimitSituation['kind'], keyof Limits>> = /* @__PURE__ */ Object.freeze({
  schemaTooLarge: 'maxSchemaNodes',
  schemaPatterns: 'maxSchemaPatternChars',
  logMessageCut: 'maxLogEntryBytes',
  logLineCut: 'maxLogEntryBytes',
  stderrLineCut: 'maxStderrLineBytes',
  pendingRequests: 'maxPendingServerRequests',
  skillItems: 'maxCatalogueItems',
  skillBytes: 'maxCatalogueBytes',
  answerTooLarge: 'maxMessageBytes',
  stdoutDropped: 'maxMessageBytes',
  tooManyTasks: 'maxTasksPerServer',
  httpBody: 'maxMessageBytes',
  sseEvent: 'maxMessageBytes',
  cataloguePages: 'maxCataloguePages',
  catalogueItems: 'maxCatalogueItems',
  catalogueBytes: 'maxCatalogueBytes',
});

/**
 * The message for a limit that was hit: names the server, the limit and the setting, in the configured language
 * (English in the CLI). `value` is the limit in force; a byte limit is shown as `formatBytes` shows it.
 */
export function limitMessage(server: string, value: number, what: LimitSituation): string {
  const setting = LIMIT_SETTING[LIMIT_OF[what.kind]];
  const n = formatNumber(value, 'grouped');
  const bytes = formatBytes(value);
  switch (what.kind) {
    case 'schemaTooLarge':
      return l10n.t('server `{0}` {1} is too large to compile: over the limit of {2} schema nodes (raise it with the setting `{3}`)', server, what.label, n, setting);
    case 'schemaPatterns':
      return l10n.t('server `{0}` {1} has patterns too long to compile: over the limit of {2} schema pattern chars (raise it with the setting `{3}`)', server, what.label, n, setting);
    case 'logMessageCut':
      return l10n.t('server `{0}` sent a log message: over the limit of {1} (raise it with the setting `{2}`); longer log entries are cut', server, bytes, setting);
    case 'logLineCut':
      return l10n.t('server `{0}` wrote a {1} line: over the limit of {2} (raise it with the setting `{3}`); longer log entries are cut', server, what.source, bytes, setting);
    case 'stderrLineCut':
      return l10n.t('server `{0}` wrote a stderr line that was cut: over the limit of {1} (raise it with the setting `{2}`)', server, bytes, setting);
    case 'pendingRequests':
      return l10n.t('server `{0}` sent too many requests at once ({1}): over the limit of {2} pending server requests (raise it with the setting `{3}`); this one was refused', server, what.method, n, setting);
    case 'skillItems':
      return l10n.t('server `{0}` listed more skills; the list is partial: over the limit of {1} catalogue items (raise it with the setting `{2}`)', server, n, setting);
    case 'skillBytes':
      return l10n.t('server `{0}` sent more skill entries than fit; the list is partial: over the limit of {1} (raise it with the setting `{2}`)', server, bytes, setting);
    case 'answerTooLarge':
      return l10n.t('server `{0}` answered request {1} with a message that is too large: over the limit of {2} (raise it with the setting `{3}`)', server, what.request, bytes, setting);
    case 'stdoutDropped':
      return what.request === undefined
        ? l10n.t('server `{0}` sent a message of {1} on stdout; it was dropped: over the limit of {2} (raise it with the setting `{3}`)', server, what.size, bytes, setting)
        : l10n.t('server `{0}` sent a message of {1} on stdout (the answer to request {2}); it was dropped: over the limit of {3} (raise it with the setting `{4}`)', server, what.size, what.request, bytes, setting);
    case 'tooManyTasks':
      return l10n.t('server `{0}` has too many running tasks: over the limit of {1} tasks per server (raise it with the setting `{2}`); cancel one (MCP: Cancel Task) or wait', server, n, setting);
    case 'httpBody':
      return l10n.t('server `{0}` sent an HTTP body: over the limit of {1} (raise it with the setting `{2}`)', server, bytes, setting);
    case 'sseEvent':
      return l10n.t('server `{0}` sent an SSE event: over the limit of {1} (raise it with the setting `{2}`)', server, bytes, setting);
    case 'cataloguePages':
      return l10n.t('server `{0}` sent more pages of {1}; the list is partial: over the limit of {2} catalogue pages (raise it with the setting `{3}`)', server, what.method, n, setting);
    case 'catalogueItems':
      return l10n.t('server `{0}` sent more items in {1}; the list is partial: over the limit of {2} catalogue items (raise it with the setting `{3}`)', server, what.method, n, setting);
    case 'catalogueBytes':
      return l10n.t('server `{0}` sent more {1} than fit in {2}; the list is partial: over the limit of {3} (raise it with the setting `{4}`)', server, what.field, what.method, bytes, setting);
  }
}

/**
 * Limits from untrusted text (the CLI's `MCP_HOST_LIMITS` JSON): the known keys with positive whole numbers;
 * anything else is reported, never silently dropped.
 */
export function parseLimits(text: string, source: string): { limits: Partial<Limits>; problems: string[] } {
  const limits: Partial<Limits> = {};
  const problems: string[] = [];
  let raw: unknown;
  try { raw = JSON.parse(text); } catch (e) {
    return { limits, problems: [`${source} is not JSON (${e instanceof Error ? e.message : String(e)}); write e.g. {"maxMessageBytes": 134217728}`] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { limits, problems: [`${source} must be a JSON object of limits, e.g. {"maxMessageBytes": 134217728}`] };
  for (const [k, v] of Object.entries(raw)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, k)) { problems.push(`${source}: \`${k}\` is not a limit (limits: ${Object.keys(DEFAULT_LIMITS).join(', ')})`); continue; }
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) { problems.push(`${source}: \`${k}\` must be a whole number of at least 1, not ${JSON.stringify(v)}`); continue; }
    limits[k as keyof Limits] = v;
  }
  return { limits, problems };
}

/**
 * How deep a server's JSON may nest (a tool result, a resource, a prompt, any answer): deeper values are refused
 * where they arrive, with a message naming server and request, before anything recursive (formatting, size
 * estimates, JSON.stringify, redaction) walks them and overflows the stack. JSON.parse itself is not recursive.
 * The check is `nestsDeeperThan` (jsonWalks.ts).
 */
export const MAX_NESTING_DEPTH = 1000;

/** What answered a result too deep: a tool, a prompt or a resource, by its name or URI. */
export interface NestedAnswer { kind: 'tool' | 'prompt' | 'resource'; name: string }

/** "server `x`, tool `y`: the result nests deeper than 1,000 levels; the host does not take it" (one message per kind). */
export function nestingMessage(server: string, what: NestedAnswer): string {
  const depth = formatNumber(MAX_NESTING_DEPTH, 'grouped');
  switch (what.kind) {
    case 'tool': return l10n.t('server `{0}`, tool `{1}`: the result nests deeper than {2} levels; the host does not take it', server, what.name, depth);
    case 'prompt': return l10n.t('server `{0}`, prompt `{1}`: the result nests deeper than {2} levels; the host does not take it', server, what.name, depth);
    case 'resource': return l10n.t('server `{0}`, resource `{1}`: the result nests deeper than {2} levels; the host does not take it', server, what.name, depth);
  }
}
