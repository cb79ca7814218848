/** Shared helpers for the connection/host/http tests: real servers, free ports, process checks. */
import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { stopProcessTree } from '../../src/mcp/process/processTree';
import type { StdioServerDefinition, HttpServerDefinition, LogEntry } from '../../src/mcp/types';
import type { Connection } from '../../src/mcp/server/connection';

/** Repository root (tests run from out/test/unit). */
export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const bin = (name: string): string => path.join(ROOT, 'node_modules', '.bin', name);
export const fixture = (name: string): string => path.join(ROOT, 'test', 'fixtures', 'servers', name.includes('.') ? name : `${name}.mjs`);
export const hasFixture = (name: string): boolean => fs.existsSync(fixture(name));

/** Short shutdown grace so the suite stays fast (the phases are still eof → term → kill). */
export const FAST_STOP = { eofGraceMs: 300, termGraceMs: 1000 };

export function stdio(name: string, command: string, args: string[] = [], extra: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return { name, type: 'stdio', command, args, env: {}, ...extra };
}

export function nodeFixture(name: string, fixtureName: string, args: string[] = [], extra: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  return stdio(name, process.execPath, [fixture(fixtureName), ...args], extra);
}

export function http(name: string, url: string, type: 'http' | 'sse' = 'http', extra: Partial<HttpServerDefinition> = {}): HttpServerDefinition {
  return { name, type, url, headers: {}, ...extra };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  url: string;
  port: number;
  child: ChildProcess;
  output: string[];
  stop(): Promise<void>;
}

/** Starts server-everything in `streamableHttp` or `sse` mode on a free 127.0.0.1 port. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse', fixedPort?: number): Promise<RunningServer> {
  const port = fixedPort ?? await freePort();
  const entry = fs.realpathSync(bin('mcp-server-everything'));
  const preload = path.join(__dirname, 'connection-localhost-preload.js');
  const child = spawn(process.execPath, ['-r', preload, entry, mode], {
    env: { ...process.env, PORT: String(port) }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output.push(d.toString());
      if (/listening on port|running on port/i.test(output.join(''))) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', code => reject(new Error(`server exited early (${code}): ${output.join('')}`)));
    setTimeout(() => reject(new Error(`server did not start: ${output.join('')}`)), 20_000).unref();
  });
  await ready;
  const url = mode === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;
  return {
    url, port, child, output,
    stop: async () => {
      if (child.exitCode === null && child.pid) await stopProcessTree(child.pid, () => child.stdin?.end(), FAST_STOP);
    },
  };
}

/** Collects a connection's (or host's) log entries. */
export function collectLogs(c: { onLog: (l: (e: LogEntry) => void) => unknown }): LogEntry[] {
  const logs: LogEntry[] = [];
  c.onLog(e => logs.push(e));
  return logs;
}

/** Resolves when `pred` holds for the connection state (or rejects after `ms`). */
export function waitForState(c: Connection, pred: (s: Connection['state']) => boolean, ms = 20_000): Promise<Connection['state']> {
  if (pred(c.state)) return Promise.resolve(c.state);
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { d.dispose(); reject(new Error(`state never matched; last: ${JSON.stringify(c.state)}`)); }, ms);
    const d = c.onDidChangeState(s => {
      if (pred(s)) { clearTimeout(t); d.dispose(); resolve(s); }
    });
  });
}


export function tmpDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
}

/**
 * A suite's per-test start-up, written once (issue 39): a new temp folder (tmpDir) before each test; after it
 * `cleanup()` (closing what the test started), then the folder removed. Call it in the describe body.
 */
export function tmpDirPerTest(prefix: string, cleanup: () => Promise<void> | void = () => undefined): { readonly dir: string } {
  let dir: string | undefined;
  beforeEach(() => { dir = tmpDir(prefix); });
  afterEach(async () => {
    await cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  return {
    get dir() {
      if (!dir) throw new Error(`the ${prefix} folder exists only while a test runs`);
      return dir;
    },
  };
}
