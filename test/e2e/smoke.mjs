// UI smoke test: the packaged VSIX in a real VS Code (code-server), driven by headless Chromium (playwright-core).
// Installs dist/mcp-host.vsix into a fresh code-server on 127.0.0.1, opens sample/, opens the MCP view container
// from the activity bar, lists the "MCP Host:" commands in the command palette, calls a tool through MCP Host: Call Tool…
// (quick inputs), opens a resource from the Servers view, shows a server's log channel, and saves screenshots to
// .vscode-test/screenshots/. Exit code 0 = every step passed. Stops code-server's process group and the browser.
// Then reloads the window: the resource tab opens again (its server started by the read) and History is still there.
//   npm run test:e2e            (builds the VSIX first)      E2E_VERBOSE=1 for workbench logs
//   E2E_STARTUP=lazy node test/e2e/smoke.mjs   the same with `mcpHost.startup: lazy` (screenshots e2e-lazy-*.png):
//   servers read "starts on first use", the palette offers Call Tool… before any runs, the call starts the server.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHOTS, clickPastConsent, openWorkbench, readmePicture } from '../../scripts/editor/workbench.mjs';
import { endRun, packagedVsix, timedLog, folded, pickInQuickInput } from './lib/run.mjs';

const FOLDER = path.join(ROOT, 'sample');
const MODE = process.env.E2E_STARTUP === 'lazy' ? 'lazy' : 'eager';
const VSIX = packagedVsix('e2e');
const log = timedLog(`e2e${MODE === 'lazy' ? ' lazy' : ''}`);
/** The path of a screenshot: e2e-<name>.png, e2e-lazy-<name>.png in lazy mode. */
const shot = name => path.join(SHOTS, `e2e${MODE === 'lazy' ? '-lazy' : ''}-${name}.png`);


