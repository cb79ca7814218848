/**
 * MCP Apps in the editor: one view (an editor panel) per server and tool, reused; opened when a tool that has a
 * UI is called from the Servers view, the palette or the model in @mcp chat. The rules for what a view may ask:
 * - tool calls only to tools of its own server that are visible to apps (`_meta.ui.visibility`), each through the
 *   same confirmation and grants as the model's tool calls in @mcp;
 * - links open through the one confirm-and-open path (src/extension/externalUrl.ts: parsed once, https: and loopback
 *   http: only, no user info; the dialog shows the URL that is then opened);
 * - its dialogs (confirmations, links) come one at a time, its pending requests and message rate are capped
 *   (transport.ts), and closing the view denies what still waits (src/mcp/apps/bounds.ts);
 * - `ui/message` lands in the @mcp chat input, for the user to send; `ui/update-model-context` is added to the
 *   next @mcp request, which says so.
 */
import * as vscode from 'vscode';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { toolUi, visibleToApp, type HostApi, type OneAtATime } from '../../mcp';
import { quoted } from '../../mcp/logging/display';
import { confirmAndOpen, type ExternalUrlOutcome } from '../externalUrl';
import { AppView, APP_VIEW_TYPE, type AppViewServices } from './view';
import { CommandIds } from '../../views/commandIds';

export { AppView, APP_VIEW_TYPE };

export const AppCommandIds = { openAppView: CommandIds.openAppView, closeAppView: CommandIds.closeAppView } as const;

/** How the registry asks the user (replaceable for tests). */
export interface AppViewsUi {
  /**
   * The confirmation of a tool call the view asks for: the @mcp participant's rules. `closed` aborts when the view
   * closes (the answer is then ignored; a dialog that can close should).
   */
  approveTool(server: string, tool: Tool, args: Record<string, unknown>, closed: AbortSignal): Promise<boolean>;
}

export interface AppViewsOptions {
  host: HostApi;
  extensionUri: vscode.Uri;
  version: string;
  ui: AppViewsUi;
  log(server: string, level: 'info' | 'warning' | 'error', message: string): void;
}

export class AppViews implements vscode.Disposable {
  private readonly views = new Map<string, AppView>();
  private readonly _onDidChange = new vscode.EventEmitter<AppView>();
  /** Any change of any view (loaded, initialized, model context, stale, closed). */
  readonly onDidChange = this._onDidChange.event;
  private readonly services: AppViewServices;
  private readonly commands: vscode.Disposable[];

  /** The dialogs (replaceable for tests). */
  get ui(): AppViewsUi { return this.o.ui; }
  set ui(ui: AppViewsUi) { this.o.ui = ui; }

  constructor(private readonly o: AppViewsOptions) {
    this.services = {
      host: o.host,
      extensionUri: o.extensionUri,
      hostInfo: { name: 'MCP Host', version: o.version },
      callTool: (server, tool, args, dialogs) => this.callFromView(server, tool, args, dialogs),
      openLink: (server, tool, url, dialogs) => this.openLink(server, tool, url, dialogs),
      sendToChat: async (server, tool, text) => {
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp ${text}`, isPartialQuery: true });
        o.log(server, 'info', `MCP App of ${tool}: a message for the chat was put into the @mcp chat input`);
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
    const uri = toolUi(tool);
    if (!uri) return undefined;
    let view = this.views.get(key(server, tool.name));
    if (view && view.uri !== uri) { view.dispose(); view = undefined; }
    if (!view) {
      view = new AppView(this.services, server, tool, uri);
      this.views.set(key(server, tool.name), view);
    }
    view.input(args, opts.preserveFocus);
    return view;
  }

  /** Focuses the open view of a tool (the chat's button); says so when it was closed. */
  private async focus(server?: string, tool?: string): Promise<void> {
    const view = server && tool ? this.views.get(key(server, tool)) : undefined;
    if (view) { view.reveal(); return; }
    void vscode.window.showInformationMessage(`The view of tool ${quoted(tool ?? '')} (MCP server ${quoted(server ?? '')}) was closed; call the tool again to open it.`);
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
      asker: `The view of tool ${quoted(tool)} (MCP server ${quoted(server)})`, button: 'Open Link', closed,
    }), undefined);
    if (!r) return false; // the view closed before the dialog's turn
    if (r.outcome === 'refused') this.o.log(server, 'warning', `MCP App of ${tool}: refused to open a link: ${r.reason}`);
    return r.outcome === 'opened';
  }

  dispose(): void {
    for (const v of this.views.values()) v.dispose();
    this.views.clear();
    this.commands.forEach(c => c.dispose());
    this._onDidChange.dispose();
  }
}

function key(server: string, tool: string): string {
  return `${server}\u0000${tool}`;
}
