/**
 * The like-for-like baseline of the big-payload bench: a bare SDK `Client` on a minimal stdio `Transport`
 * that owns its child process and reads it with the host's linear read buffer
 * (src/mcp/process/readBuffer.ts, which parses with the SDK's public `deserializeMessage`) and writes with the
 * SDK's public `serializeMessage`. So host ÷ this measures the host's own layer on the same buffer, not the
 * buffer. No SDK private field is read or patched.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LineReadBuffer } from '../src/mcp/process/readBuffer';
import { stopProcessTree } from '../src/mcp/process/processTree';
import { fixtureServer, repoRoot } from '../test/fixtures/servers/harness';
import { BENCH_STOP } from './lib';

/** Newline-delimited JSON-RPC over a child's stdin/stdout, read with {@link LineReadBuffer}. */
export class LinearStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  child?: ChildProcess;
  private readonly buffer: LineReadBuffer;

  constructor(private readonly command: string, private readonly args: string[], maxBufferSize: number) {
    this.buffer = new LineReadBuffer({ maxBufferSize });
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = this.child = spawn(this.command, this.args, { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] });
      child.once('error', reject);
      child.once('spawn', () => resolve());
      child.once('close', () => this.onclose?.());
      child.stderr!.resume();
      child.stdin!.on('error', err => this.onerror?.(err));
      child.stdout!.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (err) {
          this.onerror?.(err as Error);
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
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
    this.buffer.clear();
  }
}

/** A bare SDK `Client` connected over {@link LinearStdioTransport} to `node <fixture> ...args`. */
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
