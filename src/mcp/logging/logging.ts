/**
 * Log helpers: MCP logging levels → our levels, and the batcher for output channels. Secrets are hidden
 * by the one redaction path, redact.ts.
 */
import type { LoggingLevel } from '@modelcontextprotocol/client';
import type { LogEntry, LogLevel } from '../types';

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
