// `npm test`: every suite, on the artefact that ships, with one honest tally at the end.
//   checks       typecheck, lint
//   shipped      the production VSIX (scripts/shipped.mjs: `npm run package` when stale, unpacked for the editor)
//   unit         test/unit (mocha; the CLI tests spawn the production dist/cli.js)
//   reliability  test/reliability (mocha; hostile and misbehaving servers next to a bystander)
//   editor       test/editor in the real VS Code extension host (code-server), three passes, on the unpacked VSIX
//   e2e          UI scenarios driven in Chromium against the installed VSIX (smoke in eager and lazy start-up, chat, apps,
//                forms and results, and Restricted Mode, in both start-up modes)
//   conformance  the official MCP conformance suite (0.1.16, and 0.2.0-alpha.12: its 2025-11-25 and 2026-07-28
//                requirement sets and every client scenario) against the production CLI, reported apart, one line
//                per set: scenarios and checks are not tests of ours, so they never enter the test count
// Every step runs even when an earlier one failed, so one run shows everything that is broken; the tally counts
// each mocha test of every suite and pass once (passing, failing, pending = skipped), each UI scenario once, and a
// step that failed without a mocha summary (a crash, a typecheck error) as one failure named after it. The last
// line is `total: N passed, N failed, N skipped`; the exit code is non-zero when anything failed.
//   node scripts/test-all.mjs [--only unit,editor] [--skip e2e,conformance]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rerunOnEngineNode } from './engine-node.mjs';
import { PASSES } from './editor/passes.mjs';

// Every step runs on the Node of package.json's engines.node (a system Node 20 hands over to .vscode-test/node24).
rerunOnEngineNode();

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const list = name => { const i = argv.indexOf(name); return i >= 0 ? new Set(argv[i + 1].split(',').map(s => s.trim())) : undefined; };
const only = list('--only') ?? (process.env.MCP_HOST_TEST_ONLY ? new Set(process.env.MCP_HOST_TEST_ONLY.split(',')) : undefined);
const skip = list('--skip') ?? new Set((process.env.MCP_HOST_TEST_SKIP ?? '').split(',').filter(Boolean));

