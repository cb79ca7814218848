// A secret given through `${input:}` never reaches an output channel, the JSON-RPC trace, a log file or a settings
// file, even when a careless server prints it everywhere it can (test/fixtures/servers/hostile.mjs --leak): in args,
// in an innocently named env variable, on stderr, in log notifications, in a tool result (trace on), and in the
// stderr message of a server that fails to start.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { LogEntry } from '../../src/mcp';
import { ROOT, until, testSupport, activateAllowing } from './helpers';

const SECRET = 'sk-live-Reliab1l1tyZ9x';
const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile.mjs');
const CRASH = path.join(ROOT, 'test/fixtures/servers/crash-at-start.mjs');

/** Every regular file below `dir` (missing dir: none). */
function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(f => path.join(dir, f)).filter(f => {
    try { return fs.statSync(f).isFile(); } catch { return false; }
  });
}

describe('Secrets from ${input:} stay out of every output (output channels, trace, log files, settings)', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const entries: LogEntry[] = [];
  let sub: { dispose(): void } | undefined;

  before(async () => {
    api = await activateAllowing();
    testSupport(api).setInputPrompt(async () => SECRET);
    sub = api.host.onLog(e => entries.push(e));
  });

  after(async () => {
    sub?.dispose();
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('trace', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('mcpHost.clearInputs');
  });

  it('a careless server that prints the secret everywhere: the secret is in no output channel, trace line, log file or settings file', async () => {
    await cfg().update('trace', true, vscode.ConfigurationTarget.Workspace);
    await cfg().update('inputs', [{ id: 'api-key', type: 'promptString', description: 'API key', password: true }], vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', {
      careless: { command: process.execPath, args: [HOSTILE, '--leak', 'GREETING', '--api-key=${input:api-key}'], env: { GREETING: '${input:api-key}' } },
      crashing: { command: process.execPath, args: [CRASH, '--message', 'fatal: key ${input:api-key} was rejected'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('careless')?.state.kind === 'running' && api.host.get('crashing')?.state.kind === 'error', 'careless running, crashing failed');
    const careless = api.host.get('careless')!;
    const result = await careless.callTool('leak', {});
    assert.ok(JSON.stringify(result).includes(SECRET), 'the server got the secret');
    await careless.setLogLevel('debug');
    await new Promise(r => setTimeout(r, 1500)); // log batches (50 ms) and the log files' own flushing

    // What reached the channels (every entry of the host, including the trace), and the states the views show.
    assert.ok(entries.some(e => e.server === 'careless' && e.source === 'trace'), 'the trace was on');
    assert.ok(entries.some(e => e.server === 'careless' && e.source === 'stderr' && e.message.includes('--api-key=***')), 'stderr kept, redacted');
    const shown = [...entries.map(e => e.message), ...api.host.servers.map(s => JSON.stringify(s.state) + s.stderrTail.join('\n'))];
    assert.deepStrictEqual(shown.filter(m => m.includes(SECRET)).length, 0, 'the secret reached an output channel or a view');

    // Settings files: user, workspace folder, workspace file.
    const ud = process.env.CS_USER_DATA_DIR;
    const settingsFiles = [
      ...(ud ? [path.join(ud, 'User', 'settings.json')] : []),
      ...filesBelow(path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode')),
      ...(vscode.workspace.workspaceFile?.scheme === 'file' ? [vscode.workspace.workspaceFile.fsPath] : []),
    ].filter(f => fs.existsSync(f));
    assert.ok(settingsFiles.some(f => fs.readFileSync(f, 'utf8').includes('${input:api-key}')), 'the settings keep the variable, not the value');

    // Log files: every file the editor's log service wrote (output channels included), and the run's own logs.
    const logFiles = ud ? [...filesBelow(path.join(ud, 'logs')), ...filesBelow(path.dirname(ud)).filter(f => path.dirname(f) === path.dirname(ud) && f.endsWith('.log'))] : [];
    if (ud) {
      await until(() => logFiles.concat(filesBelow(path.join(ud, 'logs')))
        .some(f => { try { return fs.readFileSync(f, 'utf8').includes('--api-key=***'); } catch { return false; } }), 'the MCP Host: careless channel in a log file', 20000);
    }
    const searched = [...new Set([...settingsFiles, ...logFiles, ...(ud ? filesBelow(path.join(ud, 'logs')) : [])])];
    const leaking = searched.filter(f => { try { return fs.readFileSync(f, 'latin1').includes(SECRET); } catch { return false; } });
    assert.deepStrictEqual(leaking, [], `the secret is in: ${leaking.join(', ')} (searched ${searched.length} files)`);
    if (ud) assert.ok(searched.length > 5, `searched only ${searched.length} files`);
  });
});
