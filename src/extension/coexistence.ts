/**
 * Living beside VS Code's built-in MCP support: it starts the servers of each folder's `.vscode/mcp.json` itself
 * (unless `chat.mcp.access` is "none"). A server configured there and in `mcpHost.servers` under the same name runs
 * twice: the Servers view says so (`alsoIn`), and importing that file offers to turn VS Code's copy off.
 */
import * as vscode from 'vscode';
import { parse as parseJsonc } from 'jsonc-parser';
import { countOf } from '../mcp/logging/display';

/** VS Code's setting for its own MCP servers ("none" turns them off). */
export const VSCODE_MCP_ACCESS = { section: 'chat.mcp', key: 'access', off: 'none' } as const;

/** Server names per folder's `.vscode/mcp.json`, kept up to date; bounded (a file over 1 MiB is not read). */
export class McpJsonWatcher implements vscode.Disposable {
  private names = new Map<string, string>(); // server name → "folder/.vscode/mcp.json"
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher('**/.vscode/mcp.json');
    this.disposables.push(watcher, watcher.onDidChange(() => void this.read()), watcher.onDidCreate(() => void this.read()),
      watcher.onDidDelete(() => void this.read()), vscode.workspace.onDidChangeWorkspaceFolders(() => void this.read()),
      vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('chat.mcp.access')) this.changed.fire(); }));
    void this.read();
  }

  /** Where else `server` is configured and would be started by VS Code itself, if anywhere. */
  alsoIn(server: string): string | undefined {
    if (vscode.workspace.getConfiguration(VSCODE_MCP_ACCESS.section).get<string>(VSCODE_MCP_ACCESS.key) === VSCODE_MCP_ACCESS.off) return undefined;
    return this.names.get(server);
  }

  async read(): Promise<void> {
    const next = new Map<string, string>();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const uri = vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json');
      const names = await serverNames(uri);
      const where = (vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? `${folder.name}/.vscode/mcp.json` : '.vscode/mcp.json';
      for (const n of names) if (!next.has(n)) next.set(n, where);
    }
    const same = next.size === this.names.size && [...next].every(([k, v]) => this.names.get(k) === v);
    this.names = next;
    if (!same) this.changed.fire();
  }

  dispose(): void { this.disposables.forEach(d => d.dispose()); }
}

/** The server names of an mcp.json (`servers`), or none when it is missing, too large or unreadable. */
export async function serverNames(uri: vscode.Uri): Promise<string[]> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.size > 1024 * 1024) return [];
    const json = parseJsonc(Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8')) as { servers?: unknown } | undefined;
    return json?.servers && typeof json.servers === 'object' ? Object.keys(json.servers as object) : [];
  } catch {
    return [];
  }
}

/**
 * After importing `.vscode/mcp.json`: every one of its servers imported → offer to turn VS Code's copy off (only
 * then: "none" stops all of that file's servers); some left out → say that VS Code still runs the imported ones too.
 * `answer` picks a button without asking (tests, other extensions). Resolves whether VS Code's copy was turned off.
 */
export async function afterMcpJsonImport(imported: number, total: number, answer?: string): Promise<boolean> {
  const access = vscode.workspace.getConfiguration(VSCODE_MCP_ACCESS.section);
  if (access.get<string>(VSCODE_MCP_ACCESS.key) === VSCODE_MCP_ACCESS.off || imported === 0) return false;
  if (imported < total) {
    void vscode.window.showWarningMessage(`Imported ${imported} of the ${countOf(total, 'server')} of .vscode/mcp.json. VS Code's built-in MCP support still starts every server of that file, so the imported ones run twice; remove them from .vscode/mcp.json to run them only here.`);
    return false;
  }
  const disable = 'Disable There';
  const pick = answer ?? await vscode.window.showInformationMessage(
    `Imported every server of .vscode/mcp.json. VS Code's built-in MCP support starts them too, so each would run twice. Turn VS Code's MCP servers off in this workspace (chat.mcp.access: "none")?`,
    disable, 'Keep Both');
  if (pick !== disable) return false;
  await access.update(VSCODE_MCP_ACCESS.key, VSCODE_MCP_ACCESS.off, vscode.ConfigurationTarget.Workspace);
  return true;
}
