// UI scenario for forms and result documents: the packaged VSIX in code-server, driven by headless Chromium, with the
// fixture server test/fixtures/servers/media.mjs in a workspace of its own (E2E_STARTUP=eager, the default, or lazy).
// Through MCP Host: Call Tool… it opens the form of `order` (a field title, a description and choice labels that are
// HTML), checks they show as text and no element of theirs exists, types "abc" into a number field and sees "Enter a
// number." under it (and "Required." under the empty required field), switches to Raw JSON and sees the errors listed
// with their paths under the JSON, submits a valid value and sees the result tab named "order · hh:mm:ss.md"; then calls
// `picture` and sees the image in the image preview beside the result text, and the Save As… notification.
// Screenshots in .vscode-test/screenshots/ (e2e-form-*.png, e2e-result-*.png, suffixed with the start-up mode).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, SHOTS, WORK, openWorkbench } from '../../scripts/editor/workbench.mjs';
import { allowConsent, saveShot, endRun, packagedVsix, timedLog, folded, frameWith, waitFor, pickInQuickInput } from './lib/run.mjs';

const MODE = process.env.E2E_STARTUP === 'lazy' ? 'lazy' : 'eager';
const HOSTILE_TITLE = '<img src=x onerror="document.title=\'pwned\'"><b>Label</b>';
const VSIX = packagedVsix('e2e:forms');
const log = timedLog(`e2e:forms ${MODE}`);

