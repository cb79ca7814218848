/**
 * MCP Apps in the editor: one view (an editor panel) per server and tool, reused; opened when a tool that has a
 * UI is called from the Servers view, the palette or the model in @mcp chat. The rules for what a view may ask:
 * - tool calls only to tools of its own server that are visible to apps (`_meta.ui.visibility`), each through the
 *   same confirmation and grants as the model's tool calls in @mcp;
 * - links open through the one confirm-and-open path (src/extension/ui/externalUrl.ts: parsed once, https: and loopback
 *   http: only, no user info; the dialog shows the URL that is then opened);
 * - its dialogs (confirmations, links) come one at a time, its pending requests and message rate are capped
 *   (transport.ts), and closing the view denies what still waits (src/mcp/apps/bounds.ts);
 * - `ui/message` lands in the @mcp chat input, for the user to send; `ui/update-model-context` is added to the
 *   next @mcp request, which says so;
 * - `ui/download-file`: a modal naming the server, the tool and the file (its name made safe, its type and size),
 *   then a Save dialog (in the first workspace folder), then `workspace.fs`; one download at a time;
 * - permissions (camera, microphone, geolocation, clipboard write) the resource declares are asked once per server
 *   definition and resource (a modal), remembered like tool grants (src/extension/trust/grants.ts, keyed by the
 *   definition key); the frame's `allow` holds only what was agreed;
 * - a call the model proposes opens the view before the user confirms it (`tool-input-partial`, view.ts).
 */
import * as vscode from 'vscode';
import * as os from 'os';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { byteSize, toolUi, visibleToApp, type AppPermissions, type DownloadItem, type HostApi, type OneAtATime, quoted } from '../../mcp';
import { ScopedGrants, type GrantMemento } from '../trust/grants';
import { grantKey, type ServerIdentity } from '../trust/identity';
import { confirmAndOpen, externalUrlUi, type ExternalUrlOutcome } from '../ui/externalUrl';
import type { TestSeams } from '../testSupport';
import type { Dialogs } from '../ui/dialogs';
import { AppView, APP_VIEW_TYPE, type AppViewServices } from './view';
import { CommandIds } from '../../views/commandIds';

export { AppView, APP_VIEW_TYPE };

export const AppCommandIds = { openAppView: CommandIds.openAppView, closeAppView: CommandIds.closeAppView, resetAppPermissions: CommandIds.resetAppPermissions } as const;

/** What "Reset MCP App Permissions…" resets: one server's (its name, or its tree node), or every server's. */
export type ResetPermissionsTarget = string | { server?: string; name?: string } | { all: true };

/** How the registry asks the user (replaceable for tests). */
export interface AppViewsUi {
  /**
   * The confirmation of a tool call the view asks for: the @mcp participant's rules. `closed` aborts when the view
   * closes (the answer is then ignored; a dialog that can close should).
   */
  approveTool(server: string, tool: Tool, args: Record<string, unknown>, closed: AbortSignal): Promise<boolean>;
  /** Whether to save a file the view hands over (default: a modal naming server, tool, file, type and size). */
  confirmDownload?(ask: DownloadAsk, closed: AbortSignal): Promise<boolean>;
  /** Where to save it (default: the Save dialog); undefined when the user cancelled. */
  saveAs?(ask: DownloadAsk & { defaultUri: vscode.Uri }, closed: AbortSignal): Promise<vscode.Uri | undefined>;
  /** Whether the view's frame may have the permissions its resource declares (default: a modal). */
  approvePermissions?(ask: PermissionsAsk, closed: AbortSignal): Promise<boolean>;
}

/** A file a view asks to save: who asks, the safe name, the type the view gave, the size in bytes. */
export interface DownloadAsk { server: string; tool: string; name: string; mimeType?: string; size: number }
/** Permissions a view's resource declares (names as in the spec: camera, microphone, geolocation, clipboardWrite). */
export interface PermissionsAsk { server: string; tool: string; uri: string; permissions: (keyof AppPermissions)[] }

/** Where app permission grants are stored (per scope, like tool grants). */
export const APP_PERMISSIONS_KEY = 'mcpHost.appPermissionGrants';
const permissionName = (p: keyof AppPermissions): string => ({
  camera: vscode.l10n.t('camera'), microphone: vscode.l10n.t('microphone'), geolocation: vscode.l10n.t('location'), clipboardWrite: vscode.l10n.t('writing to the clipboard'),
})[p];

