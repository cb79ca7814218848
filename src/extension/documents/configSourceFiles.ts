/**
 * The portable config files MCP Host reads servers from (issue 40, `mcpHost.configSources`), kept up to date: each
 * workspace folder's `.mcp.json` and the GitHub Copilot CLI's `~/.copilot/mcp-config.json`. Watched (created, edited,
 * removed), read through the one bounded reader (workspaceFiles.ts), parsed by `importConfig` (the importer's parser),
 * and handed to the server controller as layers (src/mcp/config/configSources.ts merges them). A file that cannot be
 * used is one problem naming the file and the fix; the other sources still count. `.vscode/mcp.json` is not read
 * here (VS Code starts those itself; coexistence.ts flags them).
 */
import * as vscode from 'vscode';
import { READ_CAPS, portableFile, type PortableSource, type SourceLayer, type ConfigError } from '../../mcp';
import { readWorkspaceText } from './workspaceFiles';
import { COPILOT_CONFIG } from '../trust/coexistence';
import * as settings from '../settings';

/** How the views and messages name the Copilot CLI file. */
export const COPILOT_LABEL = '~/.copilot/mcp-config.json';

/** What the files hold now: their servers as layers, their `inputs` (workspace scope), and their problems. */
export interface SourceFiles {
  layers: SourceLayer[];
  /** `inputs` of a `.mcp.json` in VS Code's mcp.json shape: workspace inputs. */
  inputs: unknown[];
  errors: ConfigError[];
  warnings: string[];
}

const EMPTY: SourceFiles = { layers: [], inputs: [], errors: [], warnings: [] };

/** Reads and watches the portable files `mcpHost.configSources` turns on (see the header). */
export class ConfigSourceFiles implements vscode.Disposable {
  private files: SourceFiles = EMPTY;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires after a read found something else than before. */
  readonly onDidChange = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];
  private reading: Promise<void> = Promise.resolve();
  /** Resolves once the first read is done (a sync before it sees no portable servers yet). */
  readonly ready: Promise<void>;

  constructor(private readonly copilotFile: string = COPILOT_CONFIG) {
    const read = () => void this.read();
    const watch = (pattern: vscode.GlobPattern) => {
      const w = vscode.workspace.createFileSystemWatcher(pattern);
      this.disposables.push(w, w.onDidCreate(read), w.onDidChange(read), w.onDidDelete(read));
    };
    watch('**/.mcp.json');
    const copilot = vscode.Uri.file(copilotFile);
    watch(new vscode.RelativePattern(vscode.Uri.joinPath(copilot, '..'), copilot.path.split('/').pop()!));
    this.disposables.push(
      vscode.workspace.onDidChangeWorkspaceFolders(read),
      vscode.workspace.onDidChangeConfiguration(e => { if (settings.affects(e, 'configSources')) read(); }),
    );
    this.ready = this.read();
  }

  /** What the files held at the last read. */
  current(): SourceFiles {
    return this.files;
  }

  /** Reads every enabled file again (one read at a time); fires onDidChange when anything differs. */
  read(): Promise<void> {
    this.reading = this.reading.then(async () => {
      const next = await this.readAll(settings.configSources());
      if (JSON.stringify(next) === JSON.stringify(this.files)) return;
      this.files = next;
      this.changed.fire();
    }).catch(() => undefined);
    return this.reading;
  }

  private async readAll(on: Record<PortableSource, boolean>): Promise<SourceFiles> {
    const out: SourceFiles = { layers: [], inputs: [], errors: [], warnings: [] };
    const folders = (vscode.workspace.workspaceFolders ?? []);
    if (on.mcpJson) {
      for (const folder of folders) {
        const label = folders.length > 1 ? `${folder.name}/.mcp.json` : '.mcp.json';
        const r = await readOne(vscode.Uri.joinPath(folder.uri, '.mcp.json'), label, 'mcpJson', out);
        if (!r) continue;
        out.layers.push({ source: 'mcpJson', label, servers: r.servers, ...(folders.length > 1 && { folder: folder.name }) });
        out.inputs.push(...r.inputs);
      }
    }
    if (on.copilotCli) {
      const r = await readOne(vscode.Uri.file(this.copilotFile), COPILOT_LABEL, 'copilotCli', out);
      if (r) out.layers.push({ source: 'copilotCli', label: COPILOT_LABEL, servers: r.servers });
    }
    return out;
  }

  dispose(): void {
    this.disposables.forEach(d => d.dispose());
  }
}

/** One file's servers and inputs, or undefined (missing, or unusable: its problem goes to `out`). */
async function readOne(uri: vscode.Uri, label: string, key: PortableSource, out: SourceFiles): Promise<{ servers: Record<string, unknown>; inputs: unknown[] } | undefined> {
  let read: { text: string } | { error: unknown };
  try {
    read = { text: await readWorkspaceText(uri, READ_CAPS.configFile) };
  } catch (error) {
    read = { error };
  }
  const r = portableFile(read, label, key);
  if (!r) return undefined;
  out.warnings.push(...r.warnings);
  if (!r.ok) { out.errors.push(...r.errors); return undefined; }
  return r;
}
