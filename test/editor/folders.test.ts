// Multi-root: servers in a folder's own .vscode/settings.json run for that folder — `${workspaceFolder}` is that
// folder, its roots are that folder by default, a name the workspace uses already is qualified with the folder's
// name, and the Servers view shows the folder. Runs in the multi-root pass (a .code-workspace is open).
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { FILESYSTEM, until, textOf, activateAllowing } from './helpers';


describe('Folder servers (multi-root window)', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  let extra: string;
  let folder: vscode.WorkspaceFolder;

  before(async () => {
    assert.ok(vscode.workspace.workspaceFile, 'runs in the multi-root pass only (no .code-workspace open)');
    api = await activateAllowing();
    extra = fs.mkdtempSync(path.join(process.env.EXTTEST_RUN_DIR ?? os.tmpdir(), 'folder-servers-'));
    const added = new Promise<void>(r => { const d = vscode.workspace.onDidChangeWorkspaceFolders(() => { d.dispose(); r(); }); });
    assert.ok(vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.length, 0, { uri: vscode.Uri.file(extra), name: 'extra' }));
    await added;
    folder = vscode.workspace.workspaceFolders!.find(f => f.uri.fsPath === vscode.Uri.file(extra).fsPath)!;
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('mcpHost', folder.uri).update('servers', undefined, vscode.ConfigurationTarget.WorkspaceFolder).then(undefined, () => undefined);
    const removed = new Promise<void>(r => { const d = vscode.workspace.onDidChangeWorkspaceFolders(() => { d.dispose(); r(); }); });
    vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders!.findIndex(f => f.uri.fsPath === folder.uri.fsPath), 1);
    await removed;
  });

  it('a folder\'s own mcpHost.servers run for that folder: ${workspaceFolder} and the roots are that folder; a taken name gets the folder\'s', async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { files: { command: process.execPath, args: [FILESYSTEM, os.tmpdir()] } }, vscode.ConfigurationTarget.Workspace);
    await vscode.workspace.getConfiguration('mcpHost', folder.uri).update('servers', {
      files: { command: process.execPath, args: [FILESYSTEM, '${workspaceFolder}'] },
      own: { command: process.execPath, args: [FILESYSTEM, '${workspaceFolder}'] },
    }, vscode.ConfigurationTarget.WorkspaceFolder);
    await until(() => ['files', 'extra/files', 'own'].every(n => api.host.get(n)?.state.kind === 'running'), 'the folder servers running', 60000);
    const own = api.host.get('own')!;
    assert.deepStrictEqual((own.definition as { args?: string[] }).args?.slice(-1), [folder.uri.fsPath]);
    const dirs = textOf(await own.callTool('list_allowed_directories', {}), '\n').split('\n').map(l => l.trim());
    assert.ok(dirs.includes(fs.realpathSync(extra)), dirs.join(' | '));
    assert.strictEqual(dirs.filter(d => d.startsWith('/')).length, 1, `only its folder: ${dirs.join(' | ')}`);
    const tree = api.views.servers;
    const item = (name: string) => {
      const node = (tree.getChildren() as { kind: string; server?: string }[]).find(n => n.kind === 'server' && n.server === name);
      return node && tree.getTreeItem(node as never);
    };
    assert.match(String(item('own')?.description), / · folder extra$/);
    assert.match(String(item('extra/files')?.description), / · folder extra$/);
    assert.doesNotMatch(String(item('files')?.description), /folder/);
    // Grouped: the workspace's servers first, then the folder's.
    const order = (tree.getChildren() as { kind: string; server?: string }[]).filter(n => n.kind === 'server').map(n => n.server);
    assert.ok(order.indexOf('files') < order.indexOf('own') && order.indexOf('files') < order.indexOf('extra/files'), order.join(', '));
  });
});
