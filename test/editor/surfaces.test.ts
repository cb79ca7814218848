// The editor surfaces in the real extension host (code-server): settings → servers (real
// server-everything and server-filesystem from node_modules), launch consent, the Servers and
// Resources trees, resource documents, Call Tool / Run Prompt commands with arguments, log channels,
// roots from workspace folders, and "only the changed server restarts".
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { McpNode } from '../../src/views/nodes';
import type { ServerHandle } from '../../src/mcp';
import { EVERYTHING, FILESYSTEM, until, textOf, testSupport } from './helpers';

const NODE = process.execPath;

function running(api: McpHostExtensionApi, name: string): boolean {
  return api.host.get(name)?.state.kind === 'running';
}


async function settingsServers(servers: Record<string, unknown>): Promise<void> {
  await vscode.workspace.getConfiguration('mcpHost').update('servers', servers, vscode.ConfigurationTarget.Workspace);
}

describe('Editor surfaces (real extension host, real servers)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  const consentAsked: string[] = [];
  const wsDir = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const servers = {
    everything: { type: 'stdio', command: NODE, args: [EVERYTHING, 'stdio'] },
    files: { command: NODE, args: [FILESYSTEM, os.tmpdir()] },
  };

  before(async () => {
    const ext = vscode.extensions.getExtension<McpHostExtensionApi>('mcp-host.mcp-host')!;
    api = await ext.activate();
    testSupport(api).setConsentPrompt(async (def, detail) => { consentAsked.push(`${def.name}\n${detail}`); return 'allow'; });
    // Earlier suites may have allowed the same command lines: start from no remembered consent.
    await vscode.commands.executeCommand('mcpHost.resetTrust');
    await settingsServers(servers);
    await until(() => running(api, 'everything') && running(api, 'files')
      && api.host.get('everything')!.catalogue.tools.length > 0 && api.host.get('everything')!.catalogue.resources.length > 0, 'everything and files running with their catalogues');
  });

  after(async () => {
    await settingsServers({});
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H24: asks launch consent for workspace stdio servers, naming the exact command line, cwd and env keys', () => {
    const everything = consentAsked.find(c => c.startsWith('everything\n'));
    assert.ok(everything, `no consent asked for everything: ${JSON.stringify(consentAsked)}`);
    assert.ok(everything.includes(`Command: ${NODE} ${EVERYTHING} stdio`), everything);
    assert.ok(everything.includes('Working directory:'), everything);
    assert.ok(everything.includes('Environment variables:'), everything);
  });

  it('shows each server in the Servers view with its state, and its tools under it', async () => {
    const tree = api.views.servers;
    const roots = tree.getChildren() as McpNode[];
    assert.deepStrictEqual(roots.map(n => n.server).sort(), ['everything', 'files']);
    const node = roots.find(n => n.server === 'everything')!;
    const item = tree.getTreeItem(node);
    assert.match(String(item.description), /^running · MCP \d{4}-\d{2}-\d{2}$/);
    assert.strictEqual(item.contextValue, 'server.running.stdio');
    assert.strictEqual((item.iconPath as vscode.ThemeIcon).id, 'pass');
    const groups = tree.getChildren(node) as McpNode[];
    assert.ok(groups.some(g => g.kind === 'group' && g.group === 'tools'), 'no Tools group');
    const tools = tree.getChildren(groups.find(g => g.kind === 'group' && g.group === 'tools')) as McpNode[];
    const names = tools.map(t => (t.kind === 'tool' ? t.tool.name : ''));
    assert.ok(names.includes('echo'), `tools: ${names.join(', ')}`);
    assert.strictEqual(tree.getTreeItem(tools[0]).contextValue, 'tool');
  });

  it('lists resources page by page in the Resources view', async () => {
    const tree = api.views.resources;
    const roots = await tree.getChildren();
    const node = roots.find(n => n.server === 'everything');
    assert.ok(node, 'everything is not in the Resources view');
    const children = await tree.getChildren(node);
    const resources = children.filter(c => c.kind === 'resource');
    assert.ok(resources.length > 0, 'no resources listed');
    const expected = api.host.get('everything')!.catalogue.resources.map(r => r.uri);
    if (!children.some(c => c.kind === 'loadMore')) {
      assert.deepStrictEqual(resources.map(r => (r.kind === 'resource' ? r.resource.uri : '')), expected);
    }
  });

  it('H22: opens a resource as a read-only document with its text and a language from its MIME type', async () => {
    const h = api.host.get('everything')!;
    const res = h.catalogue.resources.find(r => r.mimeType === 'text/markdown') ?? h.catalogue.resources[0];
    const direct = await h.readResource(res.uri);
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.openResource', 'everything', res.uri);
    assert.strictEqual(uris.length, direct.contents.length);
    const doc = vscode.workspace.textDocuments.find(d => d.uri.toString() === uris[0].toString());
    assert.ok(doc, 'the resource document is not open');
    const first = direct.contents[0];
    assert.strictEqual(doc.getText(), 'text' in first ? first.text : '');
    if (res.mimeType === 'text/markdown') assert.strictEqual(doc.languageId, 'markdown');
    assert.strictEqual(doc.uri.scheme, 'mcp-host-resource');
  });

  it('H22: reads a resource from a template with its variables filled in (text and blob contents)', async () => {
    const h = api.host.get('everything')!;
    const textTpl = h.catalogue.resourceTemplates.find(t => t.uriTemplate.includes('/text/'))!;
    const blobTpl = h.catalogue.resourceTemplates.find(t => t.uriTemplate.includes('/blob/'))!;
    assert.ok(textTpl && blobTpl, JSON.stringify(h.catalogue.resourceTemplates));
    const variable = /\{(\w+)\}/.exec(textTpl.uriTemplate)![1];
    const [textUri] = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.readResourceTemplate', 'everything', textTpl.uriTemplate, { [variable]: '7' });
    const textDoc = await vscode.workspace.openTextDocument(textUri);
    assert.match(textDoc.getText(), /^Resource 7: This is a plaintext resource/);
    const [blobUri] = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.readResourceTemplate', 'everything', blobTpl.uriTemplate, { [variable]: '3' });
    const blobDoc = await vscode.workspace.openTextDocument(blobUri);
    assert.match(blobDoc.getText(), /^Resource 3: This is a base64 blob/);
  });

  it('H22: subscribes to a resource from the tree and hears its resources/updated', async () => {
    const h = api.host.get('everything')!;
    const uri = h.catalogue.resources[0].uri;
    const node: McpNode = { kind: 'resource', server: 'everything', resource: h.catalogue.resources[0] };
    assert.strictEqual(api.views.resources.getTreeItem(node).contextValue, 'resource.canSubscribe');
    const updated = new Promise<void>(resolve => {
      const d = api.host.onDidUpdateResource(e => { if (e.server === 'everything' && e.uri === uri) { d.dispose(); resolve(); } });
    });
    await vscode.commands.executeCommand('mcpHost.subscribeResource', node);
    assert.strictEqual(api.views.resources.getTreeItem(node).contextValue, 'resource.subscribed');
    await h.callTool('toggle-subscriber-updates', {});
    await updated;
    await h.callTool('toggle-subscriber-updates', {});
    await vscode.commands.executeCommand('mcpHost.unsubscribeResource', node);
    assert.strictEqual(api.views.resources.getTreeItem(node).contextValue, 'resource.canSubscribe');
  });

  it('H24: calls a tool through the command with arguments and shows the result', async () => {
    const result = await vscode.commands.executeCommand<{ content: { type: string; text?: string }[] }>('mcpHost.callTool', 'everything', 'echo', { message: 'hello from the editor test' });
    assert.strictEqual(textOf(result, '\n'), 'Echo: hello from the editor test');
    const doc = vscode.window.activeTextEditor?.document;
    const shown = doc?.getText() ?? '';
    assert.ok(shown.includes('Echo: hello from the editor test'), shown);
    // A read-only document of the result scheme, never a dirty Untitled buffer: closing it asks nothing.
    assert.strictEqual(doc?.uri.scheme, 'mcp-host-result');
    assert.strictEqual(doc?.isDirty, false);
    assert.strictEqual(doc?.isUntitled, false);
    assert.strictEqual(doc?.languageId, 'markdown');
    assert.match(doc?.uri.path ?? '', /^\/everything\/echo · \d\d:\d\d:\d\d( \(\d+\))?\.md$/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    assert.ok(!vscode.window.tabGroups.all.some(g => g.tabs.some(t => (t.input as { uri?: vscode.Uri })?.uri?.toString() === doc?.uri.toString())), 'the result tab closed without a save prompt');
  });

  it('H24 H25: shows images, resource links and validated structured content of a tool result', async () => {
    await vscode.commands.executeCommand('mcpHost.callTool', 'everything', 'get-tiny-image', {});
    const image = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(image, /\[image 1: image\/png, [\d.]+ (B|KiB), shown in the image preview\]/);
    await vscode.commands.executeCommand('mcpHost.callTool', 'everything', 'get-resource-links', { count: 2 });
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', /Resource link: \[.*\]\(demo:\/\/resource\//);
    const tool = api.host.get('everything')!.catalogue.tools.find(t => t.name === 'get-structured-content')!;
    const field = Object.keys(tool.inputSchema.properties ?? {})[0];
    const enumValues = ((tool.inputSchema.properties ?? {}) as Record<string, { enum?: string[] }>)[field]?.enum;
    await vscode.commands.executeCommand('mcpHost.callTool', 'everything', 'get-structured-content', { [field]: enumValues?.[0] ?? 'New York' });
    const structured = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(structured, /## Structured content[\s\S]*"temperature"/);
  });

  it('H24: asks for missing tool arguments field by field (an enum becomes a pick list) when called without them', async () => {
    let done = false;
    const call = Promise.resolve(vscode.commands.executeCommand<{ structuredContent?: unknown }>('mcpHost.callTool', 'everything', 'get-structured-content'))
      .finally(() => { done = true; });
    for (let i = 0; i < 50 && !done; i++) {
      await new Promise(r => setTimeout(r, 200));
      if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    const result = await call;
    assert.ok(result?.structuredContent, `no structured result: ${JSON.stringify(result)}`);
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', /"location": "New York"/);
  });

  it('H24: a tool call with arguments that break the input schema is refused before it reaches the server', async () => {
    const result = await vscode.commands.executeCommand('mcpHost.callTool', 'everything', 'get-sum', { a: 'one', b: 2 });
    assert.strictEqual(result, undefined);
  });

  it('H23: runs a prompt with arguments and shows its messages', async () => {
    const result = await vscode.commands.executeCommand<{ messages: { content: { type: string; text?: string } }[] }>('mcpHost.runPrompt', 'everything', 'args-prompt', { city: 'Lisbon' });
    assert.ok(result?.messages.some(m => m.content.text?.includes('Lisbon')), JSON.stringify(result));
    assert.ok((vscode.window.activeTextEditor?.document.getText() ?? '').includes('Lisbon'));
  });

  it('H23: asks prompt arguments one by one from completion values, each completion seeing the earlier answers', async () => {
    let done = false;
    const run = Promise.resolve(vscode.commands.executeCommand<{ messages: { content: { text?: string } }[] }>('mcpHost.runPrompt', 'everything', 'completable-prompt'))
      .finally(() => { done = true; });
    for (let i = 0; i < 60 && !done; i++) {
      await new Promise(r => setTimeout(r, 250));
      if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
    const result = await run;
    // The first completion for "department" is Engineering; "name" then completes from Engineering's people.
    assert.strictEqual(result?.messages[0]?.content.text, 'Please promote Alice to the head of the Engineering team.');
  });

  it('H29: writes each server\'s logs to its own "MCP Host: <name>" channel', async () => {
    await until(() => api.logChannels().includes('everything') && api.logChannels().includes('files'), 'log channels', 10000);
  });

  it('H16: the workspace folders are the roots server-filesystem sees (not the directory on its command line)', async () => {
    const h = api.host.get('files')!;
    const dirs = textOf(await h.callTool('list_allowed_directories', {}), '\n');
    const lines = dirs.split('\n').map(l => l.trim());
    assert.ok(lines.includes(fs.realpathSync(wsDir)), dirs);
    assert.ok(!lines.includes(fs.realpathSync(os.tmpdir())), dirs);
  });

  it('H16 H17: a workspace folder added in the editor reaches server-filesystem as a root, except a server whose roots name one folder (multi-root window)', async function () {
    // In a single-folder window, adding a folder turns it into a new workspace (a window reload): only
    // run where the harness opened a .code-workspace (MCP_HOST_EDITOR_OPEN=multi-root.code-workspace).
    assert.ok(vscode.workspace.workspaceFile, 'the multi-root test ran outside the multi-root pass (no .code-workspace open)');
    const first = vscode.workspace.workspaceFolders![0].name;
    await settingsServers({ ...servers, scoped: { command: NODE, args: [FILESYSTEM, os.tmpdir()], roots: [first] } });
    await until(() => running(api, 'scoped'), 'scoped running');
    const extra = fs.mkdtempSync(path.join(process.env.EXTTEST_RUN_DIR ?? os.tmpdir(), 'extra-root-'));
    const added = new Promise<void>(r => { const d = vscode.workspace.onDidChangeWorkspaceFolders(() => { d.dispose(); r(); }); });
    assert.ok(vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length, 0, { uri: vscode.Uri.file(extra) }));
    await added;
    const want = fs.realpathSync(extra);
    const dirsOf = async (name: string) => textOf(await (api.host.get(name) as ServerHandle).callTool('list_allowed_directories', {}), '\n');
    let last = '';
    const deadline = Date.now() + 20000;
    while (Date.now() < deadline) {
      if (running(api, 'files')) {
        last = await dirsOf('files');
        if (last.includes(want)) break;
      }
      await new Promise(r => setTimeout(r, 300));
    }
    const scoped = await dirsOf('scoped');
    // Wait for the removal to land: it rewrites the .code-workspace file, which later settings writes share.
    const removed = new Promise<void>(r => { const d = vscode.workspace.onDidChangeWorkspaceFolders(() => { d.dispose(); r(); }); });
    vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length - 1, 1);
    await removed;
    await settingsServers(servers);
    await until(() => !api.host.get('scoped'), 'scoped removed');
    assert.ok(last.includes(want), `allowed directories do not include ${want}: ${last}`);
    assert.ok(!scoped.includes(want), `a server restricted to "${first}" sees the added folder: ${scoped}`);
    assert.ok(scoped.includes(fs.realpathSync(wsDir)), scoped);
  });

  it('restarts only the server whose settings changed; the edited command asks launch consent again', async () => {
    const everything = api.host.get('everything')!;
    const files = api.host.get('files')!;
    const since = everything.state.kind === 'running' ? everything.state.since : -1;
    const asked = consentAsked.length;
    await settingsServers({ ...servers, files: { command: NODE, args: [FILESYSTEM, os.tmpdir(), wsDir] } });
    await until(() => api.host.get('files') !== files && running(api, 'files'), 'files restarted');
    assert.strictEqual(api.host.get('everything'), everything, 'everything was replaced');
    const after = everything.state;
    assert.ok(after.kind === 'running' && after.since === since, 'everything restarted');
    const again = consentAsked.slice(asked);
    assert.strictEqual(again.length, 1, JSON.stringify(again));
    assert.ok(again[0].startsWith('files\n') && again[0].includes(wsDir), again[0]);
  });
});
