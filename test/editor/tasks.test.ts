// MCP tasks in the real extension host, in both eras: MCP Host: Call Tool on server-everything's `simulate-research-query`
// (2025-11-25) and on the 2026-07-28 Tasks fixture's `slow` (the io.modelcontextprotocol/tasks extension, through ext-tasks)
// (execution.taskSupport "required") waits for the task, the Servers view shows the task under its server
// while it runs and with its result after, Show Task Result opens the result, Cancel Task cancels one; a 2026-07-28
// task's progress shows in its row (H140).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import type { TaskInfo } from '../../src/mcp';
import * as path from 'path';
import { EVERYTHING, ROOT, until, textOf, testSupport, activateAllowing } from './helpers';


/** The 2025-11-25 tasks of server-everything, and the 2026-07-28 Tasks extension (the raw fixture, through ext-tasks). */
const CASES = [
  { title: 'simulate-research-query, 2025-11-25', server: 'research', args: [EVERYTHING, 'stdio'], tool: 'simulate-research-query',
    long: { topic: 'tides' }, expect: /Research Report: tides/, cancelTool: 'simulate-research-query', cancelArgs: { topic: 'moon' },
    progress: undefined as { tool: string; args: Record<string, unknown> } | undefined },
  { title: 'the io.modelcontextprotocol/tasks extension, 2026-07-28 (H127)', server: 'tasks2026', args: [path.join(ROOT, 'test/fixtures/servers/tasks-2026.mjs')], tool: 'slow',
    long: { ms: 4000 }, expect: /slow done/, cancelTool: 'wait', cancelArgs: {}, progress: { tool: 'progress', args: { steps: 8, ms: 400 } } },
];

for (const k of CASES) describe(`MCP tasks in the editor (${k.title})`, function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { [k.server]: { type: 'stdio', command: process.execPath, args: k.args } }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get(k.server)?.state.kind === 'running'
      && api.host.get(k.server)!.catalogue.tools.some(t => t.name === k.tool), `${k.server} running with its tools`);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  /** The task nodes under the server's Tasks group of the Servers view. */
  function taskNodes(): McpNode[] {
    const tree = api.views.servers;
    const server = (tree.getChildren() as McpNode[]).find(n => n.server === k.server);
    if (!server) return [];
    const group = (tree.getChildren(server) as McpNode[]).find(n => n.kind === 'group' && n.group === 'tasks');
    return group ? tree.getChildren(group) as McpNode[] : [];
  }

  const taskOf = (n: McpNode): TaskInfo | undefined => (n.kind === 'task' ? api.host.get(k.server)!.tasks.find(t => t.taskId === n.taskId) : undefined);

  it('Call Tool waits for the task; the Servers view shows it running, then with its result; Show Task Result opens it', async () => {
    const call = vscode.commands.executeCommand<{ content?: { type: string; text?: string }[] }>('mcpHost.callTool', k.server, k.tool, k.long);
    await until(() => taskNodes().some(n => taskOf(n)?.status === 'working'), `the task under ${k.server} in the Servers view`);
    const running = taskNodes().find(n => taskOf(n)?.status === 'working')!;
    const item = api.views.servers.getTreeItem(running);
    assert.strictEqual(item.label, k.tool);
    assert.strictEqual(item.contextValue, 'task.running');
    assert.match(String(item.description), /^working/);
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'loading~spin');
    const result = await call;
    assert.match(textOf(result, '\n'), k.expect);
    await until(() => taskOf(running)?.status === 'completed', 'the task completed in the view');
    const done = api.views.servers.getTreeItem(running);
    assert.strictEqual(done.contextValue, 'task.result');
    assert.strictEqual(done.command?.command, 'mcpHost.showTaskResult');
    const shown = await vscode.commands.executeCommand<string>('mcpHost.showTaskResult', running);
    assert.match(shown ?? '', k.expect);
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', new RegExp(`${k.tool} \\(task `));
  });

  it('Cancel Task cancels a running task and the Call Tool command ends without a result', async () => {
    const before = new Set(api.host.get(k.server)!.tasks.map(t => t.taskId));
    const call = vscode.commands.executeCommand('mcpHost.callTool', k.server, k.cancelTool, k.cancelArgs);
    await until(() => taskNodes().some(n => n.kind === 'task' && !before.has(n.taskId) && taskOf(n)?.status === 'working'), 'a new running task');
    const node = taskNodes().find(n => n.kind === 'task' && !before.has(n.taskId))!;
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.cancelTask', node), true);
    assert.strictEqual(await call, undefined);
    assert.strictEqual(taskOf(node)?.status, 'cancelled');
    assert.strictEqual(api.views.servers.getTreeItem(node).contextValue, 'task.ended');
  });

  const progress = k.progress;
  if (progress) it('the task\'s progress shows in its Servers view row (H140)', async () => {
    const before = new Set(api.host.get(k.server)!.tasks.map(t => t.taskId));
    const call = vscode.commands.executeCommand<{ content?: { type: string; text?: string }[] }>('mcpHost.callTool', k.server, progress.tool, progress.args);
    await until(() => taskNodes().some(n => n.kind === 'task' && !before.has(n.taskId)
      && /^working · \d+% · step \d of 8$/.test(String(api.views.servers.getTreeItem(n).description))), 'the task row showing its progress');
    assert.match(textOf(await call, '\n'), /progress done/);
  });
});

