// UI scenario for MCP Apps: the packaged VSIX in code-server, driven by headless Chromium. Opens sample/ (its
// "basic-app" server is @modelcontextprotocol/server-basic-vanillajs), calls get-time through MCP Host: Call Tool…, finds
// the app's own document inside the webview's frames (webview → its content frame → the sandboxed app frame),
// checks the tool result rendered there (#server-time), clicks the app's "Get Server Time" button, allows the
// tool call in the editor's confirmation dialog, and sees the time change. Screenshots in .vscode-test/screenshots/.
import path from 'node:path';
import { ROOT, SHOTS, clickPastConsent, openWorkbench, readmePicture } from '../../scripts/editor/workbench.mjs';
import { allowConsent, endRun, packagedVsix, timedLog, folded, frameWith, pickInQuickInput } from './lib/run.mjs';

const FOLDER = path.join(ROOT, 'sample');
const VSIX = packagedVsix('e2e:apps');
const log = timedLog('e2e:apps');

let page;
let runDir;
let stop = async () => {};
let failure;

/** Answers the launch-consent dialog(s) until `server` runs (its row in the Servers view says so). */
async function allowUntilRunning(server) {
  const row = page.locator('.part.sidebar .monaco-list-row', { hasText: server }).first();
  const end = Date.now() + 60000;
  for (;;) {
    if (await allowConsent(page) !== undefined) continue;
    if (/running/i.test(await folded(row))) return;
    if (Date.now() > end) throw new Error(`${server} did not reach "running": ${await folded(row)}`);
    await page.waitForTimeout(500);
  }
}

try {
  ({ page, runDir, stop } = await openWorkbench({ name: 'e2e-apps', vsixes: [VSIX], folder: FOLDER, waitForFile: 'hello.py', log }));
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 30000 });
  await clickPastConsent(page, mcpTab); // the launch-consent dialog may come up before the first click
  await allowUntilRunning('basic-app');
  log('basic-app running');

  const quickInput = page.locator('.quick-input-widget');
  const pick = label => pickInQuickInput(page, label);
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await quickInput.locator('input').fill('>Call Tool…');
    const row = quickInput.locator('.monaco-list-row', { hasText: /MCP[^:]*: Call Tool…/ }).first();
    if (await row.waitFor({ timeout: 5000 }).then(() => true, () => false)) { await row.click(); break; }
    await page.keyboard.press('Escape');
    if (attempt >= 10) throw new Error('"Call Tool…" is not in the command palette');
  }
  await pick('basic-app');
  await pick('get-time');
  log('called get-time from the palette');

  const app = await frameWith(page, '#get-time-btn');
  const timeText = () => app.locator('#server-time').textContent();
  const end = Date.now() + 30000;
  let first = await timeText();
  while (!/^\d{4}-\d{2}-\d{2}T/.test(first ?? '')) {
    if (Date.now() > end) throw new Error(`#server-time did not show the tool result: "${first}"`);
    await page.waitForTimeout(300);
    first = await timeText();
  }
  log(`the view rendered the tool result: #server-time = ${first}`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-app-view.png') });
  await readmePicture(page, 'app');

  // A click in the view makes it call the tool (tools/call over the bridge): the editor asks first.
  await page.waitForTimeout(20); // a later time than the first one
  await app.locator('#get-time-btn').click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 20000 });
  const question = await folded(dialog);
  if (!/Run the tool "get-time"/.test(question)) throw new Error(`unexpected dialog: ${question.slice(0, 200)}`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-app-confirm.png') });
  await dialog.getByRole('button', { name: 'Allow Once', exact: true }).click();
  log('the view asked to call get-time; allowed once');
  const end2 = Date.now() + 20000;
  let second = await timeText();
  while (second === first || !/^\d{4}-\d{2}-\d{2}T/.test(second ?? '')) {
    if (Date.now() > end2) throw new Error(`#server-time did not change after the click: "${second}"`);
    await page.waitForTimeout(300);
    second = await timeText();
  }
  log(`the view updated: #server-time = ${second}`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-app-updated.png') });
  log('screenshots e2e-app-view.png, e2e-app-confirm.png, e2e-app-updated.png');
  log('PASS');
} catch (e) {
  failure = e ?? new Error('the run threw nothing');
}
await endRun('e2e:apps', failure, { page, runDir, stop, shotPath: path.join(SHOTS, 'e2e-apps-failure.png') });
