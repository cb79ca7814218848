/**
 * Log helpers: MCP logging levels → our levels, secret redaction, and the protocol trace that
 * wraps a transport's send/onmessage.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { LogEntry, LogLevel } from './types';

/** Maps an MCP (syslog) level to the host's five levels. */
export function mapMcpLevel(level: LoggingLevel): LogLevel {
  switch (level) {
    case 'debug': return 'debug';
    case 'info':
    case 'notice': return 'info';
    case 'warning': return 'warning';
    case 'error':
    case 'critical':
    case 'alert':
    case 'emergency': return 'error';
    default: return 'info';
  }
}

/** Keys whose values never appear in logs (matched case-insensitively). */
const SECRET_KEYS = /^(env|headers|authorization|cookie|set-cookie|password|passwd|secret|token|access_token|refresh_token|id_token|client_secret|api[-_]?key|x-api-key)$/i;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;

/** Maximum characters of one trace line. */
export const TRACE_MAX = 4000;

/** Redacts secrets from a JSON-serialisable value and returns it as a (possibly truncated) string. */
export function redactForLog(value: unknown, max = TRACE_MAX): string {
  let text: string;
  try {
    text = JSON.stringify(value, (key, v) => {
      if (key && SECRET_KEYS.test(key)) {
        if (v && typeof v === 'object') {
          return Object.fromEntries(Object.keys(v as object).map(k => [k, '***']));
        }
        return v === undefined || v === null ? v : '***';
      }
      return v;
    }) ?? String(value);
  } catch {
    text = String(value);
  }
  return truncateText(redactText(text), max);
}

/** Redacts bearer tokens in free text (stderr lines, error messages). */
export function redactText(text: string): string {
  return text.replace(BEARER, '$1 ***');
}

/** Replaces every occurrence of each value in `text` with `mask`; pass `values` longest first (see secretsLongestFirst). */
export function hideValues(text: string, values: readonly string[], mask = '***'): string {
  let out = text;
  for (const v of values) if (out.includes(v)) out = out.split(v).join(mask);
  return out;
}

/** The distinct values worth hiding (at least `min` characters), longest first so no part of one survives another. */
export function secretsLongestFirst(values: Iterable<string>, min = 4): string[] {
  return [...new Set(values)].filter(v => v.length >= min).sort((a, b) => b.length - a.length);
}

export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/**
 * Wraps a transport so each JSON-RPC message in and out is reported when `enabled()` is true.
 * Must be called before `Client.connect` (the Protocol chains an existing onmessage).
 */
export function traceTransport(
  transport: Transport,
  enabled: () => boolean,
  report: (direction: 'in' | 'out', text: string) => void,
): void {
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options) => {
    if (enabled()) report('out', redactForLog(message));
    return send(message, options);
  };
  transport.onmessage = (message: JSONRPCMessage) => {
    if (enabled()) report('in', redactForLog(message));
  };
}

/**
 * Queues log entries and hands them on in batches, so a flood costs one output append per flush rather
 * than one per line: every `flushMs`, one `write` per run of consecutive entries of one server and level.
 * Entries without a server (host-wide lines) are not queued.
 */
export class LogBatcher {
  private queue: LogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (server: string, level: LogLevel, entries: LogEntry[]) => void,
    private readonly flushMs = 50,
  ) {}

  enqueue(e: LogEntry): void {
    if (!e.server) return;
    this.queue.push(e);
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Writes every queued entry now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.queue;
    this.queue = [];
    let i = 0;
    while (i < entries.length) {
      const first = entries[i];
      const run: LogEntry[] = [];
      while (i < entries.length && entries[i].server === first.server && entries[i].level === first.level) run.push(entries[i++]);
      this.write(first.server, first.level, run);
    }
  }
}
