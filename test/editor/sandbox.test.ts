// The OS sandbox in the real editor (issue 24; H90 H93 H96): a workspace server with "sandboxEnabled" is launched
// (the consent dialog says it runs sandboxed) inside bubblewrap by the production extension; the Servers view shows
// the shield; a write outside its roots is refused and the denial reaches the server's log; after repeated
// denials "Allow…" (answered yes twice by the test) writes the server's sandbox setting and the write then works.
// Linux with bubblewrap only; elsewhere the suite says why it skipped.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { LogEntry } from '../../src/mcp';
import { ROOT, activateHost, until, testSupport } from './helpers';

const PROBE = path.join(ROOT, 'test/fixtures/servers/sandbox-probe.mjs');

describe('Sandboxed servers (issue 24)', function () {
  this.timeout(120_000);
  let api: McpHostExtensionApi;
  let outside: string;
  const consentDetails: string[] = [];
  const logs: LogEntry[] = [];
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const call = async (tool: string, args: Record<string, unknown>) => {
    const r = await api.host.get('probe')!.callTool(tool, args);
    return JSON.parse((r.content as { text: string }[])[0].text) as { ok: boolean; code?: string };
  };

  before(async function () {
    if (process.platform !== 'linux' || !['/usr/bin/bwrap', '/usr/local/bin/bwrap'].some(p => fs.existsSync(p))) {
      console.log('      skipped: no bubblewrap on this machine');
      this.skip();
    }
    api = await activateHost();
    testSupport(api).setConsentPrompt(async (_def, detail) => { consentDetails.push(detail); return 'allow'; });
    api.host.onLog(e => { if (e.server === 'probe') logs.push(e); });
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-editor-sandbox-')));
    await cfg().update('servers', { probe: { command: process.execPath, args: [PROBE], sandboxEnabled: true } }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('probe')?.state.kind === 'running', 'the sandboxed probe to run', 90_000);
  });

  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    if (outside) fs.rmSync(outside, { recursive: true, force: true });
  });

  it('H96 H174: the consent dialog says the server will run sandboxed, with the wall its launch gets', () => {
    assert.ok(consentDetails.some(d => /Sandbox: on: it may write only in: .*its own temporary folder/.test(d) && /Sandbox: network: none/.test(d) && !/OUTSIDE its roots/.test(d)), consentDetails.join('\n---\n'));
  });

  it('H93: the Servers view shows the shield on the sandboxed server', () => {
    const tree = api.views.servers;
    const node = (tree.getChildren() as { kind: string; server?: string }[]).find(n => n.kind === 'server' && n.server === 'probe');
    assert.ok(node, 'the probe is in the Servers view');
    const item = tree.getTreeItem(node as never);
    assert.match(String(item.description), /^🛡 sandboxed · /);
    assert.match((item.tooltip as vscode.MarkdownString).value, /\*\*Sandboxed\*\*/);
    assert.strictEqual(api.host.get('probe')!.sandboxed, true);
  });

  it('H90 H93: a write outside the roots is refused, the denial is in the server log; repeated denials offer Allow…, which writes the setting after a yes', async () => {
    const asked: string[] = [];
    api.sandboxDenials.prompts = {
      offer: async (server, grant) => { asked.push(`offer ${server} ${grant.setting} ${grant.value}`); return true; },
      confirm: async (_server, _grant, target) => { asked.push(`confirm ${target}`); return true; },
    };
    const inside = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'sandbox-editor-test.txt');
    try {
      assert.deepStrictEqual(await call('write', { path: inside }), { ok: true });
    } finally {
      fs.rmSync(inside, { force: true });
    }
    for (let i = 0; i < 3; i++) {
      const r = await call('write', { path: path.join(outside, `denied-${i}.txt`) });
      assert.strictEqual(r.ok, false, JSON.stringify(r));
    }
    await until(() => logs.some(l => l.source === 'sandbox' && l.message.includes(`denied: write to ${path.join(outside, 'denied-0.txt')}`)), 'the denial in the log');
    assert.ok(api.logChannels().includes('probe'), 'the server has its log channel');
    await until(() => {
      const servers = cfg().inspect<Record<string, { sandbox?: { filesystem?: { allowWrite?: string[] } } }>>('servers')?.workspaceValue;
      return servers?.probe?.sandbox?.filesystem?.allowWrite?.includes(outside) === true;
    }, 'the setting to be written');
    assert.deepStrictEqual(asked, [`offer probe filesystem.allowWrite ${outside}`, 'confirm workspace']);
    await until(() => logs.some(l => l.source === 'sandbox' && l.message.startsWith('sandboxed: writes only in') && l.message.includes(outside)) && api.host.get('probe')?.state.kind === 'running', 'the restart inside the wider boundary', 90_000);
    assert.deepStrictEqual(await call('write', { path: path.join(outside, 'allowed.txt') }), { ok: true });
  });
});
