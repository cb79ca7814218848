// UI test of the chat flow: the packaged VSIX plus the fake language model (test/fixtures/fake-lm) in a real VS Code
// (code-server), driven by headless Chromium (playwright-core). Opens sample/ (server-everything from workspace
// settings), allows its launch, opens the chat view and sends
//   1. `@mcp /everything.args-prompt city=Paris`  → the fake model's answer `fake-reply-to:What's weather in Paris?`
//   2. `@mcp CALL_TOOL:everything_echo {…}`       → the tool confirmation dialog (Allow Once) → the tool's result
//      fed back to the model (`fake-reply-to:tool-result:Echo: …`)
//   3. `@mcp CALL_TOOL:everything_trigger-sampling-request {…}` → tool dialog, sampling dialog (Allow Once), review
//      dialog (Send) → the server's result carries the fake model's answer
//   4. `@mcp CALL_TOOL:everything_trigger-elicitation-request {}` → tool dialog, the elicitation form (Decline)
// and saves screenshots to .vscode-test/screenshots/e2e-chat-*.png. Exit code 0 = every step passed. Stops
// code-server's process group and the browser.
//   npm run package && node test/e2e/chat.mjs      E2E_VERBOSE=1 for page errors, E2E_KEEP_RUN=1 keeps the run folder
import path from 'node:path';
import { SHOTS, dialogAnswerer, openChatWithFakeModel, readmePicture, startFromMcpView } from '../../scripts/editor/workbench.mjs';
import { endRun, openSampleWithFakeModel, packagedVsix, timedLog } from './lib/run.mjs';

const VSIX = packagedVsix('e2e-chat');
const log = timedLog('e2e-chat');

