// `npm run test:editor`: runs test/editor (mocha, inside the real VS Code extension host of code-server) through
// @vscode/test-electron's standard runTests(), with scripts/editor/code-wrapper.sh as the "VS Code executable".
//   1. scripts/editor/setup.sh (installs/caches Node 24, code-server, Debian chromium under .vscode-test/)
//   2. the extension under test is the production VSIX (scripts/shipped.mjs: `npm run package` when stale, unpacked
//      into .vscode-test/shipped/extension, which is loaded as the development path): what ships is what is tested
//   3. packages test/fixtures/fake-lm into a VSIX, installed next to the extension under test
//   4. opens a fresh copy of test/editor/workspace, streams mocha's output, exits with the suite's result.
// Expects `node esbuild.mjs --tests` to have run (the npm script does it). `npm run watch` + a debugger is for
// development; this harness never loads the development build.
// Env passed through to the extension host: MCP_HOST_* (e.g. MCP_HOST_FORCE_FAIL=1, MCP_HOST_TEST_GREP=…), FAKE_LM_*.
// Keeps the run folder (.vscode-test/runs/editor-*) only when the run fails, or with EXTTEST_KEEP_RUN=1.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';
import { ensureShipped } from '../shipped.mjs';
import { writePseudoPages } from '../l10n/pseudoPages.mjs';
import { PASSES } from './passes.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORK = process.env.VSCODE_TEST_DIR ? path.resolve(process.env.VSCODE_TEST_DIR) : path.join(ROOT, '.vscode-test');
const log = msg => console.log(`[test:editor] ${msg}`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, ...opts });
  if (r.status !== 0) {
    console.error(`[test:editor] ${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

if (!fs.existsSync(path.join(ROOT, 'out/test/editor/index.js'))) {
  console.error('[test:editor] out/test/editor/index.js is missing: run `node esbuild.mjs --tests` first');
  process.exit(1);
}
let shipped;
try {
  shipped = ensureShipped({ log });
} catch (e) {
  console.error(`[test:editor] ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
log(`extension under test: ${path.relative(ROOT, shipped.vsix)} (production), unpacked at ${path.relative(ROOT, shipped.extensionDir)}`);

run('bash', [path.join(ROOT, 'scripts/editor/setup.sh')]);

// Helper extension(s) go in as VSIX files: code-server honours only one extensionDevelopmentPath.
// With MCP_HOST_SHIPPED_DIR (a benchmark's own folder, scripts/shipped.mjs) beside the extension there, so no other run
// re-packages it while this one installs it.
const vsixDir = process.env.MCP_HOST_SHIPPED_DIR ? path.join(path.resolve(process.env.MCP_HOST_SHIPPED_DIR), 'vsix') : path.join(WORK, 'vsix');
fs.mkdirSync(vsixDir, { recursive: true });
const fakeLm = path.join(vsixDir, 'fake-lm.vsix');
run(path.join(ROOT, 'node_modules/.bin/vsce'), ['package', '--no-dependencies', '--out', fakeLm],
  { cwd: path.join(ROOT, 'test/fixtures/fake-lm'), stdio: ['ignore', 'ignore', 'inherit'] });
log(`packaged ${path.relative(ROOT, fakeLm)}`);

const custom = ['KEEP_WORKSPACE_TRUST', 'MCP_HOST_EDITOR_OPEN', 'MCP_HOST_TEST_GREP', 'EXTTEST_LOCALE'].some(k => process.env[k]);
const names = custom ? ['as set'] : (process.env.MCP_HOST_EDITOR_PASSES ?? Object.keys(PASSES).join(',')).split(',').map(s => s.trim()).filter(Boolean);
for (const n of names) {
  if (n !== 'as set' && !PASSES[n]) { console.error(`[test:editor] unknown pass ${n} (passes: ${Object.keys(PASSES).join(', ')})`); process.exit(2); }
}

/**
 * The pseudo-locale pass (EXTTEST_LOCALE=qps-ploc, issue 40): a copy of the unpacked VSIX in the run folder gets
 * package.nls.<locale>.json and l10n/bundle.l10n.<locale>.json from `vscode-l10n-dev generate-pseudo` (the VSIX and
 * its unpacked folder stay as shipped: English only), and the user-data folder a language-pack entry for the locale
 * with no core translations, so that code-server (`--locale`, code-wrapper.sh) makes it the display language while
 * the workbench's own strings stay English. The walkthrough's pages get pseudo pages (scripts/l10n/pseudoPages.mjs). Returns the copy, the extension under test for this pass.
 */
function pseudoLocalised(runDir, locale) {
  const copy = path.join(runDir, 'extension');
  fs.cpSync(shipped.extensionDir, copy, { recursive: true });
  run(path.join(ROOT, 'node_modules/.bin/vscode-l10n-dev'), ['generate-pseudo', '-l', locale, path.join(copy, 'package.nls.json'), path.join(copy, 'l10n/bundle.l10n.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (const f of [`package.nls.${locale}.json`, `l10n/bundle.l10n.${locale}.json`]) {
    if (!fs.existsSync(path.join(copy, f))) throw new Error(`generate-pseudo wrote no ${f}`);
  }
  // the walkthrough's pages: a pseudo page beside each English one, named in package.nls.<locale>.json (H631)
  const pages = writePseudoPages(copy, locale);
  const ud = path.join(runDir, 'ud');
  fs.mkdirSync(ud, { recursive: true });
  const core = path.join(runDir, `core.${locale}.json`);
  fs.writeFileSync(core, JSON.stringify({ contents: {} }));
  // The entry as VS Code's language-pack cache writes it (an extension named, so the server counts the language as
  // installed and does not look for a pack in a gallery).
  fs.writeFileSync(path.join(ud, 'languagepacks.json'), JSON.stringify({
    [locale]: { hash: `mcp-host-test-${locale}`, label: 'Pseudo', extensions: [{ extensionIdentifier: { id: `mcp-host-test.${locale}` }, version: '0.0.0' }], translations: { vscode: core } },
  }));
  log(`pseudo-locale ${locale}: ${path.relative(ROOT, copy)} (${pages.length} walkthrough pages)`);
  return copy;
}

// SIGTERM (CI cancelling) is turned into the SIGINT that runTests forwards to the wrapper, which stops its processes.
process.on('SIGTERM', () => process.kill(process.pid, 'SIGINT'));

/** One run of the suite in a fresh code-server with `passEnv` set; resolves to its exit code. */
async function runPass(name, passEnv) {
  Object.assign(process.env, passEnv);
  try {
    return await runOnce(name);
  } finally {
    for (const k of Object.keys(passEnv)) delete process.env[k];
  }
}

async function runOnce(name) {
  if (names.length > 1) log(`pass ${name}`);
  const runDir = path.join(WORK, 'runs', `editor-${name.replace(/\W+/g, '-')}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  const workspace = path.join(runDir, 'workspace');
  fs.cpSync(path.join(ROOT, 'test/editor/workspace'), workspace, { recursive: true });
  // MCP_HOST_EDITOR_OPEN=<path inside test/editor/workspace> opens that instead of the folder itself, e.g. a
  // .code-workspace file for a multi-root window (vscode.workspace.workspaceFile is then set).
  // An absolute MCP_HOST_EDITOR_OPEN (a benchmark's generated .code-workspace) is opened as it is.
  const open = process.env.MCP_HOST_EDITOR_OPEN
    ? (path.isAbsolute(process.env.MCP_HOST_EDITOR_OPEN) ? process.env.MCP_HOST_EDITOR_OPEN : path.join(workspace, process.env.MCP_HOST_EDITOR_OPEN)) : workspace;
  if (!fs.existsSync(open)) { console.error(`[test:editor] MCP_HOST_EDITOR_OPEN: ${open} does not exist`); return 1; }
  const screenshots = path.join(WORK, 'screenshots');
  fs.mkdirSync(screenshots, { recursive: true });

  // MCP_HOST_EDITOR_USER_SETTINGS: user settings (JSON text) for this run, e.g. a benchmark's servers.
  if (process.env.MCP_HOST_EDITOR_USER_SETTINGS) {
    fs.mkdirSync(path.join(runDir, 'ud', 'User'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'ud', 'User', 'settings.json'), process.env.MCP_HOST_EDITOR_USER_SETTINGS);
  }
  // The organisation-policy folder the extension reads instead of the platform's (MCP_HOST_POLICY_ROOT, a variable only
  // the tests use): empty, so no policy, until test/editor/policy.test.ts writes one.
  const policyRoot = path.join(runDir, 'policy');
  fs.mkdirSync(policyRoot, { recursive: true });
  const locale = process.env.EXTTEST_LOCALE;
  const extensionDir = locale ? pseudoLocalised(runDir, locale) : shipped.extensionDir;
  let code;
  try {
    code = await runTests({
      vscodeExecutablePath: path.join(ROOT, 'scripts/editor/code-wrapper.sh'),
      extensionDevelopmentPath: extensionDir,
      extensionTestsPath: path.join(ROOT, 'out/test/editor/index.js'),
      launchArgs: [open, `--extensions-dir=${path.join(runDir, 'exts')}`, `--user-data-dir=${path.join(runDir, 'ud')}`],
      extensionTestsEnv: {
        EDITOR_ENV: path.join(WORK, 'env.sh'),
        EXTRA_VSIX: fakeLm,
        MCP_HOST_EXPECT_SHIPPED: extensionDir,
        ...(locale ? { EXTTEST_LOCALE: locale } : {}),
        EXTTEST_RUN_DIR: runDir,
        MCP_HOST_POLICY_ROOT: policyRoot,
        FAKE_LM_LOG: process.env.FAKE_LM_LOG ?? path.join(runDir, 'fake-lm.jsonl'),
        EXTTEST_SCREENSHOT: path.join(screenshots, names.length > 1 ? `editor-tests-end-${name}.png` : 'editor-tests-end.png'),
      },
    });
  } catch (e) {
    code = typeof e?.code === 'number' ? e.code : 1;
    console.error(`[test:editor] ${e instanceof Error ? e.message : String(e)}`);
  }
  if (code === 0 && !process.env.EXTTEST_KEEP_RUN) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  else log(`run folder kept: ${runDir}`);
  log(code === 0 ? `editor suite passed${names.length > 1 ? ` (pass ${name})` : ''}` : `editor suite FAILED${names.length > 1 ? ` (pass ${name})` : ''} (exit code ${code})`);
  return code;
}

const failed = [];
for (const n of names) {
  const code = await runPass(n, n === 'as set' ? {} : PASSES[n]);
  if (code !== 0) failed.push(`${n} (${code})`);
}
if (names.length > 1) log(failed.length ? `FAILED passes: ${failed.join(', ')}` : `all ${names.length} passes passed: ${names.join(', ')}`);
process.exit(failed.length ? 1 : 0);
