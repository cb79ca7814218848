// UI test (H118): VS Code's own confirmation of a gateway tool, in the real editor (code-server) with the packaged VSIX
// and the fake language model (test/fixtures/fake-lm), driven by headless Chromium. Opens sample/ (server-everything),
//   1. `@mcp CALL_TOOL:everything_get-sum …` → MCP Host's tool dialog → "Always Allow This Tool" (a standing grant)
//   2. Agent mode (no @mcp): the fake model calls the gateway's `…everything_echo`, which the user has NOT allowed
//      always in MCP Host → VS Code shows its own confirmation in the chat (screenshot e2e-gateway-confirm.png);
//      Allow → the tool runs, and MCP Host asks nothing more (one confirmation, never two)
//   3. Agent mode: the fake model calls the gateway's `…everything_get-sum` (allowed always) → it runs without any
//      confirmation (screenshot e2e-gateway-no-confirm.png)
// Exit code 0 = every step passed. Stops code-server's process group and the browser.
//   npm run package && node test/e2e/gateway-confirm.mjs      E2E_VERBOSE=1, E2E_KEEP_RUN=1 as for chat.mjs
import fs from 'node:fs';
import path from 'node:path';
import { SHOTS, dialogAnswerer, openChatWithFakeModel, startFromMcpView } from '../../scripts/editor/workbench.mjs';
import { endRun, openSampleWithFakeModel, packagedVsix, timedLog } from './lib/run.mjs';

const VSIX = packagedVsix('e2e-gateway');
const log = timedLog('e2e-gateway');

let page;
let runDir;
let stop = async () => {};
let failure;
try {
  let lmLog;
  ({ page, runDir, stop, lmLog } = await openSampleWithFakeModel({ name: 'e2e-gateway', vsix: VSIX, log, userSettings: { 'chat.allowAnonymousAccess': true } }));
  log('workbench up');
  /** The fake model's answered requests (tools offered, tool results seen). */
  const modelCalls = () => (fs.existsSync(lmLog) ? fs.readFileSync(lmLog, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)) : [])
    .filter(e => e.call === 'provideLanguageModelChatResponse');

  const dialog = page.locator('.monaco-dialog-box');
  const dialogText = async () => ((await dialog.textContent().catch(() => '')) ?? '').replace(/\s+/g, ' ').trim();
  const answerDialogsUntil = dialogAnswerer(page, log);
  await startFromMcpView(page, answerDialogsUntil, 'everything', log);
  const { send, chatText } = await openChatWithFakeModel(page, log);
  const inputPart = page.locator('.interactive-input-part, .chat-input-container').first();
  const inputEditor = page.locator('.interactive-input-part .monaco-editor, .chat-input-container .monaco-editor').first();

  // 1. A standing grant in MCP Host for get-sum.
  await send('@mcp CALL_TOOL:everything_get-sum {"a":1,"b":2}');
  await answerDialogsUntil('get-sum allowed always in MCP Host',
    async () => (await chatText()).includes('fake-reply-to:tool-result:The sum of 1 and 2 is 3'),
    [{ re: /Run the tool "get-sum" of MCP server "everything"/, button: 'Always Allow This Tool' }], 30000);
  log('get-sum: allowed always in MCP Host');

  // 2. Agent mode: a gateway tool the user has not allowed always. A new chat, so that @mcp (sticky) is not the target.
  for (let attempt = 0; attempt < 3 && /@mcp/.test((await inputPart.textContent().catch(() => '')) ?? ''); attempt++) {
    await inputEditor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Control+KeyL');
    await page.waitForTimeout(1500);
  }
  const mode = ((await inputPart.textContent().catch(() => '')) ?? '');
  log(`chat input shows: ${mode.replace(/\s+/g, ' ').slice(0, 120)}`);
  const gatewayTool = suffix => modelCalls().some(c => (c.tools ?? []).some(n => n.endsWith(suffix) && /mcp_host|MCP_Host|mcp-host/i.test(n)));
  // VS Code starts the "MCP Host" server for the first Agent request (chat.mcp.autostart); ask again until its tools are offered.
  let before = modelCalls().length;
  for (let attempt = 0; attempt < 6; attempt++) {
    await send('CALL_TOOL:*everything_echo {"message":"through the gateway"}');
    await page.waitForTimeout(4000);
    // Without Copilot, VS Code may offer its sign-in first: close it (the request goes on with the chosen model).
    if (/Sign in to use GitHub Copilot/.test(await dialogText())) {
      log('closing the Copilot sign-in offer');
      await page.screenshot({ path: path.join(SHOTS, 'e2e-gateway-signin.png') });
      await dialog.locator('.codicon-close, .codicon-dialog-close, [aria-label="Close"]').first().click({ timeout: 5000 }).catch(() => page.keyboard.press('Escape'));
      await page.waitForTimeout(3000);
    }
    if (await dialog.isVisible().catch(() => false)) throw new Error(`a dialog came up instead of VS Code's own confirmation: ${(await dialogText()).slice(0, 200)}`);
    if (gatewayTool('everything_echo')) break;
    log(`attempt ${attempt + 1}: the model was offered ${JSON.stringify(modelCalls().at(-1)?.tools ?? []).slice(0, 300)}`);
  }
  if (!gatewayTool('everything_echo')) throw new Error('Agent mode never offered the gateway\'s everything_echo to the model');
  const last = page.locator('.interactive-item-container.interactive-response').last();
  const allow = last.getByRole('button', { name: /^(Allow|Continue)/ }).first();
  await allow.waitFor({ timeout: 30000 });
  await page.screenshot({ path: path.join(SHOTS, 'e2e-gateway-confirm.png') });
  const shown = ((await last.textContent()) ?? '').replace(/\s+/g, ' ');
  log(`VS Code asks: ${shown.slice(0, 200)}`);
  if (modelCalls().some(c => /Echo: through the gateway/.test(JSON.stringify(c.toolResults ?? '')))) throw new Error('the tool ran before the user allowed it');
  before = modelCalls().length;
  await allow.click();
  // MCP Host asks nothing more: any dialog here fails the test.
  await answerDialogsUntil('the echo result after VS Code\'s confirmation', async () => (await chatText()).includes('fake-reply-to:tool-result:Echo: through the gateway'), [], 30000);
  log('VS Code asked once; Allow ran the tool; MCP Host did not ask again');

  // 3. The tool allowed always in MCP Host runs without VS Code's confirmation.
  await send('CALL_TOOL:*everything_get-sum {"a":2,"b":3}');
  await answerDialogsUntil('get-sum without confirmation', async () => (await chatText()).includes('fake-reply-to:tool-result:The sum of 2 and 3 is 5'), [], 30000);
  const after = page.locator('.interactive-item-container.interactive-response').last();
  if (await after.getByRole('button', { name: /^(Allow|Continue)/ }).count()) throw new Error('VS Code asked for a tool allowed always in MCP Host');
  await page.screenshot({ path: path.join(SHOTS, 'e2e-gateway-no-confirm.png') });
  log(`get-sum ran without a confirmation (${modelCalls().length - before} model requests); PASS`);
} catch (e) {
  failure = e ?? new Error('the run threw nothing');
}
await endRun('e2e-gateway', failure, { page, runDir, stop, shotPath: path.join(SHOTS, 'e2e-gateway-failure.png') });