export interface AppViewsOptions {
  host: HostApi;
  extensionUri: vscode.Uri;
  version: string;
  ui: AppViewsUi;
  /** The window's modal dialogs (ui/dialogs.ts): the download, permission and reset questions, through its one governor. */
  dialogs: Dialogs;
  log(server: string, level: 'info' | 'warning' | 'error', message: string): void;
  /** Who a server is (scope and definition key): app permission grants are keyed by it. Without it nothing is granted. */
  identity?: (server: string) => ServerIdentity | undefined;
  /** Where "always" grants are kept, per scope. */
  mementos?: { user?: GrantMemento; workspace?: GrantMemento };
  /** Test-only replacement of the external-URL dialog and open (testSupport.ts; given in test mode only). */
  seams?: Pick<TestSeams, 'externalUrlUi'>;
}

export class AppViews implements vscode.Disposable {
  private readonly views = new Map<string, AppView>();
  private readonly _onDidChange = new vscode.EventEmitter<AppView>();
  /** Any change of any view (loaded, initialized, model context, stale, closed). */
  readonly onDidChange = this._onDidChange.event;
  private readonly services: AppViewServices;
  private readonly commands: vscode.Disposable[];
  private readonly permissionGrants: ScopedGrants;
  /** Permission asks the user declined this session (not asked again until a reload of the window). */
  private readonly permissionsDeclined = new Set<string>();

  /** A view's `ui/message` filled the chat input and the user has not sent a chat request since (H355). */
  private messageWaiting = false;
  private messageRefusedLogged = false;

  /** The user sent an @mcp request (a user act): a view's next `ui/message` may fill the chat input again. */
  userActed(): void {
    this.messageWaiting = false;
  }

  /** The dialogs (replaceable for tests). */
  get ui(): AppViewsUi { return this.o.ui; }
  set ui(ui: AppViewsUi) { this.o.ui = ui; }

