#!/usr/bin/env node
// Runs the MCP conformance suite (@modelcontextprotocol/conformance, client mode) against
// `node dist/cli.js conformance`, prints pass/fail counts per scenario and in total, and compares the
// failed checks with the baseline in test/conformance/expected-failures.json.
//
//   npm run conformance                       every client scenario (what --suite all runs), 4 at a
//                                             time; timing-graded ones (sse-retry) alone at the end
//   npm run conformance -- --suite auth       one suite (all, core, extensions, backcompat, auth, metadata, draft)
//   npm run conformance -- --scenario auth/scope-step-up
//   npm run conformance -- --verbose          print each failed check's message
//   npm run conformance -- --keep             keep the per-scenario results (checks.json, stdout, stderr)
//
// Exit code: 0 when every failed check is in the baseline and every baseline entry still fails;
// 1 on an unexpected failure or a stale baseline entry (both are printed); 2 when the suite could not run.
// The suite needs Node 22+: it runs on the Node 24 that scripts/editor/setup.sh installs under
// .vscode-test/node24 (installed here the same way when missing). The client under test runs on the
// Node that runs this script.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BASELINE = path.join(ROOT, 'test/conformance/expected-failures.json');
const SUITE_BIN = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE24_DIR = path.join(process.env.VSCODE_TEST_DIR ?? path.join(ROOT, '.vscode-test'), 'node24');
const NODE24 = path.join(NODE24_DIR, 'node_modules/node/bin/node');
const CLI = path.join(ROOT, 'dist/cli.js');

const argv = process.argv.slice(2);
const opt = name => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const flag = name => argv.includes(name);
const scenario = opt('--scenario');
const suite = scenario ? undefined : (opt('--suite') ?? 'all');
const verbose = flag('--verbose');
const keep = flag('--keep');
const timeout = opt('--timeout') ?? '30000';

const c = process.stdout.isTTY ? { g: '\x1b[32m', r: '\x1b[31m', y: '\x1b[33m', d: '\x1b[2m', x: '\x1b[0m' } : { g: '', r: '', y: '', d: '', x: '' };
const die = (msg, code = 2) => { console.error(`conformance: ${msg}`); process.exit(code); };

/** Node 24 for the suite runner: the editor setup's copy, installed the same way when missing. */
function ensureNode24() {
  if (fs.existsSync(NODE24)) return NODE24;
  console.log(`conformance: installing node@24 into ${path.relative(ROOT, NODE24_DIR)} (the suite needs Node 22+)`);
  fs.mkdirSync(NODE24_DIR, { recursive: true });
  if (!fs.existsSync(path.join(NODE24_DIR, 'package.json'))) spawnSync('npm', ['init', '-y'], { cwd: NODE24_DIR, stdio: 'ignore' });
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', 'node@24'], { cwd: NODE24_DIR, stdio: 'inherit' });
  if (r.status !== 0 || !fs.existsSync(NODE24)) die('could not install node@24; run scripts/editor/setup.sh');
  return NODE24;
}

/** Newest mtime of the sources that go into dist/cli.js. */
function newestSource() {
  let newest = 0;
  for (const dir of ['src/cli', 'src/mcp']) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const e of fs.readdirSync(abs, { recursive: true, withFileTypes: true })) {
      if (e.isFile() && e.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
    }
  }
  return newest;
}

function ensureBuilt() {
  if (fs.existsSync(CLI) && fs.statSync(CLI).mtimeMs >= newestSource()) return;
  console.log('conformance: building dist (node esbuild.mjs)');
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0 || !fs.existsSync(CLI)) die('build failed');
}

/** { client: { scenario: [checkId…] } } → Map(scenario → Set(checkId)). */
function readBaseline() {
  if (!fs.existsSync(BASELINE)) return new Map();
  const raw = JSON.parse(fs.readFileSync(BASELINE, 'utf8'));
  return new Map(Object.entries(raw.client ?? {}).map(([s, ids]) => [s, new Set(ids)]));
}

/** Every checks.json below `dir`, keyed by scenario (the directory name minus its timestamp). */
function readResults(dir) {
  const out = new Map();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name !== 'checks.json') continue;
    const scenarioDir = e.parentPath ?? e.path;
    const name = path.relative(dir, scenarioDir).split(path.sep).join('/').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    const checks = JSON.parse(fs.readFileSync(path.join(scenarioDir, 'checks.json'), 'utf8'));
    const stderr = fs.existsSync(path.join(scenarioDir, 'stderr.txt')) ? fs.readFileSync(path.join(scenarioDir, 'stderr.txt'), 'utf8') : '';
    out.set(name, { checks, stderr, dir: scenarioDir });
  }
  return out;
}

const node24 = ensureNode24();
ensureBuilt();
if (!fs.existsSync(SUITE_BIN)) die('@modelcontextprotocol/conformance is not installed (npm ci)');

const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-conformance-'));
const command = `${process.execPath} ${CLI} conformance`;
console.log(`conformance: ${scenario ? `scenario ${scenario}` : `suite ${suite}`} against "${path.relative(ROOT, CLI)} conformance"`);

