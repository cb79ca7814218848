/**
 * The floor: a newline-delimited JSON-RPC client over a child's stdio with no SDK at all (no schema
 * parsing, no Protocol layer). Same fixture binary, same messages as the SDK and the host send.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcessTree } from '../src/mcp/process/processTree';
import { BENCH_STOP } from './lib';

export interface RawPipe {
  pid: number;
  request(method: string, params?: unknown): Promise<unknown>;
  close(): Promise<void>;
}

export async function rawPipe(command: string, args: string[]): Promise<RawPipe> {
  const child: ChildProcess = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr!.resume();
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  let buf = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as { id?: number; result?: unknown; error?: { message: string } };
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!p) continue;
      pending.delete(msg.id!);
      if (msg.error) p.reject(new Error(msg.error.message)); else p.resolve(msg.result);
    }
  });
  child.once('exit', () => { for (const p of pending.values()) p.reject(new Error('exited')); pending.clear(); });
  const send = (m: unknown) => child.stdin!.write(JSON.stringify(m) + '\n');
  const request = (method: string, params?: unknown) => new Promise<unknown>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
  });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-pipe', version: '0' } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    pid: child.pid!,
    request,
    close: async () => { await stopProcessTree(child.pid!, () => child.stdin!.end(), BENCH_STOP); },
  };
}
