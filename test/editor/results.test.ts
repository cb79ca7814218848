// Result documents in the real editor: tabs named by what ran and when ("echo · 14:03:22.md" under the server, a
// counter only when a name comes up twice), and the binary parts of a result — an image shown in VS Code's image
// preview, audio as a line with Save As…, never base64 in the text — with hostile ones (an "image/png" that is no
// image, data that is not base64, an image too large to preview) next to a well-behaved bystander tool.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { ROOT, until, activateAllowing } from './helpers';

const MEDIA = path.join(ROOT, 'test/fixtures/servers/media.mjs');

type ToolResult = { content: { type: string; text?: string }[] } | undefined;

/** The clock time the tabs use ("14:03:22", local time). */
const clock = (d: Date) => [d.getHours(), d.getMinutes(), d.getSeconds()].map(n => String(n).padStart(2, '0')).join(':');

/** Every clock time from `from` to `to`, by the second. */
function clocksBetween(from: Date, to: Date): string[] {
  const out: string[] = [];
  for (let t = Math.floor(from.getTime() / 1000) * 1000; t <= to.getTime(); t += 1000) out.push(clock(new Date(t)));
  return out;
}

const tabs = () => vscode.window.tabGroups.all.flatMap(g => g.tabs);
const tabOf = (uri: vscode.Uri) => tabs().find(t => (t.input as { uri?: vscode.Uri } | undefined)?.uri?.toString() === uri.toString());

