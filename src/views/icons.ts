/**
 * Server, tool, prompt and resource icons in the trees: `iconFor` answers at once with the cached
 * light/dark files when they are ready, or undefined (the caller keeps its codicon) while the core's
 * IconStore writes or fetches them; `onDidChange` fires when one becomes ready so the trees re-render.
 */
import * as vscode from 'vscode';
import { chooseIcon, iconsOf, usableIcon, type IconStore, type IconSpec } from '../mcp/catalogue/icons';
import type { ServerHandle } from '../mcp';

export type TreeIconPath = vscode.Uri | { light: vscode.Uri; dark: vscode.Uri };

export class TreeIcons implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  /** Resolved files by server and icon src; undefined while pending or when it failed. */
  private readonly files = new Map<string, string | null>();
  private disposed = false;
  private pendingFire: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly store: IconStore, private readonly log?: (server: string, msg: string) => void) {}

  /** The icon of `item` (a tool, prompt, resource, template, or the server's `serverInfo`) of server `h`. */
  iconFor(h: ServerHandle | undefined, item: unknown): TreeIconPath | undefined {
    if (!h) return undefined;
    const icons = iconsOf(item);
    if (!icons.length) return undefined;
    const serverUrl = h.definition.type === 'stdio' ? undefined : h.definition.url;
    const usable = (i: IconSpec) => usableIcon(i, serverUrl);
    const light = chooseIcon(icons, 'light', usable);
    const dark = chooseIcon(icons, 'dark', usable);
    if (!light || !dark) return undefined;
    const lightFile = this.file(h.name, light, serverUrl);
    const darkFile = this.file(h.name, dark, serverUrl);
    if (!lightFile || !darkFile) return undefined;
    return lightFile === darkFile ? vscode.Uri.file(lightFile) : { light: vscode.Uri.file(lightFile), dark: vscode.Uri.file(darkFile) };
  }

  private file(server: string, icon: IconSpec, serverUrl: string | undefined): string | undefined {
    const key = `${server}\0${icon.src}`;
    if (this.files.has(key)) return this.files.get(key) ?? undefined;
    this.files.set(key, null);
    void this.store.file(server, icon, serverUrl).then(r => {
      if (this.disposed) return;
      if ('file' in r) {
        this.files.set(key, r.file);
        this.fireSoon();
      } else {
        this.log?.(server, `icon not shown: ${r.error}`);
      }
    });
    return undefined;
  }

  /** Icons often resolve in bursts (a tools list): one refresh for each burst. */
  private fireSoon(): void {
    if (this.pendingFire) return;
    this.pendingFire = setTimeout(() => { this.pendingFire = undefined; if (!this.disposed) this.changed.fire(); }, 50);
  }

  dispose(): void {
    this.disposed = true;
    if (this.pendingFire) clearTimeout(this.pendingFire);
    this.changed.dispose();
  }
}
