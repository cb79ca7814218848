// UI smoke test: the packaged VSIX in a real VS Code (code-server), driven by headless Chromium (playwright-core).
// Installs dist/mcp-host.vsix into a fresh code-server on 127.0.0.1, opens sample/, opens the MCP view container
// from the activity bar, lists the "MCP:" commands in the command palette, and saves screenshots to
// .vscode-test/screenshots/. Exit code 0 = every step passed. Stops code-server's process group and the browser.
//   npm run test:e2e            (builds the VSIX first)      E2E_VERBOSE=1 for workbench logs
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const WORK = process.env.VSCODE_TEST_DIR ? path.resolve(process.env.VSCODE_TEST_DIR) : path.join(ROOT, '.vscode-test');
const ENV_SH = path.join(WORK, 'env.sh');
const VSIX = path.join(ROOT, 'dist/mcp-host.vsix');
const FOLDER = path.join(ROOT, 'sample');
const SHOTS = path.join(WORK, 'screenshots');
const t0 = Date.now();
const log = (...a) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

if (!fs.existsSync(VSIX)) { console.error(`[e2e] ${VSIX} is missing: run npm run package`); process.exit(1); }
const sh = (script, opts = {}) => spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8', ...opts });
const setup = sh(`bash scripts/editor/setup.sh`, { stdio: 'inherit' });
if (setup.status !== 0) process.exit(setup.status ?? 1);

const runDir = path.join(WORK, 'runs', `e2e-${new Date().toISOString().replace(/[:.]/g, '-')}`);
fs.mkdirSync(SHOTS, { recursive: true });
fs.mkdirSync(runDir, { recursive: true });
const port = await new Promise(resolve => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
});

let browser;
let pgid;
async function stopAll() {
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
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => { void stopAll().then(() => process.exit(130)); });

let failed = false;
let page;
try {
  const install = sh(`. "${ENV_SH}" && code-server --extensions-dir "${runDir}/exts" --user-data-dir "${runDir}/ud" --install-extension "${VSIX}"`);
  if (install.status !== 0) throw new Error(`installing the VSIX failed:\n${install.stdout}${install.stderr}`);
  log('installed', path.relative(ROOT, VSIX));
  // no Welcome page over the editor area
  fs.mkdirSync(path.join(runDir, 'ud/User'), { recursive: true });
  fs.writeFileSync(path.join(runDir, 'ud/User/settings.json'), JSON.stringify({ 'workbench.startupEditor': 'none' }));
  const start = sh(`EDITOR_ENV="${ENV_SH}" bash scripts/editor/start-code-server.sh ${port} "${runDir}" "${FOLDER}"`);
  if (fs.existsSync(path.join(runDir, 'cs.pid'))) pgid = Number(fs.readFileSync(path.join(runDir, 'cs.pid'), 'utf8'));
  if (start.status !== 0) throw new Error(`code-server did not start:\n${start.stdout}${start.stderr}`);
  log(start.stdout.trim());

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', e => { if (process.env.E2E_VERBOSE) log('page error:', String(e).slice(0, 300)); });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(FOLDER)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await page.getByRole('treeitem', { name: 'hello.py' }).waitFor({ timeout: 60000 });
  log('workbench up, explorer shows the sample workspace');

  // 1. The MCP view container in the activity bar.
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 30000 });
  await mcpTab.click();
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Servers' }).first();
  await header.waitFor({ timeout: 30000 });
  log('MCP view container open: "Servers" view present');
  // The sample's servers come from workspace settings: the host asks once per server before launching its command.
  // Allow each, then both servers must be listed in the Servers view and reach "running".
  const deadline = Date.now() + 60000;
  const row = name => page.locator('.part.sidebar .monaco-list-row', { hasText: name }).first();
  const state = async name => ((await row(name).textContent({ timeout: 1000 }).catch(() => '')) ?? '').replace(/\s+/g, ' ');
  let allowed = 0;
  for (;;) {
    const dialog = page.locator('.monaco-dialog-box');
    if (await dialog.isVisible().catch(() => false)) {
      const text = ((await dialog.locator('.dialog-message-text').textContent().catch(() => null))
        ?? (await dialog.textContent()) ?? '').replace(/\s+/g, ' ').trim();
      const allow = dialog.getByRole('button', { name: 'Allow', exact: true });
      if (!(await allow.isVisible())) throw new Error(`unexpected dialog: ${text.slice(0, 200)}`);
      log(`dialog "${text.slice(0, 100)}" → Allow`);
      await allow.click();
      allowed++;
      await page.waitForTimeout(300);
      continue;
    }
    const states = await Promise.all(['everything', 'filesystem'].map(state));
    if (states.every(s => /running/i.test(s))) { log(`Servers view: ${states.join(' | ')}`); break; }
    if (states.some(s => /error|crash/i.test(s))) throw new Error(`a server failed: ${states.join(' | ')}`);
    if (Date.now() > deadline) throw new Error(`servers did not reach "running" (allowed ${allowed} launch(es)): ${states.join(' | ') || 'not listed'}`);
    await page.waitForTimeout(500);
  }
  // expand "everything" to show what it offers (tools, prompts, resources), for the screenshot
  await row('everything').click();
  await page.keyboard.press('ArrowRight');
  const children = await page.locator('.part.sidebar .monaco-list-row[aria-level="2"]').first()
    .waitFor({ timeout: 10000 }).then(() => true, () => false);
  log(children ? '"everything" expanded' : '"everything" shows no children');
  await page.screenshot({ path: path.join(SHOTS, 'e2e-mcp-view.png') });
  log('screenshot', path.relative(ROOT, path.join(SHOTS, 'e2e-mcp-view.png')));

  // 2. The extension's commands in the command palette. VS Code has built-in "MCP:" commands too, so look for our
  // exact titles: the commands package.json contributes with no `when` in menus.commandPalette (always listed).
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const gated = new Set((pkg.contributes?.menus?.commandPalette ?? []).map(m => m.command));
  const titles = (pkg.contributes?.commands ?? []).filter(c => !gated.has(c.command))
    .map(c => (c.category ? `${c.category}: ${c.title}` : c.title));
  if (titles.length === 0) throw new Error('package.json contributes no command that is always in the palette');
  for (const title of titles) {
    let found = false;
    // right after load the palette may not list contributions yet: retry
    for (let attempt = 1; attempt <= 10 && !found; attempt++) {
      await page.keyboard.press('F1');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
      await page.keyboard.type(title);
      await page.waitForTimeout(300);
      const labels = (await page.locator('.quick-input-list .monaco-list-row').allInnerTexts()).map(t => t.split('\n')[0].trim());
      found = labels.includes(title);
      if (found && title === titles[0]) await page.screenshot({ path: path.join(SHOTS, 'e2e-palette.png') });
      await page.keyboard.press('Escape');
      if (!found) await page.waitForTimeout(1000);
    }
    if (!found) throw new Error(`"${title}" is not in the command palette`);
  }
  log(`command palette lists all ${titles.length} always-visible MCP Host commands: ${titles.join(' | ')}`);
  log('PASS');
} catch (e) {
  failed = true;
  console.error(`[e2e] FAILED: ${e instanceof Error ? e.message : String(e)}`);
  await page?.screenshot({ path: path.join(SHOTS, 'e2e-failure.png') }).catch(() => {});
  console.error(`[e2e] screenshot ${path.join(SHOTS, 'e2e-failure.png')}; code-server log ${path.join(runDir, 'cs.log')}`);
} finally {
  await stopAll();
}
if (!failed && !process.env.E2E_KEEP_RUN) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
process.exit(failed ? 1 : 0);
