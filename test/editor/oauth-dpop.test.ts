// Workload identity (SEP-1933) and DPoP (SEP-1932) in the real extension host (H107-H110): a workspace server with
// `workloadIdentity` asks for launch consent naming the workload and where its token comes from, then signs in
// without a browser (jwt-bearer, the token from an environment variable of the extension host) to an authorization
// server that binds the token to the extension's DPoP key (fixture test/fixtures/servers/oauth-dpop.mjs: both
// servers demand nonces). The key is kept (SecretStorage): a restart presents the same key; Sign Out forgets it.
// Neither the workload token nor a private key reaches the logs or the extension's state.
import * as assert from 'assert';
import type { ChildProcess } from 'child_process';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { ROOT, activateHost, until, testSupport } from './helpers';
import { startListening } from '../support/listening';

const FIXTURE = path.join(ROOT, 'test/fixtures/servers/oauth-dpop.mjs');
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const WORKLOAD_TOKEN = `${b64({ alg: 'none' })}.${b64({ sub: 'editor-workload-Dpop7781' })}.c2ln`;

describe('Workload identity and DPoP for HTTP servers', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  let child: ChildProcess | undefined;
  let base = '';
  const asked: string[] = [];
  const browsed: string[] = [];
  const logs: string[] = [];
  let sub: { dispose(): void } | undefined;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const stats = async () => (await (await fetch(`${base}/stats`)).json()) as { boundKeys: string[]; schemes: string[]; assertionsOk: number };

  before(async () => {
    api = await activateHost();
    process.env.MCP_HOST_EDITOR_WORKLOAD_TOKEN = WORKLOAD_TOKEN;
    testSupport(api).setConsentPrompt(async (_def, detail) => { asked.push(String(detail)); return 'allow'; });
    testSupport(api).setOpenBrowser(async (_server, url) => { browsed.push(url); });
    sub = api.host.onLog(e => { logs.push(e.message); });
    ({ child, base } = await startListening(FIXTURE, ['--token', WORKLOAD_TOKEN], { cwd: ROOT, stderr: 'inherit' }));
  });

  after(async () => {
    sub?.dispose();
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
    delete process.env.MCP_HOST_EDITOR_WORKLOAD_TOKEN;
    child?.kill();
  });

  const running = () => until(() => api.host.get('workload')?.state.kind === 'running', 'workload running', 30000);

  it('H109/H107: asks consent naming the workload, signs in without a browser, and presents a DPoP-bound token with fresh proofs and both nonces', async () => {
    await cfg().update('servers', {
      workload: { type: 'http', url: `${base}/mcp`, workloadIdentity: { clientId: 'editor-workload', tokenEnv: 'MCP_HOST_EDITOR_WORKLOAD_TOKEN' } },
    }, vscode.ConfigurationTarget.Workspace);
    await running();
    assert.strictEqual(asked.length, 1, 'a workspace server that sends a workload token asks first');
    assert.match(asked[0], /Signs in as workload "editor-workload" with the identity token from the environment variable MCP_HOST_EDITOR_WORKLOAD_TOKEN/);
    assert.deepStrictEqual(browsed, [], 'no browser');
    const r = await api.host.get('workload')!.callTool('whoami', {});
    const s = await stats();
    assert.strictEqual(s.boundKeys.length, 1);
    assert.match(JSON.stringify(r.content), new RegExp(`bound to ${s.boundKeys[0]}`));
    assert.ok(s.schemes.length > 0 && s.schemes.every(x => x === 'DPoP'), s.schemes.join(','));
  });

  it('H108: keeps the key: after a restart the stored token is presented with the same key', async () => {
    const before = await stats();
    await api.host.get('workload')!.restart();
    await running();
    const r = await api.host.get('workload')!.callTool('whoami', {});
    assert.match(JSON.stringify(r.content), new RegExp(`bound to ${before.boundKeys[0]}`));
    const after = await stats();
    assert.ok(after.boundKeys.every(k => k === before.boundKeys[0]), 'one key');
  });

  it('H108: Sign Out forgets the key: the next start binds a new one; no token or key in logs or state', async () => {
    const first = (await stats()).boundKeys[0];
    await vscode.commands.executeCommand('mcpHost.signOut', 'workload');
    await api.host.get('workload')!.restart().catch(() => undefined);
    await running();
    const r = await api.host.get('workload')!.callTool('whoami', {});
    const s = await stats();
    assert.notStrictEqual(s.boundKeys.at(-1), first);
    assert.match(JSON.stringify(r.content), new RegExp(`bound to ${s.boundKeys.at(-1)}`));
    const text = [logs.join('\n'), JSON.stringify(api.storage.workspace.keys().map(k => api.storage.workspace.get(k))), JSON.stringify(api.storage.global.keys().map(k => api.storage.global.get(k)))].join('\n');
    assert.ok(!text.includes(WORKLOAD_TOKEN) && !text.includes('Dpop7781'), 'the workload token is nowhere');
    assert.ok(!/"crv"\s*:\s*"P-256"/.test(text), 'no key material in logs or state');
  });
});
