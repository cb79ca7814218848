import * as vscode from 'vscode';
import type { HostApi, LogEntry, LogLevel } from '../mcp';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/** How often queued log lines are flushed to the channels (ms): floods are batched, not appended per line. */
export const LOG_FLUSH_MS = 50;

/**
 * One `LogOutputChannel` per server, named `MCP: <name>`, fed from `host.onLog` in batches. The
 * channel's log level drives the server's `logging/setLevel` and, at Trace, the JSON-RPC trace.
 */
export class ServerLogs implements vscode.Disposable {
  private readonly channels = new Map<string, vscode.LogOutputChannel>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private queue: LogEntry[] = [];
  private timer: NodeJS.Timeout | undefined;
  private traceAll = false;

  constructor(private readonly host: HostApi) {
    this.subscriptions.push(
      toVs(host.onLog(e => this.enqueue(e))),
      toVs(host.onDidChangeState(({ server, state }) => {
        if (state.kind === 'running') void this.applyLevel(server);
      })),
    );
  }

  /** The channel of `server`, created on first use. */
  channel(server: string): vscode.LogOutputChannel {
    let ch = this.channels.get(server);
    if (!ch) {
      ch = vscode.window.createOutputChannel(`MCP: ${server}`, { log: true });
      this.channels.set(server, ch);
      ch.onDidChangeLogLevel(() => void this.applyLevel(server), undefined, this.subscriptions);
      this.host.get(server)?.setTrace(this.traceAll || ch.logLevel === vscode.LogLevel.Trace);
    }
    return ch;
  }

  /** Reveals the channel of `server`. */
  show(server: string): void {
    this.flush();
    this.channel(server).show(true);
  }

  /** Turns the JSON-RPC trace on for every server (the `mcpHost.trace` setting). */
  setTraceAll(on: boolean): void {
    this.traceAll = on;
    for (const h of this.host.servers) {
      h.setTrace(on || this.channels.get(h.name)?.logLevel === vscode.LogLevel.Trace);
    }
  }

  /** Names of the channels created so far (for tests and the status picker). */
  get names(): string[] {
    return [...this.channels.keys()];
  }

  /** Writes every queued entry now. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const entries = this.queue;
    this.queue = [];
    // Consecutive entries of one server and level go out as one multi-line append.
    let i = 0;
    while (i < entries.length) {
      const first = entries[i];
      const lines: string[] = [];
      while (i < entries.length && entries[i].server === first.server && entries[i].level === first.level) {
        lines.push(format(entries[i++]));
      }
      write(this.channel(first.server), first.level, lines.join('\n'));
    }
  }

  private enqueue(e: LogEntry): void {
    if (!e.server) return; // host-wide lines go to the "MCP Host" channel
    this.queue.push(e);
    this.timer ??= setTimeout(() => this.flush(), LOG_FLUSH_MS);
  }

  private async applyLevel(server: string): Promise<void> {
    const ch = this.channels.get(server);
    const handle = this.host.get(server);
    if (!ch || !handle) return;
    handle.setTrace(this.traceAll || ch.logLevel === vscode.LogLevel.Trace);
    if (handle.state.kind !== 'running') return;
    try {
      await handle.setLogLevel(toMcpLevel(ch.logLevel));
    } catch (err) {
      ch.warn(`logging/setLevel failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  dispose(): void {
    this.flush();
    for (const d of this.subscriptions) d.dispose();
    for (const ch of this.channels.values()) ch.dispose();
    this.channels.clear();
  }
}

/** The MCP level that matches a channel level (Off asks for emergencies only). */
export function toMcpLevel(level: vscode.LogLevel): LoggingLevel {
  switch (level) {
    case vscode.LogLevel.Trace:
    case vscode.LogLevel.Debug: return 'debug';
    case vscode.LogLevel.Info: return 'info';
    case vscode.LogLevel.Warning: return 'warning';
    case vscode.LogLevel.Error: return 'error';
    default: return 'emergency';
  }
}

function format(e: LogEntry): string {
  switch (e.source) {
    case 'stderr': return `[stderr] ${e.message}`;
    case 'server': return `[${e.logger ?? 'server'}${e.mcpLevel ? ` ${e.mcpLevel}` : ''}] ${e.message}`;
    case 'trace': return `[trace] ${e.message}`;
    case 'lifecycle': return e.message;
  }
}

function write(ch: vscode.LogOutputChannel, level: LogLevel, text: string): void {
  switch (level) {
    case 'trace': ch.trace(text); break;
    case 'debug': ch.debug(text); break;
    case 'info': ch.info(text); break;
    case 'warning': ch.warn(text); break;
    case 'error': ch.error(text); break;
  }
}

/** Adapts a core disposable to a VS Code one. */
export function toVs(d: { dispose(): void }): vscode.Disposable {
  return new vscode.Disposable(() => d.dispose());
}
