// Log channels in the real editor: changing an "MCP Host: <name>" channel's level in the Output view turns the
// JSON-RPC trace on and off at once (no restart) and sends logging/setLevel.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { LogEntry } from '../../src/mcp';
import { EVERYTHING, until, activateAllowing } from './helpers';

describe('Server log channels (level → trace and logging/setLevel)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  let levelCommands: string[] = [];
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');

  before(async () => {
    api = await activateAllowing();
    await cfg().update('servers', { logged: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('logged')?.state.kind === 'running', 'logged running', 30000);
    assert.strictEqual(api.host.get('logged')?.state.kind, 'running');
    levelCommands = (await vscode.commands.getCommands(true)).filter(c => c.startsWith('workbench.action.output.activeOutputLogLevel'));
  });

  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  /** Entries of `logged` seen while `fn` runs. */
  async function entriesDuring(fn: () => Promise<unknown>): Promise<LogEntry[]> {
    const seen: LogEntry[] = [];
    const d = api.host.onLog(e => { if (e.server === 'logged') seen.push(e); });
    try { await fn(); } finally { d.dispose(); }
    return seen;
  }

  async function setActiveChannelLevel(name: 'trace' | 'info'): Promise<void> {
    await vscode.commands.executeCommand('mcpHost.showLogs', 'logged');
    await new Promise(r => setTimeout(r, 500)); // let the Output view make the channel active
    const id = levelCommands.find(c => c.toLowerCase().endsWith(name)) ?? levelCommands.find(c => c.endsWith(name === 'trace' ? '.1' : '.3'));
    assert.ok(id, `no command to set the output level (have: ${levelCommands.join(', ')})`);
    await vscode.commands.executeCommand(id);
  }

  it('H29: the channel exists as soon as the server logs; Trace sends logging/setLevel and turns the JSON-RPC trace on live; Info turns it off', async function () {
    assert.ok(levelCommands.length, 'the workbench has no workbench.action.output.activeOutputLogLevel.* command');
    await until(() => api.logChannels().includes('logged'), 'the log channel of "logged"', 15000);
    const all: LogEntry[] = [];
    const d = api.host.onLog(e => { if (e.server === 'logged') all.push(e); });
    await setActiveChannelLevel('trace');
    // The level change itself is sent as logging/setLevel, and shows up in the (now live) trace.
    await until(() => all.some(e => e.source === 'trace' && e.message.includes('logging/setLevel')), 'the logging/setLevel trace line', 15000);
    d.dispose();
    await until(async () => (await entriesDuring(() => api.host.get('logged')!.ping())).some(e => e.source === 'trace'), 'trace lines', 15000);
    assert.strictEqual(api.host.get('logged')?.state.kind, 'running');
    await setActiveChannelLevel('info');
    await until(async () => !(await entriesDuring(() => api.host.get('logged')!.ping())).some(e => e.source === 'trace'), 'no more trace lines', 15000);
  });

  it('mcpHost.trace turns the JSON-RPC trace on for every server without touching channel levels, and off again', async () => {
    await cfg().update('trace', true, vscode.ConfigurationTarget.Workspace);
    await until(async () => (await entriesDuring(() => api.host.get('logged')!.ping())).some(e => e.source === 'trace'), 'trace lines', 15000);
    await cfg().update('trace', undefined, vscode.ConfigurationTarget.Workspace);
    await until(async () => !(await entriesDuring(() => api.host.get('logged')!.ping())).some(e => e.source === 'trace'), 'no more trace lines', 15000);
  });
});
