/**
 * Shared pieces of the benchmarks: statistics, the result row, interleaving, memory sampling and the
 * servers both sides of a comparison talk to (the host core and a bare SDK v2 `Client`, from
 * `@modelcontextprotocol/client`, on the same fixture).
 * Everything a bench starts is stopped (process trees included) in its `finally`.
 */
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { McpHost, type HostOptions } from '../src/mcp';
import type { Connection } from '../src/mcp/server/connection';
import type { ServerDefinition } from '../src/mcp/types';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { stopProcessTree } from '../src/mcp/process/processTree';
import { fixtureServer, repoRoot } from '../test/fixtures/servers/harness';

/** Repository root (benches run from out/bench). */
export const ROOT = path.resolve(__dirname, '..', '..');

/** One line of bench/results.json. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  /** Against the named baseline (`baseline`), measured in the same run; null when there is none. */
  ratio: number | null;
  /** The target as the table gives it (e.g. "ratio ≤ 1.10", "report"). */
  target: string;
  /** Whether the target is met; null for rows that are only reported. */
  met: boolean | null;
  /** What `ratio` divides by. */
  baseline?: string;
  /** Anything a reader needs to interpret the figure. */
  note?: string;
  /**
   * The machine's 1-minute load average when the bench that produced this row started and ended (`os.loadavg()[0]`,
   * e.g. "1.6→3.2"), filled by run.ts: on a shared machine a figure measures its load as much as the code.
   */
  load?: string;
  /** The VS Code version of a row measured in the real editor. */
  vscodeVersion?: string;
}

/**
 * H486: `rows` with the load they ran at, "before→after" (the 1-minute load average when their bench started and ended,
 * one decimal), unless a bench set a row's `load` itself.
 */
export function withLoad(rows: readonly BenchResult[], before: number, after: number): BenchResult[] {
  const load = `${before.toFixed(1)}→${after.toFixed(1)}`;
  return rows.map(r => ({ ...r, load: r.load ?? load }));
}

/** What each bench module exports. */
export interface Bench {
  /** Short id used by `--only` / `--skip`. */
  id: string;
  title: string;
  run(log: (line: string) => void): Promise<BenchResult[]>;
}

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return s[rank];
}

export const round = (x: number, digits = 3): number => Number.isFinite(x) ? Number(x.toFixed(digits)) : x;

/** Milliseconds `fn` took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/**
 * The median over blocks of median(a's block) ÷ median(b's block): a ratio that a slow phase of the
 * machine (which hits the sides of one block alike) cannot skew, unlike a ratio of overall medians.
 */
export function pairedRatio(a: readonly number[], b: readonly number[], block: number): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i += block) {
    ratios.push(median(a.slice(i, i + block)) / median(b.slice(i, i + block)));
  }
  return median(ratios);
}

/** Per-call latencies (ms) of `n` sequential calls. */
export async function latencies(n: number, call: () => Promise<unknown>): Promise<number[]> {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await call();
    out[i] = performance.now() - t0;
  }
  return out;
}

/**
 * Runs `total` sequential calls per side in blocks of `block`, rotating which side goes first in each
 * block (A B C, B C A, …) so that machine noise lands on every side alike. Returns latencies per side
 * (all of them, in order, so `block` consecutive entries are one block).
 */
export async function interleaved(
  sides: Record<string, () => Promise<unknown>>, total: number, block: number, warmup = 200,
): Promise<Record<string, number[]>> {
  const names = Object.keys(sides);
  const out: Record<string, number[]> = Object.fromEntries(names.map(n => [n, [] as number[]]));
  for (const n of names) await latencies(warmup, sides[n]);
  for (let b = 0; b * block < total; b++) {
    const order = names.map((_, i) => names[(i + b) % names.length]);
    for (const n of order) out[n].push(...await latencies(Math.min(block, total - b * block), sides[n]));
  }
  return out;
}

let gcFn: (() => void) | undefined;
/** A full GC when it can be had (benches run without --expose-gc, so it is switched on here). */
export function gc(): void {
  if (!gcFn) {
    v8.setFlagsFromString('--expose-gc');
    gcFn = vm.runInNewContext('gc') as () => void;
  }
  gcFn();
}

