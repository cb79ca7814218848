/**
 * Tool, prompt and task results as read-only documents of a virtual scheme (`mcp-host-result:`), never dirty
 * Untitled buffers: closing them never asks to save. The tab reads "<tool> result (n).md" under the server's name.
 * The last MAX_RESULTS texts are kept in memory; an older one says it is gone.
 */
import * as vscode from 'vscode';

export const RESULT_SCHEME = 'mcp-host-result';
export const MAX_RESULTS = 50;

/** A path segment from server text: no separators or control characters, bounded. */
function segment(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_').trim().slice(0, 80);
  return clean || '_';
}

export class ResultDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private seq = 0;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path) ?? `(This result is no longer kept: MCP Host keeps the last ${MAX_RESULTS} results. Run it again.)`;
  }

  /** Keeps `content` and opens it as a read-only document titled `<title> (n).md` (or `.txt`) under `server`. */
  async open(server: string, title: string, content: string, ext: 'md' | 'txt' = 'md'): Promise<vscode.TextDocument> {
    const path = `/${segment(server)}/${segment(title)} (${++this.seq}).${ext}`;
    this.texts.set(path, content);
    while (this.texts.size > MAX_RESULTS) this.texts.delete(this.texts.keys().next().value!);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.from({ scheme: RESULT_SCHEME, path }));
    await vscode.window.showTextDocument(doc, { preview: false });
    return doc;
  }
}

/** The one store (registered as the scheme's provider by the extension). */
export const resultDocuments = new ResultDocuments();
