// Shared by the UI tests (test/e2e/*.mjs) and the extension-test runner: a headless Debian Chromium with the flags
// this machine needs, and a fresh code-server on 127.0.0.1 with VSIX files installed and a folder open in a page.
// Everything started here is stopped by the returned stop() (browser, then code-server's whole process group),
// and on SIGINT/SIGTERM.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WORK = process.env.VSCODE_TEST_DIR ? path.resolve(process.env.VSCODE_TEST_DIR) : path.join(ROOT, '.vscode-test');
export const ENV_SH = path.join(WORK, 'env.sh');
export const SHOTS = path.join(WORK, 'screenshots');
/** The README's pictures (media/screens/<name>.jpg), made by the UI tests from the real editor so they stay current. */
export const PICTURES = path.join(ROOT, 'media', 'screens');

/** Saves the page as the README picture `name` (JPEG, small enough for the marketplace page). */
export async function readmePicture(page, name) {
  fs.mkdirSync(PICTURES, { recursive: true });
  await page.screenshot({ path: path.join(PICTURES, `${name}.jpg`), type: 'jpeg', quality: 70 });
}

/** Without the background-networking flags Chromium's connections are refused here, many at a time. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

export const sh = (script, opts = {}) => spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', ...opts });

function freePort() {
  return new Promise(resolve => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

/**
 * Installs (once) the harness, starts a fresh code-server with `vsixes` installed and opens `folder` in headless
 * Chromium; resolves when the explorer shows `waitForFile`. `env` (an object, or a function of the run folder that
 * returns one) goes to code-server, and so to the extension host; `userSettings` are added to the run's user settings.
 * Returns { page, runDir, stop }. On a failure to start, everything started so far is stopped before it throws.
 */
export async function openWorkbench({ name, vsixes, folder, waitForFile, env = {}, userSettings = {}, log = console.log }) {
  const setup = sh('bash scripts/editor/setup.sh', { stdio: 'inherit' });
  if (setup.status !== 0) process.exit(setup.status ?? 1);
  const runDir = path.join(WORK, 'runs', `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  fs.mkdirSync(SHOTS, { recursive: true });
  fs.mkdirSync(runDir, { recursive: true });

  let browser;
  let pgid;
  async function stop() {
    await browser?.close().catch(() => {});
    browser = undefined;
    if (pgid) {
      try { process.kill(-pgid, 'SIGTERM'); } catch { /* already gone */ }
      for (let i = 0; i < 50; i++) {
        try { process.kill(-pgid, 0); } catch { break; }
        await new Promise(r => setTimeout(r, 100));
      }
      try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
      pgid = undefined;
    }
  }
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { void stop().then(() => process.exit(130)); });

  try {
    for (const vsix of vsixes) {
      const install = sh(`. "${ENV_SH}" && code-server --extensions-dir "${runDir}/exts" --user-data-dir "${runDir}/ud" --install-extension "${vsix}"`);
      if (install.status !== 0) throw new Error(`installing ${vsix} failed:\n${install.stdout}${install.stderr}`);
      log('installed', path.relative(ROOT, vsix));
    }
    // no Welcome page over the editor area, no offer to open the repository the sample sits in
    fs.mkdirSync(path.join(runDir, 'ud/User'), { recursive: true });
    fs.writeFileSync(path.join(runDir, 'ud/User/settings.json'),
      JSON.stringify({ 'workbench.startupEditor': 'none', 'git.openRepositoryInParentFolders': 'never', 'remote.autoForwardPorts': false, ...userSettings }));
    const port = await freePort();
    const start = sh(`EDITOR_ENV="${ENV_SH}" bash scripts/editor/start-code-server.sh ${port} "${runDir}" "${folder}"`,
      { env: { ...process.env, ...(typeof env === 'function' ? env(runDir) : env) } });
    if (fs.existsSync(path.join(runDir, 'cs.pid'))) pgid = Number(fs.readFileSync(path.join(runDir, 'cs.pid'), 'utf8'));
    if (start.status !== 0) throw new Error(`code-server did not start:\n${start.stdout}${start.stderr}`);
    log(start.stdout.trim());

    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', e => { if (process.env.E2E_VERBOSE) log('page error:', String(e).slice(0, 300)); });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`, { timeout: 180_000 }); // loaded machines: > 30 s
    await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
    await page.getByRole('treeitem', { name: waitForFile }).waitFor({ timeout: 60000 });
    return { page, runDir, stop };
  } catch (e) {
    await stop();
    throw Object.assign(e instanceof Error ? e : new Error(String(e)), { runDir });
  }
}

/** Clicks `locator`; a launch-consent dialog in the way (it may come up first) is answered Allow All / Allow. */
export async function clickPastConsent(page, locator) {
  for (let attempt = 0; ; attempt++) {
    try { await locator.click({ timeout: 5000 }); return; } catch (err) {
      if (attempt >= 4) throw err;
      const box = page.locator('.monaco-dialog-box');
      for (const name of ['Allow All', 'Allow']) {
        const b = box.getByRole('button', { name, exact: true });
        if (await b.isVisible().catch(() => false)) { await b.click(); break; }
      }
    }
  }
}

