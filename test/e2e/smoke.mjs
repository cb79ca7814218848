// UI smoke test: the packaged VSIX in a real VS Code (code-server), driven by headless Chromium (playwright-core).
// Installs dist/mcp-host.vsix into a fresh code-server on 127.0.0.1, opens sample/, opens the MCP view container
// from the activity bar, lists the "MCP Host:" commands in the command palette, calls a tool through MCP Host: Call Tool…
// (quick inputs), opens a resource from the Servers view, shows a server's log channel, and saves screenshots to
// .vscode-test/screenshots/. Exit code 0 = every step passed. Stops code-server's process group and the browser.
//   npm run test:e2e            (builds the VSIX first)      E2E_VERBOSE=1 for workbench logs
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHOTS, clickPastConsent, openWorkbench } from '../../scripts/editor/workbench.mjs';

const VSIX = path.join(ROOT, 'dist/mcp-host.vsix');
const FOLDER = path.join(ROOT, 'sample');
const t0 = Date.now();
const log = (...a) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);

if (!fs.existsSync(VSIX)) { console.error(`[e2e] ${VSIX} is missing: run npm run package`); process.exit(1); }

let failed = false;
let page;
let runDir;
let stop = async () => {};
try {
  ({ page, runDir, stop } = await openWorkbench({ name: 'e2e', vsixes: [VSIX], folder: FOLDER, waitForFile: 'hello.py', log }));
  log('workbench up, explorer shows the sample workspace');

  // 1. The MCP view container in the activity bar.
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 30000 });
  await clickPastConsent(page, mcpTab); // the launch-consent dialog may come up before the first click
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Servers' }).first();
  await header.waitFor({ timeout: 30000 });
  log('MCP view container open: "Servers" view present');
  // The sample's servers come from workspace settings: the host asks before launching their commands (one dialog for
  // several servers). Allow them, then both servers must be listed in the Servers view and reach "running".
  const deadline = Date.now() + 60000;
  const row = name => page.locator('.part.sidebar .monaco-list-row', { hasText: name }).first();
  const state = async name => ((await row(name).textContent({ timeout: 1000 }).catch(() => '')) ?? '').replace(/\s+/g, ' ');
  let allowed = 0;
  for (;;) {
    const dialog = page.locator('.monaco-dialog-box');
    if (await dialog.isVisible().catch(() => false)) {
      const text = ((await dialog.locator('.dialog-message-text').textContent().catch(() => null))
        ?? (await dialog.textContent()) ?? '').replace(/\s+/g, ' ').trim();
      // Several servers waiting at once are asked in one dialog (Allow All); a single one with Allow.
      const all = dialog.getByRole('button', { name: 'Allow All', exact: true });
      const allow = (await all.isVisible().catch(() => false)) ? all : dialog.getByRole('button', { name: 'Allow', exact: true });
      if (!(await allow.isVisible())) throw new Error(`unexpected dialog: ${text.slice(0, 200)}`);
      log(`dialog "${text.slice(0, 100)}" → ${await allow.textContent()}`);
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

  // Monaco renders spaces as U+00A0 and splits lines into spans: compare on whitespace-folded text.
  const folded = async locator => ((await locator.textContent().catch(() => '')) ?? '').replace(/\s+/g, ' ');
  const quickInput = page.locator('.quick-input-widget');
  async function runCommand(title) {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(title);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
  }
  /** Picks the row labelled `label` in the open quick pick. */
  async function pick(label) {
    const row = quickInput.locator('.monaco-list-row', { hasText: label }).first();
    await row.waitFor({ timeout: 15000 });
    await quickInput.locator('input').fill(label);
    await page.waitForTimeout(200);
    await page.keyboard.press('Enter');
  }
  async function waitForText(locator, re, what, ms = 20000) {
    const end = Date.now() + ms;
    while (!re.test(await folded(locator))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; saw: ${(await folded(locator)).slice(0, 300)}`);
      await page.waitForTimeout(250);
    }
  }
  const editorArea = page.locator('.part.editor');

  // 3. MCP Host: Call Tool… from the palette: server, tool and the tool's one argument asked in quick inputs; the result
  //    opens as a document.
  await runCommand('MCP Host: Call Tool…');
  await pick('everything');
  await pick('echo');
  await quickInput.locator('input').waitFor({ state: 'visible' });
  await waitForText(quickInput, /Call echo \(1\/1\): message/, 'the input box for echo\'s "message"');
  await quickInput.locator('input').fill('hello from the UI');
  await page.keyboard.press('Enter');
  await waitForText(editorArea, /Echo: hello from the UI/, 'the tool result document');
  await page.screenshot({ path: path.join(SHOTS, 'e2e-call-tool.png') });
  log('MCP Host: Call Tool… asked server, tool and argument in quick inputs and opened "Echo: hello from the UI"; screenshot e2e-call-tool.png');

  // 4. A resource opened from the Servers view: expand everything › Resources and click the first one.
  // (a click on the active container's icon would hide the side bar)
  if (!(await header.isVisible().catch(() => false))) await mcpTab.click();
  const resourcesGroup = page.locator('.part.sidebar .monaco-list-row[aria-level="2"]')
    .filter({ hasText: 'Resources' }).filter({ hasNotText: 'Templates' }).first();
  await resourcesGroup.click();
  if ((await resourcesGroup.getAttribute('aria-expanded')) !== 'true') await page.keyboard.press('ArrowRight');
  const firstResource = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]').first();
  await firstResource.waitFor({ timeout: 15000 });
  const resourceLabel = ((await firstResource.locator('.label-name').first().textContent()) ?? '').trim();
  await firstResource.click();
  const tab = page.locator('.part.editor .tab', { hasText: resourceLabel }).first();
  await tab.waitFor({ timeout: 20000 });
  await page.screenshot({ path: path.join(SHOTS, 'e2e-resource.png') });
  log(`resource "${resourceLabel}" opened from the Servers view in an editor tab; screenshot e2e-resource.png`);

  // 4b. The History view: the echo call and the resource read, newest first, with who, time, size and status.
  if (!(await header.isVisible().catch(() => false))) await mcpTab.click();
  const historyHeader = page.locator('.part.sidebar .pane-header', { hasText: 'History' }).first();
  await historyHeader.click();
  const echoRow = page.locator('.part.sidebar .monaco-list-row', { hasText: 'tools/call echo' }).first();
  await echoRow.waitFor({ timeout: 15000 });
  const echoText = ((await echoRow.textContent()) ?? '').replace(/\s+/g, ' ');
  if (!/user · \d+ ms · .* · ok/.test(echoText)) throw new Error(`the History row reads: ${echoText}`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-history.png') });
  log(`History view lists "${echoText.trim().slice(0, 80)}"; screenshot e2e-history.png`);

  // 5. MCP Host: Show Server Logs: the server's own channel in the Output panel, with its lifecycle lines.
  await runCommand('MCP Host: Show Server Logs');
  await pick('everything');
  await waitForText(page.locator('.part.panel'), /running: \S+ \S+, MCP \d{4}-\d{2}-\d{2} \((?:stateless|initialize handshake)\) over stdio/, 'the "MCP Host: everything" channel');
  await page.screenshot({ path: path.join(SHOTS, 'e2e-logs.png') });
  log('MCP Host: Show Server Logs opened the "MCP Host: everything" channel with its lifecycle lines; screenshot e2e-logs.png');
  log('PASS');
} catch (e) {
  failed = true;
  runDir ??= e?.runDir;
  console.error(`[e2e] FAILED: ${e instanceof Error ? e.message : String(e)}`);
  await page?.screenshot({ path: path.join(SHOTS, 'e2e-failure.png') }).catch(() => {});
  console.error(`[e2e] screenshot ${path.join(SHOTS, 'e2e-failure.png')}; code-server log ${runDir ? path.join(runDir, 'cs.log') : '(not started)'}`);
} finally {
  await stop();
}
if (!failed && !process.env.E2E_KEEP_RUN) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
process.exit(failed ? 1 : 0);
