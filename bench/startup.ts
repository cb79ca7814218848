/**
 * Start-up: 20 stdio echo servers started at once (one `reconcile`) through the host vs. 20 bare SDK clients started
 * at once with the same environment (the judged ratio, issue 41), and vs. one server (reported: on 2 cores 20 servers'
 * own start CPU bounds it). Each host start is measured up to `running` with the catalogue loaded (what `reconcile`
 * waits for), each bare one up to its tools listed. Also reports the CPU a server needs to start, and so the bound
 * 20 × that ÷ cores. The host is measured twice a round: probing `server/discover` first (a definition's first
 * start, the judged row) and with the era verdicts known (H123: every later start in the extension, `initialize` at
 * once as the bare client's default legacy mode does; reported, to tell whether the probe is where the extra goes).
 * `startup-era` (H123, H194): starts of a 2025-era server through the host with the protocol-era verdict cache
 * (src/mcp/server/eraVerdicts.ts): one that refuses the `server/discover` probe (cached: no probe), one that stays
 * silent on it (never cached: every start waits for the probe's time limit).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { nodeFixture } from '../test/support/connection';
import { EraVerdicts, McpHost, STDIO_PROBE_TIMEOUT } from '../src/mcp';
import { BENCH_STOP, bareSdk, hostEnvironment, median, round, timed, type Bench } from './lib';

const N = 20;
const ROUNDS = 5;

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

async function hostStart(n: number, cpu?: number[], ownCpu?: number[], verdicts?: EraVerdicts): Promise<number> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false }, ...(verdicts ? { eraVerdicts: verdicts } : {}) });
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

/** `n` bare SDK clients started at once, each up to its tools listed; `cpu` gets each server process's CPU ms. */
async function sdkStart(n: number, cpu?: number[], ownCpu?: number[]): Promise<number> {
  const conns: Awaited<ReturnType<typeof bareSdk>>[] = [];
  // The environment the host gives its servers (hostEnvironment): the same work per server process on both sides.
  const env = hostEnvironment();
  try {
    const c0 = process.cpuUsage();
    const ms = await timed(async () => {
      await Promise.all(Array.from({ length: n }, async () => {
        const c = await bareSdk('echo.mjs', [], { env });
        conns.push(c);
        await c.client.listTools();
      }));
    });
    const d = process.cpuUsage(c0);
    ownCpu?.push((d.user + d.system) / 1000 / n);
    if (cpu) for (const c of conns) cpu.push(cpuMs(c.pid));
    return ms;
  } finally {
    await Promise.all(conns.map(c => c.close()));
  }
}

