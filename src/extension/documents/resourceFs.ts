import * as os from 'os';
import * as vscode from 'vscode';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { type HostApi, countOf } from '../../mcp';
import { extensionForMime, isPreviewableImage, languageForMime } from './mime';
import { resultDocuments } from './results';
import { CommandIds } from '../../views/commandIds';

/**
 * The URI scheme of resource documents. Not `mcp-resource`: VS Code's built-in MCP support owns that
 * scheme in the workbench, so documents opened under it never reach this provider.
 */
export const RESOURCE_SCHEME = 'mcp-host-resource';
/** Reads are shared for this long (ms), so stat + readFile + several parts cost one `resources/read`. */
const CACHE_MS = 2000;

type Content = ReadResourceResult['contents'][number];

/** What an `mcp-resource:` URI names: a server, a resource URI and optionally one content of a multi-content read. */
export interface ResourceRef {
  server: string;
  uri: string;
  part?: number;
}

/**
 * Builds the document URI of a resource (or of one of its contents, named after `contentUri`). The path is what
 * tabs and breadcrumbs show: `/<server>/<file name>`; the exact server and resource URI travel in the query,
 * base64url- and hex-encoded (percent-encoding does not survive the workbench's URI handling).
 */
export function resourceDocUri(ref: ResourceRef, mimeType?: string, contentUri?: string): vscode.Uri {
  const query = [`s=${Buffer.from(ref.server, 'utf8').toString('hex')}`, `r=${Buffer.from(ref.uri, 'utf8').toString('base64url')}`];
  if (ref.part !== undefined) query.push(`part=${ref.part}`);
  return vscode.Uri.from({
    scheme: RESOURCE_SCHEME,
    path: `/${readableSegment(ref.server)}/${fileName(contentUri ?? ref.uri, mimeType)}`,
    query: query.join('&'),
  });
}

/** Parses a document URI made by `resourceDocUri`. */
export function parseResourceDocUri(uri: vscode.Uri): ResourceRef {
  const param = (k: string) => new RegExp(`(?:^|&)${k}=([^&]*)`).exec(uri.query)?.[1];
  const server = Buffer.from(param('s') ?? '', 'hex').toString('utf8');
  const res = param('r');
  if (!server || !res) throw vscode.FileSystemError.FileNotFound(uri);
  const part = param('part');
  return { server, uri: Buffer.from(res, 'base64url').toString('utf8'), part: part ? Number(part) : undefined };
}

/** A path segment from a name: no separators or control characters, bounded. */
function readableSegment(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f/\\]+/g, '_').slice(0, 80) || '_';
}

/** What the resource file system is given at construction (extension.ts). */
export interface ResourceFsServices {
  /** Where failures are logged (the "MCP Host" channel). */
  log?: (message: string) => void;
  /**
   * Before reading from a server that is not running: a read is a use, so this starts a server waiting for its first
   * use or waits for a starting one, through the launch-consent gate; it rejects with a readable message when the
   * server may not start (denied, stopped by the user, Restricted Mode).
   */
  beforeRead?: (server: string) => Promise<void>;
}

/**
 * A read-only file system over MCP resources: reading a document runs `resources/read`; text
 * contents are UTF-8, blobs are their bytes (so images open in the image preview); a read with
 * several contents shows them all. Subscribed resources refresh open documents on `resources/updated`.
 */
