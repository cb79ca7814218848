import * as vscode from 'vscode';
import { LogBatcher, type HostApi, type LogEntry, type LogLevel } from '../../mcp';
import type { LoggingLevel } from '@modelcontextprotocol/client';

/** How often queued log lines are flushed to the channels (ms): floods are batched, not appended per line. */
export const LOG_FLUSH_MS = 50;

/**
 * One `LogOutputChannel` per server, named `MCP Host: <name>`, fed from `host.onLog` in batches. The
 * channel's log level drives the server's `logging/setLevel` and, at Trace, the JSON-RPC trace.
 */
export class ServerLogs implements vscode.Disposable {
  private readonly channels = new Map<string, vscode.LogOutputChannel>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly batcher = new LogBatcher(
    (server, level, entries) => write(this.channel(server), level, entries.map(format).join('\n')), LOG_FLUSH_MS);
  private traceAll = false;

  constructor(private readonly host: HostApi) {
    this.subscriptions.push(
      toVs(host.onLog(e => this.batcher.enqueue(e))), // host-wide lines (no server) go to the "MCP Host" channel
      toVs(host.onDidChangeState(({ server, state }) => {
        if (state.kind === 'running') void this.applyLevel(server);
      })),
    );
  }

  /** The channel of `server`, created on first use. */
  channel(server: string): vscode.LogOutputChannel {
    let ch = this.channels.get(server);
    if (!ch) {
      ch = vscode.window.createOutputChannel(`MCP Host: ${server}`, { log: true });
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
    this.batcher.flush();
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
    // The channel tags the line [trace] already (its level): the source says which trace it is.
    case 'trace': return `[json-rpc] ${e.message}`;
    case 'lifecycle': return e.message;
    case 'sandbox': return `[sandbox] ${e.message}`;
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
