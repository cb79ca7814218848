// Registry install (issue 34 item 2: a registry entry runs only what the user saw), in the real editor on the
// production VSIX: the hostile registry fixture (test/fixtures/registry/hostile.json) served on 127.0.0.1. The
// install dialog (answered through the dialog-answer hook, api.setDialogAnswerer) shows the exact command line of
// the definition; Cancel writes nothing; "Install in User Settings" writes exactly what was shown; every hostile
// entry installs nothing and opens no dialog, beside the well-behaved bystander that does.
import * as assert from 'assert';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { Dialog } from '../../src/extension/ui/dialogs';
import { describeInstall } from '../../src/mcp/registry/install';
import { fromServerJson } from '../../src/mcp/registry/serverJson';
import { activateHost, ROOT, until, testSupport } from './helpers';

const HOSTILE = path.join(ROOT, 'test/fixtures/registry/hostile.json');
const BYSTANDER = 'io.github.example/weather';

describe('Registry install', function () {
  this.timeout(120000);
  let api: McpHostExtensionApi;
  let server: http.Server;
  const dialogs: Dialog[] = [];
  const asked: string[] = [];
  let answer: string | undefined;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const servers = () => cfg().inspect<Record<string, unknown>>('servers');
  const inputs = () => cfg().inspect<{ id: string }[]>('inputs');

  before(async () => {
    const body = fs.readFileSync(HOSTILE);
    server = http.createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(body); });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    api = await activateHost();
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return answer; });
    // The installed server asks for its key when it starts: no value is given, so nothing is launched (and a launch
    // consent, if one is asked, is denied): no package is ever fetched.
    testSupport(api).setInputPrompt(async o => { asked.push(String(o.prompt)); return undefined; });
    testSupport(api).setConsentPrompt(async () => 'deny');
    await vscode.workspace.getConfiguration('mcpHost.registry').update('url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    server.close();
    testSupport(api).setDialogAnswerer(undefined);
    await vscode.workspace.getConfiguration('mcpHost.registry').update('url', undefined, vscode.ConfigurationTarget.Global);
    const user = { ...(servers()?.globalValue ?? {}) };
    delete user.weather;
    await cfg().update('servers', Object.keys(user).length ? user : undefined, vscode.ConfigurationTarget.Global);
    const userInputs = (inputs()?.globalValue ?? []).filter(i => i.id !== 'weather-WEATHER_API_KEY');
    await cfg().update('inputs', userInputs.length ? userInputs : undefined, vscode.ConfigurationTarget.Global);
    await until(() => !api.host.get('weather'), 'the installed server removed');
    testSupport(api).setConsentPrompt(async () => 'allow');
  });

  it('H374: the install dialog shows the exact command line; Cancel writes nothing; Install in User Settings writes exactly what was shown; a hostile entry cannot be installed', async () => {
    const doc = JSON.parse(fs.readFileSync(HOSTILE, 'utf8')) as { servers: { server: { name: string } }[] };
    const option = fromServerJson(doc.servers.find(s => s.server.name === BYSTANDER)!.server).options[0];
    const before = { user: servers()?.globalValue, workspace: servers()?.workspaceValue, userInputs: inputs()?.globalValue, workspaceInputs: inputs()?.workspaceValue };
    assert.strictEqual(before.user?.weather, undefined);

    // Cancel: the dialog showed the exact command line and environment; nothing is written.
    answer = 'Cancel';
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.browseRegistry', 'weather', BYSTANDER, 0), undefined);
    assert.strictEqual(dialogs.length, 1);
    const d = dialogs[0];
    assert.strictEqual(d.detail, describeInstall(option));
    assert.ok(d.detail!.split('\n').includes('Runs: npx --quiet -y @example/weather-mcp@1.2.3 --units metric'), d.detail);
    assert.ok(d.detail!.split('\n').includes('  WEATHER_REGION=eu-west'), d.detail);
    assert.match(d.message, /^Install the MCP server "\$\(check\) Verified Weather" \("io\.github\.example\/weather"\) from the MCP Registry at http:\/\/127\.0\.0\.1:\d+\?$/);
    const workspaceOffered = !!vscode.workspace.workspaceFolders?.length && vscode.workspace.isTrusted;
    assert.deepStrictEqual(d.buttons.map(b => b.title), ['Install in User Settings', ...(workspaceOffered ? ['Install in Workspace Settings'] : []), 'Cancel']);
    assert.deepStrictEqual({ user: servers()?.globalValue, workspace: servers()?.workspaceValue, userInputs: inputs()?.globalValue, workspaceInputs: inputs()?.workspaceValue }, before);

    // Every hostile entry: nothing installed, no dialog, nothing written.
    answer = 'Install in User Settings';
    const hostile = doc.servers.map(s => s.server.name).filter(n => n !== BYSTANDER);
    assert.strictEqual(hostile.length, 13);
    for (const name of hostile) {
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.browseRegistry', 'evil', name, 0), undefined, name);
    }
    assert.strictEqual(dialogs.length, 1, 'no install dialog for a refused entry');
    assert.deepStrictEqual({ user: servers()?.globalValue, workspace: servers()?.workspaceValue, userInputs: inputs()?.globalValue, workspaceInputs: inputs()?.workspaceValue }, before);

    // Install in User Settings: exactly the shown definition, in user settings only.
    assert.strictEqual(await vscode.commands.executeCommand('mcpHost.browseRegistry', 'weather', BYSTANDER, 0), 'weather');
    assert.strictEqual(dialogs.length, 2);
    assert.strictEqual(dialogs[1].detail, d.detail);
    assert.deepStrictEqual(servers()?.globalValue?.weather, option.server);
    assert.deepStrictEqual(servers()?.globalValue?.weather, {
      type: 'stdio', command: 'npx', args: ['--quiet', '-y', '@example/weather-mcp@1.2.3', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${input:weather-WEATHER_API_KEY}', WEATHER_REGION: 'eu-west' },
    });
    assert.strictEqual(servers()?.workspaceValue?.weather, undefined);
    assert.deepStrictEqual((inputs()?.globalValue ?? []).filter(i => i.id === 'weather-WEATHER_API_KEY'), option.inputs);
    // It does not start: its key has no value (the inputs were written before the server, so no configuration error).
    await until(() => /^needs input \$\{input:weather-WEATHER_API_KEY\}$/.test(api.blockedReason('weather') ?? ''), 'weather held back for its key', 60000);
    assert.strictEqual(api.host.get('weather')?.state.kind ?? 'stopped', 'stopped');
  });
});

