/**
 * Process trees: list a server's descendants and shut the whole tree down the way the spec asks
 * (H11: close stdin, then SIGTERM, then SIGKILL), so that `npx` and `sh -c` wrappers leave no orphans.
 *
 * Linux reads /proc; macOS asks `ps`; Windows uses `taskkill /T /F`. On Linux a pid is only counted
 * as the same process while its start time is unchanged, so a recycled pid is never signalled.
 */
import { execFile } from 'node:child_process';
import { promises as fsp, readFileSync } from 'node:fs';

const isWindows = process.platform === 'win32';
const isLinux = process.platform === 'linux';
const POLL_MS = 25;

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
}

/** Every descendant pid of `pid` (children first-level to leaves), from /proc on Linux, `ps -A -o pid=,ppid=` on macOS, Win32_Process on Windows. */
export async function listDescendants(pid: number): Promise<number[]> {
  const table = await processTable();
  return descendantsFrom(table, [pid]);
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
 * Windows: `taskkill /pid X /T /F` after the EOF grace. Resolves when all are gone (or 1 s after SIGKILL).
 */
export async function stopProcessTree(pid: number, closeStdin: () => void, opts: StopOptions = {}): Promise<StopResult> {
  const eofGraceMs = opts.eofGraceMs ?? 2000;
  const termGraceMs = opts.termGraceMs ?? 2000;
  const tree = new Tree();
  await tree.add([pid]);
  await tree.snapshot();

  try {
    closeStdin();
  } catch {
    // Already closed or never opened: fall through to the grace wait.
  }
  if (await tree.waitGone(eofGraceMs)) return { phase: 'eof', pids: tree.pids() };

  if (isWindows) {
    await taskkill(pid);
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

  pids(): number[] {
    return [...this.members.keys()];
  }

  async add(pids: number[]): Promise<void> {
    for (const p of pids) {
      if (!this.members.has(p)) this.members.set(p, await startTime(p));
    }
  }

  /** Add every current descendant of every live member (re-parented ones are already members). */
  async snapshot(): Promise<void> {
    if (isWindows) return; // taskkill /T walks the tree itself; the CIM query is too slow to poll.
    const live = this.pids().filter(p => this.alive(p));
    if (live.length === 0) return;
    const table = await processTable();
    await this.add(descendantsFrom(table, live));
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
      if (this.pids().every(p => !this.alive(p))) return true;
      if (Date.now() >= deadline) return false;
      await sleep(POLL_MS);
      if (++round % 8 === 0) await this.snapshot();
    }
  }
}

type ProcTable = Map<number, number[]>; // ppid -> children

function descendantsFrom(table: ProcTable, roots: number[]): number[] {
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
 * The current ppid → children table. Concurrent callers share one scan: stopping many servers at once
 * would otherwise read all of /proc (or run `ps`) once per tree per poll and starve the grace timers.
 */
function processTable(): Promise<ProcTable> {
  if (!tableInFlight) {
    tableInFlight = scanProcessTable().finally(() => { tableInFlight = undefined; });
  }
  return tableInFlight;
}

async function scanProcessTable(): Promise<ProcTable> {
  const table: ProcTable = new Map();
  const addEdge = (pid: number, ppid: number) => {
    let list = table.get(ppid);
    if (!list) table.set(ppid, list = []);
    list.push(pid);
  };
  if (isLinux) {
    let entries: string[];
    try {
      entries = await fsp.readdir('/proc');
    } catch {
      return table;
    }
    await Promise.all(entries.filter(e => /^\d+$/.test(e)).map(async e => {
      const stat = await readStat(Number(e));
      if (stat && stat.state !== 'Z') addEdge(Number(e), stat.ppid);
    }));
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
