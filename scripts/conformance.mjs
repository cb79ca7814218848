#!/usr/bin/env node
// Runs the MCP conformance suite (client mode) against the production CLI (`node dist/cli.js conformance`),
// in two versions side by side, grades each scenario and compares the failures with the baselines.
//
// Run sets (each graded and summed up on its own):
//   0.1.16       @modelcontextprotocol/conformance 0.1.16, every client scenario
//                (baseline: test/conformance/expected-failures.json)
//   2025-11-25   0.2.0-alpha.12 (@modelcontextprotocol/conformance-next), the client scenarios that revision
//                requires, at its wire (what `--requirements 2025-11-25` scores)
//   2026-07-28   the same for revision 2026-07-28
//   all          0.2.0-alpha.12, every client scenario at its default version (what `--suite all` runs)
//   unscored     0.2.0-alpha.12's unscored client scenarios (tagged `extension`: sep-2640-client-*, the DPoP
//                ones whose checks are sep-1932-client-*; tasks-* where a version has client ones), the same
//                runs as in `all`, reported on their own line; a failure there fails the step like any other
//                (baseline for the last four: test/conformance/expected-failures-next.json, each entry with its why)
//
//   npm run conformance                          every set; scenarios 2 per core at once (fewer under load: see
//                                                `workers`), timing-graded ones alone at the end
//   npm run conformance -- --workers 1           one scenario at a time
//   npm run conformance -- --only 2026-07-28,all
//   npm run conformance -- --scenario auth/scope-step-up      that scenario in every set that has it
//   npm run conformance -- --scenario 'auth/*' --only all     a prefix
//   npm run conformance -- --verbose             print each failure's message
//   npm run conformance -- --keep                keep the per-scenario results (checks.json, stdout, stderr)
//
// A required scenario runs at the revision's wire (`--scenario S --spec-version R --force`, what
// `--requirements R` does per scenario); when that is the scenario's default version the run is shared with
// the `all` set (the same invocation), and the client records the version it was given, so the grading
// checks it ran at R.
//
// Grading (scripts/conformance-lib.mjs): a scenario fails when the suite recorded no result, when the
// client exited non-zero or was killed (unless the scenario expects the client to give up), when it
// produced no graded check, or when a check failed or warned; it is skipped when all its checks were
// skipped; it passes otherwise. The last lines are one per set:
//   conformance: N scenarios (P passed, F failed, S skipped), M checks (CP passed, CF failed, CS skipped) [set]
// and nothing printed looks like a test tally (CI reports conformance on its own lines, never as tests).
//
// Exit code: 0 when every failure is in a baseline and every baseline entry still fails; 1 on an
// unexpected failure or a stale baseline entry (both are printed); 2 when the suite could not run.
// What is graded is what ships: dist/cli.js is built with `node esbuild.mjs --production` when missing or
// older than the sources, and the script refuses a development build.
// The suites need Node 22+: they run on the Node of package.json's engines.node (scripts/node.sh: the system
// Node when new enough, else the Node 24 under .vscode-test/node24, installed the first time). The client
// under test runs on the Node that runs this script.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  bundleKind, classifyScenario, CLIENT_ERROR_ALLOWED, CLIENT_ERROR_ALLOWED_NEXT, isTallyLike, parseBaseline,
  parseRequiredClientScenarios, parseScenarioList, planJobs, scenarioLine, summaryLine, tally, unscoredClientScenarios,
} from './conformance-lib.mjs';
import { engineNode } from './engine-node.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const CLIENT = path.join(ROOT, 'scripts/conformance-client.mjs');
const SUITES = {
  legacy: {
    dir: path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance'),
    baseline: path.join(ROOT, 'test/conformance/expected-failures.json'),
    clientErrorAllowed: CLIENT_ERROR_ALLOWED,
  },
  next: {
    dir: path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance-next'),
    baseline: path.join(ROOT, 'test/conformance/expected-failures-next.json'),
    clientErrorAllowed: CLIENT_ERROR_ALLOWED_NEXT,
  },
};
const SET_IDS = ['0.1.16', '2025-11-25', '2026-07-28', 'all', 'unscored'];

