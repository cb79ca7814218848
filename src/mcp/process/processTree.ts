/**
 * Process trees: list a server's descendants and shut the whole tree down the way the spec asks
 * (H11: close stdin, then SIGTERM, then SIGKILL), so that `npx` and `sh -c` wrappers leave no orphans.
 *
 * Linux reads /proc; macOS asks `ps`; Windows uses `taskkill /T /F`. On Linux a pid is only counted
 * as the same process while its start time is unchanged, so a recycled pid is never signalled.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fsp, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';
const POLL_MS = 25;
/** The longest a scan of /proc holds the event loop before it yields (see scanProcessTable). */
const SCAN_SLICE_MS = 5;

/** What {@link stopProcessTree} had to do. */
export interface StopResult {
  /** `eof`: the tree exited after stdin closed; `term`: after SIGTERM; `kill`: SIGKILL (or taskkill) was needed. */
  phase: 'eof' | 'term' | 'kill';
  /** Root pid and every descendant seen while stopping. */
  pids: number[];
}

/** Options for {@link stopProcessTree}. */
export interface StopOptions {
  /** How long to wait for an exit after stdin is closed (default 2000 ms). */
  eofGraceMs?: number;
  /** How long to wait for an exit after SIGTERM (default 2000 ms). */
  termGraceMs?: number;
  /**
   * The launch's marker (see {@link launchMarker}): on Linux every process whose environment carries it
   * is part of the tree too, so a double-forked or `setsid` daemon (re-parented away) is stopped as well.
   */
  marker?: LaunchMarker;
}

/** An environment variable set for one launch only; every process of that launch inherits it. */
export interface LaunchMarker {
  name: string;
  value: string;
}

/** The variable that tags every process of one stdio launch. */
export const LAUNCH_MARKER_ENV = 'MCP_HOST_LAUNCH';

/** A fresh marker for one launch (put it into the child's environment). */
export function launchMarker(): LaunchMarker {
  return { name: LAUNCH_MARKER_ENV, value: randomUUID() };
}

/** Every descendant pid of `pid` (children first-level to leaves), from /proc on Linux, `ps -A -o pid=,ppid=` on macOS, Win32_Process on Windows. */
export async function listDescendants(pid: number): Promise<number[]> {
  const table = await processTable();
  return descendantsFrom(table.children, [pid]);
}

/** True while a pid exists (signal 0); a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombieSync(pid);
}

/**
 * Spec shutdown of a stdio server (H11) for the whole tree: snapshot the descendants, call
 * `closeStdin()`, wait up to `eofGraceMs`, SIGTERM whatever of the tree is left (re-snapshotted), wait
 * up to `termGraceMs`, then SIGKILL the rest, including descendants re-parented after the root died.
 * With `opts.marker` (Linux) the tree also holds every process carrying the launch's marker, found
 * again at each snapshot and once more before "all gone" is believed. `pid` undefined (the root has
 * already exited): only the marked processes. Windows: `taskkill /pid X /T /F` after the EOF grace.
 * Resolves when all are gone (or 1 s after SIGKILL).
 */
export async function stopProcessTree(pid: number | undefined, closeStdin: () => void, opts: StopOptions = {}): Promise<StopResult> {
  const eofGraceMs = opts.eofGraceMs ?? 2000;
  const termGraceMs = opts.termGraceMs ?? 2000;
  const tree = new Tree(opts.marker);
  if (pid !== undefined) await tree.add([pid]);
  await tree.snapshot();

  try {
    closeStdin();
  } catch {
    // Already closed or never opened: fall through to the grace wait.
  }
  if (await tree.waitGone(eofGraceMs)) return { phase: 'eof', pids: tree.pids() };

  if (isWindows) {
    if (pid !== undefined) await taskkill(pid);
    await tree.waitGone(1000);
    return { phase: 'kill', pids: tree.pids() };
  }

  await tree.snapshot();
  tree.signal('SIGTERM');
  if (await tree.waitGone(termGraceMs)) return { phase: 'term', pids: tree.pids() };

  await tree.snapshot();
  tree.signal('SIGKILL');
  await tree.waitGone(1000);
  return { phase: 'kill', pids: tree.pids() };
}

