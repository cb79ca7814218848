/**
 * Activation and bundle size.
 *
 * bundle: runs `node esbuild.mjs --production` into a temporary folder (`--outdir`), so a concurrent editor test
 * run keeps its dist/; reports the size of extension.js and of the bundles loaded on first use.
 *
 * activation: runs the real-editor harness (scripts/editor/run-editor-tests.mjs: code-server, the real
 * extension host) with 10 stdio servers (echo.mjs) in user settings (so no launch consent waits for an answer
 * nobody gives) and only test/editor/bench-activation.test.ts selected; that test writes the two figures the
 * extension measured from the start of its `activate()` (both also logged in the "MCP Host" channel):
 * `firstReconcileMs`, until the first settings sync had `reconcile` decide what starts (the judged figure:
 * activation is not over before that), and `activationMs`, `activate()` alone. Three runs, the median judged (one
 * run on a shared machine measures its load as much as the extension). Takes 2–4 minutes;
 * `--skip activation` leaves it out. Needs dist/extension.js (built here with --production, what ships, if it
 * is missing or predates firstReconcileMs) and out/test/editor (built by `npm run bench`).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixture } from '../test/support/connection';
import { ROOT, median, round, type Bench } from './lib';

const MB = 1024 * 1024;
/** Editor runs of the activation row (the median is judged). */
const RUNS = 3;
/** Editor runs tried at most for RUNS that measure. */
const ATTEMPTS = 5;

export const bundle: Bench = {
  id: 'bundle',
  title: 'bundle size of dist/extension.js (production build)',
  async run(log) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bundle-'));
    try {
      // esbuild.mjs itself (its lazy bundles included), into a temporary folder.
      if (await runBounded(process.execPath, ['esbuild.mjs', '--production', '--outdir', dir], process.env, 120_000, log) !== 0) throw new Error('build failed');
      const size = fs.statSync(path.join(dir, 'extension.js')).size;
      const lazy = fs.readdirSync(dir).filter(f => f.endsWith('.js') && !['extension.js', 'cli.js', 'sandbox-runtime.js'].includes(f))
        .map(f => `${f} ${(fs.statSync(path.join(dir, f)).size / 1024).toFixed(0)} KiB`);
      log(`extension.js (minified) ${(size / 1024).toFixed(0)} KiB; loaded on first use: ${lazy.join(', ')}`);
      return [{
        // Issue 41: in the target's unit (1 MB = 1,000,000 bytes, what `met` judges); in MiB the row read 0.987 and missed.
        name: 'bundle: dist/extension.js, production (minified)', value: round(size / 1_000_000, 3), unit: 'MB',
        ratio: null, target: '≤ 1 MB minified', met: size <= 1_000_000, note: `${size} bytes (${round(size / MB, 3)} MiB); loaded on first use, apart: ${lazy.join(', ')}`,
      }];
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** Runs `cmd args` in its own process group; kills that group (only it) after `ms`. */
export function runBounded(cmd: string, args: string[], env: NodeJS.ProcessEnv, ms: number, log: (l: string) => void): Promise<number> {
  return new Promise(resolve => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    const onData = (d: Buffer) => { tail = (tail + d.toString()).slice(-4000); };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const timer = setTimeout(() => {
      log(`editor run took longer than ${ms / 1000} s; stopping it`);
      try { process.kill(-child.pid!, 'SIGINT'); } catch { /* gone */ }
      setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 15_000).unref();
    }, ms);
    child.once('exit', code => {
      clearTimeout(timer);
      if (code !== 0) log(`editor run exited ${code}: …${tail.slice(-1500)}`);
      resolve(code ?? 1);
    });
  });
}

let shippedDir: string | undefined;
/**
 * Issue 41: the benches' editor runs load the production VSIX unpacked into a folder of their own (MCP_HOST_SHIPPED_DIR,
 * scripts/shipped.mjs), not the shared .vscode-test/shipped, which any other editor run on the machine (another
 * checkout's, under the editor lock the bench does not hold) unpacks its own VSIX into: on a busy shared machine that
 * swapped or removed the extension under a running bench, and the harness exited 1 with nothing recorded.
 */
export function benchShipped(): { MCP_HOST_SHIPPED_DIR: string } {
  if (!shippedDir) {
    shippedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bench-shipped-'));
    process.once('exit', () => fs.rmSync(shippedDir!, { recursive: true, force: true }));
  }
  return { MCP_HOST_SHIPPED_DIR: shippedDir };
}

/** What test/editor/bench-activation.test.ts records in one editor run. */
interface ActivationRecord {
  activationMs: number; firstReconcileMs: number; usableMs: number; servers: number; vscode: string;
  /** Why the Servers view did not become usable (the servers' states), when usableMs is -1. */
  why?: string;
  /** Ms from the start of activate() to each step of activation and the first settings sync (extension.ts activationSteps). */
  steps?: Record<string, number>;
}