describe('Registry install in Restricted Mode (untrusted workspace)', function () {
  this.timeout(60000);
  it('H374: an untrusted workspace is not offered as the place to install; Cancel writes nothing', async () => {
    // The harness's untrusted pass runs this (KEEP_WORKSPACE_TRUST=1); the trusted pass leaves it out by grep.
    assert.strictEqual(vscode.workspace.isTrusted, false, 'run in the untrusted pass');
    const body = fs.readFileSync(HOSTILE);
    const server = http.createServer((_req, res) => { res.setHeader('content-type', 'application/json'); res.end(body); });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    const api = await activateHost();
    const dialogs: Dialog[] = [];
    testSupport(api).setDialogAnswerer(async d => { dialogs.push(d); return 'Install in Workspace Settings'; });
    const cfg = () => vscode.workspace.getConfiguration('mcpHost');
    const before = { servers: cfg().inspect('servers'), inputs: cfg().inspect('inputs') };
    try {
      await vscode.workspace.getConfiguration('mcpHost.registry').update('url', `http://127.0.0.1:${(server.address() as AddressInfo).port}`, vscode.ConfigurationTarget.Global);
      // Even an answer naming the workspace (a stale or forged one) writes nothing when the button was not offered.
      assert.strictEqual(await vscode.commands.executeCommand('mcpHost.browseRegistry', 'weather', BYSTANDER, 0), undefined);
      assert.strictEqual(dialogs.length, 1);
      assert.deepStrictEqual(dialogs[0].buttons.map(b => b.title), ['Install in User Settings', 'Cancel']);
      assert.ok(dialogs[0].detail?.includes('Runs: npx --quiet -y @example/weather-mcp@1.2.3 --units metric'), dialogs[0].detail);
      assert.deepStrictEqual({ servers: cfg().inspect('servers'), inputs: cfg().inspect('inputs') }, before);
    } finally {
      server.close();
      testSupport(api).setDialogAnswerer(undefined);
      await vscode.workspace.getConfiguration('mcpHost.registry').update('url', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});
