import * as vscode from 'vscode';
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { HostApi } from '../mcp';
import { extensionForMime, isPreviewableImage, languageForMime } from './mime';

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

/** Builds the document URI of a resource (or of one of its contents, named after `contentUri`). */
export function resourceDocUri(ref: ResourceRef, mimeType?: string, contentUri?: string): vscode.Uri {
  const authority = Buffer.from(ref.server, 'utf8').toString('hex');
  return vscode.Uri.from({
    scheme: RESOURCE_SCHEME,
    authority,
    path: `/${Buffer.from(ref.uri, 'utf8').toString('base64url')}/${fileName(contentUri ?? ref.uri, mimeType)}`,
    query: ref.part === undefined ? '' : `part=${ref.part}`,
  });
}

/** Parses a document URI made by `resourceDocUri`. */
export function parseResourceDocUri(uri: vscode.Uri): ResourceRef {
  const server = Buffer.from(uri.authority, 'hex').toString('utf8');
  // The resource URI travels base64url-encoded: percent-encoding does not survive the workbench's URI handling.
  const seg = uri.path.split('/')[1];
  if (!server || !seg) throw vscode.FileSystemError.FileNotFound(uri);
  const m = /(?:^|&)part=(\d+)/.exec(uri.query);
  return { server, uri: Buffer.from(seg, 'base64url').toString('utf8'), part: m ? Number(m[1]) : undefined };
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
  log?: (message: string) => void;

  constructor(private readonly host: HostApi) {
    this.sub = host.onDidUpdateResource(({ server, uri }) => this.invalidate(server, uri));
  }

  /** Reads a resource through the short-lived cache. */
  read(server: string, uri: string): Promise<ReadResourceResult> {
    const key = `${server}\n${uri}`;
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.result;
    const h = this.host.get(server);
    if (!h) return Promise.reject(new Error(`No MCP server named "${server}"`));
    if (h.state.kind !== 'running') return Promise.reject(new Error(`MCP server "${server}" is not running`));
    const result = h.readResource(uri);
    this.cache.set(key, { at: Date.now(), result });
    result.catch(() => this.cache.delete(key));
    return result;
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

  readDirectory(): never { throw vscode.FileSystemError.NoPermissions('MCP resources are read-only'); }
  createDirectory(): never { throw vscode.FileSystemError.NoPermissions('MCP resources are read-only'); }
  writeFile(): never { throw vscode.FileSystemError.NoPermissions('MCP resources are read-only'); }
  delete(): never { throw vscode.FileSystemError.NoPermissions('MCP resources are read-only'); }
  rename(): never { throw vscode.FileSystemError.NoPermissions('MCP resources are read-only'); }

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
      'text' in c ? c.text : `[binary, ${Buffer.from(c.blob, 'base64').byteLength} bytes]`}`).join('\n\n'), 'utf8');
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