  constructor(private readonly o: AppViewsOptions) {
    this.permissionGrants = new ScopedGrants(o.mementos ?? {}, APP_PERMISSIONS_KEY);
    this.services = {
      download: (server, tool, item, dialogs) => this.download(server, tool, item, dialogs),
      permissions: (server, tool, uri, declared, dialogs) => this.permissions(server, tool, uri, declared, dialogs),
      host: o.host,
      extensionUri: o.extensionUri,
      hostInfo: { name: 'MCP Host', version: o.version },
      callTool: (server, tool, args, dialogs) => this.callFromView(server, tool, args, dialogs),
      openLink: (server, tool, url, dialogs) => this.openLink(server, tool, url, dialogs),
      sendToChat: async (server, tool, text) => {
        // One message per user act (H355): after one fills the chat input (and focuses the chat), the views' next
        // ones are refused until the user sends a chat request; one log line per refused burst.
        if (this.messageWaiting) {
          if (!this.messageRefusedLogged) o.log(server, 'warning', `MCP App of ${tool}: a message for the chat was refused: one is waiting in the @mcp chat input for you to send (views put one message there per request you send)`);
          this.messageRefusedLogged = true;
          return false;
        }
        this.messageWaiting = true;
        this.messageRefusedLogged = false;
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp ${text}`, isPartialQuery: true });
        o.log(server, 'info', `MCP App of ${tool}: a message for the chat was put into the @mcp chat input`);
        return true;
      },
      log: o.log,
      changed: view => {
        if (view.isDisposed && this.views.get(key(view.server, view.tool.name)) === view) this.views.delete(key(view.server, view.tool.name));
        this._onDidChange.fire(view);
      },
    };
    this.commands = [
      vscode.commands.registerCommand(AppCommandIds.openAppView, (server?: string, tool?: string) => this.focus(server, tool)),
      vscode.commands.registerCommand(AppCommandIds.closeAppView, async () => {
        const v = [...this.views.values()].find(x => x.panel.active);
        await v?.close();
      }),
      vscode.commands.registerCommand(AppCommandIds.resetAppPermissions, (target?: ResetPermissionsTarget) => this.resetPermissionsCommand(target)),
    ];
  }

  /** The `ui://` URI of a tool's view, if it has one the host renders. */
  static uiOf(tool: Tool | undefined): string | undefined { return toolUi(tool); }

  /** Open views (tests, the chat's model context). */
  get all(): readonly AppView[] { return [...this.views.values()]; }

  get(server: string, tool: string): AppView | undefined { return this.views.get(key(server, tool)); }

  /**
   * Opens (or reuses) the view of `tool` and delivers the call's input; returns the view, to which the caller
   * delivers the result. Undefined when the tool has no UI.
   */
  open(server: string, tool: Tool, args: Record<string, unknown>, opts: { preserveFocus?: boolean } = {}): AppView | undefined {
    const view = this.viewFor(server, tool);
    view?.input(args, opts.preserveFocus);
    return view;
  }

  private viewFor(server: string, tool: Tool): AppView | undefined {
    const uri = toolUi(tool);
    if (!uri) return undefined;
    let view = this.views.get(key(server, tool.name));
    if (view && view.uri !== uri) { view.dispose(); view = undefined; }
    if (!view) {
      view = new AppView(this.services, server, tool, uri);
      this.views.set(key(server, tool.name), view);
    }
    return view;
  }

  /**
   * A call the model proposed, before the user confirmed it: opens (or reuses) the view, which gets the arguments as
   * `tool-input-partial`. The caller follows with `open` (confirmed) or the view's `cancelled` (declined).
   */
  propose(server: string, tool: Tool, args: Record<string, unknown>, opts: { preserveFocus?: boolean } = {}): AppView | undefined {
    const view = this.viewFor(server, tool);
    view?.proposed(args, opts.preserveFocus);
    return view;
  }

  /** Focuses the open view of a tool (the chat's button); says so when it was closed. */
  private async focus(server?: string, tool?: string): Promise<void> {
    const view = server && tool ? this.views.get(key(server, tool)) : undefined;
    if (view) { view.reveal(); return; }
    void vscode.window.showInformationMessage(vscode.l10n.t('The view of tool {0} (MCP server {1}) was closed; call the tool again to open it.', quoted(tool ?? ''), quoted(server ?? '')));
  }

  /** Model context the open views gave (`ui/update-model-context`), for the next @mcp request. */
  modelContexts(): { server: string; tool: string; text: string }[] {
    return this.all.filter(v => v.modelContext).map(v => ({ server: v.server, tool: v.tool.name, text: v.modelContext! }));
  }

  private async callFromView(server: string, tool: Tool, args: Record<string, unknown>, dialogs: OneAtATime): Promise<CallToolResult> {
    if (!visibleToApp(tool)) {
      this.o.log(server, 'warning', `MCP App: refused a call of tool "${tool.name}": it is not visible to apps (_meta.ui.visibility)`);
      throw new Error(`Tool "${tool.name}" of MCP server "${server}" is not available to apps`);
    }
    if (!await dialogs.run(closed => this.o.ui.approveTool(server, tool, args, closed), false)) throw new Error(`The user declined to run the tool "${tool.name}"`);
    if (dialogs.signal.aborted) throw new Error(`The view of tool "${tool.name}" was closed`);
    const h = this.o.host.get(server);
    if (!h || h.state.kind !== 'running') throw new Error(`MCP server "${server}" is not running`);
    return h.callTool(tool.name, args, { by: 'view' });
  }

  private async openLink(server: string, tool: string, url: string, dialogs: OneAtATime): Promise<boolean> {
    const r = await dialogs.run<ExternalUrlOutcome | undefined>(closed => confirmAndOpen(url, {
      asker: `The view of tool ${quoted(tool)} (MCP server ${quoted(server)})`, button: vscode.l10n.t('Open Link'), closed,
    }, externalUrlUi(this.o.dialogs, this.o.seams)), undefined);
    if (!r) return false; // the view closed before the dialog's turn
    if (r.outcome === 'refused') this.o.log(server, 'warning', `MCP App of ${tool}: refused to open a link: ${r.reason}`);
    return r.outcome === 'opened';
  }

  /** A file from a view: the modal (in turn), then the Save dialog (in turn), then the write. */
  private async download(server: string, tool: string, item: DownloadItem & { bytes: Uint8Array }, dialogs: OneAtATime): Promise<boolean> {
    const ask: DownloadAsk = { server, tool, name: item.name, mimeType: item.mimeType, size: item.bytes.byteLength };
    const ui = this.o.ui;
    if (!await dialogs.run(closed => (ui.confirmDownload ?? (a => confirmDownload(this.o.dialogs, a)))(ask, closed), false)) {
      this.o.log(server, 'info', `MCP App of ${tool}: the user did not save ${quoted(item.name)} (${byteSize(ask.size)})`);
      return false;
    }
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri ?? vscode.Uri.file(os.homedir());
    const target = await dialogs.run(closed => (ui.saveAs ?? saveAs)({ ...ask, defaultUri: vscode.Uri.joinPath(folder, item.name) }, closed), undefined);
    if (!target || dialogs.signal.aborted) return false;
    await vscode.workspace.fs.writeFile(target, item.bytes);
    this.o.log(server, 'info', `MCP App of ${tool}: saved ${quoted(item.name)} (${byteSize(ask.size)}) to ${target.scheme === 'file' ? target.fsPath : target.toString()}`);
    return true;
  }

  /** Of the declared permissions, those the user agreed to: asked once per server definition, resource and set. */
  private async permissions(server: string, tool: string, uri: string, declared: AppPermissions, dialogs: OneAtATime): Promise<AppPermissions> {
    const none: AppPermissions = { camera: false, microphone: false, geolocation: false, clipboardWrite: false };
    const names = (Object.keys(none) as (keyof AppPermissions)[]).filter(k => declared[k] === true);
    if (!names.length) return none;
    const id = this.o.identity?.(server);
    if (!id) {
      this.o.log(server, 'warning', `MCP App of ${tool}: the view's permissions (${names.join(', ')}) were not granted: the server's definition is unknown`);
      return none;
    }
    const k = grantKey(id, `app-permissions ${uri} ${names.join(',')}`);
    const all = { ...none, ...Object.fromEntries(names.map(n => [n, true])) } as AppPermissions;
    if (this.permissionGrants.standing(id.scope, k)) return all;
    if (this.permissionsDeclined.has(k)) return none;
    const ui = this.o.ui;
    if (!await dialogs.run(closed => (ui.approvePermissions ?? (a => approvePermissions(this.o.dialogs, a)))({ server, tool, uri, permissions: names }, closed), false)) {
      this.permissionsDeclined.add(k);
      this.o.log(server, 'info', `MCP App of ${tool}: the user did not allow ${names.join(', ')} for ${uri}`);
      return none;
    }
    await this.permissionGrants.record(id.scope, k, 'always');
    this.o.log(server, 'info', `MCP App of ${tool}: the user allowed ${names.join(', ')} for ${uri}`);
    return all;
  }

  /** Forgets every permission given to (or declined for) views, of every server (tests; the command's "all"). */
  async resetPermissions(): Promise<void> {
    this.permissionsDeclined.clear();
    await this.permissionGrants.clear();
  }

  /**
   * "MCP Host: Reset MCP App Permissions…": picks a server or all (unless given), confirms in a modal, then forgets
   * the permissions (camera, microphone, location, clipboard write) granted to — and declined for — that server's
   * views, under every definition it had; its open views that hold any reload without them (the next load asks
   * again). Resolves how many grants were forgotten, undefined when cancelled. Needs no trust: it only takes away.
   */
  async resetPermissionsCommand(target?: ResetPermissionsTarget): Promise<number | undefined> {
    let server: string | undefined;
    if (target && typeof target === 'object' && 'all' in target && target.all === true) server = undefined;
    else if (typeof target === 'string') server = target;
    else if (target && typeof target === 'object' && ('server' in target || 'name' in target)) server = typeof target.server === 'string' ? target.server : typeof target.name === 'string' ? target.name : undefined;
    else {
      const all = `$(globe) ${vscode.l10n.t('All MCP servers')}`;
      const pick = await vscode.window.showQuickPick([
        { label: all, description: vscode.l10n.t('every permission granted to MCP App views') },
        ...this.o.host.servers.map(h => ({ label: h.name, description: h.definition.type })),
      ], { title: vscode.l10n.t('Reset MCP App Permissions'), placeHolder: vscode.l10n.t('Whose App views should ask again for camera, microphone, location and clipboard access?') });
      if (!pick) return undefined;
      server = pick.label === all ? undefined : pick.label;
    }
    const whose = server === undefined ? vscode.l10n.t('every MCP server') : vscode.l10n.t('MCP server {0}', quoted(server));
    const reset = vscode.l10n.t('Reset');
    const answer = await this.o.dialogs.ask({
      severity: 'warning', message: vscode.l10n.t('Reset the permissions granted to the App views of {0}?', whose),
      detail: vscode.l10n.t('Camera, microphone, location and clipboard access allowed for them are forgotten (and so are the ones you declined). Open views that hold any reload without them; each view asks again the next time it loads.'),
      buttons: [{ title: reset }, { title: vscode.l10n.t('Cancel'), isCloseAffordance: true }],
    });
    if (answer !== reset) return undefined;
    // A grant key begins with the server's scope and name (src/extension/trust/identity.ts grantKey), then its definition key.
    const id = server === undefined ? undefined : this.o.identity?.(server);
    const prefix = id ? `${id.scopeKey}:${id.name}:` : undefined;
    const match = (k: string) => server === undefined || (prefix !== undefined && k.startsWith(prefix));
    for (const k of [...this.permissionsDeclined]) if (match(k)) this.permissionsDeclined.delete(k);
    const n = await this.permissionGrants.forget(match);
    const reloaded = this.all.filter(v => (server === undefined || v.server === server) && Object.values(v.granted).some(Boolean));
    for (const v of reloaded) v.reload();
    const what = `${n} permission grant${n === 1 ? '' : 's'} of the App views of ${whose}`;
    if (server !== undefined) this.o.log(server, 'info', `MCP App: the user reset ${what}${reloaded.length ? `; ${reloaded.length} open view(s) reload without them` : ''}`);
    void vscode.window.showInformationMessage(n === 1
      ? vscode.l10n.t('MCP Host: forgot 1 permission grant of the App views of {0}; their views ask again the next time they load.', whose)
      : vscode.l10n.t('MCP Host: forgot {0} permission grants of the App views of {1}; their views ask again the next time they load.', n, whose));
    return n;
  }

  dispose(): void {
    for (const v of this.views.values()) v.dispose();
    this.views.clear();
    this.commands.forEach(c => c.dispose());
    this._onDidChange.dispose();
  }
}

async function confirmDownload(dialogs: Dialogs, a: DownloadAsk): Promise<boolean> {
  const save = vscode.l10n.t('Save As…');
  const r = await dialogs.ask({
    severity: 'warning', message: vscode.l10n.t('The view of tool {0} (MCP server {1}) wants to save a file: {2}', quoted(a.tool), quoted(a.server), quoted(a.name)),
    detail: vscode.l10n.t('Type: {0}\nSize: {1}\nYou choose where it is saved next.', a.mimeType ?? vscode.l10n.t('not given'), byteSize(a.size)), buttons: [{ title: save }],
  });
  return r === save;
}

async function saveAs(a: DownloadAsk & { defaultUri: vscode.Uri }): Promise<vscode.Uri | undefined> {
  return vscode.window.showSaveDialog({ defaultUri: a.defaultUri, saveLabel: vscode.l10n.t('Save'), title: vscode.l10n.t('Save {0} from MCP server {1}', a.name, a.server) });
}

/** The permission modal (through src/extension/ui/dialogs.ts, so tests read it as shown); the URI is server text, quoted. */
async function approvePermissions(dialogs: Dialogs, a: PermissionsAsk): Promise<boolean> {
  const allow = vscode.l10n.t('Allow');
  const what = a.permissions.map(permissionName).join(', ');
  const r = await dialogs.ask({
    severity: 'warning', message: vscode.l10n.t('The view of tool {0} (MCP server {1}) asks for: {2}', quoted(a.tool), quoted(a.server), what),
    detail: vscode.l10n.t('Its resource {0} declares these permissions. Allowed, its frame gets them each time it loads, until this server\'s definition changes or you reset them (MCP Host: Reset MCP App Permissions…). The editor may still ask before the camera, microphone or location is used.', quoted(a.uri, 200)),
    buttons: [{ title: allow }, { title: vscode.l10n.t('Don\'t Allow'), isCloseAffordance: true }],
  });
  return r === allow;
}

function key(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