/**
 * One editor run from a fresh profile with `n` echo servers in user settings and `mcpHost.startup` = `mode`; resolves
 * to what the extension measured. A run that cannot measure says why (the harness's exit and output tail, or the
 * servers' states) instead of waiting for mocha's timeout.
 */
async function editorActivation(n: number, mode: 'eager' | 'lazy', log: (l: string) => void): Promise<ActivationRecord> {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-activation-')), 'activation.json');
  try {
    const servers: Record<string, unknown> = {};
    for (let i = 1; i <= n; i++) servers[`echo-${i}`] = { command: process.execPath, args: [fixture('echo')] };
    const code = await runBounded(process.execPath, [path.join(ROOT, 'scripts/editor/run-editor-tests.mjs')], {
      ...process.env,
      ...benchShipped(),
      MCP_HOST_EDITOR_PASSES: 'trusted',
      MCP_HOST_TEST_GREP: 'Activation benchmark',
      MCP_HOST_BENCH_ACTIVATION_OUT: out,
      MCP_HOST_TEST_TIMEOUT: '240000',
      MCP_HOST_EDITOR_USER_SETTINGS: JSON.stringify({ 'mcpHost.servers': servers, 'mcpHost.startup': mode }),
    }, 300_000, log);
    if (!fs.existsSync(out)) throw new Error(`the editor run recorded no time (harness exit ${code}; its output is above)`);
    return JSON.parse(fs.readFileSync(out, 'utf8')) as ActivationRecord;
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

export const activation: Bench = {
  id: 'activation',
  title: 'activate() with 10 servers configured, in the real editor (code-server)',
  async run(log) {
    const dist = path.join(ROOT, 'dist', 'extension.js');
    if (!fs.existsSync(dist) || !fs.readFileSync(dist, 'utf8').includes('firstReconcileMs')) {
      log('dist/extension.js is missing or predates firstReconcileMs: building it (node esbuild.mjs --production)');
      if (await runBounded(process.execPath, ['esbuild.mjs', '--production'], process.env, 120_000, log) !== 0) throw new Error('build failed');
    }
    const build = /\/\/# sourceMappingURL=/.test(fs.readFileSync(dist, 'utf8').slice(-512)) ? 'development build' : 'production build';
    const t0 = Date.now();
    // Three editor runs, judged by the median: one run on a shared machine measures its load as much as the extension
    // (on 26 Nov: 9.6, 34.1 and 49.8 ms in three runs within two minutes, at loads 1.3 to 3.9). Each is logged with
    // the load it ran at.
    const runs: Array<ActivationRecord & { load: string }> = [];
    // Issue 41: a run that cannot measure (the harness failed, the first sync never decided) says why and another is
    // made, up to ATTEMPTS in all; the row says how many did not measure and why, and fails only when none did.
    const failed: string[] = [];
    for (let i = 0; runs.length < RUNS && i < ATTEMPTS; i++) {
      const load = os.loadavg()[0].toFixed(1);
      let one: ActivationRecord;
      try {
        one = await editorActivation(10, 'eager', log);
        if (one.firstReconcileMs < 0) throw new Error(`not measured: ${one.why}`);
      } catch (err) {
        const why = `run ${i + 1} at load ${load}: ${err instanceof Error ? err.message : String(err)}`;
        log(why);
        failed.push(why);
        continue;
      }
      log(`run ${i + 1}: first reconcile ${one.firstReconcileMs.toFixed(1)} ms (CPU ${one.steps?.['cpu decided']?.toFixed(1) ?? '?'} ms), installation key read ${one.steps?.key?.toFixed(1) ?? '?'} ms, activate() ${one.activationMs.toFixed(1)} ms, at load ${load}`);
      runs.push({ ...one, load });
    }
    if (!runs.length) throw new Error(`no editor run measured (${failed.join('; ')})`);
    const unmeasured = failed.length ? `; ${failed.length} run(s) did not measure: ${failed.join('; ')}` : '';
    const byWall = [...runs].sort((a, b) => a.firstReconcileMs - b.firstReconcileMs);
    const r = byWall[Math.floor(byWall.length / 2)];
    const cpu = runs.map(x => x.steps?.['cpu decided']).filter((x): x is number => x !== undefined);
    const cpuMedian = cpu.length === runs.length ? median(cpu) : undefined;
    const activationMedian = median(runs.map(x => x.activationMs));
    // Issue 41 (H644): the first reconcile no longer waits for the installation key (SecretStorage), so the span until
    // the key was read is reported beside it; `decided with key` is when the servers that waited for it (keyed launch
    // consent: none here, all ten are user servers) were decided.
    const keyAt = runs.map(x => x.steps?.key).filter((x): x is number => x !== undefined);
    const keyMedian = keyAt.length === runs.length ? median(keyAt) : undefined;
    if (r.steps) log(`steps of the median run (ms from the start of activate()): ${Object.entries(r.steps).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    log(`median of ${runs.length} runs: the first settings sync had reconcile decide what starts ${r.firstReconcileMs.toFixed(1)} ms after activate() began, with ${r.servers} servers configured (VS Code ${r.vscode}, ${build}); editor runs ${((Date.now() - t0) / 1000).toFixed(0)} s`);
    const each = runs.map(x => `${round(x.firstReconcileMs, 1)} ms at load ${x.load}`).join(', ');
    const where = `code-server ${r.vscode}, ${build} of dist/extension.js, measured by the extension from the start of its activate(); median of ${runs.length} editor runs (${each})${unmeasured}`;
    return [{
      name: `activation: activate() + first settings sync until reconcile decided what starts, ${r.servers} servers configured (real editor)`,
      value: round(r.firstReconcileMs, 1), unit: 'ms',
      ratio: null, target: '≤ 20 ms (starting servers never blocks activation)', met: r.firstReconcileMs <= 20 && r.servers === 10,
      note: `firstReconcileMs; in that run activate() alone took ${round(r.activationMs, 1)} ms${r.steps ? `; its steps ${Object.entries(r.steps).map(([k, v]) => `${k} ${v}`).join(', ')}` : ''}; ${where}`,
    }, ...(cpuMedian !== undefined ? [{
      // The same span in CPU time of the extension host's thread (src/extension/ui/cpuClock.ts): what the load of a shared
      // machine does not inflate (the wall-clock figure above also counts the time other processes had the core).
      name: `activation: CPU of the extension host's thread until reconcile decided, ${r.servers} servers configured (real editor)`,
      value: round(cpuMedian, 1), unit: 'ms', ratio: null, target: 'report (≤ 20 ms wall needs it well under 20)', met: null,
      note: `cpu decided of activationSteps, median of ${runs.length} runs (${cpu.map(x => round(x, 1)).join(', ')} ms); ${where}`,
    }] : []), ...(keyMedian !== undefined ? [{
      name: `activation: until the installation key was read from SecretStorage, ${r.servers} servers configured (real editor)`,
      value: round(keyMedian, 1), unit: 'ms', ratio: null, target: 'report (the first reconcile does not wait for it: issue 41)', met: null,
      note: `key of activationSteps, median of ${runs.length} runs (${keyAt.map(x => round(x, 1)).join(', ')} ms); servers that waited for it (keyed launch consent) decided at: ${runs.map(x => x.steps?.['decided with key'] ?? 'none').join(', ')}; ${where}`,
    }] : []), {
      name: `activation: activate() alone, ${r.servers} servers configured (real editor)`, value: round(activationMedian, 1), unit: 'ms',
      ratio: null, target: 'report (part of the row above)', met: null,
      note: `activationMs, median of ${runs.length} runs; ${where}`,
    }];
  },
};

