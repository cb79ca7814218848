// Resource documents for contents the demo servers do not have: an image resource opens in the image
// preview, and a read that returns several contents opens every one of them (text with its language
// from the MIME type, the image as an image). The server is a few lines of the SDK, run inline.
import * as assert from 'assert';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { ROOT, until, activateAllowing } from './helpers';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const SERVER = `
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const s = new McpServer({ name: 'media', version: '1.0.0' });
const png = '${PNG}';
s.registerResource('pixel', 'media://pixel.png', { mimeType: 'image/png' }, async uri => ({ contents: [{ uri: uri.href, mimeType: 'image/png', blob: png }] }));
s.registerResource('bundle', 'media://bundle', { mimeType: 'text/plain' }, async () => ({ contents: [
  { uri: 'media://bundle/readme.md', mimeType: 'text/markdown', text: '# Bundle readme' },
  { uri: 'media://bundle/data.json', mimeType: 'application/json', text: '{"a": 1}' },
  { uri: 'media://bundle/pixel.png', mimeType: 'image/png', blob: png },
] }));
const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x4c, 0x4a, 0x06, 0x00, 0xc2, 0x41, 0x24, 0x35, 0x03, 0x00, 0x00, 0x00]).toString('base64');
s.registerResource('archive', 'media://archive.gz', { mimeType: 'application/gzip' }, async uri => ({ contents: [{ uri: uri.href, mimeType: 'application/gzip', blob: gz }] }));
s.connect(new StdioServerTransport());
`;

function openTabUris(): string[] {
  return vscode.window.tabGroups.all.flatMap(g => g.tabs).map(t => {
    const input = t.input as { uri?: vscode.Uri } | undefined;
    return input?.uri?.toString() ?? '';
  });
}

function tabOf(uri: vscode.Uri): vscode.Tab | undefined {
  return vscode.window.tabGroups.all.flatMap(g => g.tabs).find(t => (t.input as { uri?: vscode.Uri })?.uri?.toString() === uri.toString());
}

describe('Resource documents (images, several contents)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');

  before(async () => {
    api = await activateAllowing();
    await cfg().update('servers', { media: { command: process.execPath, args: ['-e', SERVER], cwd: ROOT } }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('media')?.catalogue.resources.length === 3, 'the three resources of media', 30000);
    assert.strictEqual(api.host.get('media')?.state.kind, 'running');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('H22: opens an image resource in the image preview, not as text', async () => {
    const [uri] = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.openResource', 'media', 'media://pixel.png');
    assert.ok(uri, 'nothing opened');
    // Tabs and breadcrumbs read the server and the file name, never an encoded URI.
    assert.strictEqual(uri.path, '/media/pixel.png');
    const tab = tabOf(uri);
    assert.ok(tab, `no tab for ${uri.toString()} among ${openTabUris().join(', ')}`);
    assert.ok(tab.input instanceof vscode.TabInputCustom, `opened as ${tab.input?.constructor?.name}`);
    assert.strictEqual((tab.input as vscode.TabInputCustom).viewType, 'imagePreview.previewEditor');
    const bytes = await vscode.workspace.fs.readFile(uri);
    assert.deepStrictEqual(Buffer.from(bytes), Buffer.from(PNG, 'base64'));
  });

  it('H22: a read with several contents opens each one: markdown, JSON and the image', async () => {
    const uris = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.openResource', 'media', 'media://bundle');
    assert.strictEqual(uris.length, 3);
    assert.deepStrictEqual(uris.map(u => path.posix.basename(u.path)), ['readme.md', 'data.json', 'pixel.png']);
    const md = await vscode.workspace.openTextDocument(uris[0]);
    assert.strictEqual(md.getText(), '# Bundle readme');
    assert.strictEqual(md.languageId, 'markdown');
    const json = await vscode.workspace.openTextDocument(uris[1]);
    assert.strictEqual(json.getText(), '{"a": 1}');
    assert.strictEqual(json.languageId, 'json');
    const image = tabOf(uris[2]);
    assert.ok(image?.input instanceof vscode.TabInputCustom, 'the image content is not shown as an image');
    for (const u of uris) assert.ok(tabOf(u), `not open: ${u.toString()}`);
  });

  it('a binary resource that is not an image (application/gzip) opens as a read-only hex view; Save As writes its bytes', async () => {
    const [uri] = await vscode.commands.executeCommand<vscode.Uri[]>('mcpHost.openResource', 'media', 'media://archive.gz');
    assert.strictEqual(uri.path, '/media/archive.gz');
    const doc = vscode.window.activeTextEditor?.document;
    assert.strictEqual(doc?.uri.scheme, 'mcp-host-result');
    assert.strictEqual(doc?.isDirty, false);
    const text = doc?.getText() ?? '';
    assert.match(text, /^media:\/\/archive\.gz\napplication\/gzip, 23 bytes\n\n00000000  1f 8b 08 00/);
    const target = vscode.Uri.file(path.join(os.tmpdir(), `mcp-host-save-${process.pid}.gz`));
    const saved = await vscode.commands.executeCommand<vscode.Uri>('mcpHost.saveResourceAs', 'media', 'media://archive.gz', undefined, target);
    assert.strictEqual(saved?.fsPath, target.fsPath);
    const bytes = Buffer.from(await vscode.workspace.fs.readFile(target));
    assert.deepStrictEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b]);
    assert.strictEqual(bytes.byteLength, 23);
    await vscode.workspace.fs.delete(target);
  });
});
