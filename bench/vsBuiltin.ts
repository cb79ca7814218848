/**
 * `vs-builtin`: MCP Host side by side with VS Code's own MCP host, in one code-server window (the production VSIX).
 * The same servers — server-everything, server-filesystem and test/fixtures/servers/side-by-side.mjs as a small-tool
 * server, as a ~31 MB result and as a 1,000-tool server — are configured both in the folder's `.vscode/mcp.json` (VS
 * Code's host) and in `mcpHost.servers` (MCP Host, reaching `vscode.lm.tools` through its gateway);
 * test/editor/bench-vs-builtin.test.ts measures both sides in turns (the side going first alternating) and this turns
 * what it recorded into rows of MCP Host ÷ VS Code, each with the load it ran at and the VS Code version. Target ≤ 1.0
 * on every row. One editor run (4–8 minutes); needs out/test/editor (`npm run bench` builds it). Take the editor lock
 * around it on a shared machine: `flock /tmp/editor.lock npm run bench -- --only vs-builtin`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runBounded } from './activation';
import { ROOT, median, percentile, round, type Bench, type BenchResult } from './lib';

type Side = 'vs' | 'mh';
interface Start { allMs: number; perServer: Record<string, number>; maxBlockMs: number }
interface Mem { bytes: number; count: number }
/** What test/editor/bench-vs-builtin.test.ts writes. */
export interface VsBuiltinRecord {
  vscode: string;
  expected?: Record<Side, Record<string, number>>;
  starts?: Record<Side, Start[]>;
  memoryStart?: Record<Side, Mem>;
  memoryAfterCalls?: Record<Side, Mem>;
  latency?: Record<Side, number[]>;
  big?: Record<Side, { ms: number; maxBlockMs: number; chars: number; wall?: [number, number]; error?: string }[]>;
  /** The workbench page's long tasks over the whole run, [epoch ms at the start, ms] (scripts/editor/run-extension-tests.mjs). */
  longTasks?: [number, number][];
  crash?: Record<Side, { ms: number; failedCalls: number }[]>;
  /** The heaviest functions (self time) of this extension host's thread over 50 more small calls per side. */
  profiles?: Record<Side, { fn: string; ms: number }[]>;
  done?: boolean;
  error?: string;
  progress?: string[];
}

const PREFIX = 'vs-builtin';
const TARGET = 'ratio ≤ 1.0 (MCP Host ÷ VS Code\'s own MCP host, same window, same run)';