const argv = process.argv.slice(2);
const opt = name => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const flag = name => argv.includes(name);
const verbose = flag('--verbose');
const keep = flag('--keep');
const timeout = opt('--timeout') ?? '30000';
const only = opt('--only')?.split(',').map(s => s.trim()).filter(Boolean) ?? SET_IDS;
const scenarioFilter = opt('--scenario')?.split(',').map(s => s.trim()).filter(Boolean);

const c = process.stdout.isTTY ? { g: '\x1b[32m', r: '\x1b[31m', y: '\x1b[33m', d: '\x1b[2m', x: '\x1b[0m' } : { g: '', r: '', y: '', d: '', x: '' };
const die = (msg, code = 2) => { console.error(`conformance: ${msg}`); process.exit(code); };
for (const s of only) if (!SET_IDS.includes(s)) die(`unknown set "${s}" in --only (sets: ${SET_IDS.join(', ')})`);
if (argv.includes('--suite')) die('--suite is gone: use --only <set,…> (sets: ' + SET_IDS.join(', ') + ') and --scenario <name|prefix*>');
/** Prints text from elsewhere (client stderr, runner output) indented, minus any line that looks like a test tally. */
const excerpt = (text, lines = 5) => text.trim().split('\n').filter(l => !isTallyLike(l) && !isTallyLike(l.trim())).slice(-lines).map(l => `      ${c.d}| ${l}${c.x}`).join('\n');
const matches = name => !scenarioFilter || scenarioFilter.some(f => (f.endsWith('*') ? name.startsWith(f.slice(0, -1)) : name === f));

/** Newest mtime of what goes into dist/cli.js: the sources, the build script, the dependency versions. */
function newestInput() {
  let newest = 0;
  const abs = path.join(ROOT, 'src');
  for (const e of fs.readdirSync(abs, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
  }
  for (const f of ['esbuild.mjs', 'package.json']) newest = Math.max(newest, fs.statSync(path.join(ROOT, f)).mtimeMs);
  return newest;
}

/** dist/cli.js as shipped: rebuilt with --production when missing or stale; a development build is refused. */
function ensureProductionCli() {
  if (!fs.existsSync(CLI) || fs.statSync(CLI).mtimeMs < newestInput()) {
    console.log('conformance: building the production bundle (node esbuild.mjs --production)');
    const r = spawnSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0 || !fs.existsSync(CLI)) die('build failed');
  }
  const kind = bundleKind(fs.readFileSync(CLI, 'utf8'));
  if (!kind.production) die(`refusing to grade ${path.relative(ROOT, CLI)}: ${kind.why}. Conformance grades what ships: run node esbuild.mjs --production`);
}

/** A suite's expected failures: { client: {…}, requirements: { "<revision>": {…} } } (see parseBaseline). */
function readBaseline(suite) {
  const file = SUITES[suite].baseline;
  if (!fs.existsSync(file)) return { client: new Map(), requirements: {} };
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
    const requireWhy = suite === 'next';
    return {
      client: parseBaseline(raw.client, { requireWhy }),
      requirements: Object.fromEntries(Object.entries(raw.requirements ?? {}).map(([r, sec]) => [r, parseBaseline(sec, { requireWhy })])),
    };
  } catch (err) {
    return die(`${path.relative(ROOT, file)}: ${err.message}`);
  }
}

/** Every checks.json below `dir`, keyed by scenario (the directory name minus its timestamp). */
function readResults(dir) {
  const out = new Map();
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name !== 'checks.json') continue;
    const scenarioDir = e.parentPath ?? e.path;
    const name = path.relative(dir, scenarioDir).split(path.sep).join('/').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    let checks;
    try { checks = JSON.parse(fs.readFileSync(path.join(scenarioDir, 'checks.json'), 'utf8')); } catch { checks = undefined; }
    const stderr = fs.existsSync(path.join(scenarioDir, 'stderr.txt')) ? fs.readFileSync(path.join(scenarioDir, 'stderr.txt'), 'utf8') : '';
    out.set(name, { checks: Array.isArray(checks) ? checks : undefined, stderr, dir: scenarioDir });
  }
  return out;
}

