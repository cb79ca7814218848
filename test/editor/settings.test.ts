// Settings-side surfaces in the real extension host: `${input:}` values asked once (masked), kept in
// SecretStorage and never written to settings; clearing them; importing a Claude Desktop config.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import * as vscode from 'vscode';
import { EVERYTHING, activatedSuite, answerWhereToWrite, until, testSupport } from './helpers';

describe('Editor settings surfaces (inputs, import)', function () {
  this.timeout(60000);
  const suite = activatedSuite();
  const cfg = suite.cfg;
  const waitRunning = (name: string) => until(() => suite.api.host.get(name)?.state.kind === 'running', `${name} running`);

  after(async () => {
    await cfg().update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('mcpHost.clearInputs');
  });

  it('asks an ${input:} value once with a masked box, passes it to the server, and keeps it out of settings', async () => {
    const asked: vscode.InputBoxOptions[] = [];
    testSupport(suite.api).setInputPrompt(async o => { asked.push(o); return 's3cret-value'; });
    await cfg().update('inputs', [{ id: 'token', type: 'promptString', description: 'API token', password: true }], vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', { secretive: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { MY_TOKEN: '${input:token}' } } }, vscode.ConfigurationTarget.Workspace);
    await waitRunning('secretive');
    assert.strictEqual(asked.length, 1);
    assert.strictEqual(asked[0].password, true);
    const env = await suite.api.host.get('secretive')!.callTool('get-env', {});
    assert.ok(JSON.stringify(env).includes('s3cret-value'), 'the server did not get the input value');
    const settingsFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
    assert.ok(!fs.readFileSync(settingsFile, 'utf8').includes('s3cret-value'), 'the secret was written to settings');
    // A settings change elsewhere does not ask again (the value is in SecretStorage).
    await cfg().update('servers', { secretive: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { MY_TOKEN: '${input:token}', OTHER: '1' } } }, vscode.ConfigurationTarget.Workspace);
    await suite.api.sync();
    await waitRunning('secretive');
    assert.strictEqual(asked.length, 1, 'asked for the stored input again');
  });

  it('shows a server that fails to start as an error, with its last stderr lines in the tooltip', async () => {
    const script = 'process.stderr.write("boom: missing API key\\n"); process.exit(3)';
    await cfg().update('servers', { broken: { command: process.execPath, args: ['-e', script] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => suite.api.host.get('broken')?.state.kind === 'error', 'broken in its error state', 30000);
    const state = suite.api.host.get('broken')?.state;
    assert.strictEqual(state?.kind, 'error', JSON.stringify(state));
    const item = suite.api.views.servers.getTreeItem({ kind: 'server', server: 'broken' });
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'error');
    assert.match(String(item.contextValue), /^server\.error\./);
    assert.match((item.tooltip as vscode.MarkdownString).value, /boom: missing API key/);
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('with mcpHost.autoStart off, a server waits stopped; MCP Host: Start Server asks launch consent and starts it', async () => {
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    const asked: string[] = [];
    testSupport(suite.api).setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    await cfg().update('autoStart', false, vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', { lazy: { command: process.execPath, args: [EVERYTHING, 'stdio', '--lazy'] } }, vscode.ConfigurationTarget.Workspace);
    await suite.api.sync();
    assert.strictEqual(suite.api.host.get('lazy')?.state.kind, 'stopped');
    assert.deepStrictEqual(asked, [], 'consent asked for a server nobody started');
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.startServer', 'lazy'), true);
    assert.deepStrictEqual(asked, ['lazy']);
    assert.strictEqual(suite.api.host.get('lazy')?.state.kind, 'running');
    await cfg().update('autoStart', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('names an invalid server definition in the Servers view, with its setting path, and starts the valid ones', async () => {
    await cfg().update('servers', {
      typo: { type: 'stdoi', command: process.execPath },
      fine: { command: process.execPath, args: [EVERYTHING, 'stdio'], autoStart: false },
    }, vscode.ConfigurationTarget.Workspace);
    await suite.api.sync();
    const nodes = suite.api.views.servers.getChildren() as { kind: string; text?: string; server: string }[];
    const problem = nodes.find(n => n.kind === 'message' && /typo/.test(n.text ?? ''));
    assert.ok(problem, JSON.stringify(nodes));
    assert.match(problem.text!, /mcpHost\.servers\.typo/);
    assert.ok(nodes.some(n => n.kind === 'server' && n.server === 'fine'));
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('clears stored inputs with MCP Host: Clear Stored Inputs', async () => {
    const n = await vscode.commands.executeCommand<number>('mcpHost.clearInputs');
    assert.strictEqual(n, 1);
  });

  it('the launch-consent dialog shows the command line with ${input:} values hidden', async () => {
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    testSupport(suite.api).setInputPrompt(async () => 'tok-in-args-9876');
    await cfg().update('inputs', [{ id: 'argtoken', type: 'promptString', description: 'Token', password: true }], vscode.ConfigurationTarget.Workspace);
    const shown: string[] = [];
    testSupport(suite.api).setConsentPrompt(async (_def, text) => { shown.push(text ?? ''); return 'deny'; });
    await cfg().update('servers', { argsecret: { command: process.execPath, args: [EVERYTHING, 'stdio', '--token=${input:argtoken}'] } }, vscode.ConfigurationTarget.Workspace);
    await suite.api.sync();
    await until(() => shown.length > 0, 'the launch consent dialog', 5000);
    testSupport(suite.api).setConsentPrompt(async () => 'allow');
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('inputs', undefined, vscode.ConfigurationTarget.Workspace);
    assert.strictEqual(shown.length, 1, 'consent was not asked');
    assert.match(shown[0], /--token=••••/);
    assert.ok(!shown[0].includes('tok-in-args-9876'), shown[0]);
    assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.clearInputs'), 1);
  });

  it('MCP Host: Add Server writes a typed command line (quoted path with spaces kept whole) to workspace settings, asks consent and starts it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'add server-'));
    const script = path.join(dir, 'my everything.mjs');
    fs.writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(EVERYTHING).href)});`);
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    const asked: string[] = [];
    testSupport(suite.api).setConsentPrompt(async def => { asked.push(def.name); return 'allow'; });
    const name = await vscode.commands.executeCommand<string>('mcpHost.addServer', 'stdio', `"${process.execPath}" "${script}" stdio`);
    assert.strictEqual(name, 'myeverything', 'the name is guessed from the script');
    const servers = cfg().inspect<Record<string, { command?: string; args?: string[] }>>('servers')?.workspaceValue ?? {};
    assert.deepStrictEqual(servers[name], { type: 'stdio', command: process.execPath, args: [script, 'stdio'] });
    await waitRunning(name);
    assert.deepStrictEqual(asked, [name]);
    testSupport(suite.api).setConsentPrompt(async () => 'allow');
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('imports servers from a Claude Desktop config into workspace settings', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-'));
    const file = path.join(dir, 'claude_desktop_config.json');
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { imported: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], autoStart: false } } }));
    const dialogs = answerWhereToWrite(suite.api, 'Import into Workspace Settings');
    let n: number | undefined;
    try { n = await vscode.commands.executeCommand<number>('mcpHost.importServers', file); } finally { testSupport(suite.api).setDialogAnswerer(undefined); }
    assert.strictEqual(n, 1);
    assert.strictEqual(dialogs.length, 1);
    assert.match(dialogs[0].message, /^Import the MCP server "imported" from .*claude_desktop_config\.json\?$/);
    assert.match(dialogs[0].detail ?? '', /^Name in settings: imported\nRuns: npx -y @modelcontextprotocol\/server-memory\n/);
    const servers = cfg().inspect<Record<string, { command?: string; args?: string[] }>>('servers')?.workspaceValue ?? {};
    assert.strictEqual(servers.imported?.command, 'npx');
    assert.deepStrictEqual(servers.imported?.args, ['-y', '@modelcontextprotocol/server-memory']);
  });

  it('H414: Import Servers shows each server as it will be written, a hostile file\'s bidi and control characters as escapes, and asks where; Cancel writes nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-hostile-'));
    const file = path.join(dir, 'mcp.json');
    // A hostile server (a right-to-left override and a control character in its arguments) beside a plain one.
    fs.writeFileSync(file, JSON.stringify({ servers: {
      sneaky: { type: 'stdio', command: 'node', args: ['safe.js', '\u202e--evil', 'a\u0007b'], autoStart: false },
      plain: { type: 'stdio', command: 'node', args: ['server.js'], cwd: '/srv', autoStart: false },
    } }));
    const before = JSON.stringify(cfg().inspect('servers')?.workspaceValue ?? {});
    const cancelled = answerWhereToWrite(suite.api, 'Cancel');
    try {
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file), 0);
    } finally { testSupport(suite.api).setDialogAnswerer(undefined); }
    assert.strictEqual(JSON.stringify(cfg().inspect('servers')?.workspaceValue ?? {}), before, 'Cancel wrote nothing');
    assert.strictEqual(cancelled.length, 1);
    const d = cancelled[0];
    assert.match(d.message, /^Import 2 MCP servers from .*mcp\.json\?$/);
    assert.deepStrictEqual(d.buttons, ['Import into User Settings', 'Import into Workspace Settings', 'Cancel']);
    assert.ok(!/[\u202e\u0007]/.test(d.detail ?? ''), 'no raw bidi or control character reaches the dialog');
    assert.match(d.detail ?? '', /Name in settings: sneaky\nRuns: node safe\.js '\\u202e--evil' 'a\\x07b'/);
    assert.match(d.detail ?? '', /Name in settings: plain\nRuns: node server\.js\nWorking directory: \/srv/);
    const chosen = answerWhereToWrite(suite.api, 'Import into Workspace Settings');
    try {
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file), 2);
    } finally { testSupport(suite.api).setDialogAnswerer(undefined); }
    assert.strictEqual(chosen.length, 1);
    const written = cfg().inspect<Record<string, { args?: string[] }>>('servers')?.workspaceValue ?? {};
    assert.deepStrictEqual(written.sneaky?.args, ['safe.js', '\u202e--evil', 'a\u0007b'], 'written exactly as the file says');
    assert.deepStrictEqual(written.plain?.args, ['server.js']);
    const rest = { ...written };
    delete rest.sneaky;
    delete rest.plain;
    await cfg().update('servers', Object.keys(rest).length ? rest : undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('coexistence: a server also in .vscode/mcp.json is flagged in the Servers view; importing the whole file offers to turn VS Code\'s copy off', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const file = path.join(folder, '.vscode', 'mcp.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ servers: { twin: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } } }));
    const access = () => vscode.workspace.getConfiguration('chat.mcp').inspect<string>('access')?.workspaceValue;
    const twinItem = () => {
      const tree = suite.api.views.servers;
      const node = (tree.getChildren() as { server?: string; kind: string }[]).find(n => n.kind === 'server' && n.server === 'twin');
      return node && tree.getTreeItem(node as never);
    };
    try {
      answerWhereToWrite(suite.api, 'Import into Workspace Settings');
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file, 'Keep Both'), 1);
      assert.strictEqual(access(), undefined, 'Keep Both leaves VS Code alone');
      await waitRunning('twin');
      await until(() => /also in \.vscode\/mcp\.json/.test(String(twinItem()?.description)), 'the twin row saying "also in .vscode/mcp.json"', 10000);
      assert.match(String(twinItem()?.description), /^running · MCP [\d-]+ · also in \.vscode\/mcp\.json$/);
      assert.match((twinItem()?.tooltip as vscode.MarkdownString).value, /runs twice/);
      // Import the whole file again (twin removed first, so nothing to replace) and turn VS Code's copy off.
      await cfg().update('servers', {}, vscode.ConfigurationTarget.Workspace);
      assert.strictEqual(await vscode.commands.executeCommand<number>('mcpHost.importServers', file, 'Disable There'), 1);
      testSupport(suite.api).setDialogAnswerer(undefined);
      assert.strictEqual(access(), 'none');
      await waitRunning('twin');
      await until(() => !/also in/.test(String(twinItem()?.description)), 'the twin row without "also in"', 10000);
      assert.doesNotMatch(String(twinItem()?.description), /also in/);
    } finally {
      testSupport(suite.api).setDialogAnswerer(undefined);
      await vscode.workspace.getConfiguration('chat.mcp').update('access', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
      fs.rmSync(file, { force: true });
    }
  });
});
