/**
 * A workspace file read through VS Code (`.vscode/settings.json`, a `.code-workspace`, `.mcp.json`): workspace
 * files are untrusted, so the read is bounded like every other (src/mcp/boundedRead.ts). A `file:` URI goes
 * through the one bounded reader; another scheme (a remote or virtual workspace) is stat-ed first — a regular
 * file within the cap — and only then read through `vscode.workspace.fs`.
 */
import * as vscode from 'vscode';
import { BoundedReadError, readBoundedText } from '../../mcp';

/** The text of `uri`, at most `maxBytes`; rejects (BoundedReadError for a non-file or an oversized one) otherwise. */
export async function readWorkspaceText(uri: vscode.Uri, maxBytes: number): Promise<string> {
  if (uri.scheme === 'file') return readBoundedText(uri.fsPath, { maxBytes, what: 'workspaceFile' });
  const st = await vscode.workspace.fs.stat(uri);
  if (!(st.type & vscode.FileType.File)) throw new BoundedReadError(uri.toString(), { kind: 'not-file', type: 'other' });
  if (st.size > maxBytes) throw new BoundedReadError(uri.toString(), { kind: 'too-large', maxBytes, what: 'workspaceFile', size: st.size });
  // eslint-disable-next-line no-restricted-syntax -- a remote or virtual file system: checked by the stat above (regular file, within the cap)
  const bytes = await vscode.workspace.fs.readFile(uri);
  if (bytes.byteLength > maxBytes) throw new BoundedReadError(uri.toString(), { kind: 'too-large', maxBytes, what: 'workspaceFile' });
  return Buffer.from(bytes).toString('utf8');
}