export const startup: Bench = {
  id: 'startup',
  title: `start-up: ${N} stdio servers at once, host vs. ${N} bare SDK clients at once`,
  async run(log) {
    await hostStart(1); // warm-up (file cache)
    await sdkStart(1);
    // The era verdicts the extension keeps (H123): after a definition's first start, it starts with `initialize` at
    // once, no `server/discover` probe, as the bare SDK client (legacy by default) always does. Recorded here by a
    // first start of the same 20 definitions.
    const verdicts = new EraVerdicts(undefined);
    await hostStart(N, undefined, undefined, verdicts);
    const one: number[] = [], many: number[] = [], known: number[] = [], sdkOne: number[] = [], sdkMany: number[] = [];
    const cpu: number[] = [], knownCpu: number[] = [], sdkCpu: number[] = [];
    const ownCpu: number[] = [], knownOwnCpu: number[] = [], sdkOwnCpu: number[] = [];
    const pairs: number[] = [], knownPairs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      one.push(await hostStart(1));
      sdkOne.push(await sdkStart(1));
      // Host (probing), host (era verdict known) and bare SDK side by side in each round, the order rotating: a
      // round's ratios are judged, so a slow phase of a shared machine lands on every side of it.
      const sides = [
        async () => { many.push(await hostStart(N, cpu, ownCpu)); },
        async () => { known.push(await hostStart(N, knownCpu, knownOwnCpu, verdicts)); },
        async () => { sdkMany.push(await sdkStart(N, sdkCpu, sdkOwnCpu)); },
      ];
      for (let k = 0; k < sides.length; k++) await sides[(r + k) % sides.length]();
      pairs.push(many[r] / sdkMany[r]);
      knownPairs.push(known[r] / sdkMany[r]);
    }
    const cores = os.availableParallelism();
    const cpuPer = median(cpu.filter(Number.isFinite));
    const sdkCpuPer = median(sdkCpu.filter(Number.isFinite));
    const bound = (N * cpuPer) / cores;
    log(`one: host ${one.map(x => x.toFixed(0)).join('/')} ms, sdk ${sdkOne.map(x => x.toFixed(0)).join('/')} ms; ${N} at once: host ${many.map(x => x.toFixed(0)).join('/')} ms, host with era verdicts ${known.map(x => x.toFixed(0)).join('/')} ms, sdk ${sdkMany.map(x => x.toFixed(0)).join('/')} ms`);
    log(`ratios per round: probing ${pairs.map(x => x.toFixed(3)).join(', ')}; era verdicts known ${knownPairs.map(x => x.toFixed(3)).join(', ')}; server CPU per start with verdicts ${median(knownCpu.filter(Number.isFinite)).toFixed(0)} ms, client CPU per server ${median(knownOwnCpu).toFixed(1)} ms`);
    log(`a server process needs ~${cpuPer.toFixed(0)} ms CPU to start under the host, ~${sdkCpuPer.toFixed(0)} ms under the bare SDK; ${N} × that ÷ ${cores} cores = ${bound.toFixed(0)} ms; the client side spends ~${median(ownCpu).toFixed(1)} ms CPU per server (host), ~${median(sdkOwnCpu).toFixed(1)} ms (bare SDK)`);
    const vsOne = median(many) / median(one);
    const vsSdk = median(pairs);
    return [
      {
        name: `start-up: ${N} at once, host ÷ ${N} bare SDK clients at once`, value: round(median(many), 1), unit: 'ms',
        ratio: round(vsSdk), target: 'ratio ≤ 1.05', met: vsSdk <= 1.05, baseline: `${N} bare SDK clients started at once, the environment the host gives its servers`,
        note: `bare SDK ${round(median(sdkMany), 1)} ms; ratio = median of ${ROUNDS} rounds' host ÷ bare SDK (${pairs.map(x => round(x, 2)).join(', ')}), the order of the three sides (host probing, host with era verdicts, bare SDK) rotating; server CPU per start host ${round(cpuPer, 0)} / bare SDK ${round(sdkCpuPer, 0)} ms, client CPU per server host ${round(median(ownCpu), 1)} / bare SDK ${round(median(sdkOwnCpu), 1)} ms; both sides start the servers with the host's environment (the whole of process.env): given the SDK's short default one, the bare side measured 1.18× faster, all of it the servers' own start (a Node server parses NODE_EXTRA_CA_CERTS at start, ~40 ms CPU each)`,
      },
      {
        name: `start-up: ${N} at once, host with the era verdicts known ÷ ${N} bare SDK clients at once`, value: round(median(known), 1), unit: 'ms',
        // Reported, not judged (issue 41): it tells whether the probe is where the judged row's extra goes.
        ratio: round(median(knownPairs)), target: 'report (the row above is judged)', met: null,
        baseline: `${N} bare SDK clients started at once (the SDK's default legacy mode: initialize, no probe), the environment the host gives its servers`,
        note: `the extension's every start of a definition after its first (H123: the era verdict cache, kept in the workspace state): initialize at once, no server/discover probe; ratio = median of ${ROUNDS} rounds (${knownPairs.map(x => round(x, 2)).join(', ')}), the three sides' order rotating; server CPU per start ${round(median(knownCpu.filter(Number.isFinite)), 0)} ms, client CPU per server ${round(median(knownOwnCpu), 1)} ms`,
      },
      {
        // Issue 41: retired as a target. On 2 cores, 20 Node processes starting at once need 20 × their start CPU ÷ 2 of
        // wall time whatever starts them, so this ratio measured the servers, not the host; the row above judges the host.
        name: `start-up: ${N} stdio servers at once ÷ one server (host)`, value: round(median(many), 1), unit: 'ms',
        ratio: round(vsOne), target: 'report (was ≤ 1.5×; retired in issue 41: bound by the servers\' own CPU)', met: null, baseline: 'one server started by the host',
        note: `one server ${round(median(one), 1)} ms (bare SDK ${round(median(sdkOne), 1)} ms); CPU-bound floor ${N} × ${round(cpuPer, 0)} ms CPU per server process ÷ ${cores} cores = ${round(bound, 0)} ms`,
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
  title: 'start-up of a 2025-era server: the era verdict cache (a refusing server) and the probe wait (a silent one, H194)',
  async run(log) {
    // H123: a server that refused server/discover and answered initialize is remembered; its next start sends no probe.
    // H194 (which outdated this bench's earlier premise, "a silent server cached starts at once"): a probe that ran
    // out of time is no verdict, so a silent server is never cached and every start of it waits for the probe. So:
    // the cache's saving is measured on the refusing server, and the silent server's start is judged bounded (the
    // probe's time limit and a plain start, no more) and still probing with a cache (nothing recorded for it).
    const verdicts = new EraVerdicts(undefined);
    await oldServerStart(false, verdicts); // warm-up; records the refusing server's verdict
    const silentVerdicts = new EraVerdicts(undefined);
    await oldServerStart(true, silentVerdicts); // a silent start: must record nothing (H194)
    const recorded = Object.keys(silentVerdicts.toJSON()).length;
    const probing: number[] = [], cached: number[] = [], silent: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      probing.push(await oldServerStart(false));
      cached.push(await oldServerStart(false, verdicts));
      silent.push(await oldServerStart(true, silentVerdicts));
    }
    log(`refusing the probe: probing ${probing.map(x => x.toFixed(0)).join('/')} ms, verdict cached ${cached.map(x => x.toFixed(0)).join('/')} ms; ` +
      `silent on the probe (cache given, nothing in it) ${silent.map(x => x.toFixed(0)).join('/')} ms; verdicts recorded for the silent server: ${recorded}`);
    const saved = median(probing) - median(cached);
    // The silent start's wait beyond a start that is answered at once, against the probe's time limit.
    const wait = median(silent) - median(probing);
    const bounded = wait <= STDIO_PROBE_TIMEOUT * 1.1 && recorded === 0;
    return [
      {
        name: 'start-up: a server refusing server/discover, era verdict cached ÷ probing', value: round(saved, 1), unit: 'ms saved',
        ratio: round(median(cached) / median(probing)), target: 'report (H123: the cached start sends no probe)', met: null,
        baseline: 'the same server, no cache (probe refused with -32601, then initialize)',
        note: `cached ${round(median(cached), 1)} ms, probing ${round(median(probing), 1)} ms: one round trip to a running process, small beside the process start`,
      },
      {
        name: 'start-up: a server silent on server/discover waits for the probe, never cached (H194)', value: round(median(silent), 1), unit: 'ms',
        ratio: round(wait / STDIO_PROBE_TIMEOUT), target: `wait beyond an answered start ≤ 1.1× the probe limit (${STDIO_PROBE_TIMEOUT} ms), no verdict recorded`, met: bounded,
        baseline: `the probe's time limit (STDIO_PROBE_TIMEOUT ${STDIO_PROBE_TIMEOUT} ms)`,
        note: `waited ${round(wait, 1)} ms more than the refusing server's start (${round(median(probing), 1)} ms); verdicts recorded for it ${recorded}. Was "cached ≤ 1.25× an answered start", measured before H194 made a timed-out probe no verdict`,
      },
    ];
  },
};