describe('Result documents: names, images and audio', function () {
  this.timeout(90000);
  let api: McpHostExtensionApi;
  const call = (tool: string, args: Record<string, unknown> = {}) => vscode.commands.executeCommand<ToolResult>('mcpHost.callTool', 'media', tool, args);
  const shown = () => vscode.window.activeTextEditor?.document;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { media: { type: 'stdio', command: process.execPath, args: [MEDIA] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('media')?.catalogue.tools.length ?? 0) > 0, 'media running');
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H88: a result tab is named by the tool and the time it ran ("echo · 14:03:22.md" under the server), a counter only when that name came up before', async () => {
    const before = new Date();
    const result = await call('echo', { text: 'named' });
    const after = new Date();
    assert.strictEqual(result?.content[0]?.text, 'named');
    const doc = shown();
    assert.strictEqual(doc?.uri.scheme, 'mcp-host-result');
    const m = /^\/media\/echo · (\d\d:\d\d:\d\d)\.md$/.exec(doc?.uri.path ?? '');
    assert.ok(m, `named ${doc?.uri.path}`);
    assert.ok(clocksBetween(before, after).includes(m[1]), `${m[1]} is not a time during the call (${clock(before)}–${clock(after)})`);
    const label = tabOf(doc!.uri)?.label;
    assert.strictEqual(label, `echo · ${m[1]}.md`);
    // Two results of the same tool in the same second: the second (and only it) gets a counter; another tool does not.
    const at = new Date(2020, 0, 1, 3, 4, 5);
    const first = await api.results.open('media', 'echo', 'one', 'md', at);
    const second = await api.results.open('media', 'echo', 'two', 'md', at);
    const other = await api.results.open('media', 'picture', 'three', 'md', at);
    assert.deepStrictEqual([first, second, other].map(d => d.uri.path), ['/media/echo · 03:04:05.md', '/media/echo · 03:04:05 (2).md', '/media/picture · 03:04:05.md']);
    assert.deepStrictEqual([first, second, other].map(d => d.getText()), ['one', 'two', 'three']);
  });

  it('H87: an image in a tool result opens in the image preview, audio is a line with Save As…, the text around them stays text, and no base64 is shown', async () => {
    await call('picture');
    const doc = shown();
    const text = doc?.getText() ?? '';
    const stem = doc?.uri.path.replace(/\.md$/, '') ?? '';
    assert.match(stem, /^\/media\/picture · \d\d:\d\d:\d\d$/);
    assert.match(text, /## Result\n\nBefore the picture\.\n\n\[image 1: image\/png, 145 B, shown in the image preview\]\n\nBetween the picture and the sound\.\n\n\[audio 1: audio\/wav, 844 B; save it with Save As… \(in the notification\) to open it\]\n\nAfter the sound\./);
    assert.doesNotMatch(text, /[A-Za-z0-9+/]{60,}/, 'base64 in the result text');
    assert.doesNotMatch(text, /data:image/);
    // The image: a tab of VS Code's image preview over the result's attachment.
    const image = vscode.Uri.from({ scheme: 'mcp-host-result-file', path: `${stem} image 1.png` });
    await until(() => !!tabOf(image), 'the image preview tab', 10000);
    const tab = tabOf(image)!;
    assert.ok(tab.input instanceof vscode.TabInputCustom, `the image is not in the image preview: ${JSON.stringify(tab.input)}`);
    assert.strictEqual((tab.input as vscode.TabInputCustom).viewType, 'imagePreview.previewEditor');
    const png = await vscode.workspace.fs.readFile(image);
    assert.deepStrictEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // The notification names both parts; Save As… writes the audio's bytes.
    const audio = vscode.Uri.from({ scheme: 'mcp-host-result-file', path: `${stem} audio 1.wav` });
    assert.strictEqual(api.results.lastNotice?.message, 'picture returned image 1 (image/png, 145 B) and audio 1 (audio/wav, 844 B).');
    assert.deepStrictEqual(api.results.lastNotice?.files.map(f => f.toString()), [image.toString(), audio.toString()]);
    const target = vscode.Uri.file(path.join(os.tmpdir(), `mcp-host-audio-${process.pid}.wav`));
    try {
      assert.strictEqual((await api.results.saveAs(audio, target))?.fsPath, target.fsPath);
      const wav = fs.readFileSync(target.fsPath);
      assert.strictEqual(wav.length, 844);
      assert.strictEqual(wav.subarray(0, 4).toString('latin1'), 'RIFF');
    } finally {
      fs.rmSync(target.fsPath, { force: true });
    }
  });

  it('H87: an "image/png" that is no image, image data that is not base64 and a 20 MB image each become a line saying so; the bystander keeps answering', async () => {
    await call('fake_png');
    const fake = shown()?.getText() ?? '';
    assert.match(fake, /\[image 1: claims image\/png, but its 30 B are not an image of that type, so it is not shown; Save As… writes the bytes\]/);
    assert.match(fake, /\[image 2: image\/png, 145 B, shown in the image preview\]/, 'the honest image next to it is shown');
    const fakeStem = shown()!.uri.path.replace(/\.md$/, '');
    assert.ok(!tabOf(vscode.Uri.from({ scheme: 'mcp-host-result-file', path: `${fakeStem} image 1.png` })), 'the fake image was opened');

    await call('not_base64');
    const bad = shown()?.getText() ?? '';
    assert.match(bad, /The image data is not base64\.\n\n\[content block 2 \(image\) from tool `not_base64` on server `media` is malformed and was left out: data: Invalid Base64 string\]/);
    assert.doesNotMatch(bad, /%%%/);

    await call('huge_image', { mb: 20 });
    const huge = shown()?.getText() ?? '';
    assert.match(huge, /A huge image follows\.\n\n\[image 1: image\/png, 20 MiB: too large to preview here \(over 16 MiB\); Save As… writes it\]/);
    assert.ok(huge.length < 2000, `the text is ${huge.length} characters`);
    const hugeStem = shown()!.uri.path.replace(/\.md$/, '');
    assert.ok(!tabOf(vscode.Uri.from({ scheme: 'mcp-host-result-file', path: `${hugeStem} image 1.png` })), 'the huge image was opened in the preview');

    assert.strictEqual(api.host.get('media')?.state.kind, 'running');
    assert.strictEqual((await call('echo', { text: 'still here' }))?.content[0]?.text, 'still here');
  });
});
