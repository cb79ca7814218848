/**
 * Living beside VS Code's built-in MCP support and other MCP clients. VS Code starts the servers of each folder's
 * `.vscode/mcp.json` itself (unless `chat.mcp.access` is "none"); Claude Code starts those of a folder's `.mcp.json`,
 * the GitHub Copilot CLI those of `~/.copilot/mcp-config.json`. A server configured there and in `mcpHost.servers`
 * under the same name is flagged in the Servers view (`alsoIn`), and importing `.vscode/mcp.json` offers to turn
 * VS Code's copy off.
 */
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { readWorkspaceText } from '../documents/workspaceFiles';
import { parse as parseJsonc } from 'jsonc-parser';
import { countOf } from '../../mcp';

/** VS Code's setting for its own MCP servers ("none" turns them off). */
export const VSCODE_MCP_ACCESS = { section: 'chat.mcp', key: 'access', off: 'none' } as const;

/** The label of VS Code's own file, whose servers `chat.mcp.access: none` turns off. */
export const VSCODE_MCP_JSON = '.vscode/mcp.json';
/** The user's GitHub Copilot CLI configuration. */
export const COPILOT_CONFIG = path.join(os.homedir(), '.copilot', 'mcp-config.json');

/** Server names per config file of another client, kept up to date; bounded (a file over 1 MiB is not read). */
export class McpJsonWatcher implements vscode.Disposable {
  private names = new Map<string, string>(); // server name → label of the first file that has it
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly userFiles: { file: string; label: string }[] = [{ file: COPILOT_CONFIG, label: '~/.copilot/mcp-config.json' }]) {
    const read = () => void this.read();
    for (const glob of ['**/.vscode/mcp.json', '**/.mcp.json']) {
      const watcher = vscode.workspace.createFileSystemWatcher(glob);
      this.disposables.push(watcher, watcher.onDidChange(read), watcher.onDidCreate(read), watcher.onDidDelete(read));
    }
    for (const u of userFiles) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(u.file)), path.basename(u.file)));
      this.disposables.push(watcher, watcher.onDidChange(read), watcher.onDidCreate(read), watcher.onDidDelete(read));
    }
    this.disposables.push(vscode.workspace.onDidChangeWorkspaceFolders(read),
      vscode.workspace.onDidChangeConfiguration(e => { if (e.affectsConfiguration('chat.mcp.access')) this.changed.fire(); }));
    read();
  }

  /** Where else `server` is configured and would be started by another client, if anywhere. */
  alsoIn(server: string): string | undefined {
    const where = this.names.get(server);
    const vscodeOff = vscode.workspace.getConfiguration(VSCODE_MCP_ACCESS.section).get<string>(VSCODE_MCP_ACCESS.key) === VSCODE_MCP_ACCESS.off;
    return where && vscodeOff && where.endsWith(VSCODE_MCP_JSON) ? undefined : where;
  }

  async read(): Promise<void> {
    const next = new Map<string, string>();
    const folders = vscode.workspace.workspaceFolders ?? [];
    const add = (names: string[], where: string) => { for (const n of names) if (!next.has(n)) next.set(n, where); };
    for (const folder of folders) {
      const prefix = folders.length > 1 ? `${folder.name}/` : '';
      add(await serverNames(vscode.Uri.joinPath(folder.uri, '.vscode', 'mcp.json')), `${prefix}${VSCODE_MCP_JSON}`);
    }
    for (const folder of folders) {
      const prefix = folders.length > 1 ? `${folder.name}/` : '';
      add(await serverNames(vscode.Uri.joinPath(folder.uri, '.mcp.json')), `${prefix}.mcp.json`);
    }
    for (const u of this.userFiles) add(await serverNames(vscode.Uri.file(u.file)), u.label);
    const same = next.size === this.names.size && [...next].every(([k, v]) => this.names.get(k) === v);
    this.names = next;
    if (!same) this.changed.fire();
  }

  dispose(): void { this.disposables.forEach(d => d.dispose()); }
}

/** The server names of a config file (`servers` of an mcp.json, `mcpServers` of the others), or none when it is missing, too large or unreadable. */
export async function serverNames(uri: vscode.Uri): Promise<string[]> {
  try {
    const json = parseJsonc(await readWorkspaceText(uri, 1024 * 1024)) as { servers?: unknown; mcpServers?: unknown } | undefined;
    const names = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);
    return [...names(json?.servers), ...names(json?.mcpServers)];
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
    void vscode.window.showWarningMessage(vscode.l10n.t('Imported {0} of the {1} of .vscode/mcp.json. VS Code\'s built-in MCP support still starts every server of that file, so the imported ones run twice; remove them from .vscode/mcp.json to run them only here.', imported, countOf(total, 'server')));
    return false;
  }
  const disable = vscode.l10n.t('Disable There');
  const pick = answer ?? await vscode.window.showInformationMessage(
    vscode.l10n.t('Imported every server of .vscode/mcp.json. VS Code\'s built-in MCP support starts them too, so each would run twice. Turn VS Code\'s MCP servers off in this workspace (chat.mcp.access: "none")?'),
    disable, vscode.l10n.t('Keep Both'));
  if (pick !== disable) return false;
  await access.update(VSCODE_MCP_ACCESS.key, VSCODE_MCP_ACCESS.off, vscode.ConfigurationTarget.Workspace);
  return true;
}
