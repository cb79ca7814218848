// Nothing secret at rest (H48), in the real extension host: servers whose definitions carry an ${input:} secret, env
// and header values (from ${env:}, so not in any settings file) and an envFile secret run, their lists are cached,
// and then every key of the workspace and global state the extension keeps, and every file under the extension's
// storage folders and the editor's user-data folder, is searched for those values: none holds one.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { EVERYTHING, ROOT, until, testSupport, activateAllowing } from './helpers';
import { startListening, type ListeningFixture } from '../support/listening';

const INPUT_SECRET = 'input-secret-AtRest3300';
const ENV_SECRET = 'env-secret-AtRest4411';
const ENVFILE_SECRET = 'envfile-secret-AtRest5522';
const HEADER_SECRET = 'hdr-secret-AtRest6633';
const SECRETS = [INPUT_SECRET, ENV_SECRET, ENVFILE_SECRET, HEADER_SECRET];
const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs');

/** Every regular file below `dir` (missing dir: none). */
function filesBelow(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).map(f => path.join(dir, f)).filter(f => {
    try { return fs.statSync(f).isFile(); } catch { return false; }
  });
}

/** Every key and value of a memento, as the JSON it stores. */
function dump(m: vscode.Memento): string {
  return JSON.stringify(m.keys().map(k => [k, m.get(k)]));
}

describe('Nothing secret at rest: workspace/global state and storage files hold hashes, never resolved definitions', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  let remote: ListeningFixture | undefined;
  const envFile = path.join(os.tmpdir(), `mcp-host-at-rest-${process.pid}.env`);
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const WS = vscode.ConfigurationTarget.Workspace;

  before(async () => {
    api = await activateAllowing();
    testSupport(api).setConsentBatchPrompt(async () => 'allowAll');
    testSupport(api).setInputPrompt(async () => INPUT_SECRET);
    process.env.MCP_HOST_AT_REST_ENV = ENV_SECRET;
    process.env.MCP_HOST_AT_REST_HEADER = HEADER_SECRET;
    fs.writeFileSync(envFile, `SERVICE_TOKEN=${ENVFILE_SECRET}\n`);
    remote = await startListening(HTTP_FIXTURE, ['--token', HEADER_SECRET], { cwd: ROOT });
  });

  after(async () => {
    await cfg().update('servers', undefined, WS);
    await cfg().update('inputs', undefined, WS);
    await until(() => api.host.servers.length === 0, 'no servers left');
    await vscode.commands.executeCommand('mcpHost.clearInputs');
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    testSupport(api).setConsentBatchPrompt(undefined);
    remote?.child.kill();
    fs.rmSync(envFile, { force: true });
    delete process.env.MCP_HOST_AT_REST_ENV;
    delete process.env.MCP_HOST_AT_REST_HEADER;
  });

  it('H48: no ${input:}, env, header or envFile value in any state key or storage file, after the servers ran and their lists were cached', async () => {
    await cfg().update('inputs', [{ id: 'at-rest-key', type: 'promptString', password: true }], WS);
    await cfg().update('servers', {
      vault: {
        command: process.execPath, args: [EVERYTHING, 'stdio'], envFile,
        env: { API_KEY: '${input:at-rest-key}', PLAIN_VALUE: '${env:MCP_HOST_AT_REST_ENV}' },
      },
      remoteVault: { type: 'http', url: remote!.url, headers: { Authorization: 'Bearer ${env:MCP_HOST_AT_REST_HEADER}' } },
    }, WS);
    await until(() => ['vault', 'remoteVault'].every(n =>
      api.host.get(n)?.state.kind === 'running' && api.host.get(n)!.catalogue.tools.length > 0), 'both running with their tools', 60000);
    const vault = api.host.get('vault')!.definition;
    assert.ok(vault.type === 'stdio' && vault.env.API_KEY === INPUT_SECRET && vault.env.PLAIN_VALUE === ENV_SECRET, 'the definition is resolved');
    const remoteDef = api.host.get('remoteVault')!.definition;
    assert.ok(remoteDef.type === 'http' && remoteDef.headers.Authorization === `Bearer ${HEADER_SECRET}`);
    const env = JSON.stringify((await api.host.get('vault')!.callTool('get-env', {})).content);
    assert.ok(env.includes('SERVICE_TOKEN'), 'the envFile reached the server');

    // The cache writes within a few seconds; stopping a server makes it keep showing its lists.
    await vscode.commands.executeCommand('mcpHost.stopServer', 'vault');
    await until(() => api.host.get('vault')?.state.kind === 'stopped', 'vault stopped');
    await until(() => {
      const cached = api.storage.workspace.get<Record<string, { fp: string }>>('mcpHost.catalogueCache');
      return !!cached?.vault && !!cached.remoteVault;
    }, 'the lists cached in the workspace state', 20000);
    const cached = api.storage.workspace.get<Record<string, { fp: string }>>('mcpHost.catalogueCache')!;
    for (const n of ['vault', 'remoteVault']) assert.match(cached[n].fp, /^[0-9a-f]{64}$/, `${n} is keyed by a hash`);
    assert.ok(api.storage.workspace.get<string[]>('mcpHost.launchConsent')!.every(k => /^[0-9a-f]{64}$/.test(k)), 'consent holds hashes');

    const state = { workspace: dump(api.storage.workspace), global: dump(api.storage.global) };
    for (const [scope, text] of Object.entries(state)) {
      for (const s of SECRETS) assert.ok(!text.includes(s), `the ${scope} state holds ${s}`);
      assert.ok(!text.includes(envFile), `the ${scope} state holds the resolved definition (its envFile path)`);
    }

    // Files: the extension's storage folders, and the editor's user-data folder (state databases, logs, settings).
    await new Promise(r => setTimeout(r, 1500)); // the editor flushes its state databases shortly after a change
    const ud = process.env.CS_USER_DATA_DIR;
    const files = [...new Set([...api.storage.folders.flatMap(filesBelow), ...(ud ? filesBelow(ud) : [])])];
    const leaking = files.filter(f => { try { const t = fs.readFileSync(f, 'latin1'); return SECRETS.some(s => t.includes(s)); } catch { return false; } });
    assert.deepStrictEqual(leaking, [], `a secret is in: ${leaking.join(', ')} (searched ${files.length} files)`);
    if (ud) assert.ok(files.length > 5, `searched only ${files.length} files`);
  });
});
