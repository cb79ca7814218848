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
import { EVERYTHING, ROOT, until } from './helpers';

function text(result: { content?: { type: string; text?: string }[] } | undefined): string {
  return (result?.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}

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
    api = await vscode.extensions.getExtension<McpHostExtensionApi>('mcp-host.mcp-host')!.activate();
    api.setConsentPrompt(async () => 'allow');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { [k.server]: { type: 'stdio', command: process.execPath, args: k.args } }, vscode.ConfigurationTarget.Workspace);
    await until(api, `${k.server} running with its tools`, () => api.host.get(k.server)?.state.kind === 'running'
      && api.host.get(k.server)!.catalogue.tools.some(t => t.name === k.tool));
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(api, 'no servers left', () => api.host.servers.length === 0);
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
    await until(api, `the task under ${k.server} in the Servers view`, () => taskNodes().some(n => taskOf(n)?.status === 'working'));
    const running = taskNodes().find(n => taskOf(n)?.status === 'working')!;
    const item = api.views.servers.getTreeItem(running);
    assert.strictEqual(item.label, k.tool);
    assert.strictEqual(item.contextValue, 'task.running');
    assert.match(String(item.description), /^working/);
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'loading~spin');
    const result = await call;
    assert.match(text(result), k.expect);
    await until(api, 'the task completed in the view', () => taskOf(running)?.status === 'completed');
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
    await until(api, 'a new running task', () => taskNodes().some(n => n.kind === 'task' && !before.has(n.taskId) && taskOf(n)?.status === 'working'));
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
    await until(api, 'the task row showing its progress', () => taskNodes().some(n => n.kind === 'task' && !before.has(n.taskId)
      && /^working · \d+% · step \d of 8$/.test(String(api.views.servers.getTreeItem(n).description))));
    assert.match(text(await call), /progress done/);
  });
});