/**
 * Issue 36 in the real editor on the production VSIX: a 2026-07-28 server that directs tasks itself (SEP-2663, the raw
 * fixture test/fixtures/servers/tasks-2026.mjs: no taskSupport, the server decides per call). Palette, `@mcp` with the
 * fake model (the turn returns while the task runs; one notice at its end), and hostile tasks, each beside a bystander
 * server of the same fixture whose task completes normally.
 */
describe('MCP tasks in the editor: a 2026-07-28 server directs its tasks (issue 36)', function () {
  this.timeout(120000);
  const FIXTURE = path.join(ROOT, 'test/fixtures/servers/tasks-2026.mjs');
  const S = 'tasks26';
  const BY = 'bystander26';
  let api: McpHostExtensionApi;
  let fake: vscode.LanguageModelChat;
  const dialogs: string[] = [];

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    // Any modal dialog with server text is recorded (none is expected here) and dismissed.
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(JSON.stringify(d).slice(0, 300)); return undefined; });
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      [S]: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
      [BY]: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => [S, BY].every(n => api.host.get(n)?.state.kind === 'running'
      && api.host.get(n)!.catalogue.tools.some(t => t.name === 'slow_report')), 'both 2026-07-28 servers running with their tools');
  });

  after(async () => {
    testSupport(api).setDialogAnswerer(undefined);
    testSupport(api).setChatUi(undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  const tasksOf = (server: string): readonly TaskInfo[] => api.host.get(server)?.tasks ?? [];
  const callTool = (server: string, tool: string, args: Record<string, unknown>) =>
    vscode.commands.executeCommand<{ content?: { type: string; text?: string }[] } | undefined>('mcpHost.callTool', server, tool, args);
  /** The bystander's own task, started now; resolves with its text once it completed. */
  const bystander = async (): Promise<string> => textOf(await callTool(BY, 'slow', { ms: 1500 }), '\n');

  it('H393, H506: the palette\'s Call Tool on a tool the server answers with a task (no taskSupport) waits for it and opens the result; its end raises ONE notice with "Show Result", which opens it', async () => {
    const notices = api.taskNotices.length;
    const result = await callTool(S, 'slow_report', { ms: 2000 });
    assert.match(textOf(result, '\n'), /report ready/);
    const task = tasksOf(S).find(t => t.tool === 'slow_report' && t.userStarted);
    assert.strictEqual(task?.status, 'completed');
    assert.strictEqual(task?.hasResult, true);
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', /report ready/, 'the result document opened');
    await until(() => api.taskNotices.length > notices, 'the notice of its end');
    const shown = api.taskNotices.slice(notices);
    assert.deepStrictEqual(shown.map(n => n.actions), [['Show Result']], JSON.stringify(shown));
    assert.match(shown[0].text, new RegExp(`The task of slow_report on ${S} has completed`));
    const opened = await vscode.commands.executeCommand<string>('mcpHost.showTaskResult', { kind: 'task', server: S, taskId: task!.taskId });
    assert.match(opened ?? '', /report ready/);
  });

  it('H394: @mcp with the fake model calling the slow tool returns the turn at once ("running as an MCP task"); a second chat request works while it runs; its end raises ONE notice with "Show Result"', async () => {
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    const notices = api.taskNotices.length;
    const started = Date.now();
    const turn = await api.chat.run(`CALL_TOOL:${S}_slow_report {"ms":12000}`, { model: fake });
    assert.match(turn.markdown, /running as an MCP task/, turn.markdown);
    assert.ok(Date.now() - started < 11000, `the turn took ${Date.now() - started} ms`);
    const running = tasksOf(S).find(t => t.tool === 'slow_report' && !t.userStarted && t.status === 'working');
    assert.ok(running, 'the task runs on after the turn');
    const second = await api.chat.run('still there?', { model: fake });
    assert.ok(second.markdown.includes('fake-reply-to:still there?'), second.markdown);
    assert.strictEqual(tasksOf(S).find(t => t.taskId === running.taskId)?.status, 'working', 'the second turn did not wait for the task');
    await until(() => tasksOf(S).find(t => t.taskId === running.taskId)?.status === 'completed', 'the task completed', 30000);
    await until(() => api.taskNotices.length > notices, 'the notice of its end');
    const shown = api.taskNotices.slice(notices);
    assert.deepStrictEqual(shown.map(n => n.actions), [['Show Result']], JSON.stringify(shown));
    assert.match(shown[0].text, new RegExp(`The task of slow_report on ${S} has completed`));
    const opened = await vscode.commands.executeCommand<string>('mcpHost.showTaskResult', { kind: 'task', server: S, taskId: running.taskId });
    assert.match(opened ?? '', /report ready/);
  });

  it('H394: the gateway into VS Code\'s chat calls the tool the server answers with a task and returns its result', async () => {
    const slow = api.host.get(S)!.catalogue.tools.find(t => t.name === 'slow')!;
    // Allowed always in MCP Host, so VS Code runs it without a dialog of its own (a headless window could not answer one).
    testSupport(api).setChatUi({ approveTool: async () => 'always' });
    try {
      assert.strictEqual(await api.chat.chat.approveCall(S, slow, {}), true);
    } finally {
      testSupport(api).setChatUi(undefined);
    }
    try {
      await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
      let name: string | undefined;
      await until(() => (name = vscode.lm.tools.find(t => t.name.endsWith(`${S}_slow`))?.name) !== undefined, 'the gateway\'s tools in vscode.lm.tools', 60000);
      const before = new Set(tasksOf(S).map(t => t.taskId));
      const result = await vscode.lm.invokeTool(name!, { input: { ms: 1500 }, toolInvocationToken: undefined });
      assert.strictEqual(result.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join(''), 'slow done');
      const task = tasksOf(S).find(t => !before.has(t.taskId) && t.tool === 'slow');
      assert.strictEqual(task?.status, 'completed', 'the call ran as a task the server chose');
      assert.strictEqual(task?.userStarted, false);
    } finally {
      await vscode.commands.executeCommand('workbench.mcp.stopServer', '*').then(undefined, () => undefined);
    }
  });

  it('H395 hostile: a task that never ends (ttl unlimited) holds nothing: the bystander server\'s task completes meanwhile, and Cancel Task ends it', async () => {
    const before = new Set(tasksOf(S).map(t => t.taskId));
    const call = callTool(S, 'hostile_never', {});
    await until(() => tasksOf(S).some(t => !before.has(t.taskId) && t.tool === 'hostile_never' && t.status === 'working'), 'the endless task listed');
    const endless = tasksOf(S).find(t => !before.has(t.taskId) && t.tool === 'hostile_never')!;
    assert.match(await bystander(), /slow done/);
    assert.strictEqual(tasksOf(S).find(t => t.taskId === endless.taskId)?.status, 'working');
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.cancelTask', { kind: 'task', server: S, taskId: endless.taskId }), true);
    assert.strictEqual(await call, undefined);
    assert.strictEqual(tasksOf(S).find(t => t.taskId === endless.taskId)?.status, 'cancelled');
  });

  it('H396 hostile: a flood of 1,000 status notifications completes the task with a bounded number of updates (the status bar line follows them) and no dialog; the bystander completes', async () => {
    let updates = 0;
    const sub = api.host.onDidChangeTasks(t => { if (t.server === S) updates++; });
    try {
      const [flood, by] = await Promise.all([callTool(S, 'hostile_flood', { n: 1000 }), bystander()]);
      assert.match(textOf(flood, '\n'), /flood done after 1000/);
      assert.match(by, /slow done/);
    } finally {
      sub.dispose();
    }
    assert.ok(updates < 100, `${updates} task updates reached the views and the status bar`);
    assert.deepStrictEqual(dialogs, []);
  });

  it('H397 hostile: a task id of 10,000 characters is refused (never listed, never kept for a reload); the bystander completes', async () => {
    assert.strictEqual(await callTool(S, 'hostile_long_id', {}), undefined);
    assert.ok(tasksOf(S).every(t => t.taskId.length <= 256 && t.tool !== 'hostile_long_id'), 'no task with the long id is listed');
    assert.match(await bystander(), /slow done/);
    assert.deepStrictEqual(dialogs, []);
  });

  it('H398 hostile: a task the server forgets is shown failed with a clear message naming the task, the tool and the server; the bystander completes', async () => {
    assert.strictEqual(await callTool(S, 'hostile_forget', {}), undefined);
    const forgotten = tasksOf(S).find(t => t.tool === 'hostile_forget');
    assert.strictEqual(forgotten?.status, 'failed');
    assert.match(forgotten?.error ?? '', new RegExp(`task \`task-\\d+\` of tool \`hostile_forget\` on server \`${S}\` failed: \\S`));
    const item = api.views.servers.getTreeItem({ kind: 'task', server: S, taskId: forgotten!.taskId } as McpNode);
    assert.strictEqual(item.contextValue, 'task.ended');
    assert.match(String(item.description), /^failed · task `task-\d+` of tool `hostile_forget`/);
    assert.match(await bystander(), /slow done/);
  });
});