/**
 * From activation to a usable Servers view, eager and lazy, with 10 and 20 stdio servers (echo.mjs) configured in
 * user settings (no launch consent to wait for): eager = every server running with its tools listed; lazy = every
 * server listed and expandable (it starts when expanded). One editor run per case (each from a fresh profile, so no
 * cached lists: the first start of a window).
 */
export const startupTree: Bench = {
  id: 'startup-tree',
  title: 'activation to a usable Servers view, 10 and 20 servers, eager and lazy (real editor)',
  async run(log) {
    const rows = [];
    for (const n of [10, 20]) {
      for (const mode of ['eager', 'lazy'] as const) {
        const r = await editorActivation(n, mode, log);
        if (r.usableMs < 0) log(`${n} servers, ${mode}: the Servers view did not become usable within 120 s: ${r.why}`);
        else log(`${n} servers, ${mode}: usable tree ${r.usableMs.toFixed(0)} ms after activate() began (first reconcile ${r.firstReconcileMs.toFixed(0)} ms)`);
        rows.push({
          name: `start-up: activation to a usable Servers view, ${r.servers} servers, ${mode}`, value: r.usableMs < 0 ? NaN : round(r.usableMs, 0), unit: 'ms',
          ratio: null, target: 'report (lazy: listed and expandable at once; eager: all running with their tools)', met: null,
          note: r.usableMs < 0 ? `not measured: ${r.why}` : mode === 'eager' ? 'every server running with its tools in the view' : 'every server listed, expandable (starts when expanded); no cached lists (fresh profile)',
        });
      }
    }
    return rows;
  },
};