/**
 * Returns `answerDialogsUntil(what, done, answers, ms)`: clicks `button` in every dialog whose text matches `re` (an
 * `answers` entry `{ re, button, shot? }`, `shot` a screenshot file name taken first) until `done()` holds; fails on
 * any other dialog or after `ms`.
 */
export function dialogAnswerer(page, log = console.log) {
  const dialog = page.locator('.monaco-dialog-box');
  const dialogText = async () => ((await dialog.textContent().catch(() => '')) ?? '').replace(/\s+/g, ' ').trim();
  return async function answerDialogsUntil(what, done, answers, ms = 60000) {
    const deadline = Date.now() + ms;
    for (;;) {
      if (await dialog.isVisible().catch(() => false)) {
        const text = await dialogText();
        const hit = answers.find(a => a.re.test(text));
        if (!hit) throw new Error(`unexpected dialog: ${text.slice(0, 200)}`);
        log(`dialog "${text.slice(0, 90)}" → ${hit.button}`);
        if (hit.shot) await page.screenshot({ path: path.join(SHOTS, hit.shot) });
        await dialog.getByRole('button', { name: hit.button, exact: true }).click();
        await page.waitForTimeout(300);
        continue;
      }
      if (await done()) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await page.waitForTimeout(300);
    }
  };
}

/** Opens the MCP view, answers the sample's launch consent (Allow All / Allow) and waits until `server` runs. */
export async function startFromMcpView(page, answerDialogsUntil, server, log = console.log) {
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 30000 });
  await clickPastConsent(page, mcpTab); // the launch-consent dialog may come up before the first click
  const row = name => page.locator('.part.sidebar .monaco-list-row', { hasText: name }).first();
  const sidebar = page.locator('.part.sidebar');
  await answerDialogsUntil(`server "${server}" running`, async () => {
    // A click that landed while a dialog was up may have toggled the side bar closed: open the MCP view again.
    if (!(await sidebar.isVisible().catch(() => false))) await mcpTab.click({ timeout: 2000 }).catch(() => {});
    return /running/i.test((await row(server).textContent({ timeout: 1000 }).catch(() => '')) ?? '');
  },
    // The several-servers dialog (by its Allow All button, whatever its wording), else a one-server one.
    [{ re: /Allow All/, button: 'Allow All' }, { re: /.*/, button: 'Allow' }]);
  log(`server "${server}" is running`);
  return row;
}

/**
 * Opens the chat view (View: Chat, then the command palette) and waits until its model picker shows the fake model
 * (without a Copilot sign-in the picker stays empty until a first request, `@mcp /prompts`, makes VS Code ask the
 * providers). Returns `send(text)` (replaces the input and presses Enter) and `chatText()`.
 */
export async function openChatWithFakeModel(page, log = console.log) {
  const input = page.locator('.interactive-input-part .monaco-editor textarea, .chat-input-container .monaco-editor textarea').first();
  for (let attempt = 0; attempt < 5 && !(await input.isVisible().catch(() => false)); attempt++) {
    await page.keyboard.press('Control+Alt+KeyI');
    await page.waitForTimeout(1500);
  }
  if (!(await input.isVisible().catch(() => false))) {
    await page.keyboard.press('F1');
    await page.keyboard.type('Chat: Open Chat');
    await page.waitForTimeout(500);
    await page.keyboard.press('Enter');
  }
  await input.waitFor({ timeout: 30000 });
  log('chat view open');
  const chatText = async () => ((await page.locator('.interactive-session, .chat-widget, .interactive-list').first().textContent().catch(() => '')) ?? '');
  const inputEditor = page.locator('.interactive-input-part .monaco-editor, .chat-input-container .monaco-editor').first();
  async function send(text) {
    await inputEditor.waitFor({ state: 'visible', timeout: 60000 });
    await inputEditor.click({ timeout: 60000 });
    await page.keyboard.press('Control+A'); // @mcp is sticky: the input may already hold "@mcp "
    await page.keyboard.press('Backspace');
    await page.keyboard.type(text, { delay: 5 });
    await page.waitForTimeout(300);
    await page.keyboard.press('Escape'); // close a suggestion widget, if one opened
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
  }
  const inputPart = page.locator('.interactive-input-part, .chat-input-container').first();
  const pickerShowsFake = async () => ((await inputPart.textContent().catch(() => '')) ?? '').includes('Fake Model 1');
  if (!(await pickerShowsFake())) {
    await send('@mcp /prompts');
    const until = Date.now() + 20000;
    while (!(await pickerShowsFake()) && Date.now() < until) await page.waitForTimeout(500);
  }
  if (!(await pickerShowsFake())) throw new Error('the chat model picker never showed "Fake Model 1"');
  log('chat model: Fake Model 1');
  return { send, chatText };
}
