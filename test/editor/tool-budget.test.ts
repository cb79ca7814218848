// The tool budget in the real editor: turning a tool off for models (the Servers view's checkbox writes
// mcpHost.disabledTools) leaves it out of what the language-model tools list and refuses its call; the Servers view
// shows the checkbox states and the Tools group's estimated tokens; turning it on again brings it back. Over
// mcpHost.toolBudget, `@mcp` sends the fake model a search and an activate tool instead of every tool; an activated
// tool is offered (and callable) in the next turn; under the budget every tool is sent again.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import { EVERYTHING, until, textOf, testSupport, activateAllowing } from './helpers';


describe('Tool budget: which tools go to models', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  before(async () => {
    api = await activateAllowing();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { budget: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('budget')?.catalogue.tools.length ?? 0) > 0, 'budget running');
  });
  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('disabledTools', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('mcpHost').update('disabledTools', undefined, vscode.ConfigurationTarget.Global);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  const listed = async () => {
    const out = JSON.parse(textOf(await vscode.lm.invokeTool('mcpHost_listTools', { input: { server: 'budget' }, toolInvocationToken: undefined }))) as { tools: { name: string }[] }[];
    return out[0]?.tools.map(t => t.name) ?? [];
  };
  const tree = () => api.views.servers;
  const serverNode = () => (tree().getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === 'budget')!;
  const toolsGroup = () => (tree().getChildren(serverNode()) as McpNode[]).find(n => n.kind === 'group' && n.group === 'tools')!;
  /** The Tools group's estimate ("… · about 1.2k tokens to models") as a number. */
  const tokens = () => {
    const m = /about ([\d.]+)(k?) tokens/.exec(String(tree().getTreeItem(toolsGroup()).description));
    return m ? Number(m[1]) * (m[2] ? 1000 : 1) : NaN;
  };
  const toolNode = (name: string) => (tree().getChildren(toolsGroup()) as McpNode[]).find(n => n.kind === 'tool' && n.tool.name === name)!;

  it('a tool turned off goes to no model; the view shows checkboxes and the estimated tokens; on again, it is back', async () => {
    assert.ok((await listed()).includes('echo'));
    assert.strictEqual(tree().getTreeItem(toolNode('echo')).checkboxState && (tree().getTreeItem(toolNode('echo')).checkboxState as { state: vscode.TreeItemCheckboxState }).state, vscode.TreeItemCheckboxState.Checked);
    const tokensBefore = tokens();
    assert.ok(tokensBefore > 0, String(tree().getTreeItem(toolsGroup()).description));

    await api.toolEnablement.set('budget', 'echo', false);
    await until(() => !api.toolEnablement.enabled('budget', 'echo'), 'the setting applied');
    assert.deepStrictEqual(vscode.workspace.getConfiguration('mcpHost').get('disabledTools'), { budget: ['echo'] });
    assert.ok(!(await listed()).includes('echo'));
    const refused = textOf(await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'budget', tool: 'echo', arguments: { message: 'x' } }, toolInvocationToken: undefined }));
    assert.match(refused, /has no tool named "echo"/);
    assert.strictEqual((tree().getTreeItem(toolNode('echo')).checkboxState as { state: vscode.TreeItemCheckboxState }).state, vscode.TreeItemCheckboxState.Unchecked);
    const tokensAfter = tokens();
    assert.ok(tokensAfter < tokensBefore, `${tokensAfter} < ${tokensBefore}`);

    await api.toolEnablement.set('budget', undefined, false);
    await until(() => !api.toolEnablement.serverEnabled('budget'), 'the server is off');
    assert.deepStrictEqual(await listed(), []);
    assert.strictEqual((tree().getTreeItem(serverNode()).checkboxState as { state: vscode.TreeItemCheckboxState }).state, vscode.TreeItemCheckboxState.Unchecked);

    await api.toolEnablement.set('budget', undefined, true);
    await until(() => api.toolEnablement.enabled('budget', 'echo'), 'the server is on');
    assert.ok((await listed()).includes('echo'));
  });

  it('H434/H435: the Tools group reads "about N tokens to models" (no "~"); each checkbox has an accessible name saying what it offers, and whose', () => {
    const group = tree().getTreeItem(toolsGroup());
    assert.match(String(group.description), /^\d+ · about \d+(\.\d)?k? tokens to models$/);
    assert.doesNotMatch(`${String(group.description)} ${String(group.tooltip)}`, /~/);
    assert.match(String(group.tooltip), /their definitions take about \d+(\.\d)?k? tokens of each request/);
    type Box = { state: vscode.TreeItemCheckboxState; tooltip?: string; accessibilityInformation?: vscode.AccessibilityInformation };
    const server = tree().getTreeItem(serverNode()).checkboxState as Box;
    assert.deepStrictEqual(server.accessibilityInformation, { label: 'Offer the tools of budget to language models', role: 'checkbox' });
    assert.strictEqual(server.tooltip, 'Offer the tools of budget to language models');
    const echo = tree().getTreeItem(toolNode('echo')).checkboxState as Box;
    assert.deepStrictEqual(echo.accessibilityInformation, { label: 'Offer the tool echo of budget to language models', role: 'checkbox' });
    for (const n of tree().getChildren(toolsGroup()) as McpNode[]) {
      const box = tree().getTreeItem(n).checkboxState as Box | undefined;
      if (box) assert.ok(box.accessibilityInformation?.label.startsWith('Offer the tool '), JSON.stringify(box));
    }
  });

  /** The tools the fake model was offered in each request since `from` (from $FAKE_LM_LOG). */
  const offeredTools = (from: number): string[][] => {
    const file = process.env.FAKE_LM_LOG;
    if (!file || !fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l) as { call: string; tools?: string[] })
      .filter(e => e.call === 'provideLanguageModelChatResponse').slice(from).map(e => e.tools ?? []);
  };
  const calls = () => offeredTools(0).length;

  it('H114/H115: over mcpHost.toolBudget @mcp offers search and activate; the activated tool is offered and runs in the next turn; under it, every tool', async () => {
    const [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    try {
      await vscode.workspace.getConfiguration('mcpHost').update('toolBudget', { tools: 3 }, vscode.ConfigurationTarget.Workspace);
      await until(() => api.toolEnablement.budget().tools === 3, 'the budget applied');
      let from = calls();
      const search = await api.chat.run('CALL_TOOL:mcp_host_search_tools {"query":"echo"}', { model: fake });
      assert.deepStrictEqual(offeredTools(from)[0], ['mcp_host_search_tools', 'mcp_host_activate_tools'], 'over the budget: only the discovery tools');
      assert.match(search.markdown, /fake-reply-to:tool-result:\{"matches":\d+.*"name":"budget_echo"/);
      const refused = await api.chat.run('CALL_TOOL:budget_echo {"message":"too early"}', { model: fake });
      assert.match(refused.markdown, /is not active/);
      const activate = await api.chat.run('CALL_TOOL:mcp_host_activate_tools {"names":["budget_echo"]}', { model: fake });
      assert.match(activate.markdown, /Activated: budget_echo/);
      assert.deepStrictEqual((activate.result.metadata as { mcp: { activated: string[] } }).mcp.activated, ['budget/echo']);
      // The next turn (its history carries the activation) offers the tool and runs it.
      const RequestTurn = vscode.ChatRequestTurn as unknown as new (...a: unknown[]) => vscode.ChatRequestTurn;
      const ResponseTurn = vscode.ChatResponseTurn as unknown as new (...a: unknown[]) => vscode.ChatResponseTurn;
      const history = [
        new RequestTurn('activate', undefined, [], 'mcpHost.mcp', []),
        new ResponseTurn([new vscode.ChatResponseMarkdownPart(activate.markdown)], activate.result, 'mcpHost.mcp', undefined),
      ];
      from = calls();
      const used = await api.chat.run('CALL_TOOL:budget_echo {"message":"activated"}', { model: fake, history });
      assert.deepStrictEqual(offeredTools(from)[0], ['mcp_host_search_tools', 'mcp_host_activate_tools', 'budget_echo']);
      assert.ok(used.markdown.includes('fake-reply-to:tool-result:Echo: activated'), used.markdown);
      // Under the budget nothing changes: every tool, no discovery tools.
      await vscode.workspace.getConfiguration('mcpHost').update('toolBudget', undefined, vscode.ConfigurationTarget.Workspace);
      await until(() => api.toolEnablement.budget().tools === undefined, 'the budget removed');
      from = calls();
      await api.chat.run('hello', { model: fake });
      const all = offeredTools(from)[0];
      assert.ok(all.includes('budget_echo') && all.length > 3 && !all.includes('mcp_host_search_tools'), all.join(', '));
    } finally {
      testSupport(api).setChatUi(undefined);
      await vscode.workspace.getConfiguration('mcpHost').update('toolBudget', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});
