/**
 * Tool, prompt and task results as read-only documents of a virtual scheme (`mcp-host-result:`), never dirty
 * Untitled buffers: closing them never asks to save. A tab is named by what ran and when — "get-sum · 14:03:22.md"
 * under the server's name — with a counter only when the same name came up before ("get-sum · 14:03:22 (2).md").
 * A result's images, audio and binary resources are attachments of a second read-only scheme (`mcp-host-result-file:`):
 * images open in VS Code's image preview beside the text, and a notification offers Save As… for each.
 * The last MAX_RESULTS texts are kept in memory (an older one says it is gone), attachments up to MAX_ATTACHMENT_BYTES.
 */
import * as os from 'os';
import * as vscode from 'vscode';
import { shownName } from '../../mcp';
import { extensionForMime, formatBytes } from './mime';
import type { RenderedResult, ResultAttachment } from '../commands/render';

export const RESULT_SCHEME = 'mcp-host-result';
/** The scheme of result attachments (images, audio, binary resources of a result). */
export const RESULT_FILE_SCHEME = 'mcp-host-result-file';
export const MAX_RESULTS = 50;
/** Bytes of attachments kept for the image preview and Save As… (oldest dropped first; one attachment is always kept). */
export const MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024;
/** Names handed out that are remembered, so a name never comes back for another result (an open tab would show the old one). */
const MAX_REMEMBERED_NAMES = 10_000;
/** Images opened in the preview per result; the others are listed and can be saved. */
const MAX_PREVIEWS = 4;

/** A path segment from server text: no separators or control characters, bounded. */
function segment(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 80);
  return clean || '_';
}