// ---------------------------------------------------------------------------------------------

/** The set of pids that make up one server's tree, each with its identity (start time) when known. */
class Tree {
  private readonly members = new Map<number, string | undefined>();

  constructor(private readonly marker?: LaunchMarker) {}

  pids(): number[] {
    return [...this.members.keys()];
  }

  async add(pids: number[]): Promise<void> {
    for (const p of pids) {
      if (!this.members.has(p)) this.members.set(p, await startTime(p));
    }
  }

  /**
   * Add every current descendant of every live member (re-parented ones are already members) and every
   * process carrying the marker (and its descendants).
   */
  async snapshot(fresh = false): Promise<void> {
    if (isWindows) return; // taskkill /T walks the tree itself; the CIM query is too slow to poll.
    const live = this.pids().filter(p => this.alive(p));
    const useMarker = isLinux && this.marker !== undefined;
    if (live.length === 0 && !useMarker) return;
    // A shared scan may have started before the last member died (and before the daemon it forked existed).
    const table = fresh ? await scanProcessTable() : await processTable();
    const marked = useMarker ? await this.markedIn(table) : [];
    await this.add(marked);
    await this.add(descendantsFrom(table.children, [...live, ...marked]));
  }

  /**
   * The processes of `table` whose environment carries this launch's marker. Only a process of the launch can carry
   * it (its value is new for each launch), and every such process started no earlier than the launch's first
   * process: so with every member's start time known, only the processes started since the earliest of them have
   * their environment read (a handful, not the whole of /proc).
   */
  private async markedIn(table: ProcTable): Promise<number[]> {
    const { name, value } = this.marker!;
    const starts = [...this.members.values()];
    const since = starts.length && starts.every(s => s !== undefined) ? Math.min(...starts.map(Number)) : undefined;
    const candidates = [...table.starts].filter(([p, s]) => p !== process.pid && (since === undefined || !(s < since))).map(([p]) => p);
    const values = await Promise.all(candidates.map(p => table.envValue(p, name)));
    return candidates.filter((_, i) => values[i] === value);
  }

  /** Alive and still the same process (not a recycled pid). */
  alive(pid: number): boolean {
    if (!isAlive(pid)) return false;
    const known = this.members.get(pid);
    return known === undefined || known === startTimeSync(pid);
  }

  signal(sig: NodeJS.Signals): void {
    for (const p of this.pids()) {
      if (!this.alive(p)) continue;
      try {
        process.kill(p, sig);
      } catch {
        // Gone in the meantime, or not ours to signal.
      }
    }
  }

  /** Poll until no member is alive (re-snapshotting now and then to catch late children). */
  async waitGone(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    let round = 0;
    for (;;) {
      if (this.pids().every(p => !this.alive(p))) {
        if (!this.marker || !isLinux) return true;
        // A marked process started (or was re-parented) since the last look would otherwise be missed.
        const before = this.members.size;
        await this.snapshot(true);
        if (this.members.size === before || this.pids().every(p => !this.alive(p))) return true;
        continue;
      }
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
      if (++round % 8 === 0) await this.snapshot();
    }
  }
}

interface ProcTable {
  /** ppid -> children */
  children: Map<number, number[]>;
  /** pid -> start time (clock ticks since boot; Linux only: elsewhere empty) */
  starts: Map<number, number>;
  /** The value of the variable `name` in the environment pid started with (Linux; read once per table and pid). */
  envValue(pid: number, name: string): Promise<string | undefined>;
}

function descendantsFrom(table: ProcTable['children'], roots: number[]): number[] {
  const out: number[] = [];
  const seen = new Set<number>(roots);
  let level = roots;
  while (level.length > 0) {
    const next: number[] = [];
    for (const p of level) {
      for (const c of table.get(p) ?? []) {
        if (seen.has(c)) continue;
        seen.add(c);
        out.push(c);
        next.push(c);
      }
    }
    level = next;
  }
  return out;
}

/** The scan in flight, shared by every caller that asks while it runs (20 trees stopping at once scan once). */
let tableInFlight: Promise<ProcTable> | undefined;

/**
 * The current ppid → children table (with start times and, on Linux, environments read on demand). Concurrent
 * callers share one scan: stopping many servers at once would otherwise read all of /proc (or run `ps`) once per
 * tree per poll and starve the grace timers.
 */