// A workspace of its own: one file, and the media fixture as a workspace server (so launch consent is asked).
const FOLDER = path.join(WORK, 'runs', `forms-ws-${MODE}-${Date.now()}`);
fs.mkdirSync(path.join(FOLDER, '.vscode'), { recursive: true });
fs.writeFileSync(path.join(FOLDER, 'readme.txt'), 'forms and results\n');
fs.writeFileSync(path.join(FOLDER, '.vscode/settings.json'), JSON.stringify({
  'mcpHost.startup': MODE,
  'mcpHost.servers': { media: { type: 'stdio', command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/media.mjs')] } },
}, null, 2));

let page;
let runDir;
let stop = async () => {};
let failure;
const shot = name => saveShot(page, path.join(SHOTS, `${name}-${MODE}.png`), log);

try {
  ({ page, runDir, stop } = await openWorkbench({ name: `e2e-forms-${MODE}`, vsixes: [VSIX], folder: FOLDER, waitForFile: 'readme.txt', log }));
  const mcpTab = page.locator('.part.activitybar .action-item a[aria-label^="MCP"], .part.activitybar .action-item[aria-label^="MCP"]').first();
  await mcpTab.waitFor({ timeout: 30000 });
  // Eager: the server asks for launch consent at once. Lazy: expanding it in the Servers view is its first use.
  // Either way: answer the consent dialog whenever it is up, open the view, expand the server, until it runs.
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Servers' }).first();
  const row = page.locator('.part.sidebar .monaco-list-row', { hasText: 'media' }).first();
  const end = Date.now() + 90000;
  let expanded = false;
  for (;;) {
    if (Date.now() > end) throw new Error(`media did not reach "running": ${await folded(row)}`);
    const asked = await allowConsent(page);
    if (asked !== undefined) {
      log(`dialog "${asked.slice(0, 90)}" → Allow`);
      continue;
    }
    if (!(await row.isVisible().catch(() => false))) {
      if (!(await header.isVisible().catch(() => false))) await mcpTab.click({ timeout: 5000 }).catch(() => {});
      await page.waitForTimeout(500);
      continue;
    }
    if (/running/i.test(await folded(row))) break;
    if (!expanded) {
      await row.click({ timeout: 5000 }).then(() => page.keyboard.press('ArrowRight')).then(() => { expanded = true; }, () => {});
    }
    await page.waitForTimeout(500);
  }
  log('media running');

  const quickInput = page.locator('.quick-input-widget');
  const pick = label => pickInQuickInput(page, label);
  async function callTool(tool) {
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('F1');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
      await quickInput.locator('input').fill('>MCP Host: Call Tool…');
      const r = quickInput.locator('.monaco-list-row', { hasText: /MCP Host: Call Tool…/ }).first();
      if (await r.waitFor({ timeout: 5000 }).then(() => true, () => false)) { await r.click(); break; }
      await page.keyboard.press('Escape');
      if (attempt >= 10) throw new Error('"Call Tool…" is not in the command palette');
    }
    // With one running server the server pick is skipped: the tool pick ("Tool of media") comes at once.
    const placeholder = () => quickInput.locator('input').getAttribute('placeholder').catch(() => '');
    await waitFor(page, 'the server or tool pick', async () => /^Tool of media|server/i.test((await placeholder()) ?? ''));
    if (!/^Tool of media/.test((await placeholder()) ?? '')) await pick('media');
    await waitFor(page, 'the tool pick', async () => /^Tool of media/.test((await placeholder()) ?? ''));
    await pick(tool);
  }

  // 1. The form of `order`: server text is text.
  await callTool('order');
  const form = await frameWith(page, '#form');
  const label = form.locator('label[for="f-2"]');
  const labelText = await label.textContent();
  if (labelText !== `${HOSTILE_TITLE} (label)`) throw new Error(`the hostile title reads: ${labelText}`);
  const injected = await form.evaluate(() => ({
    elements: document.querySelectorAll('#form img, #form b, #form i, #form u, #form script').length,
    title: document.title,
    options: [...document.querySelectorAll('#f-3 option')].map(o => o.textContent),
    desc: document.querySelector('label[for="f-2"] + .desc')?.textContent,
  }));
  if (injected.elements !== 0 || injected.title === 'pwned') throw new Error(`server HTML became markup: ${JSON.stringify(injected)}`);
  if (JSON.stringify(injected.options) !== JSON.stringify(['(leave empty)', '<u>Red</u>', '<img src=y onerror=alert(1)>Blue'])) throw new Error(`choice labels: ${JSON.stringify(injected.options)}`);
  if (!injected.desc?.startsWith('<script>')) throw new Error(`description: ${injected.desc}`);
  log('the form shows the server\'s HTML as text: no img/b/i/u/script element, labels and choices read as sent');

  // 2. "abc" in the number field: "Enter a number.", and "Required." under the empty required field.
  // (record the host's answers as the page gets them, for the message if the error does not show)
  await form.evaluate(() => window.addEventListener('message', e => { window.__answers = [...(window.__answers ?? []), { type: e.data?.type, source: e.source === window ? 'self' : e.source === window.parent ? 'parent' : String(e.source), origin: e.origin }]; }));
  await form.locator('#f-0').fill('abc');
  await form.locator('#submit').click();
  const countError = form.locator('#f-0-error');
  await waitFor(page, 'the number error', async () => (await countError.textContent()) === 'Enter a number.', 60000).catch(async e => {
    throw new Error(`${e.message}; the page got ${JSON.stringify(await form.evaluate(() => window.__answers ?? []))}, general error "${await form.locator('#error-general').textContent()}"`);
  });
  log(`the page got the host's answer as ${JSON.stringify(await form.evaluate(() => window.__answers))}`);
  // An empty required text field: "Required." (the page leaves an empty field out).
  const labelError = await form.locator('#f-2-error').textContent();
  if (labelError !== 'Required.') throw new Error(`the empty required field says: ${labelError}`);
  log('typed "abc" into Count: "Enter a number."; the empty Label: "Required."');
  await shot('e2e-form-errors');

  // 3. Raw JSON: the errors listed with their paths under the JSON.
  await form.locator('#toggle-raw').click();
  const rawErrors = form.locator('#raw-errors');
  await waitFor(page, 'the raw error list after switching', async () => (await rawErrors.isVisible()) && /count: must be a number/.test(await folded(rawErrors)), 60000);
  await form.locator('#raw').fill('{"count": "x", "size": 2.5, "label": ""}');
  await form.locator('#submit').click();
  await waitFor(page, 'the raw error list', async () => /size: must be an integer/.test(await folded(rawErrors)), 60000);
  const listed = await rawErrors.locator('li').allTextContents();
  for (const want of ['count: must be a number', 'size: must be an integer']) if (!listed.includes(want)) throw new Error(`raw errors: ${JSON.stringify(listed)}`);
  if (await form.locator('#fields').isVisible()) throw new Error('the fields are visible in Raw JSON mode');
  log(`Raw JSON lists: ${listed.join(' | ')}`);
  await shot('e2e-form-raw-errors');

  // 4. A valid value: the result tab is named by the tool and the time.
  await form.locator('#raw').fill('{"count": 2, "label": "ok"}');
  await form.locator('#submit').click();
  const editorArea = page.locator('.part.editor');
  await waitFor(page, 'the order result', async () => /order: \{"count":2,"label":"ok"\}/.test(await folded(editorArea)), 60000);
  const orderTab = page.locator('.part.editor .tab', { hasText: /order · \d\d:\d\d:\d\d\.md/ }).first();
  await orderTab.waitFor({ timeout: 10000 });
  log(`result tab: ${(await orderTab.textContent())?.trim()}`);

  // 5. A picture: the image in the image preview beside the text, the Save As… notification.
  await callTool('picture');
  await waitFor(page, 'the picture result', async () => /Before the picture\./.test(await folded(editorArea)), 60000);
  const imageTab = page.locator('.part.editor .tab', { hasText: /picture · \d\d:\d\d:\d\d image 1\.png/ }).first();
  await imageTab.waitFor({ timeout: 20000 });
  const preview = await frameWith(page, 'img.scale-to-fit, img.pixelated', 30000);
  const size = await preview.evaluate(() => { const i = document.querySelector('img.scale-to-fit, img.pixelated'); return i ? `${i.naturalWidth}x${i.naturalHeight}` : 'none'; });
  if (size !== '48x48') throw new Error(`the image preview shows ${size}`);
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'picture returned image 1 (image/png, 145 B) and audio 1 (audio/wav, 844 B).' }).first();
  await toast.waitFor({ timeout: 15000 });
  if (!(await toast.getByRole('button', { name: 'Save As…' }).isVisible())) throw new Error('no Save As… on the notification');
  const text = await folded(editorArea);
  if (/iVBORw0KGgo/.test(text)) throw new Error('base64 in the result text');
  log(`image preview tab "${(await imageTab.textContent())?.trim()}" shows the 48x48 image; notification with Save As…`);
  await shot('e2e-result-image');
  log('PASS');
} catch (e) {
  failure = e ?? new Error('the run threw nothing');
}
await endRun(`e2e:forms ${MODE}`, failure, { page, runDir, stop, shotPath: path.join(SHOTS, `e2e-forms-failure-${MODE}.png`), also: [FOLDER] });
