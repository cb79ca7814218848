// Server text is data in every renderer, in the real extension host: `hostile.mjs --hostile-text` (a prompt and a tool
// whose names and descriptions carry a blank line, a markdown command link, backticks, quotes and bidi overrides) next
// to server-everything, the bystander whose prompts and tools must list and run as before. What the chat stream
// received is read through the participant's test hook (every markdown part with its trust, the buttons, the
// follow-ups); the dialogs through the dialog answerer (message, detail and buttons exactly as VS Code gets them).
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration, ChatTranscript } from '../../src/extension/chat/mcpChat';
import type { SamplingFeatures } from '../../src/extension/sampling/clientFeatures';
import type { Dialog } from '../../src/extension/ui/dialogs';
import { mangleToolName } from '../../src/extension/chat/parse';
import { quoted } from '../../src/mcp/logging/humanText';
import { EVERYTHING, ROOT, until, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration; sampling: SamplingFeatures };

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile.mjs');
/** As hostile.mjs sends them. */
const LINK = '[run it](command:workbench.action.chat.open?%5B%7B%22query%22%3A%22%40workspace%20pwned%22%7D%5D)';
const EVIL_TOOL = `evil"\u202e\n\n${LINK} \`tick\` \u2066x`;
const EVIL_PROMPT = `evil\n\n- ${LINK} \`\`x\`\` \u202egnp.exe`;