function processTable(): Promise<ProcTable> {
  if (!tableInFlight) tableInFlight = scanProcessTable().finally(() => { tableInFlight = undefined; });
  return tableInFlight;
}

async function scanProcessTable(): Promise<ProcTable> {
  const envs = new Map<string, Promise<string | undefined>>();
  const table: ProcTable = {
    children: new Map(),
    starts: new Map(),
    envValue: (pid, name) => {
      const key = `${pid} ${name}`;
      let v = envs.get(key);
      if (!v) envs.set(key, v = readEnvValue(pid, name));
      return v;
    },
  };
  const addEdge = (pid: number, ppid: number) => {
    let list = table.children.get(ppid);
    if (!list) table.children.set(ppid, list = []);
    list.push(pid);
  };
  if (isLinux) {
    let entries: string[];
    try {
      entries = await fsp.readdir('/proc');
    } catch {
      return table;
    }
    // The stat files are read synchronously, as isAlive reads them (the kernel answers them without waiting on the
    // process; one read costs microseconds, where an asynchronous one costs a round of the thread pool per call),
    // yielding to the event loop between slices of SCAN_SLICE_MS.
    let slice = performance.now();
    for (const e of entries) {
      if (!/^\d+$/.test(e)) continue;
      if (performance.now() - slice > SCAN_SLICE_MS) {
        await new Promise<void>(r => setImmediate(r));
        slice = performance.now();
      }
      const stat = readStatSync(Number(e));
      if (!stat || stat.state === 'Z') continue;
      addEdge(Number(e), stat.ppid);
      table.starts.set(Number(e), Number(stat.startTime));
    }
    return table;
  }
  const [cmd, args] = isWindows
    ? ['powershell.exe', ['-NoProfile', '-NonInteractive', '-Command',
      'Get-CimInstance Win32_Process | ForEach-Object { "$($_.ProcessId) $($_.ParentProcessId)" }']]
    : ['ps', ['-A', '-o', 'pid=,ppid=']];
  const out = await new Promise<string>(resolve => {
    execFile(cmd, args, { maxBuffer: 16 << 20, windowsHide: true, timeout: 10_000 }, (_err, stdout) => resolve(stdout ?? ''));
  });
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)/.exec(line);
    if (m) addEdge(Number(m[1]), Number(m[2]));
  }
  return table;
}

interface ProcStat { state: string; ppid: number; startTime: string }

/** Parse /proc/<pid>/stat; the command name may contain spaces and parentheses, so split after the last ')'. */
function parseStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] = state (field 3), fields[1] = ppid (field 4), fields[19] = starttime (field 22)
  return { state: fields[0], ppid: Number(fields[1]), startTime: fields[19] };
}

async function readStat(pid: number): Promise<ProcStat | undefined> {
  try {
    return parseStat(await fsp.readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The value of `name` in the environment a process started with (/proc/<pid>/environ); undefined if absent or unreadable. */
async function readEnvValue(pid: number, name: string): Promise<string | undefined> {
  let env: Buffer;
  try {
    env = await fsp.readFile(`/proc/${pid}/environ`);
  } catch {
    return undefined; // gone, or another user's process
  }
  const needle = Buffer.from(`${name}=`);
  for (let at = env.indexOf(needle); at >= 0; at = env.indexOf(needle, at + 1)) {
    if (at > 0 && env[at - 1] !== 0) continue;
    const end = env.indexOf(0, at);
    return env.toString('utf8', at + needle.length, end < 0 ? env.length : end);
  }
  return undefined;
}

function readStatSync(pid: number): ProcStat | undefined {
  if (!isLinux) return undefined;
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}

function isZombieSync(pid: number): boolean {
  return readStatSync(pid)?.state === 'Z';
}

async function startTime(pid: number): Promise<string | undefined> {
  return isLinux ? (await readStat(pid))?.startTime : undefined;
}

function startTimeSync(pid: number): string | undefined {
  return readStatSync(pid)?.startTime;
}

function taskkill(pid: number): Promise<void> {
  return new Promise(resolve => {
    execFile('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true }, () => resolve());
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}