/** Samples rss and heapUsed every `everyMs` until stopped; returns the peaks above the values at start. */
export function memorySampler(everyMs = 10): { stop(): { rssPeakMb: number; heapPeakMb: number; rssEndMb: number } } {
  const start = process.memoryUsage();
  let rss = start.rss;
  let heap = start.heapUsed;
  const sample = () => {
    const m = process.memoryUsage();
    if (m.rss > rss) rss = m.rss;
    if (m.heapUsed > heap) heap = m.heapUsed;
  };
  const timer = setInterval(sample, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      const mb = (b: number) => b / (1024 * 1024);
      return { rssPeakMb: mb(rss - start.rss), heapPeakMb: mb(heap - start.heapUsed), rssEndMb: mb(process.memoryUsage().rss - start.rss) };
    },
  };
}

/** Short shutdown grace for benches (the phases are still eof → term → kill). */
export const BENCH_STOP = { eofGraceMs: 500, termGraceMs: 1000 };

/** A host with one or more definitions started; `close()` shuts it down (whole process trees). */
export async function startHost(defs: ServerDefinition[], options: HostOptions = {}): Promise<{ host: McpHost; conn(name?: string): Connection; close(): Promise<void> }> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false }, ...options });
  await host.reconcile(defs);
  for (const d of defs) {
    const c = host.get(d.name)!;
    if (c.state.kind !== 'running') {
      await host.shutdown();
      throw new Error(`server ${d.name} did not start: ${JSON.stringify(c.state)}`);
    }
  }
  return {
    host,
    conn: (name = defs[0].name) => host.get(name)!,
    close: async () => { await host.shutdown(); host.dispose(); },
  };
}

/** A bare SDK v2 client connected to a fixture server over stdio. */
export interface BareSdk {
  client: Client;
  transport: StdioClientTransport;
  pid: number;
  /** Closes the client (the SDK's own stdin EOF → TERM → KILL), then makes sure the process is gone. */
  close(): Promise<void>;
}

/**
 * A bare SDK v2 `Client` on `node <fixture> ...args`, configured as a plain user of the SDK would: the
 * SDK's `StdioClientTransport` (its own read buffer; `maxBufferSize` only where a bench needs messages over
 * the SDK's 10 MB default), default client options (legacy `initialize`, no version probe), `connect()`.
 * The server's stderr is piped and drained (the host reads it too), not printed into the bench output.
 */
export async function bareSdk(
  file: string, args: string[] = [],
  opts: { maxBufferSize?: number; timeoutMs?: number; clientOptions?: ClientOptions; env?: Record<string, string> } = {},
): Promise<BareSdk> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [fixtureServer(file), ...args],
    cwd: repoRoot,
    stderr: 'pipe',
    // The SDK's default is a short allow-list of variables (getDefaultEnvironment); a bench that compares start-up
    // passes the environment the host gives its servers (the whole of process.env), see hostEnvironment.
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.maxBufferSize ? { maxBufferSize: opts.maxBufferSize } : {}),
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'bench-bare', version: '0.0.0' }, { capabilities: {}, ...opts.clientOptions });
  let pid: number | null = null;
  let closed: Promise<void> | undefined;
  const close = () => closed ??= (async () => {
    await client.close().catch(() => undefined);
    if (pid !== null && isAlive(pid)) await stopProcessTree(pid, () => undefined, BENCH_STOP);
  })();
  try {
    // The SDK's own connect timeout (60 s) unless a bench asks otherwise: 20 servers starting at once on a
    // loaded 2-core machine can take longer than a short one.
    await client.connect(transport, opts.timeoutMs === undefined ? undefined : { timeout: opts.timeoutMs });
    pid = transport.pid;
  } catch (err) {
    pid = transport.pid;
    await close();
    throw err;
  }
  return { client, transport, pid: pid ?? -1, close };
}

/**
 * The environment the host starts a stdio server with when nothing else is configured: the whole of this process's
 * (src/mcp/launch/stdio.ts, `baseEnv ?? process.env`), as VS Code passes the editor's to a server. What a Node server
 * does with it counts: with NODE_EXTRA_CA_CERTS set (this machine sets it), every Node server parses that bundle of
 * certificates at start, ~40 ms of CPU each, which the SDK's short default environment leaves out.
 */
export function hostEnvironment(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/** Formats a number for the table. */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined) return '—';
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 1000 ? x.toFixed(0) : a >= 100 ? x.toFixed(1) : a >= 1 ? x.toFixed(2) : x.toFixed(digits);
}

/** Ensures `fn` finishes within `ms` (bounded benches), else rejects. */
export async function bounded<T>(what: string, ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      fn(),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms); }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