/** The clock time a result is named after: local time to the second, as people read it ("14:03:22"). */
export function clockTime(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

/** A kept attachment: its bytes and type, and what it came with (for Save As…). */
interface KeptFile { mimeType: string; bytes: Uint8Array; label: string }

/** What the last result with attachments said in its notification (tests read it). */
export interface AttachmentNotice { message: string; files: vscode.Uri[] }

export class ResultDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly files = new Map<string, KeptFile>();
  private fileBytes = 0;
  private readonly used = new Set<string>();
  /** The notification of the last result with attachments. */
  lastNotice?: AttachmentNotice;
  /** Replaces the Save As… notification (tests); resolves the attachment to save, or undefined. */
  askSave?: (notice: AttachmentNotice) => Thenable<vscode.Uri | undefined>;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? vscode.l10n.t('(This result is no longer kept: MCP Host keeps the last {0} results. Run it again.)', MAX_RESULTS);
  }

  /**
   * Keeps `content` and opens it as a read-only document named `<title> · <time>.md` (or `.txt`) under `server`,
   * the time being `at` (when it ran); a counter is added only when that name was handed out before.
   */
  async open(server: string, title: string, content: string, ext: 'md' | 'txt' = 'md', at: Date = new Date()): Promise<vscode.TextDocument> {
    const stem = this.name(server, title, at);
    const path = `${stem}.${ext}`;
    this.texts.set(path, content);
    while (this.texts.size > MAX_RESULTS) this.texts.delete(this.texts.keys().next().value!);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }));
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc;
  }

  /**
   * Opens a rendered result: its text as `open` does, its images in the image preview beside it (at most a few),
   * and a notification naming every attachment with Save As…. Resolves the text document and the attachments' URIs.
   */
  async openResult(server: string, title: string, r: RenderedResult, at: Date = new Date()): Promise<{ doc: vscode.TextDocument; files: vscode.Uri[] }> {
    const doc = await this.open(server, title, r.markdown, 'md', at);
    const stem = doc.uri.path.replace(/\.md$/, '');
    const files = r.attachments.map(a => this.keep(`${stem} ${a.label}${extensionForMime(a.mimeType) || '.bin'}`, a));
    let previews = 0;
    for (const [i, a] of r.attachments.entries()) {
      if (!a.preview || previews++ >= MAX_PREVIEWS) continue;
      await vscode.commands.executeCommand('vscode.open', files[i], { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
    }
    if (files.length) this.offerSave(title, r.attachments, files);
    return { doc, files };
  }

  /** Writes an attachment's bytes to `target` (asked when not given); resolves where, or undefined. */
  async saveAs(file: vscode.Uri, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const kept = this.files.get(file.path);
    if (!kept) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} is no longer kept: MCP Host keeps the attachments of the latest results ({1}). Run it again.', file.path.split('/').pop() ?? '', formatBytes(MAX_ATTACHMENT_BYTES)));
      return undefined;
    }
    const name = (file.path.split('/').pop() ?? 'attachment').replace(/[:*?"<>|]/g, '-');
    const where = target ?? await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir()), name), title: vscode.l10n.t('Save {0}', kept.label),
    });
    if (!where) return undefined;
    await vscode.workspace.fs.writeFile(where, kept.bytes);
    return where;
  }

  /** The bytes of a kept attachment (the file system provider of RESULT_FILE_SCHEME reads through it). */
  fileBytesOf(uri: vscode.Uri): Uint8Array | undefined {
    return this.files.get(uri.path)?.bytes;
  }

  /** `/<server>/<title> · <time>`, with " (n)" when that was handed out already. */
  private name(server: string, title: string, at: Date): string {
    const base = `/${segment(server)}/${segment(title)} · ${clockTime(at)}`;
    let stem = base;
    for (let n = 2; this.used.has(stem); n++) stem = `${base} (${n})`;
    this.used.add(stem);
    if (this.used.size > MAX_REMEMBERED_NAMES) this.used.delete(this.used.values().next().value!);
    return stem;
  }

  private keep(path: string, a: ResultAttachment): vscode.Uri {
    this.files.set(path, { mimeType: a.mimeType, bytes: a.bytes, label: a.label });
    this.fileBytes += a.bytes.byteLength;
    while (this.fileBytes > MAX_ATTACHMENT_BYTES && this.files.size > 1) {
      const [oldest, kept] = this.files.entries().next().value!;
      this.files.delete(oldest);
      this.fileBytes -= kept.bytes.byteLength;
    }
    return vscode.Uri.from({ scheme: RESULT_FILE_SCHEME, path });
  }

  /** "get-sum returned image 1 (image/png, 1.2 KB) and audio 1 (audio/wav, 8.0 KB)." with Save As…. */
  private offerSave(title: string, attachments: ResultAttachment[], files: vscode.Uri[]): void {
    const list = attachments.map(a => `${a.label} (${a.mimeType}, ${formatBytes(a.bytes.byteLength)})`);
    const listed = list.length > 1 ? vscode.l10n.t('{0} and {1}', list.slice(0, -1).join(', '), list.at(-1) ?? '') : list[0];
    const notice: AttachmentNotice = { message: vscode.l10n.t('{0} returned {1}.', shownName(title), listed), files };
    this.lastNotice = notice;
    const saveAs = vscode.l10n.t('Save As…');
    const pick = this.askSave ? this.askSave(notice) : vscode.window.showInformationMessage(notice.message, saveAs).then(async b => {
      if (b !== saveAs) return undefined;
      if (files.length === 1) return files[0];
      const item = await vscode.window.showQuickPick(files.map((f, i) => ({ label: attachments[i].label, description: list[i], f })), { placeHolder: vscode.l10n.t('Save which one?') });
      return item?.f;
    });
    void Promise.resolve(pick).then(f => (f ? this.saveAs(f) : undefined)).catch((err: unknown) => {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not save: {0}', err instanceof Error ? err.message : String(err)));
    });
  }
}

/** The one store (registered as the scheme's provider by the extension). */
export const resultDocuments = new ResultDocuments();

/** The read-only file system of result attachments, over the store. */
export class ResultFiles implements vscode.FileSystemProvider {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly store: ResultDocuments) {}

  stat(uri: vscode.Uri): vscode.FileStat {
    const bytes = this.store.fileBytesOf(uri);
    if (!bytes) throw vscode.FileSystemError.FileNotFound(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    const bytes = this.store.fileBytesOf(uri);
    if (!bytes) throw vscode.FileSystemError.FileNotFound(uri);
    return bytes;
  }

  watch(): vscode.Disposable { return new vscode.Disposable(() => {}); }
  readDirectory(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP results are read-only')); }
  createDirectory(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP results are read-only')); }
  writeFile(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP results are read-only')); }
  delete(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP results are read-only')); }
  rename(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP results are read-only')); }
}