let page;
let runDir;
let stop = async () => {};
let failure;
try {
  ({ page, runDir, stop } = await openSampleWithFakeModel({ name: 'e2e-chat', vsix: VSIX, log }));
  log('workbench up');

  const answerDialogsUntil = dialogAnswerer(page, log);
  // Launch consent for the sample's workspace servers: allow, and wait for "everything" to run (MCP view).
  await startFromMcpView(page, answerDialogsUntil, 'everything', log);
  // The chat view, with the fake model picked.
  const { send, chatText } = await openChatWithFakeModel(page, log);

  // 1. A server prompt as a slash command, answered by the fake model.
  await send('@mcp /everything.args-prompt city=Paris');
  await answerDialogsUntil('the prompt\'s answer in chat', async () => (await chatText()).includes("fake-reply-to:What's weather in Paris?"), [], 30000);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-chat-prompt.png') });
  log('prompt answered in chat; screenshot e2e-chat-prompt.png');

  // 1b. `@mcp /prompts`: every prompt in one unfolded block (names as code spans, our own Run a Prompt… button and a
  // follow-up per prompt), the last answer of the chat.
  await send('@mcp /prompts');
  const lastResponse = page.locator('.interactive-item-container.interactive-response').last();
  await answerDialogsUntil('the prompt list in chat', async () => {
    const t = ((await lastResponse.textContent().catch(() => '')) ?? '');
    return t.includes('/everything.args-prompt') && t.includes('/everything.simple-prompt') && t.includes('/everything.resource-prompt');
  }, [], 30000);
  const listed = ((await lastResponse.textContent()) ?? '');
  if (/Completed \d+ steps?/.test(listed)) throw new Error(`the prompt list is folded: ${listed.slice(0, 200)}`);
  // Server text is untrusted markdown: prompt names are code spans, not links. What runs a prompt is the extension's
  // own button and the follow-up chips under the answer (VS Code renders those outside the response).
  const inline = await lastResponse.locator('a', { hasText: '/everything.' }).count();
  if (inline) throw new Error(`the prompt list renders ${inline} server-named link(s) inside the answer`);
  const button = await lastResponse.getByRole('button', { name: /Run a Prompt/ }).count();
  if (!button) throw new Error('the prompt list has no "Run a Prompt…" button');
  const chips = await page.locator('.chat-followup, .interactive-session-followups a, .chat-followups a', { hasText: '/everything.' }).count()
    || await page.locator('a', { hasText: /^\/everything\./ }).count();
  if (chips < 3) throw new Error(`expected a follow-up chip per prompt under the answer, saw ${chips}`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-chat-prompts.png') });
  await readmePicture(page, 'chat-prompts');
  log(`@mcp /prompts lists the prompts unfolded with a Run button and ${chips} follow-up chips; screenshot e2e-chat-prompts.png`);

  // 2. A tool call from chat asks first (Allow Once), then the result goes back to the model.
  await send('@mcp CALL_TOOL:everything_echo {"message":"from the chat view"}');
  await answerDialogsUntil('the tool result answer in chat',
    async () => (await chatText()).includes('fake-reply-to:tool-result:Echo: from the chat view'),
    [{ re: /Run the tool "echo" of MCP server "everything"/, button: 'Allow Once', shot: 'e2e-chat-tool-confirm.png' }], 30000);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-chat-tool.png') });
  log('tool call confirmed and answered; screenshots e2e-chat-tool-confirm.png, e2e-chat-tool.png');
  // 3. Sampling through the real dialogs: the model calls server-everything's sampling tool (Allow Once), the server's
  //    sampling request is shown (Allow Once), the fake model's answer is reviewed (Send) and reaches the server.
  await send('@mcp CALL_TOOL:everything_trigger-sampling-request {"prompt":"from the UI","maxTokens":20}');
  await answerDialogsUntil('the sampling result in chat',
    async () => (await chatText()).includes('fake-reply-to:Resource trigger-sampling-request context: from the UI'),
    [
      { re: /Run the tool "trigger-sampling-request"/, button: 'Allow Once' },
      { re: /wants to use the language model "Fake Model 1"/, button: 'Allow Once', shot: 'e2e-chat-sampling-confirm.png' },
      { re: /Send this answer of "Fake Model 1" back to MCP server "everything"/, button: 'Send', shot: 'e2e-chat-sampling-review.png' },
    ], 30000);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-chat-sampling.png') });
  log('sampling confirmed, reviewed and answered; screenshots e2e-chat-sampling-*.png');

  // 4. Elicitation with several fields: one form (a webview), which the user declines; the server hears it.
  // The form is a webview: VS Code's webview page (pre/index.html) writes our document only after its own service
  // worker is ready (its performance mark `content/workerReady`). In code-server that wait alone has taken 13–25 s
  // (and over 30 s in a failed run) with the worker already active and no request of ours outstanding: it is VS
  // Code's, not the form's. So the test waits for that state first, then gives our page a few seconds to render.
  const earlierFrames = new Set(page.frames());
  await send('@mcp CALL_TOOL:everything_trigger-elicitation-request {}');
  /** The performance marks of the webview pages opened since (VS Code's pre/index.html: scriptStart, content/started…). */
  const bootMarks = async () => {
    const out = [];
    for (const f of page.frames()) {
      if (earlierFrames.has(f) || !f.url().includes('/webview/browser/pre/index.html')) continue;
      out.push(await f.evaluate(() => performance.getEntriesByType('mark').map(m => `${m.name.replace('webview/index.html/', '')}@${Math.round(m.startTime)}`)).catch(() => []));
    }
    return out;
  };
  let declineButton;
  const formShown = async () => {
    for (const f of page.frames()) {
      const b = await f.$('#decline').catch(() => null);
      if (b) { declineButton = b; return true; }
    }
    return false;
  };
  let bootedAt = 0;
  try {
    await answerDialogsUntil('the webview of the elicitation form to be ready (VS Code\'s content/workerReady)', async () => {
      if (await formShown()) return true;
      if ((await bootMarks()).some(m => m.some(x => x.startsWith('content/workerReady')))) { bootedAt = Date.now(); return true; }
      return false;
    }, [{ re: /Run the tool "trigger-elicitation-request"/, button: 'Allow Once' }], 90000);
  } catch (e) {
    throw new Error(`${e.message}; webview marks (ms since its page started): ${JSON.stringify(await bootMarks())}`);
  }
  if (!declineButton) {
    // H540: once VS Code writes the document, the form renders from its own script within seconds.
    await answerDialogsUntil('the elicitation form after its webview was ready', formShown, [], 5000)
      .catch(async e => { throw new Error(`${e.message}; webview marks: ${JSON.stringify(await bootMarks())}`); });
    log(`H540: the form rendered ${Date.now() - bootedAt} ms after VS Code's webview was ready; its marks ${JSON.stringify(await bootMarks())}`);
  } else log(`H540: the form rendered; webview marks ${JSON.stringify(await bootMarks())}`);
  const formFrame = await declineButton.ownerFrame();
  const fieldCount = await formFrame.locator('.field').count();
  if (fieldCount < 2) throw new Error(`the elicitation form shows ${fieldCount} field(s)`);
  await page.screenshot({ path: path.join(SHOTS, 'e2e-chat-elicitation.png') });
  await declineButton.click();
  await answerDialogsUntil('the declined elicitation in chat',
    async () => /fake-reply-to:tool-result:.*User declined to provide the requested information/.test(await chatText()), [], 30000);
  log(`elicitation: one form with ${fieldCount} fields, declined; screenshot e2e-chat-elicitation.png`);
  log('PASS');
} catch (e) {
  failure = e ?? new Error('the run threw nothing');
}
await endRun('e2e-chat', failure, { page, runDir, stop, shotPath: path.join(SHOTS, 'e2e-chat-failure.png') });