const t0 = Date.now();
let suiteOut = '';
const children = new Set();
const stop = () => { for (const ch of children) ch.kill('SIGTERM'); process.exit(130); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

/** Runs the suite runner once (a scenario or a suite); collects its output. */
function runSuite(args) {
  return new Promise(resolve => {
    const child = spawn(node24, [SUITE_BIN, 'client', '--command', command, '--timeout', timeout, '-o', outDir, ...args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_NO_WARNINGS: '1' } });
    children.add(child);
    child.stdout.on('data', d => { suiteOut += d; });
    child.stderr.on('data', d => { suiteOut += d; });
    child.on('close', () => { children.delete(child); resolve(); });
  });
}

/** Client scenarios, from the suite's own list. */
function listScenarios() {
  const r = spawnSync(node24, [SUITE_BIN, 'list', '--client'], { cwd: ROOT, encoding: 'utf8' });
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map(m => m[1]);
}

// Scenarios that grade timing (SEP-1699 reconnect delay within 450-700 ms) run alone, after the rest:
// on 2 cores a parallel batch delays them past the window.
const TIMING_SENSITIVE = new Set(['sse-retry']);
if (scenario) await runSuite(['--scenario', scenario]);
else if (suite !== 'all') await runSuite(['--suite', suite]);
else {
  const all = listScenarios();
  if (all.length === 0) die('could not list the client scenarios');
  const queue = all.filter(s => !TIMING_SENSITIVE.has(s));
  const workers = Math.max(2, os.availableParallelism?.() ?? os.cpus().length) * 2;
  await Promise.all(Array.from({ length: workers }, async () => {
    for (let s = queue.shift(); s; s = queue.shift()) await runSuite(['--scenario', s]);
  }));
  for (const s of all.filter(x => TIMING_SENSITIVE.has(x))) await runSuite(['--scenario', s]);
}
const seconds = ((Date.now() - t0) / 1000).toFixed(1);

let results = readResults(outDir);
// A timing-graded scenario that missed only its timing window (the machine was busy) gets one more
// run, said out loud; any other failure stands.
for (const name of TIMING_SENSITIVE) {
  const r = results.get(name);
  const bad = r?.checks.filter(k => k.status === 'FAILURE' || k.status === 'WARNING') ?? [];
  if (!r || !bad.length || !bad.every(k => /timing/.test(k.id))) continue;
  console.log(`conformance: ${name} missed its timing window (${bad.map(k => k.errorMessage ?? k.id).join('; ')}); running it once more (load ${os.loadavg()[0].toFixed(1)})`);
  fs.rmSync(r.dir, { recursive: true, force: true });
  await runSuite(['--scenario', name]);
  results = readResults(outDir);
}
if (results.size === 0) {
  console.error(suiteOut.slice(-4000));
  die('the suite produced no results');
}
const baseline = readBaseline();
let passed = 0, failed = 0, warnings = 0;
const unexpected = [], stale = [], expected = [];
for (const [name, { checks, stderr }] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
  const ok = checks.filter(k => k.status === 'SUCCESS').length;
  const bad = checks.filter(k => k.status === 'FAILURE' || k.status === 'WARNING');
  const nWarn = bad.filter(k => k.status === 'WARNING').length;
  passed += ok; failed += bad.length - nWarn; warnings += nWarn;
  const allowed = baseline.get(name) ?? new Set();
  const failedIds = new Set(bad.map(k => k.id));
  for (const k of bad) (allowed.has(k.id) ? expected : unexpected).push({ name, check: k });
  for (const id of allowed) if (!failedIds.has(id)) stale.push({ name, id });
  const mark = bad.length === 0 ? `${c.g}✓${c.x}` : bad.every(k => allowed.has(k.id)) ? `${c.y}~${c.x}` : `${c.r}✗${c.x}`;
  console.log(`${mark} ${name}: ${ok} passed, ${bad.length - nWarn} failed${nWarn ? `, ${nWarn} warnings` : ''}`);
  if (verbose || bad.some(k => !allowed.has(k.id))) {
    for (const k of bad) console.log(`    ${c.d}- [${k.id}] ${k.errorMessage ?? k.description}${c.x}`);
    if (bad.some(k => !allowed.has(k.id)) && stderr.trim()) console.log(`    ${c.d}client stderr: ${stderr.trim().split('\n').slice(-5).join(' | ')}${c.x}`);
  }
}
for (const name of baseline.keys()) if (!results.has(name) && !scenario && suite === 'all') stale.push({ name, id: '(scenario not run)' });

console.log(`\nTotal: ${passed} passed, ${failed} failed, ${warnings} warnings (${passed}/${passed + failed + warnings} checks) across ${results.size} scenarios in ${seconds}s`);
if (expected.length) console.log(`${c.y}Expected failures (in ${path.relative(ROOT, BASELINE)}):${c.x}\n${expected.map(e => `  ~ ${e.name} [${e.check.id}]`).join('\n')}`);
if (stale.length) console.log(`${c.r}Baseline entries that now pass (remove them from ${path.relative(ROOT, BASELINE)}):${c.x}\n${stale.map(s => `  ✓ ${s.name} [${s.id}]`).join('\n')}`);
if (unexpected.length) console.log(`${c.r}Unexpected failures:${c.x}\n${unexpected.map(u => `  ✗ ${u.name} [${u.check.id}] ${u.check.errorMessage ?? u.check.description}`).join('\n')}`);

if (keep) console.log(`results kept in ${outDir}`);
else fs.rmSync(outDir, { recursive: true, force: true });
const code = unexpected.length || stale.length ? 1 : 0;
console.log(code === 0 ? `${c.g}conformance: OK${c.x}` : `${c.r}conformance: FAILED${c.x}`);
process.exit(code);
