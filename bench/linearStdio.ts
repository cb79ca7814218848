/**
 * The like-for-like baseline of the big-payload bench: a bare SDK v2 `Client` on a minimal stdio `Transport`
 * (the public `Transport` interface of `@modelcontextprotocol/client`) that owns its child process, frames
 * its stdout with the host's own linear line framer (src/mcp/process/lineFramer.ts, as the host's
 * StdioTransport does), parses each line with SDK v2's public `deserializeMessage` and writes with its public
 * `serializeMessage`. So host ÷ this measures the host's own layer on the same framing, not the framing.
 * No SDK private field is read or patched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { LineFramer } from '../src/mcp/process/lineFramer';
import { stopProcessTree } from '../src/mcp/process/processTree';
import { fixtureServer, repoRoot } from '../test/fixtures/servers/harness';
import { BENCH_STOP } from './lib';

/** Newline-delimited JSON-RPC over a child's stdin/stdout, framed with {@link LineFramer}. */
export class LinearStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  child?: ChildProcess;
  private readonly framer: LineFramer;

  constructor(private readonly command: string, private readonly args: string[], maxLineBytes: number) {
    this.framer = new LineFramer({ maxLineBytes, headBytes: 1024 }, {
      line: bytes => {
        let message: JSONRPCMessage;
        try {
          message = deserializeMessage(bytes.toString('utf8'));
        } catch (err) {
          this.onerror?.(err as Error);
          return;
        }
        this.onmessage?.(message);
      },
      overflow: () => this.onerror?.(new Error(`a message over ${maxLineBytes} bytes`)),
    });
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = this.child = spawn(this.command, this.args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
      child.once('error', reject);
      child.once('spawn', () => resolve());
      child.once('close', () => this.onclose?.());
      child.stderr!.resume();
      child.stdin!.on('error', err => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => this.framer.push(chunk));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error('not connected'));
    return new Promise(resolve => { if (stdin.write(serializeMessage(message))) resolve(); else stdin.once('drain', resolve); });
  }

  async close(): Promise<void> {
    const pid = this.child?.pid;
    if (pid !== undefined && this.child?.exitCode === null && this.child.signalCode === null) await stopProcessTree(pid, () => this.child?.stdin?.end(), BENCH_STOP);
    this.framer.clear();
  }
}

/** A bare SDK v2 `Client` connected over {@link LinearStdioTransport} to `node <fixture> ...args`. */
export async function bareSdkLinear(file: string, args: string[], opts: { maxBufferSize: number; timeoutMs?: number }): Promise<{ client: Client; close(): Promise<void> }> {
  const transport = new LinearStdioTransport(process.execPath, [fixtureServer(file), ...args], opts.maxBufferSize);
  const client = new Client({ name: 'bench-linear', version: '0.0.0' }, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: opts.timeoutMs ?? 10_000 });
  } catch (err) {
    await transport.close();
    throw err;
  }
  return { client, close: async () => { await transport.close(); await client.close().catch(() => {}); } };
}
