// What a new user trips over (issue 22), in the real editor on the production VSIX, in both start-up modes
// (`mcpHost.startup` eager and lazy): the palette offers the server commands whenever servers are configured; a server
// waiting for its first use says so and a stopped one says "stopped"; a resource document is a use (it starts a waiting
// server through launch consent, never asks again about a denied one); History follows a server through an edited
// definition and is kept across reloads (redacted); labels show the protocol revision and agree with their counts.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import type { HistoryNode } from '../../src/views/historyTree';
import { resourceDocUri } from '../../src/extension/documents/resourceFs';
import { EVERYTHING, until, testSupport, activateAllowing } from './helpers';

const MODES = ['eager', 'lazy'] as const;
const SECRET = 'tok-secret-1234567890abcdef';

describe('First use (issue 22): lazy start, resource documents, History, labels', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  let resourceUris: string[] = [];
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  const everything = (env: Record<string, string>) => ({ type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], env });
  const serverItem = (name: string) => {
    const node = (api.views.servers.getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === name);
    return node && api.views.servers.getTreeItem(node);
  };
  /** The server runs with its tools listed. */
  const listed = (name: string) => until(() => api.host.get(name)?.state.kind === 'running' && (api.host.get(name)?.catalogue.tools.length ?? 0) > 0, `${name} running with its tools`,
    60000);
  /** Eager: the server runs (its automatic start allowed); lazy: it is configured and waits for its first use. */
  const ready = (name: string, mode: typeof MODES[number]) => mode === 'eager' ? listed(name) : until(() => !!api.host.get(name), `${name} configured`);
  const historyOf = (name: string): HistoryNode[] => {
    const tree = api.views.history;
    const server = tree.getChildren().find(n => n.server === name);
    return server ? tree.getChildren(server) : [];
  };

  before(async () => {
    api = await activateAllowing();
    // The URIs of two of server-everything's resources (a lazy server has no lists to read them from yet).
    await cfg().update('servers', { probe: everything({}) }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('probe')?.catalogue.resources.length ?? 0) >= 2, 'probe lists its resources', 60000);
    resourceUris = api.host.get('probe')!.catalogue.resources.slice(0, 2).map(r => r.uri);
    await cfg().update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => !api.host.get('probe'), 'probe gone');
  });
  afterEach(async () => {
    testSupport(api).setConsentPrompt(async () => 'allow');
    await cfg().update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await cfg().update('startup', undefined, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H78: Call Tool…, Run Prompt…, Browse Resources and Read Resource… are in the palette whenever a server is configured, not only while one runs', () => {
    const pkg = vscode.extensions.getExtension('mcp-host.mcp-host')!.packageJSON as { contributes: { menus: { commandPalette: { command: string; when?: string }[] } } };
    const when = (id: string) => pkg.contributes.menus.commandPalette.find(m => m.command === id)?.when;
    for (const id of ['mcpHost.callTool', 'mcpHost.runPrompt', 'mcpHost.browseResources', 'mcpHost.readResource', 'mcpHost.readResourceTemplate', 'mcpHost.callToolAsTask']) {
      assert.strictEqual(when(id), 'mcpHost.hasServers', id);
    }
  });

  for (const mode of MODES) {
    describe(`mcpHost.startup: ${mode}`, () => {
      beforeEach(async () => {
        await cfg().update('startup', mode === 'lazy' ? 'lazy' : undefined, vscode.ConfigurationTarget.Workspace);
      });

      it(`H78/H83 (${mode}): a waiting server says "starts on first use", a running one its protocol revision, one the user stopped "stopped"`, async () => {
        await cfg().update('servers', { label: everything({ MODE: mode, T: 'label' }) }, vscode.ConfigurationTarget.Workspace);
        await until(() => !!api.host.get('label'), 'label configured');
        if (mode === 'lazy') {
          await new Promise(r => setTimeout(r, 500));
          assert.strictEqual(api.host.get('label')!.state.kind, 'stopped');
          assert.strictEqual(serverItem('label')!.description, 'starts on first use');
          const tip = serverItem('label')!.tooltip as vscode.MarkdownString;
          assert.match(tip.value, /starts when something uses it/);
          await vscode.commands.executeCommand('mcpHost.startServer', 'label');
        }
        await until(() => api.host.get('label')?.state.kind === 'running', 'label running');
        assert.match(String(serverItem('label')!.description), /^running · MCP \d{4}-\d{2}-\d{2}$/);
        await vscode.commands.executeCommand('mcpHost.stopServer', 'label');
        await until(() => api.host.get('label')?.state.kind === 'stopped', 'label stopped');
        // A settings change re-reads every server: the one the user stopped stays "stopped" (cached lists shown).
        await cfg().update('servers', { label: everything({ MODE: mode, T: 'label' }), other: everything({ MODE: mode, T: 'other' }) }, vscode.ConfigurationTarget.Workspace);
        await until(() => !!api.host.get('other'), 'other configured');
        assert.match(String(serverItem('label')!.description), /^stopped( · cached lists)?$/);
        assert.strictEqual(api.host.get('label')!.state.kind, 'stopped', 'a stopped server is not started by a settings change');
      });

      it(`H610 (${mode}): a server turned off never waits for its first use (its cached tools go to no model); a bystander does`, async () => {
        await cfg().update('servers', { bystander: everything({ MODE: mode, T: 'b' }), off: { ...everything({ MODE: mode, T: 'off' }), disabled: true } }, vscode.ConfigurationTarget.Workspace);
        await until(() => !!api.host.get('bystander') && !!api.host.get('off'), 'both configured');
        if (mode === 'lazy') await until(() => serverItem('bystander')?.description === 'starts on first use', 'the bystander waits for its first use');
        else await listed('bystander');
        assert.notStrictEqual(serverItem('off')!.description, 'starts on first use');
        assert.strictEqual(api.host.get('off')!.state.kind, 'stopped');
        await assert.rejects(api.host.get('off')!.ping(), /turned off/);
        assert.strictEqual(api.host.get('off')!.state.kind, 'stopped', 'a request does not start a server turned off');
      });

      it(`H79 (${mode}): a resource document is a use: it starts (or waits for) its server and opens; a denied server is not asked again and the read says why; a stopped one stays stopped`, async () => {
        // Names of their own per mode: VS Code keeps a document open by URI, and the URI names the server.
        const doc = `doc-${mode}`;
        const denied = `denied-${mode}`;
        let asked = 0;
        testSupport(api).setConsentPrompt(async def => { asked++; return def.name === denied ? 'deny' : 'allow'; });
        await cfg().update('servers', { [doc]: everything({ MODE: mode, T: 'doc' }), ...(mode === 'lazy' ? { [denied]: everything({ MODE: mode, T: 'denied' }) } : {}) }, vscode.ConfigurationTarget.Workspace);
        // As a tab restored after a reload: the document is opened by its URI, the server not running yet.
        const opened = await vscode.workspace.openTextDocument(resourceDocUri({ server: doc, uri: resourceUris[0] }));
        assert.ok(opened.getText().length > 0, 'the resource has contents');
        assert.strictEqual(api.host.get(doc)!.state.kind, 'running');
        assert.strictEqual(asked, 1, 'launch consent asked once for the workspace server');
        if (mode === 'lazy') {
          // The bystander keeps working while a denied server's document fails.
          await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(resourceDocUri({ server: denied, uri: resourceUris[0] }))), /not allowed/);
          assert.strictEqual(asked, 2);
          await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(resourceDocUri({ server: denied, uri: resourceUris[1] }))),
            /not allowed in this window, so it is not asked again/);
          assert.strictEqual(asked, 2, 'a denied server is not asked about again for a document');
          assert.strictEqual(api.host.get(denied)!.state.kind, 'stopped');
          assert.strictEqual(api.host.get(doc)!.state.kind, 'running');
        }
        await vscode.commands.executeCommand('mcpHost.stopServer', doc);
        await until(() => api.host.get(doc)?.state.kind === 'stopped', `${doc} stopped`);
        await assert.rejects(Promise.resolve(vscode.workspace.openTextDocument(resourceDocUri({ server: doc, uri: resourceUris[1] }))), /is stopped\. Start it/);
        assert.strictEqual(api.host.get(doc)!.state.kind, 'stopped', 'a document never starts a server the user stopped');
      });

      it(`H80/H83 (${mode}): History keeps recording after the server's definition is edited, through the host's history event; "1 request"`, async () => {
        const seen: string[] = [];
        const sub = api.host.onDidChangeHistory(e => seen.push(`${e.server} ${e.target} ${e.status}`));
        try {
          await cfg().update('servers', { hedit: everything({ MODE: mode, T: 'hedit', V: '1' }) }, vscode.ConfigurationTarget.Workspace);
          await ready('hedit', mode);
          await vscode.commands.executeCommand('mcpHost.callTool', 'hedit', 'echo', { message: 'before the edit' });
          await until(() => historyOf('hedit').length === 1, 'one entry listed');
          const server = api.views.history.getChildren().find(n => n.server === 'hedit')!;
          assert.strictEqual(api.views.history.getTreeItem(server).description, '1 request');
          const first = api.host.get('hedit');
          await cfg().update('servers', { hedit: everything({ MODE: mode, T: 'hedit', V: '2' }) }, vscode.ConfigurationTarget.Workspace);
          await until(() => !!api.host.get('hedit') && api.host.get('hedit') !== first, 'hedit replaced');
          // An edited server that ran restarts with its new definition, in both modes.
          await listed('hedit');
          const r = await vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'hedit', 'echo', { message: 'after the edit' });
          assert.strictEqual(r?.content[0]?.text, 'Echo: after the edit');
          await until(() => historyOf('hedit').some(n => (api.views.history.entry(n)?.args as { message?: string } | undefined)?.message === 'after the edit'), 'the call after the edit is listed');
          assert.ok(seen.includes('hedit echo ok'), seen.join(' | '));
          assert.ok(seen.filter(s => s === 'hedit echo ok').length >= 2, `the event follows the new connection: ${seen.join(' | ')}`);
        } finally {
          sub.dispose();
        }
      });

      it(`H81 (${mode}): History is kept across reloads, redacted, and comes back for the same definition only`, async () => {
        const def = everything({ MODE: mode, T: 'keep', API_TOKEN: SECRET });
        await cfg().update('servers', { keep: def }, vscode.ConfigurationTarget.Workspace);
        await ready('keep', mode);
        await vscode.commands.executeCommand('mcpHost.callTool', 'keep', 'echo', { message: `kept ${SECRET}` });
        const h = api.host.get('keep')!;
        assert.strictEqual(h.history.length, 1);
        const file = api.historyStore.fileOf(h)!;
        // Written by its timer (asynchronous file calls, off the extension host's thread), redacted the same way.
        await until(() => fs.existsSync(file) && /kept \*\*\*/.test(fs.readFileSync(file, 'utf8')), 'History written by its timer', 10000);
        assert.ok(!fs.readFileSync(file, 'utf8').includes(SECRET), 'the timer\'s write went through the redaction path');
        assert.ok(!fs.readdirSync(path.dirname(file)).some(f => f.endsWith('.tmp')), 'no temporary file left');
        api.historyStore.flush();
        const text = fs.readFileSync(file, 'utf8');
        assert.match(text, /tools\/call/);
        assert.match(text, /kept \*\*\*/);
        assert.ok(!text.includes(SECRET), 'the env value went through the redaction path');
        assert.ok(!text.includes(EVERYTHING) && !text.includes('API_TOKEN'), 'no definition is stored');
        // The server goes away (as the window does) and comes back with the same definition: its History is back.
        await cfg().update('servers', {}, vscode.ConfigurationTarget.Workspace);
        await until(() => !api.host.get('keep'), 'keep gone');
        await cfg().update('servers', { keep: def }, vscode.ConfigurationTarget.Workspace);
        await until(() => (api.host.get('keep')?.history.length ?? 0) === 1, 'keep back with its History');
        const back = api.host.get('keep')!.history[0];
        assert.strictEqual(back.target, 'echo');
        assert.deepStrictEqual(back.args, { message: 'kept ***' });
        assert.match(back.result ?? '', /Echo: kept \*\*\*/);
        await until(() => historyOf('keep').length === 1, 'the view lists it');
        // Another definition under the same name starts its own History.
        await cfg().update('servers', { keep: everything({ MODE: mode, T: 'keep', API_TOKEN: `${SECRET}-2` }) }, vscode.ConfigurationTarget.Workspace);
        await until(() => !!api.host.get('keep') && (api.host.get('keep')!.definition as { env?: Record<string, string> }).env?.API_TOKEN !== SECRET, 'keep replaced');
        assert.strictEqual(api.host.get('keep')!.history.length, 0);
      });
    });
  }
});
