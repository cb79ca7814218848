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
 * than one per line: every `flushMs`, or as soon as the queued messages reach `maxBatchChars`, one `write` per run
 * of consecutive entries of one server and level. The size bound keeps a flood's entries short-lived: held for the
 * whole 50 ms at 10 MB/s of stderr they outlived the young generation's collections and were promoted (a 5 s flood of
 * 50 MB grew a fresh process's heap by ~70 MB of garbage awaiting a full collection; ~15 MB with the bound), and it
 * caps what one append carries. Entries without a server (host-wide lines) are not queued.
 */
/** How many characters of messages a batch holds before it is handed on, whatever its age (LogBatcher). */
export const LOG_BATCH_CHARS = 64 * 1024;

export class LogBatcher {
  private queue: LogEntry[] = [];
  private queuedChars = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (server: string, level: LogLevel, entries: LogEntry[]) => void,
    private readonly flushMs = 50,
    private readonly maxBatchChars = LOG_BATCH_CHARS,
  ) {}

  enqueue(e: LogEntry): void {
    if (!e.server) return;
    this.queue.push(e);
    this.queuedChars += e.message.length;
    if (this.queuedChars >= this.maxBatchChars) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  /** Writes every queued entry now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.queue;
    this.queue = [];
    this.queuedChars = 0;
    let i = 0;
    while (i < entries.length) {
      const first = entries[i];
      const run: LogEntry[] = [];
      while (i < entries.length && entries[i].server === first.server && entries[i].level === first.level) run.push(entries[i++]);
      this.write(first.server, first.level, run);
    }
  }
}
