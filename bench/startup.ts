/**
 * Start-up: 20 stdio echo servers started at once (one `reconcile`) vs. one server, through the host; the
 * same with 20 bare SDK clients started at once, which shows what the machine allows without any host.
 * Each start is measured up to `running` with the catalogue loaded (what `reconcile` waits for).
 * Also reports the CPU one server needs to start, and so the bound 20 × that ÷ cores.
 * `startup-era` (H123): one start of a 2025-era server that stays silent on the `server/discover` probe, without and
 * with the protocol-era verdict cache (src/mcp/server/eraVerdicts.ts), through the host as the editor configures it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { nodeFixture } from '../test/support/connection';
import { EraVerdicts, McpHost, STDIO_PROBE_TIMEOUT } from '../src/mcp';
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

/**
 * One start of the fixture skills server up to `running` (catalogue loaded): `silent` stays silent on the probe (a
 * client waits STDIO_PROBE_TIMEOUT), else it refuses the probe at once (-32601); with `verdicts`, the era cache.
 */
async function oldServerStart(silent: boolean, verdicts?: EraVerdicts): Promise<number> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false }, ...(verdicts ? { eraVerdicts: verdicts } : {}) });
  const def = nodeFixture('old', 'skills', silent ? ['--silent-probe'] : []);
  try {
    const ms = await timed(() => host.reconcile([def]));
    if (host.get('old')?.state.kind !== 'running') throw new Error('the 2025-era server did not start');
    return ms;
  } finally {
    await host.shutdown();
    host.dispose();
  }
}

export const startupEra: Bench = {
  id: 'startup-era',
  title: 'start-up of a server silent on server/discover: probing vs. the era verdict cache',
  async run(log) {
    const verdicts = new EraVerdicts(undefined);
    await oldServerStart(true, verdicts); // warm-up; the probing start also records the verdict
    const probing: number[] = [], cached: number[] = [], prompt: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      probing.push(await oldServerStart(true));
      cached.push(await oldServerStart(true, verdicts));
      prompt.push(await oldServerStart(false));
    }
    log(`silent, probing ${probing.map(x => x.toFixed(0)).join('/')} ms; silent, verdict cached ${cached.map(x => x.toFixed(0)).join('/')} ms; ` +
      `refusing the probe at once ${prompt.map(x => x.toFixed(0)).join('/')} ms`);
    const ratio = median(cached) / median(prompt);
    const saved = median(probing) - median(cached);
    return [
      {
        name: 'start-up: a server silent on server/discover, era verdict cached', value: round(median(cached), 1), unit: 'ms',
        ratio: round(ratio), target: 'no wait for the probe: ratio ≤ 1.25', met: ratio <= 1.25,
        baseline: 'the same server refusing the probe at once (-32601), no cache',
        note: `without the cache the silent server's start waits for the probe (up to ${STDIO_PROBE_TIMEOUT} ms, concurrent with the process start): ${round(median(probing), 1)} ms`,
      },
      {
        name: 'start-up: a server silent on server/discover, probing ÷ cached', value: round(saved, 1), unit: 'ms saved',
        ratio: round(median(probing) / median(cached)), target: 'report', met: null, baseline: 'the cached start',
        note: 'the probe timer runs from the connect, so on a loaded machine, where a process takes seconds to start, less of it shows',
      },
    ];
  },
};
