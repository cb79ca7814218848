/**
 * CLI start-up, whole process from spawn to exit, as a user runs it (`node dist/cli.js`, the production bundle with
 * the bundles it loads on first use next to it); 5 runs each, median. Needs dist/cli.js (built here with --production
 * if missing).
 * - `mcp-host inspect` on server-everything and server-memory (the figure alone);
 * - against the MCP Inspector CLI 2.12 (`mcp-inspector --cli`, devDependency @modelcontextprotocol/inspector) on
 *   @coo-quack/calc-mcp and server-sequential-thinking (both stdio, from node_modules/.bin), runs alternating ours and
 *   theirs, one unmeasured warm-up run of each first:
 *     inspect: ours spawns the server, initializes (the protocol era from its verdict cache, a file in the run's
 *       folder the warm-up fills), lists every list the server declares (both declare tools only), prints the JSON
 *       report and stops the server's process tree; theirs `--method tools/list` spawns, initializes, lists tools,
 *       prints them and closes;
 *     call: both spawn, initialize, list tools, call one tool (calc-mcp `math` "2+3"; sequential-thinking
 *       `sequentialthinking` with one thought), print the result and stop; ours also checks the arguments against the
 *       tool's inputSchema before sending.
 *   ratio = median ours ÷ median theirs, target ≤ 1.00. If the Inspector is missing or cannot run, its rows say why.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, median, round, type Bench, type BenchResult } from './lib';

const RUNS = 5;

/** One whole-process run; throws with the tail of stderr if it fails. */
function runOnce(argv: string[], cwd: string, env: NodeJS.ProcessEnv, what: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, argv, { cwd, env, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${what} exited ${r.status ?? r.signal}: ${(r.stderr || r.error?.message || '').slice(-500)}`);
  return ms;
}

const runs = (ms: number[]) => ms.map(x => x.toFixed(0)).join(', ');

export const cliStartup: Bench = {
  id: 'cli',
  title: 'mcp-host inspect/call, whole process (production dist/cli.js): server-everything, server-memory, and against the MCP Inspector CLI on calc-mcp and sequential-thinking',
  async run(log) {
    const cli = path.join(ROOT, 'dist', 'cli.js');
    if (!fs.existsSync(cli) || /\/\/# sourceMappingURL=/.test(fs.readFileSync(cli, 'utf8').slice(-512))) {
      log('dist/cli.js is missing or a development build: building it (node esbuild.mjs --production)');
      const b = spawnSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: ROOT, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
    }
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bench-cli-'));
    try {
      const bin = path.join(ROOT, 'node_modules', '.bin');
      const cfg = path.join(work, 'mcp.json');
      fs.writeFileSync(cfg, JSON.stringify({ servers: {
        everything: { type: 'stdio', command: path.join(bin, 'mcp-server-everything'), args: ['stdio'], cwd: work },
        memory: { type: 'stdio', command: path.join(bin, 'mcp-server-memory'), env: { MEMORY_FILE_PATH: path.join(work, 'memory.jsonl') }, cwd: work },
        calc: { type: 'stdio', command: path.join(bin, 'calc-mcp'), cwd: work },
        thinking: { type: 'stdio', command: path.join(bin, 'mcp-server-sequential-thinking'), cwd: work },
      } }));
      const env: NodeJS.ProcessEnv = { ...process.env, MCP_HOST_ERA_CACHE: path.join(work, 'era-verdicts.json') };
      const rows: BenchResult[] = [];

      const times: Record<string, number[]> = { everything: [], memory: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const server of Object.keys(times)) times[server].push(runOnce([cli, 'inspect', server, '--config', cfg], work, env, `mcp-host inspect ${server}`));
      }
      for (const [server, ms] of Object.entries(times)) {
        log(`inspect ${server}: ${runs(ms)} ms`);
        rows.push({
          name: `cli: mcp-host inspect ${server === 'everything' ? 'server-everything' : 'server-memory'}, whole process (median of ${RUNS})`,
          value: round(median(ms), 0), unit: 'ms', ratio: null, target: 'report', met: null,
          note: `runs: ${runs(ms)} ms; load ${os.loadavg()[0].toFixed(1)}`,
        });
      }

      rows.push(...inspectorRows(cli, cfg, work, env, bin, log));
      return rows;
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
};

/** The comparisons with the MCP Inspector CLI (see the header); rows with a skip reason when it cannot run. */
function inspectorRows(cli: string, cfg: string, work: string, env: NodeJS.ProcessEnv, bin: string, log: (line: string) => void): BenchResult[] {
  const cases = [
    { server: 'calc', label: 'calc-mcp', command: path.join(bin, 'calc-mcp'),
      call: { tool: 'math', args: { expression: '2+3' } } },
    { server: 'thinking', label: 'server-sequential-thinking', command: path.join(bin, 'mcp-server-sequential-thinking'),
      call: { tool: 'sequentialthinking', args: { thought: 'x', nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 } } },
  ];
  const kinds = ['inspect', 'call'] as const;
  const rowName = (kind: typeof kinds[number], label: string) => kind === 'inspect'
    ? `cli: mcp-host inspect vs MCP Inspector CLI tools/list, ${label}, whole process (median of ${RUNS})`
    : `cli: mcp-host call vs MCP Inspector CLI tools/call, ${label}, whole process (median of ${RUNS})`;
  const skipped = (why: string) => cases.flatMap(c => kinds.map(kind => ({
    name: rowName(kind, c.label), value: NaN, unit: 'ms', ratio: null, target: 'ratio ≤ 1.00 (ours ÷ the Inspector CLI)', met: null,
    note: `skipped: ${why}`,
  })));

  const launcher = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
  if (!fs.existsSync(launcher)) return skipped('the MCP Inspector (devDependency @modelcontextprotocol/inspector 2.12.0) is not installed: run npm install');
  try {
    runOnce([launcher, '--cli', '--version'], work, process.env, 'mcp-inspector --cli --version');
  } catch (err) {
    return skipped(`the MCP Inspector CLI does not run here: ${(err as Error).message}`);
  }

  const rows: BenchResult[] = [];
  for (const c of cases) {
    for (const kind of kinds) {
      const ours = kind === 'inspect'
        ? [cli, 'inspect', c.server, '--config', cfg]
        : [cli, 'call', c.server, c.call.tool, '--config', cfg, '--json', '--args', JSON.stringify(c.call.args)];
      const theirs = kind === 'inspect'
        ? [launcher, '--cli', c.command, '--method', 'tools/list']
        : [launcher, '--cli', c.command, '--method', 'tools/call', '--tool-name', c.call.tool,
          '--tool-arg', ...Object.entries(c.call.args).map(([k, v]) => `${k}=${String(v)}`)];
      const o: number[] = [];
      const t: number[] = [];
      try {
        // Warm-up (not measured): the file cache, and our era verdict for the server.
        runOnce(ours, work, env, `mcp-host ${kind} ${c.label}`);
        runOnce(theirs, work, process.env, `mcp-inspector --cli ${kind} ${c.label}`);
        for (let i = 0; i < RUNS; i++) {
          // Alternating the first side, so that neither always runs right after the other.
          if (i % 2 === 0) {
            o.push(runOnce(ours, work, env, `mcp-host ${kind} ${c.label}`));
            t.push(runOnce(theirs, work, process.env, `mcp-inspector --cli ${kind} ${c.label}`));
          } else {
            t.push(runOnce(theirs, work, process.env, `mcp-inspector --cli ${kind} ${c.label}`));
            o.push(runOnce(ours, work, env, `mcp-host ${kind} ${c.label}`));
          }
        }
      } catch (err) {
        rows.push({
          name: rowName(kind, c.label), value: NaN, unit: 'ms', ratio: null, target: 'ratio ≤ 1.00 (ours ÷ the Inspector CLI)', met: false,
          note: `did not run: ${(err as Error).message}`,
        });
        continue;
      }
      const ratio = median(o) / median(t);
      log(`${kind} ${c.label}: ours ${runs(o)} ms; Inspector ${runs(t)} ms; ratio ${ratio.toFixed(2)}`);
      rows.push({
        name: rowName(kind, c.label), value: round(median(o), 0), unit: 'ms', ratio: round(ratio, 2),
        baseline: `MCP Inspector CLI 2.12 (mcp-inspector --cli … --method tools/${kind === 'inspect' ? 'list' : 'call'}), median ${median(t).toFixed(0)} ms`,
        target: 'ratio ≤ 1.00 (ours ÷ the Inspector CLI)', met: ratio <= 1,
        note: `ours: ${runs(o)} ms; Inspector: ${runs(t)} ms; load ${os.loadavg()[0].toFixed(1)}`,
      });
    }
  }
  return rows;
}