const node = process.execPath;
const bin = name => path.join(ROOT, 'node_modules/.bin', name);
/** kind: 'check' (pass/fail only), 'mocha' (count tests), 'ui' (one scenario), 'conformance' (its own line) */
const STEPS = [
  { id: 'typecheck', kind: 'check', cmd: [bin('tsc'), '-p', '.', '--noEmit'] },
  { id: 'lint', kind: 'check', cmd: [bin('eslint'), '.'] },
  { id: 'build-tests', kind: 'check', cmd: [node, 'esbuild.mjs', '--tests'] },
  { id: 'shipped', kind: 'check', cmd: [node, 'scripts/shipped.mjs'] },
  { id: 'unit', kind: 'mocha', cmd: [bin('mocha'), '--config', '.mocharc.json'] },
  { id: 'reliability', kind: 'mocha', cmd: [bin('mocha'), '--config', 'test/reliability/.mocharc.json'] },
  ...Object.keys(PASSES).map(pass => ({
    id: `editor:${pass}`, group: 'editor', kind: 'mocha', cmd: [node, 'scripts/editor/run-editor-tests.mjs'], env: { MCP_HOST_EDITOR_PASSES: pass },
  })),
  { id: 'e2e:smoke', group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/smoke.mjs'] },
  { id: 'e2e:smoke-lazy', group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/smoke.mjs'], env: { E2E_STARTUP: 'lazy' } },
  { id: 'e2e:chat', group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/chat.mjs'] },
  { id: 'e2e:gateway-confirm', group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/gateway-confirm.mjs'] },
  { id: 'e2e:apps', group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/apps.mjs'] },
  ...['eager', 'lazy'].map(mode => ({ id: `e2e:forms-results-${mode}`, group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/forms-results.mjs'], env: { E2E_STARTUP: mode } })),
  ...['eager', 'lazy'].map(mode => ({ id: `e2e:restricted-${mode}`, group: 'e2e', kind: 'ui', cmd: [node, 'test/e2e/restricted.mjs'], env: { E2E_STARTUP: mode } })),
  { id: 'conformance', kind: 'conformance', cmd: [node, 'scripts/conformance.mjs'] },
];
const wanted = s => (!only || only.has(s.id) || only.has(s.group)) && !skip.has(s.id) && !skip.has(s.group);

// The steps after `build-tests`/`shipped` need them: keep them whenever a later step runs.
const selected = STEPS.filter(wanted);
if (selected.some(s => s.kind !== 'check')) {
  for (const need of ['build-tests', 'shipped']) if (!selected.some(s => s.id === need)) selected.splice(0, 0, STEPS.find(s => s.id === need));
  selected.sort((a, b) => STEPS.indexOf(a) - STEPS.indexOf(b));
}

/** Runs one step, echoing its output; resolves to { code, out }. */
function runStep(step) {
  return new Promise(resolve => {
    const child = spawn(step.cmd[0], step.cmd.slice(1), { cwd: ROOT, env: { ...process.env, ...step.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const take = stream => d => { out += d; stream.write(d); };
    child.stdout.on('data', take(process.stdout));
    child.stderr.on('data', take(process.stderr));
    const fwd = sig => () => child.kill(sig);
    const handlers = ['SIGINT', 'SIGTERM'].map(sig => [sig, fwd(sig)]);
    for (const [sig, h] of handlers) process.on(sig, h);
    child.on('error', err => { out += String(err); });
    child.on('close', (code, signal) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve({ code: code ?? (signal ? 128 : 1), out });
    });
  });
}

const plain = s => s.replace(/\x1b\[[0-9;]*m/g, '');
/** scripts/conformance-lib.mjs's SUMMARY_PATTERN (scenarios and checks of one set, never counted as tests). */
const CONFORMANCE_SUMMARY = /^conformance: \d+ scenarios \(\d+ passed, \d+ failed, \d+ skipped\), \d+ checks \(\d+ passed, \d+ failed, \d+ skipped\)(?: \[[^\]]*\])?$/;
/** mocha's spec summary: "N passing", "N failing", "N pending" (one summary per mocha run). */
function mochaCounts(out) {
  const t = plain(out);
  const last = re => { const all = [...t.matchAll(re)]; return all.length ? Number(all.at(-1)[1]) : undefined; };
  const passing = last(/^\s*(\d+) passing\b/gm);
  return { summary: passing !== undefined, passed: passing ?? 0, failed: last(/^\s*(\d+) failing\b/gm) ?? 0, skipped: last(/^\s*(\d+) pending\b/gm) ?? 0 };
}

/**
 * The failures mocha listed after its last "N failing": each one's title lines and the first line of its error, so
 * the summary at the end of a long log (all that a CI page may keep) names what failed, not only how many.
 */
function mochaFailures(out) {
  const t = plain(out);
  const at = [...t.matchAll(/^\s*\d+ failing\b.*$/gm)].at(-1);
  if (!at) return [];
  const blocks = t.slice(at.index + at[0].length).split(/\n(?=\s{2}\d+\) )/).map(b => b.trim()).filter(b => /^\d+\) /.test(b));
  return blocks.slice(0, 10).map(b => {
    const lines = b.split('\n').map(l => l.trim()).filter(Boolean);
    const title = [];
    for (const l of lines) { title.push(l); if (l.endsWith(':')) break; }
    const error = lines[title.length] ?? '';
    return `${title.join(' ')} ${error}`.slice(0, 400);
  });
}

/** An argument as a person reads it: `node` for this Node, paths inside the project relative to it. */
const shown = a => (a === node ? 'node' : a.startsWith(ROOT + path.sep) ? path.relative(ROOT, a) : a);

const rows = [];
let conformance;
const t0 = Date.now();
for (const step of selected) {
  console.log(`\n=== [test +${Math.round((Date.now() - t0) / 1000)}s] ${step.id}: ${step.cmd.map(shown).join(' ')}`);
  const started = Date.now();
  const { code, out } = await runStep(step);
  const seconds = Math.round((Date.now() - started) / 1000);
  const row = { id: step.id, kind: step.kind, code, seconds, passed: 0, failed: 0, skipped: 0, note: '' };
  if (step.kind === 'mocha') {
    const m = mochaCounts(out);
    Object.assign(row, m);
    row.failures = mochaFailures(out);
    // A mocha run that exited non-zero with no failing test counted (a crash, a harness error) is one failure.
    if (code !== 0 && m.failed === 0) { row.failed = 1; row.note = m.summary ? 'exit code' : 'no mocha summary'; }
  } else if (step.kind === 'ui') {
    if (code === 0) row.passed = 1; else row.failed = 1;
  } else if (step.kind === 'check') {
    if (code !== 0) { row.failed = 1; row.note = 'failed'; }
  } else if (step.kind === 'conformance') {
    // One summary line per suite and requirement set (scripts/conformance.mjs); none is a failure of the step.
    const lines = plain(out).split('\n').filter(l => CONFORMANCE_SUMMARY.test(l));
    conformance = { code, lines: lines.length ? lines : [`conformance: no summary (exit code ${code})`] };
  }
  rows.push(row);
}

const sum = k => rows.reduce((n, r) => n + r[k], 0);
console.log('\n=== summary');
for (const r of rows) {
  if (r.kind === 'conformance') continue;
  const counts = r.kind === 'check' ? (r.code === 0 ? 'ok' : 'FAILED') : `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`;
  console.log(`  ${r.id.padEnd(20)} ${counts}${r.note && r.kind !== 'check' ? ` (${r.note})` : ''}  [${r.seconds}s]`);
  for (const f of r.failures ?? []) console.log(`      ✗ ${f}`);
}
const conformanceFailed = conformance ? conformance.code !== 0 : false;
if (conformance) for (const line of conformance.lines) console.log(`${line}${conformanceFailed ? ' — FAILED' : ''}`);
const failed = sum('failed');
console.log(`total: ${sum('passed')} passed, ${failed} failed, ${sum('skipped')} skipped`);
process.exit(failed || conformanceFailed ? 1 : 0);