/** The client exit conformance-client.mjs recorded in `dir` for `scenario`. */
function readExit(dir, scenario) {
  try { return JSON.parse(fs.readFileSync(path.join(dir, `${encodeURIComponent(scenario)}.json`), 'utf8')); } catch { return undefined; }
}

const node24 = engineNode().node;
ensureProductionCli();
const suites = new Set(only.map(s => (s === '0.1.16' ? 'legacy' : 'next')));
for (const s of suites) {
  if (!fs.existsSync(path.join(SUITES[s].dir, 'dist/index.js'))) die(`${path.relative(ROOT, SUITES[s].dir)} is not installed (npm ci)`);
  SUITES[s].version = JSON.parse(fs.readFileSync(path.join(SUITES[s].dir, 'package.json'), 'utf8')).version;
}
const listOf = (suite, args) => {
  const r = spawnSync(node24, [path.join(SUITES[suite].dir, 'dist/index.js'), 'list', ...args], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) die(`conformance list ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout;
};

// The sets and their scenarios, from the suites' own lists.
const tags = new Map();
const sets = [];
for (const id of only) {
  const suite = id === '0.1.16' ? 'legacy' : 'next';
  let scenarios;
  if (id === '0.1.16' || id === 'all') {
    const list = parseScenarioList(listOf(suite, ['--client']));
    if (suite === 'next') for (const s of list) tags.set(s.name, s.tags);
    scenarios = list.map(s => ({ name: s.name }));
  } else if (id === 'unscored') {
    const list = parseScenarioList(listOf(suite, ['--client']));
    for (const s of list) tags.set(s.name, s.tags);
    scenarios = unscoredClientScenarios(list).map(name => ({ name }));
  } else {
    scenarios = parseRequiredClientScenarios(listOf('next', ['--requirements', id])).map(name => ({ name, version: id }));
  }
  if (scenarios.length === 0) die(`could not list the client scenarios of set ${id}`);
  scenarios = scenarios.filter(s => matches(s.name));
  if (scenarios.length) sets.push({ id, suite, scenarios });
}
if (suites.has('next') && tags.size === 0) for (const s of parseScenarioList(listOf('next', ['--client']))) tags.set(s.name, s.tags);
if (sets.length === 0) die(`no set has scenario ${scenarioFilter?.join(', ')}`);
const { jobs, bySet } = planJobs(sets, name => tags.get(name) ?? []);

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
/** Where a job's results and client exit go: one directory per job (a scenario may run in several). */
const jobDir = job => path.join(outDir, `${job.suite}-${job.scenario.replace(/[^\w.-]+/g, '_')}-${job.version ?? 'default'}`);
// The suite runs the command through `sh -c` and stops a client that outlives --timeout by signalling
// that shell; `exec` makes the signal reach conformance-client.mjs (dash forks otherwise, and the
// orphaned client would keep the suite waiting for its output forever).
const command = `exec ${process.execPath} ${CLIENT} ${CLI}`;
const versions = [...suites].map(s => `${SUITES[s].version}`).join(' and ');
console.log(`conformance: @modelcontextprotocol/conformance ${versions}, sets ${sets.map(s => s.id).join(', ')} (${jobs.length} scenario runs), against "${path.relative(ROOT, CLI)} conformance" (production build)`);

const t0 = Date.now();
const runnerOut = new Map();
/** Wall time of each job (ms): the suite's start, the client's (the CLI's cold start and era probe), the scenario. */
const durations = new Map();
const children = new Set();
// Each runner leads its own process group (runner, client wrapper, client): stopping the script stops them all.
const stop = () => { for (const ch of children) { try { process.kill(-ch.pid, 'SIGTERM'); } catch { /* gone */ } } process.exit(130); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

/** Runs one scenario of one suite (at a forced spec version when the job says so); resolves when done. */
function runJob(job) {
  const dir = jobDir(job);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const args = [path.join(SUITES[job.suite].dir, 'dist/index.js'), 'client', '--command', command, '--timeout', timeout, '-o', path.join(dir, 'results'), '--scenario', job.scenario];
  if (job.forced) args.push('--spec-version', job.version, '--force');
  const started = Date.now();
  return new Promise(resolve => {
    const child = spawn(node24, args,
      { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1', MCP_HOST_CONFORMANCE_EXITS: path.join(dir, 'exits') } });
    children.add(child);
    let out = '';
    child.stdout.on('data', d => { out += d; });
    child.stderr.on('data', d => { out += d; });
    child.on('close', () => { children.delete(child); runnerOut.set(job.key, out); durations.set(job.key, Date.now() - started); resolve(out); });
  });
}

/** A job's result: { checks, stderr, dir } and the client's exit. */
function jobResult(job) {
  const dir = jobDir(job);
  return { result: readResults(path.join(dir, 'results')).get(job.scenario), exit: readExit(path.join(dir, 'exits'), job.scenario) };
}

// Scenarios that grade timing (SEP-1699 reconnect delay within 450-700 ms) run alone, after the rest:
// on 2 cores a parallel batch delays them past the window.
const TIMING_SENSITIVE = new Set(['sse-retry']);
const queue = jobs.filter(j => !TIMING_SENSITIVE.has(j.scenario));
// Scenarios at once: two per core on an idle machine, fewer as the load rises (load 4 on 2 cores: 2; load 8: 1),
// so that a busy machine slows the run down instead of pushing a client past the suite's 30 s timeout. The
// checking is the same at any parallelism; --workers N overrides.
const cores = Math.max(1, os.availableParallelism?.() ?? os.cpus().length);
const loadAtStart = os.loadavg()[0];
const workers = Number(opt('--workers')) || Math.max(1, Math.min(cores * 2, Math.floor((cores * cores * 2) / Math.max(cores, loadAtStart))));
console.log(`conformance: ${workers} scenario(s) at once (${cores} cores, load ${loadAtStart.toFixed(1)})`);
await Promise.all(Array.from({ length: workers }, async () => {
  for (let j = queue.shift(); j; j = queue.shift()) await runJob(j);
}));
for (const j of jobs.filter(x => TIMING_SENSITIVE.has(x.scenario))) {
  await runJob(j);
  // A timing-graded scenario that missed only its timing window (the machine was busy) gets one more
  // run, said out loud; any other failure stands.
  const { result, exit } = jobResult(j);
  const g = classifyScenario({ name: j.scenario, checks: result?.checks, exit }, new Set(), { clientErrorAllowed: SUITES[j.suite].clientErrorAllowed });
  if (g.status !== 'failed' || !g.failures.every(f => /timing/.test(f.id))) continue;
  console.log(`conformance: ${j.scenario} (${SUITES[j.suite].version}) missed its timing window (${g.failures.map(f => f.message).join('; ')}); running it once more (load ${os.loadavg()[0].toFixed(1)})`);
  await runJob(j);
}
const seconds = ((Date.now() - t0) / 1000).toFixed(1);

const mark = { passed: `${c.g}✓${c.x}`, failed: `${c.r}✗${c.x}`, skipped: `${c.y}-${c.x}` };
const summaries = [];
let unexpectedTotal = 0, staleTotal = 0;
const baselines = Object.fromEntries([...suites].map(s => [s, readBaseline(s)]));
for (const set of sets) {
  const suite = SUITES[set.suite];
  const baselineFile = path.relative(ROOT, suite.baseline);
  const whole = set.id === '0.1.16' || set.id === 'all' || set.id === 'unscored';
  const baseline = whole ? baselines[set.suite].client : (baselines.next.requirements[set.id] ?? new Map());
  const label = `${suite.version}, ${set.id === 'unscored' ? 'unscored client checks (extension scenarios: tasks-*, sep-2640-client-*, sep-1932-client-*)' : whole ? 'all client scenarios' : `requirements ${set.id}`}`;
  console.log(`\n${c.d}--- ${label}${c.x}`);
  const jobsByKey = new Map(jobs.map(j => [j.key, j]));
  const graded = [];
  const unexpected = [], stale = [], expected = [];
  for (const s of [...set.scenarios].sort((a, b) => a.name.localeCompare(b.name))) {
    const job = jobsByKey.get(bySet.get(set.id).get(s.name));
    const { result, exit } = jobResult(job);
    const entry = baseline.get(s.name);
    const g = classifyScenario({ name: s.name, checks: result?.checks, exit }, entry?.ids, { clientErrorAllowed: suite.clientErrorAllowed, version: s.version });
    graded.push(g);
    for (const f of g.unexpected) unexpected.push({ name: g.name, ...f });
    for (const f of g.expected) expected.push({ name: g.name, why: entry?.why, ...f });
    for (const id of g.stale) stale.push({ name: g.name, id });
    console.log(scenarioLine(g, g.status === 'failed' && g.unexpected.length === 0 ? { ...mark, failed: `${c.y}~${c.x}` } : mark));
    if (verbose || g.unexpected.length) {
      for (const f of g.failures) console.log(`    ${c.d}- [${f.id}] ${f.message}${c.x}`);
      const stderr = result?.stderr.trim() ? result.stderr : !result ? (runnerOut.get(job.key) ?? '') : '';
      if (g.unexpected.length && stderr.trim()) console.log(`    ${c.d}${result ? 'client stderr' : 'suite output'}:${c.x}\n${excerpt(stderr)}`);
    }
  }
  if (!scenarioFilter && set.id !== 'unscored') for (const name of baseline.keys()) if (!set.scenarios.some(s => s.name === name)) stale.push({ name, id: '(scenario not run)' });
  if (expected.length) console.log(`${c.y}Expected failures (in ${baselineFile}):${c.x}\n${[...new Set(expected.map(e => e.name))].map(n => `  ~ ${n} [${expected.filter(e => e.name === n).map(e => e.id).join(', ')}]${expected.find(e => e.name === n).why ? `: ${expected.find(e => e.name === n).why}` : ''}`).join('\n')}`);
  if (stale.length) console.log(`${c.r}Baseline entries that now pass (remove them from ${baselineFile}):${c.x}\n${stale.map(s => `  ✓ ${s.name} [${s.id}]`).join('\n')}`);
  if (unexpected.length) console.log(`${c.r}Unexpected failures:${c.x}\n${unexpected.map(u => `  ✗ ${u.name} [${u.id}] ${u.message}`).join('\n')}`);
  unexpectedTotal += unexpected.length;
  staleTotal += stale.length;
  summaries.push(summaryLine(tally(graded), label));
}

// Where the time went: the slowest runs (each is the suite's start, the CLI's cold start and era probe, the scenario).
const slowest = [...durations].sort((a, b) => b[1] - a[1]).slice(0, 5);
if (slowest.length) console.log(`\nconformance time: slowest runs ${slowest.map(([k, ms]) => `${k.split('|').slice(1).join(' ')} ${(ms / 1000).toFixed(1)}s`).join(', ')}; load ${loadAtStart.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end`);
if (keep) console.log(`results kept in ${outDir}`);
else fs.rmSync(outDir, { recursive: true, force: true });
const code = unexpectedTotal || staleTotal ? 1 : 0;
const about = `@modelcontextprotocol/conformance ${versions}, ${jobs.length} scenario runs, ${seconds}s`;
console.log(code === 0
  ? `\n${c.g}conformance: OK${c.x} (${about}; nothing failed outside the baselines)`
  : `\n${c.r}conformance: FAILED${c.x} (${about}; ${unexpectedTotal} unexpected failures, ${staleTotal} stale baseline entries)`);
for (const line of summaries) console.log(line);
process.exit(code);
