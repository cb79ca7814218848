/**
 * Start-up: 20 stdio echo servers started at once (one `reconcile`) vs. one server, through the host; the
 * same with 20 bare SDK clients started at once, which shows what the machine allows without any host.
 * Each start is measured up to `running` with the catalogue loaded (what `reconcile` waits for).
 * Also reports the CPU one server needs to start, and so the bound 20 × that ÷ cores.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { nodeFixture } from '../test/support/connection';
import { McpHost } from '../src/mcp';
import { BENCH_STOP, bareSdk, median, round, timed, type Bench } from './lib';

const N = 20;
const ROUNDS = 3;

/** CPU ms (user + system) a live process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return NaN;
  }
}

async function hostStart(n: number, cpu?: number[], ownCpu?: number[]): Promise<number> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false } });
  const defs = Array.from({ length: n }, (_, i) => nodeFixture(`echo-${i}`, 'echo'));
  try {
    const c0 = process.cpuUsage();
    const ms = await timed(() => host.reconcile(defs));
    const d = process.cpuUsage(c0);
    ownCpu?.push((d.user + d.system) / 1000 / n);
    const notRunning = defs.filter(d => host.get(d.name)?.state.kind !== 'running');
    if (notRunning.length) throw new Error(`${notRunning.length} server(s) did not start`);
    if (cpu) for (const d of defs) cpu.push(cpuMs(host.get(d.name)!.pid!));
    return ms;
  } finally {
    await host.shutdown();
    host.dispose();
  }
}

async function sdkStart(n: number): Promise<number> {
  const conns: Awaited<ReturnType<typeof bareSdk>>[] = [];
  try {
    return await timed(async () => {
      await Promise.all(Array.from({ length: n }, async () => {
        const c = await bareSdk('echo.mjs');
        conns.push(c);
        await c.client.listTools();
      }));
    });
  } finally {
    await Promise.all(conns.map(c => c.close()));
  }
}

export const startup: Bench = {
  id: 'startup',
  title: `start-up: ${N} stdio servers at once vs. one`,
  async run(log) {
    await hostStart(1); // warm-up (file cache)
    const one: number[] = [], many: number[] = [], sdkOne: number[] = [], sdkMany: number[] = [];
    const cpu: number[] = [];
    const ownCpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      one.push(await hostStart(1, cpu));
      sdkOne.push(await sdkStart(1));
      many.push(await hostStart(N, undefined, ownCpu));
      sdkMany.push(await sdkStart(N));
      await new Promise(res => setTimeout(res, 300));
    }
    const cores = os.availableParallelism();
    const cpuPer = median(cpu.filter(Number.isFinite));
    const bound = (N * cpuPer) / cores;
    log(`one: host ${one.map(x => x.toFixed(0)).join('/')} ms, sdk ${sdkOne.map(x => x.toFixed(0)).join('/')} ms; ${N} at once: host ${many.map(x => x.toFixed(0)).join('/')} ms, sdk ${sdkMany.map(x => x.toFixed(0)).join('/')} ms`);
    log(`one server needs ~${cpuPer.toFixed(0)} ms CPU to start; ${N} × that ÷ ${cores} cores = ${bound.toFixed(0)} ms; the host itself spends ~${median(ownCpu).toFixed(1)} ms CPU per server started`);
    const ratio = median(many) / median(one);
    const vsSdk = median(many) / median(sdkMany);
    return [
      {
        name: `start-up: ${N} stdio servers at once (wall time)`, value: round(median(many), 1), unit: 'ms',
        ratio: round(ratio), target: 'wall time ≤ 1.5× one server\'s start', met: ratio <= 1.5, baseline: 'one server started by the host',
        note: `one server ${round(median(one), 1)} ms; CPU-bound floor ${N} × ${round(cpuPer, 0)} ms CPU per server process ÷ ${cores} cores = ${round(bound, 0)} ms; host-side CPU ${round(median(ownCpu), 1)} ms per server`,
      },
      {
        name: `start-up: ${N} at once, host ÷ ${N} bare SDK clients at once`, value: round(median(sdkMany), 1), unit: 'ms (bare SDK)',
        ratio: round(vsSdk), target: 'report (no serialisation: ≈ 1)', met: null, baseline: `${N} bare SDK clients started at once`,
        note: `one bare SDK client ${round(median(sdkOne), 1)} ms`,
      },
    ];
  },
};
