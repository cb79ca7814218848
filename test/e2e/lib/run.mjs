// What every UI test (test/e2e/*.mjs) does around its steps, written once (issue 39): the packaged VSIX it needs, its
// timed log, packing the fake language model, the waits on the page (a frame showing a selector, a condition), the
// failure report (message, screenshot, where code-server's log is) and the end of a run (code-server stopped, its
// folders removed when it passed, unless E2E_KEEP_RUN; exit code 0 = every step passed).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, WORK, openWorkbench, sh } from '../../../scripts/editor/workbench.mjs';

/** dist/mcp-host.vsix; when it is missing, says so under `tag` and exits 1. */
export function packagedVsix(tag) {
  const vsix = path.join(ROOT, 'dist/mcp-host.vsix');
  if (!fs.existsSync(vsix)) { console.error(`[${tag}] ${vsix} is missing: run npm run package`); process.exit(1); }
  return vsix;
}

/** A log whose lines start `[<tag> <seconds since now>s]`. */
export function timedLog(tag) {
  const t0 = Date.now();
  return (...a) => console.log(`[${tag} ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
}

/** The text of a locator with white space folded ('' when it does not show within 2 s, or within `options.timeout`). */
export const folded = async (loc, options = { timeout: 2000 }) => ((await loc.textContent(options).catch(() => '')) ?? '').replace(/\s+/g, ' ');

/** The frame of `page` (at any depth) whose document has `selector`; fails after `ms`, naming the frames there are. */
export async function frameWith(page, selector, ms = 45000) {
  const end = Date.now() + ms;
  for (;;) {
    for (const f of page.frames()) {
      if (await f.$(selector).catch(() => null)) return f;
    }
    if (Date.now() > end) throw new Error(`no frame shows ${selector} (frames: ${page.frames().map(f => f.url().slice(0, 60)).join(' | ')})`);
    await page.waitForTimeout(300);
  }
}

/** The first truthy value of `check()`, asked every 250 ms; fails after `ms` naming `what`. */
export async function waitFor(page, what, check, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(250);
  }
}

/**
 * Answers a launch-consent dialog if one is up: Allow All (several servers), else Allow; any other dialog fails the
 * run. Returns the dialog's text, or undefined when no dialog was up.
 */
export async function allowConsent(page) {
  const dialog = page.locator('.monaco-dialog-box');
  if (!(await dialog.isVisible().catch(() => false))) return undefined;
  const all = dialog.getByRole('button', { name: 'Allow All', exact: true });
  const allow = (await all.isVisible().catch(() => false)) ? all : dialog.getByRole('button', { name: 'Allow', exact: true });
  const text = await folded(dialog);
  if (!(await allow.isVisible())) throw new Error(`unexpected dialog: ${text.slice(0, 200)}`);
  await allow.click();
  await page.waitForTimeout(300);
  return text;
}

/** Picks the row `label` in the open quick input: waits for it, filters the list to it, Enter. */
export async function pickInQuickInput(page, label) {
  const quickInput = page.locator('.quick-input-widget');
  await quickInput.locator('.monaco-list-row', { hasText: label }).first().waitFor({ timeout: 15000 });
  await quickInput.locator('input').fill(label);
  await page.waitForTimeout(200);
  await page.keyboard.press('Enter');
}

/** Saves a screenshot of `page` to `file` and logs its path. */
export async function saveShot(page, file, log) {
  await page.screenshot({ path: file });
  log('screenshot', path.relative(ROOT, file));
}

/**
 * Opens sample/ (waiting for hello.py) with the packaged VSIX and the fake language model, which logs what it is asked
 * to `<run folder>/fake-lm.jsonl` (`lmLog`). Returns openWorkbench's page, runDir and stop, and lmLog.
 */
export async function openSampleWithFakeModel({ name, vsix, log, userSettings }) {
  let lmLog;
  const opened = await openWorkbench({
    name, vsixes: [vsix, packFakeLm()], folder: path.join(ROOT, 'sample'), waitForFile: 'hello.py',
    env: dir => ({ FAKE_LM_LOG: (lmLog = path.join(dir, 'fake-lm.jsonl')) }), log, userSettings,
  });
  return { ...opened, lmLog };
}

/** Packs test/fixtures/fake-lm into <.vscode-test>/vsix/fake-lm.vsix and returns its path. */
export function packFakeLm() {
  fs.mkdirSync(path.join(WORK, 'vsix'), { recursive: true });
  const fakeLm = path.join(WORK, 'vsix', 'fake-lm.vsix');
  const pack = sh(`"${path.join(ROOT, 'node_modules/.bin/vsce')}" package --no-dependencies --out "${fakeLm}"`, { cwd: path.join(ROOT, 'test/fixtures/fake-lm') });
  if (pack.status !== 0) throw new Error(`packaging the fake model failed:\n${pack.stdout}${pack.stderr}`);
  return fakeLm;
}

/** Reports a failed run as `[tag] FAILED: …`, saves a screenshot of `page` (if there is one) to `shotPath`, and says where code-server's log is. */
export async function reportFailure(tag, e, { page, runDir, shotPath }) {
  console.error(`[${tag}] FAILED: ${e instanceof Error ? e.message : String(e)}`);
  await page?.screenshot({ path: shotPath }).catch(() => {});
  console.error(`[${tag}] screenshot ${shotPath}; code-server log ${runDir ? path.join(runDir, 'cs.log') : '(not started)'}`);
}

/**
 * After a run's steps: when `failure` is set (what its steps threw) reports it (reportFailure), then stops code-server
 * (`stop`) and ends the run (finish; `also` are more folders to remove when it passed).
 */
export async function endRun(tag, failure, { page, runDir, stop, shotPath, also = [] }) {
  const failed = failure !== undefined;
  runDir ??= failure?.runDir;
  try {
    if (failed) await reportFailure(tag, failure, { page, runDir, shotPath });
  } finally {
    await stop();
  }
  finish(failed, runDir, also);
}

/** Ends the run: when it passed (and E2E_KEEP_RUN is unset) removes `runDir` and `also`; exits 1 if it failed, else 0. */
export function finish(failed, runDir, also = []) {
  if (!failed && !process.env.E2E_KEEP_RUN) {
    for (const dir of [runDir, ...also]) if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  process.exit(failed ? 1 : 0);
}