let page;
let runDir;
let stop = async () => {};
let failure;
try {
  ({ page, runDir, stop } = await openWorkbench({
    name: MODE === 'lazy' ? 'e2e-lazy' : 'e2e', vsixes: [VSIX], folder: FOLDER, waitForFile: 'hello.py', log,
    userSettings: MODE === 'lazy' ? { 'mcpHost.startup': 'lazy' } : {},
  }));
  log('workbench up, explorer shows the sample workspace');

  // 1. The MCP view container in the activity bar.
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 120000 });
  await clickPastConsent(page, mcpTab); // the launch-consent dialog may come up before the first click
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Servers' }).first();
  await header.waitFor({ timeout: 120000 });
  log('MCP view container open: "Servers" view present');
  // The sample's servers come from workspace settings: the host asks before launching their commands (one dialog for
  // several servers). Allow them, then both servers must be listed in the Servers view and reach "running".
  const deadline = Date.now() + 180000; // a busy machine: the extension may still be activating
  const row = name => page.locator('.part.sidebar .monaco-list-row', { hasText: name }).first();
  const state = async name => ((await row(name).textContent({ timeout: 1000 }).catch(() => '')) ?? '').replace(/\s+/g, ' ');
  let allowed = 0;
  /** Answers a launch-consent dialog if one is up (Allow All / Allow); true when it did. */
  async function allowDialog() {
    const dialog = page.locator('.monaco-dialog-box');
    if (!(await dialog.isVisible().catch(() => false))) return false;
    const text = ((await dialog.locator('.dialog-message-text').textContent().catch(() => null)) ?? (await dialog.textContent()) ?? '').replace(/\s+/g, ' ').trim();
    const all = dialog.getByRole('button', { name: 'Allow All', exact: true });
    const allow = (await all.isVisible().catch(() => false)) ? all : dialog.getByRole('button', { name: 'Allow', exact: true });
    if (!(await allow.isVisible())) throw new Error(`unexpected dialog: ${text.slice(0, 200)}`);
    log(`dialog "${text.slice(0, 100)}" → ${await allow.textContent()}`);
    await allow.click();
    allowed++;
    await page.waitForTimeout(300);
    return true;
  }
  // Lazy: nothing starts and nothing asks; every server says it starts on first use (not "stopped").
  if (MODE === 'lazy') {
    for (;;) {
      const states = await Promise.all(['everything', 'filesystem'].map(state));
      if (states.every(s => /starts on first use/.test(s))) { log(`Servers view: ${states.join(' | ')}`); break; }
      if (states.some(s => /running|error/i.test(s)) || await page.locator('.monaco-dialog-box').isVisible().catch(() => false)) {
        throw new Error(`lazy: something started or asked before any use: ${states.join(' | ')}`);
      }
      if (Date.now() > deadline) throw new Error(`lazy: servers do not say "starts on first use": ${states.join(' | ') || 'not listed'}`);
      await page.waitForTimeout(500);
    }
    await page.screenshot({ path: shot('waiting') });
    log('screenshot', path.relative(ROOT, shot('waiting')));
  }
  for (;;) {
    if (MODE === 'lazy') break;
    // Several servers waiting at once are asked in one dialog (Allow All); a single one with Allow.
    if (await allowDialog()) continue;
    const states = await Promise.all(['everything', 'filesystem'].map(state));
    if (states.every(s => /running/i.test(s))) { log(`Servers view: ${states.join(' | ')}`); break; }
    if (states.some(s => /error|crash/i.test(s))) throw new Error(`a server failed: ${states.join(' | ')}`);
    if (Date.now() > deadline) throw new Error(`servers did not reach "running" (allowed ${allowed} launch(es)): ${states.join(' | ') || 'not listed'}`);
    await page.waitForTimeout(500);
  }
  /** Expands "everything" to show what it offers (tools, prompts, resources), and takes the view's screenshot. */
  async function expandEverything() {
    // A tree refresh (the servers' lists arriving) may re-render the row under the click: try again, up to 3 times.
    let children = false;
    for (let attempt = 0; attempt < 3 && !children; attempt++) {
      await row('everything').click();
      await page.keyboard.press('ArrowRight');
      children = await page.locator('.part.sidebar .monaco-list-row[aria-level="2"]').first()
        .waitFor({ timeout: 5000 }).then(() => true, () => false);
    }
    log(children ? '"everything" expanded' : '"everything" shows no children');
    const text = await state('everything');
    if (!/running · MCP \d{4}-\d{2}-\d{2}(?! \()/.test(text) || /legacy|modern/.test(text)) throw new Error(`"everything" reads: ${text}`);
    await page.screenshot({ path: shot('mcp-view') });
    if (MODE === 'eager') await readmePicture(page, 'servers');
    log(`"everything" reads "${text.trim()}"; screenshot`, path.relative(ROOT, shot('mcp-view')));
  }
  if (MODE === 'eager') await expandEverything();

  // 2. The extension's commands in the command palette. VS Code has built-in "MCP:" commands too, so look for our
  // exact titles: the commands package.json contributes with no `when` in menus.commandPalette (always listed).
  // The titles are %keys% of package.nls.json (issue 40): the palette shows their English.
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const nls = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8'));
  const english = s => (typeof s === 'string' ? s.replace(/^%(.+)%$/, (m, key) => nls[key] ?? m) : s);
  const gated = new Set((pkg.contributes?.menus?.commandPalette ?? []).map(m => m.command));
  const titles = (pkg.contributes?.commands ?? []).filter(c => !gated.has(c.command))
    .map(c => (c.category ? `${english(c.category)}: ${english(c.title)}` : english(c.title)));
  // Lazy, before any server runs: the commands that start the server picked are there too.
  const firstUse = MODE === 'lazy' ? ['MCP Host: Call Tool…', 'MCP Host: Run Prompt…', 'MCP Host: Browse Resources', 'MCP Host: Read Resource by URI…'] : [];
  titles.push(...firstUse);
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
      if (found && title === titles[0]) await page.screenshot({ path: shot('palette') });
      if (found && title === firstUse[0]) await page.screenshot({ path: shot('palette-first-use') });
      await page.keyboard.press('Escape');
      if (!found) await page.waitForTimeout(1000);
    }
    if (!found) throw new Error(`"${title}" is not in the command palette`);
  }
  log(`command palette lists all ${titles.length} always-visible MCP Host commands: ${titles.join(' | ')}`);

  // Monaco renders spaces as U+00A0 and splits lines into spans: compare on whitespace-folded text (folded, waiting as
  // long as Playwright's default for the text).
  const quickInput = page.locator('.quick-input-widget');
  async function runCommand(title) {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(title);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 10000 });
    await page.keyboard.press('Enter');
  }
  const pick = label => pickInQuickInput(page, label);
  async function waitForText(locator, re, what, ms = 20000) {
    const end = Date.now() + ms;
    while (!re.test(await folded(locator, {}))) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; saw: ${(await folded(locator, {})).slice(0, 300)}`);
      await page.waitForTimeout(250);
    }
  }
  const editorArea = page.locator('.part.editor');

  // 3. MCP Host: Call Tool… from the palette: server, tool and the tool's one argument asked in quick inputs; the result
  //    opens as a document.
  await runCommand('MCP Host: Call Tool…');
  await pick('everything');
  if (MODE === 'lazy') {
    // The call is the server's first use: it starts now, after its launch consent.
    const echo = quickInput.locator('.monaco-list-row', { hasText: 'echo' }).first();
    const end = Date.now() + 60000;
    while (!(await echo.isVisible().catch(() => false))) {
      if (await allowDialog()) continue;
      if (Date.now() > end) throw new Error('lazy: the tool list of "everything" did not come up after picking it');
      await page.waitForTimeout(300);
    }
  }
  await pick('echo');
  await quickInput.locator('input').waitFor({ state: 'visible' });
  await waitForText(quickInput, /Call echo \(1\/1\): message/, 'the input box for echo\'s "message"');
  await quickInput.locator('input').fill('hello from the UI');
  await page.keyboard.press('Enter');
  await waitForText(editorArea, /Echo: hello from the UI/, 'the tool result document');
  await page.screenshot({ path: shot('call-tool') });
  if (MODE === 'eager') await readmePicture(page, 'tool-call');
  log('MCP Host: Call Tool… asked server, tool and argument in quick inputs and opened "Echo: hello from the UI"; screenshot e2e-call-tool.png');

  // 4. A resource opened from the Servers view: expand everything › Resources and click the first one.
  // (a click on the active container's icon would hide the side bar)
  if (!(await header.isVisible().catch(() => false))) await mcpTab.click();
  const resourcesGroup = page.locator('.part.sidebar .monaco-list-row[aria-level="2"]')
    .filter({ hasText: 'Resources' }).filter({ hasNotText: 'Templates' }).first();
  if (MODE === 'lazy' || !(await resourcesGroup.isVisible().catch(() => false))) await expandEverything();
  await resourcesGroup.click();
  if ((await resourcesGroup.getAttribute('aria-expanded')) !== 'true') await page.keyboard.press('ArrowRight');
  const firstResource = page.locator('.part.sidebar .monaco-list-row[aria-level="3"]').first();
  await firstResource.waitFor({ timeout: 15000 });
  const resourceLabel = ((await firstResource.locator('.label-name').first().textContent()) ?? '').trim();
  await firstResource.click();
  const tab = page.locator('.part.editor .tab', { hasText: resourceLabel }).first();
  await tab.waitFor({ timeout: 20000 });
  await page.screenshot({ path: shot('resource') });
  log(`resource "${resourceLabel}" opened from the Servers view in an editor tab; screenshot e2e-resource.png`);

  // 4b. The History view: the echo call and the resource read, newest first, with who, time, size and status.
  if (!(await header.isVisible().catch(() => false))) await mcpTab.click();
  const historyHeader = page.locator('.part.sidebar .pane-header', { hasText: 'History' }).first();
  await historyHeader.click();
  const echoRow = page.locator('.part.sidebar .monaco-list-row', { hasText: 'tools/call echo' }).first();
  await echoRow.waitFor({ timeout: 15000 });
  const echoText = ((await echoRow.textContent()) ?? '').replace(/\s+/g, ' ');
  if (!/user · \d+ ms · .* · ok/.test(echoText)) throw new Error(`the History row reads: ${echoText}`);
  const historyServer = page.locator('.part.sidebar .monaco-list-row[aria-level="1"]', { hasText: /\d+ requests?\b/ }).first();
  const count = ((await historyServer.textContent({ timeout: 5000 }).catch(() => '')) ?? '').replace(/\s+/g, ' ');
  if (!/(?:^|\D)2 requests\b/.test(count)) throw new Error(`the History server row reads: ${count}`);
  await page.screenshot({ path: shot('history') });
  log(`History view lists "${echoText.trim().slice(0, 80)}" under "${count.trim()}"; screenshot`, path.relative(ROOT, shot('history')));

  // 5. MCP Host: Show Server Logs: the server's own channel in the Output panel, with its lifecycle lines.
  await runCommand('MCP Host: Show Server Logs');
  await pick('everything');
  await waitForText(page.locator('.part.panel'), /running: \S+ \S+, MCP \d{4}-\d{2}-\d{2} \((?:stateless|initialize handshake)\) over stdio/, 'the "MCP Host: everything" channel');
  await page.screenshot({ path: shot('logs') });
  log('MCP Host: Show Server Logs opened the "MCP Host: everything" channel with its lifecycle lines; screenshot', path.relative(ROOT, shot('logs')));

  // 6. Reload the window: the resource tab opens again (reading it is a use of its server, which starts, or is waited
  //    for), and History is still there (kept in the workspace's storage).
  await page.waitForTimeout(1500);
  await page.reload();
  await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
  const restored = page.locator('.part.editor .tab', { hasText: resourceLabel }).first();
  await restored.waitFor({ timeout: 60000 });
  await restored.click();
  const end = Date.now() + 60000;
  for (;;) {
    const text = await folded(editorArea, {});
    if (/could not be opened|unexpected error|is not running/i.test(text)) throw new Error(`the restored resource tab failed: ${text.slice(0, 300)}`);
    if (await editorArea.locator('.monaco-editor .view-lines, .image-container, img').first().isVisible().catch(() => false)) break;
    if (Date.now() > end) throw new Error(`the restored resource tab shows no contents: ${text.slice(0, 300)}`);
    await page.waitForTimeout(500);
  }
  await page.screenshot({ path: shot('resource-after-reload') });
  log(`after a reload the "${resourceLabel}" tab opens again; screenshot`, path.relative(ROOT, shot('resource-after-reload')));
  if (!(await header.isVisible().catch(() => false))) await mcpTab.click();
  const historyAgain = page.locator('.part.sidebar .pane-header', { hasText: 'History' }).first();
  await historyAgain.waitFor({ timeout: 30000 });
  if ((await historyAgain.getAttribute('aria-expanded')) !== 'true') await historyAgain.click();
  await page.locator('.part.sidebar .monaco-list-row', { hasText: 'tools/call echo' }).first().waitFor({ timeout: 30000 });
  await page.screenshot({ path: shot('history-after-reload') });
  log('after a reload History still lists the echo call; screenshot', path.relative(ROOT, shot('history-after-reload')));
  log('PASS');
} catch (e) {
  failure = e ?? new Error('the run threw nothing');
}
await endRun('e2e', failure, { page, runDir, stop, shotPath: shot('failure') });