export class ResourceFileSystem implements vscode.FileSystemProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changed.event;
  private readonly cache = new Map<string, { at: number; result: Promise<ReadResourceResult> }>();
  private readonly handedOut = new Map<string, Set<string>>();
  private readonly sub: { dispose(): void };
  /** Where failures are logged (the "MCP Host" channel). */
  readonly log?: (message: string) => void;
  private readonly beforeRead?: (server: string) => Promise<void>;

  constructor(private readonly host: HostApi, services: ResourceFsServices = {}) {
    this.log = services.log;
    this.beforeRead = services.beforeRead;
    this.sub = host.onDidUpdateResource(({ server, uri }) => this.invalidate(server, uri));
  }

  /** Reads a resource through the short-lived cache. */
  read(server: string, uri: string): Promise<ReadResourceResult> {
    const key = `${server}\n${uri}`;
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.result;
    const result = this.readNow(server, uri);
    const entry = { at: Date.now(), result };
    this.cache.set(key, entry);
    // Shared for CACHE_MS after the answer came (a slow read, or one that first started its server, is not read
    // again by the stat and readFile that follow it).
    result.then(() => { entry.at = Date.now(); }, () => { if (this.cache.get(key) === entry) this.cache.delete(key); });
    return result;
  }

  private async readNow(server: string, uri: string): Promise<ReadResourceResult> {
    let h = this.host.get(server);
    if (h?.state.kind !== 'running' && this.beforeRead) {
      await this.beforeRead(server);
      h = this.host.get(server);
    }
    if (!h) throw new Error(`No MCP server named "${server}" is configured`);
    if (h.state.kind !== 'running') throw new Error(`MCP server "${server}" is not running`);
    return h.readResource(uri);
  }

  /** Opens a resource: one editor per content (text with its language, images in the image preview). */
  async open(server: string, uri: string): Promise<vscode.Uri[]> {
    const { contents } = await this.read(server, uri);
    if (!contents.length) throw new Error(`Resource ${uri} has no contents`);
    const refs: ResourceRef[] = contents.length === 1 ? [{ server, uri }] : contents.map((_, part) => ({ server, uri, part }));
    const opened: vscode.Uri[] = [];
    for (const ref of refs) {
      const c = contents[ref.part ?? 0];
      const docUri = resourceDocUri(ref, c.mimeType, ref.part === undefined ? undefined : c.uri);
      this.track(server, uri, docUri);
      if ('blob' in c && isPreviewableImage(c.mimeType)) {
        await vscode.commands.executeCommand('vscode.open', docUri, { preview: refs.length === 1 });
      } else if ('blob' in c && !isTextMime(c.mimeType)) {
        // Other binary contents: a hex view (size, type, the first bytes), with Save As… and Open Anyway.
        await this.showBinary(ref, docUri, c.mimeType, Buffer.from(c.blob, 'base64'));
      } else {
        const doc = await vscode.workspace.openTextDocument(docUri);
        const lang = languageForMime(c.mimeType);
        const shown = lang && doc.languageId !== lang ? await vscode.languages.setTextDocumentLanguage(doc, lang) : doc;
        await vscode.window.showTextDocument(shown, { preview: refs.length === 1 });
      }
      opened.push(docUri);
    }
    return opened;
  }

  /** Offers a binary content: its hex view opens; Save As… writes the bytes, Open Anyway tries the editor for its type. */
  private async showBinary(ref: ResourceRef, docUri: vscode.Uri, mimeType: string | undefined, bytes: Buffer): Promise<void> {
    const name = docUri.path.split('/').pop() ?? 'resource';
    await resultDocuments.open(ref.server, `${name} (hex)`, hexView(ref.uri, mimeType, bytes), 'txt');
    const saveAs = vscode.l10n.t('Save As…'), openAnyway = vscode.l10n.t('Open Anyway');
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} is binary ({1}, {2}): shown as hex.', name, mimeType ?? vscode.l10n.t('no MIME type'), countOf(bytes.byteLength, 'byte')), saveAs, openAnyway).then(pick => {
      if (pick === saveAs) void vscode.commands.executeCommand(CommandIds.saveResourceAs, ref.server, ref.uri, ref.part);
      if (pick === openAnyway) void vscode.commands.executeCommand('vscode.open', docUri);
    });
  }

  /** Writes a resource content's bytes to `target` (asked when not given); resolves where, or undefined. */
  async saveAs(server: string, uri: string, part?: number, target?: vscode.Uri): Promise<vscode.Uri | undefined> {
    const { contents } = await this.read(server, uri);
    const c = contents[part ?? 0];
    if (!c) throw new Error(`Resource ${uri} of "${server}" has no content ${part ?? 0}`);
    const name = resourceDocUri({ server, uri, part }, c.mimeType, part === undefined ? undefined : c.uri).path.split('/').pop();
    const where = target ?? await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.joinPath(vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir()), name ?? 'resource'), title: vscode.l10n.t('Save {0}', uri) });
    if (!where) return undefined;
    await vscode.workspace.fs.writeFile(where, 'blob' in c ? Buffer.from(c.blob, 'base64') : Buffer.from(c.text, 'utf8'));
    return where;
  }

  async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    const bytes = await this.bytes(uri);
    return { type: vscode.FileType.File, ctime: 0, mtime: this.cache.get(this.key(uri))?.at ?? 0, size: bytes.byteLength, permissions: vscode.FilePermission.Readonly };
  }

  readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return this.bytes(uri);
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => {});
  }

  readDirectory(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP resources are read-only')); }
  createDirectory(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP resources are read-only')); }
  writeFile(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP resources are read-only')); }
  delete(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP resources are read-only')); }
  rename(): never { throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('MCP resources are read-only')); }

  private key(uri: vscode.Uri): string {
    const ref = parseResourceDocUri(uri);
    return `${ref.server}\n${ref.uri}`;
  }

  private async bytes(uri: vscode.Uri): Promise<Uint8Array> {
    const ref = parseResourceDocUri(uri);
    let result: ReadResourceResult;
    try {
      result = await this.read(ref.server, ref.uri);
    } catch (err) {
      throw vscode.FileSystemError.Unavailable(err instanceof Error ? err.message : String(err));
    }
    this.track(ref.server, ref.uri, uri);
    const { contents } = result;
    if (ref.part !== undefined) {
      const c = contents[ref.part];
      if (!c) throw vscode.FileSystemError.FileNotFound(uri);
      return contentBytes(c);
    }
    if (contents.length === 1) return contentBytes(contents[0]);
    return Buffer.from(contents.map((c, i) => `--- ${i + 1}/${contents.length}: ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''} ---\n${
      'text' in c ? c.text : `[binary, ${countOf(Buffer.from(c.blob, 'base64').byteLength, 'byte')}]`}`).join('\n\n'), 'utf8');
  }

  private track(server: string, uri: string, docUri: vscode.Uri): void {
    const key = `${server}\n${uri}`;
    let set = this.handedOut.get(key);
    if (!set) this.handedOut.set(key, set = new Set());
    set.add(docUri.toString());
  }

  private invalidate(server: string, uri: string): void {
    const key = `${server}\n${uri}`;
    this.cache.delete(key);
    const docs = this.handedOut.get(key);
    if (docs?.size) this.changed.fire([...docs].map(d => ({ type: vscode.FileChangeType.Changed, uri: vscode.Uri.parse(d) })));
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}

function contentBytes(c: Content): Uint8Array {
  return 'text' in c ? Buffer.from(c.text, 'utf8') : Buffer.from(c.blob, 'base64');
}

/** A readable file name: the last segment of the resource URI, with an extension from its MIME type. */
function fileName(uri: string, mimeType?: string): string {
  const last = uri.replace(/[?#].*$/, '').split(/[/:]/).filter(Boolean).pop() ?? 'resource';
  const safe = decodeSafe(last).replace(/[^\w.@+-]/g, '_').slice(0, 80) || 'resource';
  const ext = extensionForMime(mimeType);
  return ext && !safe.toLowerCase().endsWith(ext) ? `${safe}${ext}` : safe;
}

function decodeSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

/** MIME types whose bytes read as text (so a blob of them opens in the text editor). */
function isTextMime(m: string | undefined): boolean {
  return !!m && (/^text\//.test(m) || /[/+](json|xml|yaml|x-yaml|javascript|x-sh|sql|csv|markdown|toml)$/.test(m.split(';')[0]));
}

/** The hex view of binary contents: what it is, then up to the first 4 KiB as offset, hex and ASCII. */
export function hexView(uri: string, mimeType: string | undefined, bytes: Uint8Array, max = 4096): string {
  const lines = [`${uri}`, `${mimeType ?? vscode.l10n.t('no MIME type')}, ${countOf(bytes.byteLength, 'byte')}${bytes.byteLength > max ? vscode.l10n.t(' (the first {0} shown)', max) : ''}`, ''];
  for (let off = 0; off < Math.min(bytes.byteLength, max); off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, bytes.byteLength));
    const hex = [...row].map(b => b.toString(16).padStart(2, '0')).join(' ').padEnd(47);
    const ascii = [...row].map(b => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex}  ${ascii}`);
  }
  return lines.join('\n') + '\n';
}