/** One editor run; resolves to what the test recorded (even a partial record: the rows it has are reported). */
async function editorRun(log: (l: string) => void): Promise<VsBuiltinRecord> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-vs-builtin-')), 'vs-builtin.json');
  const longTasks = path.join(path.dirname(out), 'longtasks.json');
  try {
    const code = await runBounded(process.execPath, [path.join(ROOT, 'scripts/editor/run-editor-tests.mjs')], {
      ...process.env,
      MCP_HOST_EDITOR_PASSES: 'trusted',
      MCP_HOST_TEST_GREP: 'VS Code built-in MCP side-by-side benchmark',
      MCP_HOST_BENCH_VSBUILTIN_OUT: out,
      MCP_HOST_BENCH_LONGTASKS_OUT: longTasks,
      MCP_HOST_TEST_TIMEOUT: '1500000',
      EXTTEST_TIMEOUT: '1600',
      // VS Code's MCP on (its default). Its confirmations: the servers' trust by `autoTrustChanges` of its start
      // command, the tools' by their read-only mark (side-by-side.mjs; MCP Host's "always" grant on its side).
      // `chat.tools.global.autoApprove: true` is not set: VS Code 1.139 then asks "Enable global auto approve?" in a
      // dialog on the first tool call (refused in a test window). The editor's port finder reads terminal output
      // instead of spawning `ps` on the extension host's thread every few seconds (see bench/apps.ts).
      MCP_HOST_EDITOR_USER_SETTINGS: JSON.stringify({ 'chat.mcp.access': 'all', 'remote.autoForwardPortsSource': 'output' }),
    }, 1_700_000, log);
    if (!fs.existsSync(out)) throw new Error(`the editor run recorded nothing (harness exit ${code}; its output is above)`);
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as VsBuiltinRecord;
    if (fs.existsSync(longTasks)) r.longTasks = JSON.parse(fs.readFileSync(longTasks, 'utf8')) as [number, number][];
    else log('the runner recorded no long tasks of the workbench page');
    return r;
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

/** The rows of one record (exported for the unit test). */
export function rows(r: VsBuiltinRecord, load: string, loads: string): BenchResult[] {
  const out: BenchResult[] = [];
  const where = `code-server ${r.vscode}, production VSIX, one window; load ${loads}`;
  const row = (what: string, mh: number, vs: number, unit: string, how: string) => {
    const ratio = mh === vs ? 1 : round(mh / vs, 3); // both 0 (no long task on either side): even
    out.push({
      name: `${PREFIX}: ${what}`, value: round(mh, 1), unit, ratio, target: TARGET, met: Number.isFinite(ratio) ? ratio <= 1.0 : false,
      baseline: `VS Code's own MCP host: ${round(vs, 1)} ${unit}`, note: `${how}; ${where}`, load, vscodeVersion: r.vscode,
    });
  };
  const med = (xs: number[]) => median(xs);
  if (r.starts) {
    const s = r.starts;
    const list = (side: Side, f: (x: Start) => number) => s[side].map(x => round(f(x), 0)).join(', ');
    row('server start → every server\'s tools listed in vscode.lm.tools (5 servers)', med(s.mh.map(x => x.allMs)), med(s.vs.map(x => x.allMs)), 'ms',
      `median of ${s.mh.length} rounds each, interleaved; MCP Host: setting written → its gateway's tools listed (${list('mh', x => x.allMs)} ms); VS Code: .vscode/mcp.json written + workbench.mcp.startServer, its cached lists reset (${list('vs', x => x.allMs)} ms); tools per server ${JSON.stringify(r.expected)}`);
    row('1,000-tool server: start → its tools listed', med(s.mh.map(x => x.perServer.many)), med(s.vs.map(x => x.perServer.many)), 'ms',
      `side-by-side.mjs --tools 1000, started with the 4 others; MCP Host ${list('mh', x => x.perServer.many)} ms, VS Code ${list('vs', x => x.perServer.many)} ms`);
    row('longest extension-host block while the 5 servers start and list (the 1,000-tool server among them)', med(s.mh.map(x => x.maxBlockMs)), med(s.vs.map(x => x.maxBlockMs)), 'ms',
      `monitorEventLoopDelay max in the extension host, median of the rounds; MCP Host ${list('mh', x => x.maxBlockMs)} ms, VS Code ${list('vs', x => x.maxBlockMs)} ms`);
  }
  if (r.latency) {
    const l = r.latency;
    row('vscode.lm.invokeTool latency of the same small tool (echo), median', med(l.mh), med(l.vs), 'ms',
      `${l.mh.length} calls per side in blocks of 20, the side going first alternating; MCP Host through its gateway`);
    row('vscode.lm.invokeTool latency of the same small tool (echo), p99', percentile(l.mh, 99), percentile(l.vs, 99), 'ms', 'the same calls');
  }
  if (r.big) {
    const b = r.big;
    const ok = (side: Side) => b[side].filter(x => !x.error && x.chars > 0);
    const desc = (side: Side) => b[side].map(x => x.error ? `failed: ${x.error.slice(0, 120)}` : `${round(x.ms, 0)} ms, block ${round(x.maxBlockMs, 0)} ms, ${x.chars} chars`).join('; ');
    if (ok('mh').length && ok('vs').length) {
      row('~31 MB tool result: time to the result', med(ok('mh').map(x => x.ms)), med(ok('vs').map(x => x.ms)), 'ms', `MCP Host: ${desc('mh')}; VS Code: ${desc('vs')}`);
      row('~31 MB tool result: longest extension-host block', med(ok('mh').map(x => x.maxBlockMs)), med(ok('vs').map(x => x.maxBlockMs)), 'ms', 'monitorEventLoopDelay max during each call, median of the rounds');
      if (r.longTasks && ok('mh').every(x => x.wall) && ok('vs').every(x => x.wall)) {
        // The longest long task of the workbench page overlapping each call (0 when none: no task over 50 ms).
        const longest = (w: [number, number]) => Math.max(0, ...r.longTasks!.filter(([at, ms]) => at < w[1] && at + ms > w[0]).map(([, ms]) => ms));
        const each = (side: Side) => ok(side).map(x => longest(x.wall!));
        row('~31 MB tool result: longest renderer task (the workbench page)', med(each('mh')), med(each('vs')), 'ms',
          `Chromium's long-task observer (tasks over 50 ms; 0 = none) in the workbench page during each call, median of the rounds: MCP Host ${each('mh').map(x => round(x, 0)).join(', ')} ms, VS Code ${each('vs').map(x => round(x, 0)).join(', ')} ms`);
      }
    } else {
      out.push({ name: `${PREFIX}: ~31 MB tool result`, value: NaN, unit: 'ms', ratio: null, target: TARGET, met: false, note: `not measured: MCP Host: ${desc('mh')}; VS Code: ${desc('vs')}; ${where}`, load, vscodeVersion: r.vscode });
    }
  }
  const mb = (m: Mem) => m.bytes / 1024 / 1024;
  if (r.memoryStart) {
    const m = r.memoryStart;
    row('RSS of the processes each host adds for 3 servers (echo, everything, filesystem)', mb(m.mh), mb(m.vs), 'MiB',
      `MCP Host: ${m.mh.count} processes (the 3 servers; its gateway is served in the extension host, issue 41); VS Code: ${m.vs.count} processes; the extension host itself, shared, is not counted`);
  }
  if (r.memoryAfterCalls && r.latency) {
    const m = r.memoryAfterCalls;
    row(`RSS of the same processes after ${r.latency.mh.length + 20} tool calls`, mb(m.mh), mb(m.vs), 'MiB', `MCP Host ${m.mh.count} processes, VS Code ${m.vs.count}`);
  }
  if (r.crash) {
    const c = r.crash;
    row('crash of one server → its tools work again', med(c.mh.map(x => x.ms)), med(c.vs.map(x => x.ms)), 'ms',
      `its crash tool exits the process; from the moment the process is gone its echo is called every 50 ms until it answers; MCP Host ${c.mh.map(x => `${round(x.ms, 0)} ms (${x.failedCalls} failed calls)`).join(', ')}; VS Code ${c.vs.map(x => `${round(x.ms, 0)} ms (${x.failedCalls} failed calls)`).join(', ')} (VS Code starts a crashed server again on the next call; MCP Host restarts it by itself after a backoff of 1 s, doubled per crash within 3 minutes: its crash-loop guard)`);
  }
  if (!r.done) {
    out.push({ name: `${PREFIX}: did not finish`, value: NaN, unit: '', ratio: null, target: TARGET, met: false, note: `${r.error ?? 'no error recorded'}; last steps: ${(r.progress ?? []).slice(-3).join(' | ')}; ${where}`, load, vscodeVersion: r.vscode });
  }
  return out;
}

export const vsBuiltin: Bench = {
  id: 'vs-builtin',
  title: 'MCP Host side by side with VS Code\'s own MCP host in one code-server window (real editor)',
  async run(log) {
    const before = os.loadavg()[0];
    const r = await editorRun(log);
    const after = os.loadavg()[0];
    for (const line of r.progress ?? []) log(line);
    for (const [side, top] of Object.entries(r.profiles ?? {})) log(`CPU profile of the extension host, 50 calls, ${side === 'mh' ? 'MCP Host' : 'VS Code'} (self ms): ${top.map(x => `${x.fn} ${x.ms}`).join('; ')}`);
    return rows(r, `${before.toFixed(1)}→${after.toFixed(1)}`, `${before.toFixed(1)} at the start, ${after.toFixed(1)} at the end`);
  },
};