/** A markdown link (`](`, adjacent as CommonMark and VS Code's notification and dialog links need) that no backslash escapes. */
const LIVE_LINK = /(^|[^\\])\]\(/;
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;

/** Nothing the stream received is trusted markdown, renders HTML or carries a live link or a bidi override. */
function assertInert(t: ChatTranscript): void {
  for (const p of t.parts) {
    assert.strictEqual(p.isTrusted, false, `a trusted markdown part:\n${p.value}`);
    assert.strictEqual(p.supportHtml, false, `a markdown part with HTML:\n${p.value}`);
    assert.ok(!LIVE_LINK.test(p.value), `a link in:\n${p.value}`);
    assert.ok(!BIDI.test(p.value), `a bidi override in:\n${p.value}`);
  }
  for (const b of t.buttons) {
    assert.ok(!JSON.stringify(b).includes('command:'), `a button carrying a command link: ${JSON.stringify(b)}`);
    assert.ok(!BIDI.test(b.title) && !b.title.includes('\n'), `a button title: ${JSON.stringify(b.title)}`);
  }
}

describe('Server text is data in every renderer (hostile.mjs --hostile-text next to server-everything)', function () {
  this.timeout(60000);
  let api: Api;
  let fake: vscode.LanguageModelChat;
  let dialogs: Dialog[] = [];

  before(async () => {
    api = await activateAllowing<Api>();
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], sampling: { maxRequestsPerMinute: 100 } },
      hostile: { type: 'stdio', command: process.execPath, args: [HOSTILE, '--hostile-text'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() =>
      api.host.get('everything')?.catalogue.prompts.some(p => p.name === 'simple-prompt') === true
      && api.host.get('hostile')?.catalogue.prompts.some(p => p.name === EVIL_PROMPT) === true
      && api.host.get('hostile')?.catalogue.tools.some(t => t.name === EVIL_TOOL) === true, 'both servers running with their lists');
  });

  afterEach(async () => {
    testSupport(api).setDialogAnswerer(undefined);
    testSupport(api).setChatUi(undefined);
    testSupport(api).setSamplingUi(undefined);
    dialogs = [];
    await api.chat.chat.resetGrants();
    await api.sampling.resetGrants();
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  /** Records every dialog and answers it with `pick(dialog)`. */
  function answerDialogs(pick: (d: Dialog) => string | undefined): void {
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return pick(d); });
  }

  it('H55: @mcp /prompts puts no server text in trusted markdown and no command link in chat; the bystander\'s prompts still list', async () => {
    for (const command of ['prompts', undefined]) {
      const t = await api.chat.run('', { model: fake, command });
      assertInert(t);
      assert.ok(t.markdown.includes('- `/everything.simple-prompt`'), t.markdown);
      assert.ok(t.markdown.includes('- `/everything.args-prompt` city \\[state\\]'), t.markdown);
      assert.ok(t.markdown.includes('- `/hostile.plain` — a plain prompt'), t.markdown);
      // The hostile name is one list item: its blank line did not end the item, its "- [run it](…)" is text.
      assert.ok(t.markdown.includes('- ```/hostile.evil - [run it] (command:'), t.markdown);
      assert.deepStrictEqual(t.buttons.map(b => [b.command, b.arguments]), [['mcpHost.runPromptInChat', undefined]], 'one button of ours, without server text');
      const prompts = (t.result.metadata as { prompts: string[] }).prompts;
      assert.ok(prompts.includes('/everything.simple-prompt') && prompts.includes('/hostile.plain'), prompts.join(', '));
      assert.ok(!prompts.some(p => p.includes('evil')), 'a name that cannot be typed gets no follow-up');
    }
  });

  it('H55: a /prompts follow-up chip runs its prompt (not "/prompts /<prompt>" again); the bystander\'s and the hostile server\'s plain prompt run', async () => {
    const listed = await api.chat.run('', { model: fake, command: 'prompts' });
    const chips = api.chat.followups(listed.result);
    const chip = chips.find(f => f.prompt === '/everything.simple-prompt');
    assert.ok(chip, JSON.stringify(chips));
    // VS Code sends a chip as "@<participant> [/<chip.command ?? the listing's command>] <chip.prompt>".
    assert.strictEqual(chip.command, '', 'the chip names no command, so it does not inherit /prompts');
    assert.strictEqual(chip.label, '/everything\\.simple\\-prompt', 'the label (rendered as markdown) is escaped');
    for (const c of chips) assert.ok(!LIVE_LINK.test(c.label ?? '') && !BIDI.test(c.label ?? ''), c.label);
    const ran = await api.chat.run(chip.prompt, { model: fake, command: chip.command || undefined });
    assert.ok(ran.markdown.includes('fake-reply-to:This is a simple prompt without arguments.'), ran.markdown);
    assertInert(ran);
    const plain = await api.chat.run('/hostile.plain', { model: fake });
    assert.ok(plain.markdown.includes('fake-reply-to:This is the plain prompt.'), plain.markdown);
  });

  it('H56: @mcp /tools escapes a hostile tool name and description; the bystander\'s tools list as before', async () => {
    const t = await api.chat.run('', { model: fake, command: 'tools' });
    assertInert(t);
    assert.ok(t.markdown.includes('`everything_echo` — **echo** of `everything`'), t.markdown);
    assert.ok(t.markdown.includes(`\`${mangleToolName('hostile', EVIL_TOOL)}\` — **evil\\"`), t.markdown);
    assert.strictEqual(t.markdown.split('\n').filter(l => l.startsWith('- ')).length,
      t.markdown.split('\n').filter(l => l.trim() && !l.startsWith('Tools the language model')).length, 'one list item per tool, nothing else');
  });

  it('H54: the tool confirmation names the real server and tool on one line, keeps the server\'s words in the detail, and offers the four decisions; the bystander\'s call runs', async () => {
    answerDialogs(() => 'Allow Once');
    const evil = await api.chat.run(`CALL_TOOL:${mangleToolName('hostile', EVIL_TOOL)} {"text":"hi"}`, { model: fake });
    assert.strictEqual(dialogs.length, 1, JSON.stringify(dialogs));
    const d = dialogs[0];
    assert.strictEqual(d.message, `Run the tool ${quoted(EVIL_TOOL)} of MCP server "hostile"?`);
    assert.ok(d.message.startsWith('Run the tool "evil\' [run it] (command:'), d.message);
    assert.ok(!/[\n\r]/.test(d.message) && !BIDI.test(d.message) && !LIVE_LINK.test(d.message), d.message);
    assert.deepStrictEqual(d.buttons, [{ title: 'Allow Once' }, { title: 'Allow for This Session' }, { title: 'Always Allow This Tool' }, { title: 'Deny', isCloseAffordance: true }]);
    assert.ok(d.detail?.startsWith('Tool name as sent: "evil\\"\\u202e\\n\\n[run it] (command:'), d.detail);
    assert.ok(!BIDI.test(d.detail ?? '') && !LIVE_LINK.test(d.detail ?? ''), d.detail);
    assert.ok(d.detail?.includes('Arguments:\n{\n  "text": "hi"\n}'), d.detail);
    assert.ok(evil.markdown.includes('fake-reply-to:tool-result:evil tool ran with hi'), evil.markdown);
    assertInert(evil);

    dialogs = [];
    const echo = await api.chat.run('CALL_TOOL:everything_echo {"message":"bystander"}', { model: fake });
    assert.strictEqual(dialogs.length, 1);
    assert.strictEqual(dialogs[0].message, 'Run the tool "echo" of MCP server "everything"?');
    assert.ok(dialogs[0].detail?.startsWith('Description (from the server): Echoes back the input'), dialogs[0].detail);
    assert.ok(echo.markdown.includes('fake-reply-to:tool-result:Echo: bystander'), echo.markdown);
    assert.match(echo.markdown, /Called `echo` \(everything\)/);
  });

  it('H54: "Deny" (also Escape) declines the call; the History tooltip of the hostile call is untrusted, escaped markdown', async () => {
    answerDialogs(() => undefined);
    const t = await api.chat.run(`CALL_TOOL:${mangleToolName('hostile', EVIL_TOOL)} {"text":"no"}`, { model: fake });
    // A Deny ends the model's turn (the consent governor, issue 35): the chat says so, and the model is not asked again.
    assert.ok(t.markdown.includes('You declined the call of') && t.markdown.includes('Stopped: you declined a tool call'), t.markdown);
    assert.ok(!t.markdown.includes('fake-reply-to:'), t.markdown);
    const tree = api.views.history;
    const server = tree.getChildren().find(n => n.server === 'hostile');
    assert.ok(server, 'the hostile server has history');
    const evil = tree.getChildren(server).find(n => tree.entry(n)?.target === EVIL_TOOL);
    assert.ok(evil, 'the hostile call is in the History view');
    const item = tree.getTreeItem(evil);
    assert.ok(!String(item.label).includes('\n') && !BIDI.test(String(item.label)), String(item.label));
    const tip = item.tooltip as vscode.MarkdownString;
    assert.ok(!tip.isTrusted, 'the tooltip is not trusted');
    assert.ok(!LIVE_LINK.test(tip.value) && !BIDI.test(tip.value), tip.value);
    assert.ok(tip.value.startsWith('**tools/call** ``'), tip.value);
  });

  it('H54: the first sampling dialog offers allow once / for the session / always, More… and Deny (no separate Cancel); Deny rejects', async () => {
    answerDialogs(() => 'Deny');
    const out = await api.host.get('everything')!.callTool('trigger-sampling-request', { prompt: 'dialog check', maxTokens: 10 })
      .then(r => JSON.stringify(r), e => String(e));
    assert.strictEqual(dialogs.length, 1, JSON.stringify(dialogs));
    assert.strictEqual(dialogs[0].message, 'MCP server "everything" wants to use the language model "Fake Model 1". Allow?');
    assert.deepStrictEqual(dialogs[0].buttons.map(b => b.title), ['Allow Once', 'Allow for This Session', 'Always Allow This Server', 'More…', 'Deny']);
    assert.strictEqual(dialogs[0].buttons.find(b => b.isCloseAffordance)?.title, 'Deny');
    assert.match(out, /rejected the sampling request/);
  });

  it('H59: the language model tools\' names do not repeat the extension\'s name (VS Code shows "MCP Host: <name>")', () => {
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as { displayName: string; contributes: { languageModelTools: { displayName: string }[] } };
    const names = pkg.contributes.languageModelTools.map(t => t.displayName);
    assert.deepStrictEqual(names, ['List MCP Tools', 'Call MCP Tool', 'Load MCP Skill']);
    assert.ok(names.every(n => !n.startsWith(pkg.displayName)), names.join(', '));
  });
});
