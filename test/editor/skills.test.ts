// Skills (SEP-2640, H119–H121) in the real extension host (code-server), against the fixture skills server
// (test/fixtures/servers/skills.mjs) and its hostile variant: the Skills group in the Servers view (hostile text
// escaped), `@mcp /skill` loading a verified SKILL.md as context, a tampered skill refused naming server, skill and
// file while the same server's good skill loads, the model's skill tool in `@mcp` (fake model), and the
// `mcpHost_loadSkill` language-model tool. A server that stays silent on the protocol probe (`old`) runs beside them.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import type { McpNode } from '../../src/views/nodes';
import { ROOT, until, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration };
const SKILLS = path.join(ROOT, 'test/fixtures/servers/skills.mjs');

function toolText(r: vscode.LanguageModelToolResult): string {
  return r.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

/** The fake model's answered requests so far (from $FAKE_LM_LOG). */
function modelCalls(): { messages: { role: string; text: string }[]; tools: string[]; toolResults: string[] }[] {
  const file = process.env.FAKE_LM_LOG;
  if (!file || !fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l)).filter(e => e.call === 'provideLanguageModelChatResponse');
}

describe('Skills (SEP-2640) in the editor: Servers view, @mcp /skill, the skill tools', function () {
  this.timeout(60000);
  let api: Api;
  let fake: vscode.LanguageModelChat;

  before(async function () {
    api = await activateAllowing<Api>();
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      docs: { type: 'stdio', command: process.execPath, args: [SKILLS] },
      evil: { type: 'stdio', command: process.execPath, args: [SKILLS, '--hostile'] },
      old: { type: 'stdio', command: process.execPath, args: [SKILLS, '--silent-probe'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => ['docs', 'evil', 'old'].every(n => api.host.get(n)?.state.kind === 'running')
      && api.host.get('docs')!.skills.length === 2 && api.host.get('evil')!.skills.length > 2, 'docs, evil and old running with their skills');
  });

  after(async () => {
    if (!api) return;
    testSupport(api).setChatUi(undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H119: lists each server\'s skills in a Skills group (name, description), hostile text on one line', () => {
    const tree = api.views.servers;
    const server = (tree.getChildren() as McpNode[]).find(n => n.server === 'docs')!;
    const group = (tree.getChildren(server) as McpNode[]).find(g => g.kind === 'group' && g.group === 'skills');
    assert.ok(group, 'no Skills group');
    const groupItem = tree.getTreeItem(group);
    assert.strictEqual(groupItem.label, 'Skills');
    assert.strictEqual(groupItem.description, '2');
    const skills = tree.getChildren(group) as McpNode[];
    assert.deepStrictEqual(skills.map(s => { const i = tree.getTreeItem(s); return [i.label, i.description]; }), [
      ['pdf-forms', 'Fill in PDF forms from structured data'],
      ['release-notes', 'Write release notes from a list of commits'],
    ]);
    const evil = (tree.getChildren() as McpNode[]).find(n => n.server === 'evil')!;
    const evilGroup = (tree.getChildren(evil) as McpNode[]).find(g => g.kind === 'group' && g.group === 'skills')!;
    const shouty = (tree.getChildren(evilGroup) as McpNode[]).map(s => tree.getTreeItem(s)).find(i => i.label === 'shouty')!;
    assert.ok(!/[\n\u0007\u202e]/.test(String(shouty.description)), JSON.stringify(shouty.description));
    const tip = shouty.tooltip as vscode.MarkdownString;
    assert.ok(!tip.isTrusted, 'a tooltip with server text is trusted');
    assert.ok(tip.value.includes('\\[run\\]\\(command:workbench\\.action\\.quit\\)'), tip.value);
  });

  it('H121: @mcp /skill <server>.<name> loads the verified SKILL.md as context; a question goes to the model with it', async () => {
    const before = modelCalls().length;
    const t = await api.chat.run('docs.pdf-forms how do I fill the date?', { command: 'skill', model: fake });
    assert.match(t.markdown, /Loaded skill `pdf-forms` of `docs` \(verified, \d+ characters\)/);
    assert.ok(t.parts.every(p => p.isTrusted === false), JSON.stringify(t.parts));
    const sent = modelCalls().slice(before)[0];
    assert.ok(sent, 'the model was not asked');
    assert.ok(sent.messages.some(m => m.text.includes('skill://pdf-forms/SKILL.md') && m.text.includes('Use the fields in references/FIELDS.md.')), JSON.stringify(sent.messages));
    assert.strictEqual(sent.messages.at(-1)?.text, 'how do I fill the date?');
  });

  it('H120: @mcp /skill refuses a tampered skill, naming server, skill and file; the good skill of the same server loads', async () => {
    const t = await api.chat.run('evil.wrong-digest', { command: 'skill', model: fake });
    // The chat renders the error as markdown: escaped (render.ts errorMarkdown); read it as the user does.
    const message = (t.result.errorDetails?.message ?? '').replace(/\\(.)/g, '$1');
    assert.match(message, /server `evil`, skill `wrong-digest`, file `SKILL\.md`: refused, its digest does not match the skill entry/);
    const ok = await api.chat.run('evil.release-notes', { command: 'skill', model: fake });
    assert.match(ok.markdown, /Loaded skill `release-notes` of `evil`/);
    const list = await api.chat.run('', { command: 'skill', model: fake });
    assert.match(list.markdown, /`docs\.pdf-forms`: Fill in PDF forms/);
  });

  it('H121: in @mcp the model loads a skill through the participant\'s skill tool', async () => {
    const before = modelCalls().length;
    const t = await api.chat.run('CALL_TOOL:mcp_host_load_skill {"server":"docs","skill":"release-notes"}', { model: fake });
    assert.match(t.markdown, /Loaded skill `release-notes` of `docs` \(verified\)/);
    const calls = modelCalls().slice(before);
    assert.ok(calls[0].tools.includes('mcp_host_load_skill'), JSON.stringify(calls[0].tools));
    assert.ok(calls.some(c => c.toolResults.some(r => r.includes('Group by feature, fix, chore.'))), JSON.stringify(calls.map(c => c.toolResults)));
  });

  it('H121: mcpHost_loadSkill gives other agents the list, a verified skill, and a refusal naming server, skill and file', async () => {
    const token = new vscode.CancellationTokenSource().token;
    const list = toolText(await vscode.lm.invokeTool('mcpHost_loadSkill', { input: {}, toolInvocationToken: undefined }, token));
    assert.match(list, /- docs\.pdf-forms: Fill in PDF forms from structured data/);
    const md = toolText(await vscode.lm.invokeTool('mcpHost_loadSkill', { input: { server: 'docs', skill: 'pdf-forms' }, toolInvocationToken: undefined }, token));
    assert.match(md, /^Skill "pdf-forms" of MCP server "docs" \(skill:\/\/pdf-forms\/SKILL\.md, verified/);
    const bad = toolText(await vscode.lm.invokeTool('mcpHost_loadSkill', { input: { server: 'evil', skill: 'bad-frontmatter' }, toolInvocationToken: undefined }, token));
    assert.match(bad, /server `evil`, skill `bad-frontmatter`, file `SKILL\.md`: refused, its frontmatter does not match/);
  });
});
