/**
 * One MCP App view: an editor panel (a webview) framing the `ui://` resource of one tool of one server, and the
 * host side of the MCP Apps protocol (`AppBridge` from `@modelcontextprotocol/ext-apps`) over the webview's
 * message channel. The webview page (media/apps/host.js) runs the view in a sandboxed frame whose Content
 * Security Policy comes from the resource's `_meta.ui.csp` and nothing more, and whose `allow` (Permissions Policy)
 * holds only what the resource declares and the user agreed to. What the view asks of the host (tool calls, links,
 * chat messages, model context, downloads, permissions) goes through `AppViewServices`, where the rules live.
 *
 * This file holds the panel and its lifetime: loading the resource and a new bridge, delivering a call's input and
 * result, the page's messages, the server stopping and starting. The page itself is appPage.ts, the bridge's handlers
 * of the view's requests viewRequests.ts, the display modes (inline, fullscreen, pip as the editor's layout)
 * displayModes.ts.
 */
import * as vscode from 'vscode';
import type { AppBridge, McpUiDisplayMode, McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import type * as BridgeModule from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import { Protocol, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import {
  CallToolResultSchema, ContentBlockSchema, EmbeddedResourceSchema, EmptyResultSchema, ImplementationSchema, JSONRPCMessageSchema,
  LoggingMessageNotificationSchema, RequestIdSchema, ResourceLinkSchema, ToolSchema,
} from '@modelcontextprotocol/core';
import * as zod from 'zod/v4';
import { buildAppCsp, loadAppResource, OneAtATime, VIEW_LIMITS, type AppPermissions, type AppResource, type DownloadItem, type HostApi, quoted } from '../../mcp';
import { ViewTransport } from './transport';
import { appPage, pageNumber as num, pageState, styleVariables, type PageState } from './appPage';
import { DISPLAY_MODES, DisplayModes } from './displayModes';
import { ViewRequests } from './viewRequests';

export const APP_VIEW_TYPE = 'mcpHost.app';
/** How long a teardown request may take before the view is closed anyway. */
export const TEARDOWN_MS = 3_000;
/** What a view needs of the extension: the confirmation rules, the log, the chat. */
export interface AppViewServices {
  host: HostApi;
  extensionUri: vscode.Uri;
  hostInfo: { name: string; version: string };
  /**
   * A tool call the view asks for (already checked: same server, visible to apps); resolves the result or throws.
   * Its confirmation waits its turn in `dialogs` (one at a time per view; all denied when the view closes).
   */
  callTool(server: string, tool: Tool, args: Record<string, unknown>, dialogs: OneAtATime): Promise<CallToolResult>;
  /** Asks the user (in turn, through `dialogs`), then opens the link through the editor; resolves whether it was opened. */
  openLink(server: string, tool: string, url: string, dialogs: OneAtATime): Promise<boolean>;
  /**
   * Asks the user (in turn, through `dialogs`) to save one file the view hands over, then where; writes it. Resolves
   * whether it was saved.
   */
  download(server: string, tool: string, item: DownloadItem & { bytes: Uint8Array }, dialogs: OneAtATime): Promise<boolean>;
  /**
   * The permissions the view's frame gets: of those the resource declares, the ones the user agreed to (asked once
   * per server definition and resource, in turn through `dialogs`); none declared, none asked.
   */
  permissions(server: string, tool: string, uri: string, declared: AppPermissions, dialogs: OneAtATime): Promise<AppPermissions>;
  /** Puts a message from the view into the @mcp chat input, visibly; false when refused (one per user act, H355). */
  sendToChat(server: string, tool: string, text: string): Promise<boolean>;
  log(server: string, level: 'info' | 'warning' | 'error', message: string): void;
  /** Fired for tests and the views' registry. */
  changed(view: AppView): void;
}

/** What the panel last delivered, to deliver again after a reload. */
interface Delivery { args?: Record<string, unknown>; partial?: Record<string, unknown>; result?: CallToolResult; cancelled?: string }

export class AppView implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private bridge?: AppBridge;
  private transport?: ViewTransport;
  /** The dialogs of the current load (closed with it: what waits is denied). */
  dialogs = new OneAtATime();
  private probes: ((state: PageState) => void)[] = [];
  /** Pages generated so far: each load's page differs, so the webview reloads even when the resource is the same. */
  private loads = 0;
  private delivery: Delivery = {};
  private disposables: vscode.Disposable[] = [];
  private pageReady?: { theme: 'light' | 'dark'; variables: Record<string, string>; width: number; height: number };
  private loading?: Promise<void>;
  private disposed = false;
  /** The view answered `ui/initialize` and said it is initialized. */
  initialized = false;
  /** The server stopped since the view loaded. */
  stale = false;
  /** The last `ui/update-model-context` of the view, as text (for @mcp chat). */
  modelContext?: string;
  /** The Content Security Policy the view's document got (tests, the log). */
  policy?: string;
  /** The policy of the page that frames the view (its frame inherits it): the view's sources plus the page's own script. */
  pagePolicy?: string;
  /** How the page recognises the extension's messages ('frameElement' or 'frames'), from its last 'ready'. */
  pageSender?: string;
  /** Messages the host sent and got (method names, for tests and the log). */
  readonly trace: string[] = [];
  /** Counts for tests and the log: display mode requests, layout changes made for them, downloads refused while one ran. */
  readonly modeCounts = { requests: 0, changes: 0, refused: 0, downloadsRefused: 0 };
  /** The permissions the frame got at the last load (declared and agreed). */
  granted: AppPermissions = { camera: false, microphone: false, geolocation: false, clipboardWrite: false };
  private readonly modes: DisplayModes;
  private readonly requests: ViewRequests;

  constructor(private readonly s: AppViewServices, readonly server: string, readonly tool: Tool, readonly uri: string) {
    this.panel = vscode.window.createWebviewPanel(APP_VIEW_TYPE, `${tool.title ?? tool.name} — ${server}`, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(s.extensionUri, 'media', 'apps')],
    });
    this.panel.iconPath = vscode.Uri.joinPath(s.extensionUri, 'media', 'mcp.svg');
    this.modes = new DisplayModes(this, s.log);
    this.requests = new ViewRequests(s, this);
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage(m => this.onPage(m)),
      this.panel.onDidDispose(() => this.dispose()),
      this.s.host.onDidChangeState(e => { if (e.server === this.server) this.onServerState(e.state.kind); }),
    );
    this.panel.webview.html = this.page();
  }

  /**
   * Shows the panel with a call the model proposed, before the user confirmed it: the view gets the arguments as
   * `ui/notifications/tool-input-partial`; `input()` follows once confirmed, `cancelled()` when declined.
   */
  proposed(args: Record<string, unknown>, preserveFocus = false): void {
    this.delivery = { partial: args };
    this.panel.reveal(undefined, preserveFocus);
    if (this.initialized && this.bridge) void this.bridge.sendToolInputPartial({ arguments: args }).catch(err => this.warn('tool input (partial)', err));
    else void this.load();
  }

  /** Shows the panel and delivers a call's input (before the call) — the result follows with `result()`. */
  input(args: Record<string, unknown>, preserveFocus = false): void {
    this.delivery = { args };
    this.panel.reveal(undefined, preserveFocus);
    if (this.initialized && this.bridge) void this.bridge.sendToolInput({ arguments: args }).catch(err => this.warn('tool input', err));
    else void this.load();
  }

  result(result: CallToolResult): void {
    this.delivery.result = result;
    if (this.initialized && this.bridge) void this.bridge.sendToolResult(result).catch(err => this.warn('tool result', err));
  }

  cancelled(reason: string): void {
    this.delivery.cancelled = reason;
    if (this.initialized && this.bridge) void this.bridge.sendToolCancelled({ reason }).catch(err => this.warn('tool cancelled', err));
  }

  /** The host context the view gets now (theme, styles, size). */
  context(): McpUiHostContext { return this.hostContext(); }

  /** Counts of the view's messages (received, dropped over the rate, refused over the pending cap); tests and the log. */
  get counts(): { received: number; receivedChars: number; dropped: number; refused: number } | undefined { return this.transport?.counts; }

  /** The display mode in effect (`ui/request-display-mode`). */
  get displayMode(): McpUiDisplayMode { return this.modes.mode; }

  /** This view maximised its editor group (fullscreen) and will restore it (tests). */
  get groupMaximized(): boolean { return this.modes.maximized; }

  /** The view's dialogs waiting or on screen. */
  get dialogsWaiting(): number { return this.dialogs.waiting; }

  /** What the page shows now (banner, the frame's `allow` and sandbox, the policies), as the page itself reports it (tests). */
  probe(): Promise<PageState> {
    return new Promise(resolve => { this.probes.push(resolve); void this.panel.webview.postMessage({ type: 'probe' }); });
  }

  /** Sends a request to the bridge as the view would (tests); rejects when the view is not loaded. */
  async asView(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (!this.transport) throw new Error('the view is not loaded');
    return this.transport.asView(method, params);
  }

  reveal(preserveFocus = false): void { this.panel.reveal(undefined, preserveFocus); }

  /** Loads the view again (a new page and frame, its permissions asked for again unless still granted). */
  reload(): void { void this.load(); }

  /** Asks the view to tear down (bounded), then closes the panel (its editor group restored if the view maximised it). */
  async close(reason = 'closed by the user'): Promise<void> {
    await this.teardown(reason);
    await this.modes.restore();
    this.panel.dispose();
  }

  // ---------------------------------------------------------------------------------------------

  /** Fetches the resource and (re)starts the view in the page with a new bridge. */
  private load(): Promise<void> {
    if (!this.pageReady) return Promise.resolve(); // the page asks once it is ready
    return this.loading ??= this.doLoad().finally(() => { this.loading = undefined; });
  }

  private async doLoad(): Promise<void> {
    const h = this.s.host.get(this.server);
    if (!h || h.state.kind !== 'running') return this.banner(vscode.l10n.t('Server "{0}" is not running: this view is stale. It reloads when the server runs again.', this.server));
    this.closeBridge();
    this.dialogs = new OneAtATime();
    const dialogs = this.dialogs;
    let res: AppResource;
    try {
      res = await loadAppResource(h, this.tool.name, this.uri);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.s.log(this.server, 'error', `MCP App: ${message}`);
      return this.banner(vscode.l10n.t('The view could not be loaded: {0}', message));
    }
    if (this.disposed || dialogs.signal.aborted) return;
    // Camera, microphone, geolocation, clipboard write: only what the resource declares and the user agreed to.
    let granted: AppPermissions = { camera: false, microphone: false, geolocation: false, clipboardWrite: false };
    try {
      granted = await this.s.permissions(this.server, this.tool.name, this.uri, res.permissions, dialogs);
    } catch (err) {
      this.s.log(this.server, 'warning', `MCP App ${this.uri}: the view's permissions were not granted: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.granted = granted;
    res = { ...res, permissions: granted };
    if (this.disposed || dialogs.signal.aborted) return;
    if (res.csp.dropped.length) this.s.log(this.server, 'warning', `MCP App ${this.uri}: ignored CSP domains that are not plain https (or loopback) origins: ${res.csp.dropped.join(', ')}`);
    const { AppBridge } = await loadBridge();
    if (this.disposed || dialogs.signal.aborted) return;
    const transport = this.transport = new ViewTransport(this.panel.webview, m => this.s.log(this.server, 'warning', `MCP App ${this.uri}: ${m}`), this.who());
    const bridge = this.bridge = new AppBridge(null, this.s.hostInfo, {
      openLinks: {}, serverTools: {}, serverResources: {}, downloadFile: {}, logging: {},
      message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} },
      sandbox: {
        csp: { connectDomains: res.csp.connect, resourceDomains: res.csp.resource, frameDomains: res.csp.frame, baseUriDomains: res.csp.baseUri },
        permissions: Object.fromEntries(Object.entries(granted).filter(([, on]) => on).map(([k]) => [k, {}])),
      },
    }, { hostContext: this.hostContext() });
    this.requests.wire(bridge);
    await bridge.connect(transport);
    this.stale = false;
    this.initialized = false;
    this.policy = buildAppCsp(res.csp);
    // A new page: its policy allows what the view's does (a srcdoc frame inherits the page's policy, so a declared
    // domain must be allowed here too), the frame's `allow` is in its markup, the view's document is part of it.
    this.panel.webview.html = this.page(res);
    this.s.changed(this);
  }

  /** The view answered `ui/initialize` on bridge `b` and said it is initialized: it gets what the panel last delivered. */
  bridgeInitialized(b: AppBridge): void {
    this.initialized = true;
    this.trace.push('ui/notifications/initialized');
    const d = this.delivery;
    if (d.args) void b.sendToolInput({ arguments: d.args }).catch(err => this.warn('tool input', err));
    else if (d.partial) void b.sendToolInputPartial({ arguments: d.partial }).catch(err => this.warn('tool input (partial)', err));
    if (d.result) void b.sendToolResult(d.result).catch(err => this.warn('tool result', err));
    else if (d.cancelled) void b.sendToolCancelled({ reason: d.cancelled }).catch(err => this.warn('tool cancelled', err));
    this.s.changed(this);
  }

  private hostContext(): McpUiHostContext {
    const p = this.pageReady;
    return {
      toolInfo: { tool: this.tool },
      theme: p?.theme ?? (vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.Light || vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.HighContrastLight ? 'light' : 'dark'),
      ...(p ? { styles: { variables: p.variables as never } } : {}),
      displayMode: this.displayMode,
      availableDisplayModes: [...DISPLAY_MODES],
      ...(p ? { containerDimensions: { width: p.width, maxHeight: p.height } } : {}),
      locale: vscode.env.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `${this.s.hostInfo.name}/${this.s.hostInfo.version} (VS Code ${vscode.version})`,
      platform: 'desktop',
      deviceCapabilities: { hover: true, touch: false },
    };
  }

  /** A message from the webview page (not the view: those arrive as `{type:'app', text}`). */
  private onPage(m: unknown): void {
    if (!m || typeof m !== 'object') return;
    const msg = m as Record<string, unknown>;
    switch (msg.type) {
      case 'app':
        // Parts are acknowledged as they are taken in (the page sends more only then); between loads, at once.
        if (this.transport) this.transport.receivePart(msg);
        else void this.panel.webview.postMessage({ type: 'ack', chars: typeof msg.text === 'string' ? Math.min(msg.text.length, VIEW_LIMITS.viewPartChars) : 0 });
        break;
      case 'ready':
        this.pageReady = { theme: msg.theme === 'light' ? 'light' : 'dark', variables: styleVariables(msg.variables), width: num(msg.width), height: num(msg.height) };
        this.pageSender = typeof msg.sender === 'string' ? msg.sender.slice(0, 20) : undefined;
        // The first page (no view yet) asks for the view; a page with the view only brings the theme and size.
        if (msg.hasView === true) this.contextChanged();
        else if (this.delivery.args || this.delivery.partial || this.delivery.result) void this.load();
        break;
      case 'dropped':
        // The page dropped the view's messages over the rate (VIEW_LIMITS); one line per burst.
        if (typeof msg.count !== 'number') this.s.log(this.server, 'warning', `MCP App ${this.uri}: ${this.who()} sent messages faster than ${VIEW_LIMITS.maxViewMessagesPerSecond} messages or ${VIEW_LIMITS.maxViewCharsPerSecond / 1024 / 1024} MiB per second (maxViewMessagesPerSecond, maxViewCharsPerSecond; or more than ${VIEW_LIMITS.maxViewCharsQueued / 1024 / 1024} MiB waiting for the extension host, maxViewCharsQueued); its page refuses them (requests with an error) until it slows down`);
        else this.s.log(this.server, 'info', `MCP App ${this.uri}: ${num(msg.count)} messages of the view were dropped`);
        break;
      case 'probe': {
        const state = pageState(msg);
        for (const p of this.probes.splice(0)) p(state);
        break;
      }
      case 'theme':
        if (!this.pageReady) break;
        this.pageReady = { ...this.pageReady, theme: msg.theme === 'light' ? 'light' : 'dark', variables: styleVariables(msg.variables) };
        this.contextChanged();
        break;
      case 'resize':
        if (!this.pageReady) break;
        this.pageReady = { ...this.pageReady, width: num(msg.width), height: num(msg.height) };
        this.contextChanged();
        break;
      case 'action': void this.load(); break;
    }
  }

  /** `ui/request-display-mode` (displayModes.ts): resolves the mode in effect; the view gets the new host context. */
  async requestDisplayMode(mode: unknown): Promise<McpUiDisplayMode> {
    const from = this.modes.mode;
    const now = await this.modes.request(mode);
    if (now !== from) this.contextChanged();
    return now;
  }

  /** The editor group the panel is in now (its tab), else what the panel last said. */
  column(): vscode.ViewColumn | undefined { return this.modes.column(); }

  private contextChanged(): void {
    const ctx = this.hostContext();
    if (this.bridge && this.initialized) void Promise.resolve(this.bridge.sendHostContextChange(ctx)).catch(err => this.warn('host context', err));
    else this.bridge?.setHostContext(ctx);
  }

  private onServerState(kind: string): void {
    if (kind === 'running') {
      if (this.stale) void this.load();
      return;
    }
    if (this.stale || (!this.bridge && !this.initialized)) return;
    this.stale = true;
    void this.teardown('the server stopped').then(() => {
      // The server may be running again before an unanswered teardown gives up: the view is then reloading (or
      // reloaded) with a new bridge, which this must not close.
      if (!this.stale || this.loading || this.disposed) return;
      this.closeBridge();
      this.banner(vscode.l10n.t('Server "{0}" stopped: this view is stale. It reloads when the server runs again.', this.server), vscode.l10n.t('Reload'));
      this.s.changed(this);
    });
  }

  private async teardown(reason: string): Promise<void> {
    const b = this.bridge;
    if (!b || !this.initialized) return;
    this.trace.push('ui/resource-teardown');
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), TEARDOWN_MS);
    try {
      await b.teardownResource({}, { signal: ac.signal, timeout: TEARDOWN_MS });
    } catch (err) {
      this.s.log(this.server, 'info', `MCP App ${this.uri}: teardown (${reason}) not answered: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  private closeBridge(): void {
    const b = this.bridge;
    // The dialogs of this load: what waits resolves denied, the one on screen is told to close.
    this.dialogs.close();
    this.bridge = undefined;
    this.transport = undefined;
    this.initialized = false;
    if (b) void b.close().catch(() => undefined);
  }

  /** The view and its server, as log lines and limit messages name them. */
  private who(): string { return `the view of tool ${quoted(this.tool.name)} (MCP server ${quoted(this.server)})`; }

  private banner(text: string, action?: string): void {
    void this.panel.webview.postMessage({ type: 'banner', text, action });
  }

  private warn(what: string, err: unknown): void {
    this.s.log(this.server, 'warning', `MCP App ${this.uri}: could not send ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** The page that frames the view (appPage.ts); each load's page is new. */
  private page(res?: AppResource): string {
    const { html, policy } = appPage(this.panel.webview, this.s.extensionUri, { server: this.server, tool: this.tool, load: ++this.loads, res, viewPolicy: this.policy });
    this.pagePolicy = policy;
    return html;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.closeBridge();
    for (const d of this.disposables) d.dispose();
    this.disposables = [];
    this.panel.dispose();
    this.s.changed(this);
  }

  get isDisposed(): boolean { return this.disposed; }
}

/**
 * The bridge's bundle (dist/app-bridge.js: bridgeModule.ts, esbuild.mjs LAZY) loads with the first view, not at
 * activation. It carries only ext-apps' bridge and its own schemas: its SDK, core schemas and zod are the host's,
 * handed over (bridgeHandover.ts), so loading it compiles about 40 KB instead of 0.8 MB and builds no protocol schema
 * a second time.
 */
let bridgeModule: Promise<typeof BridgeModule> | undefined;
function loadBridge(): Promise<typeof BridgeModule> {
  if (bridgeModule) return bridgeModule;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { loadAppBridge } = require('./bridgeModule') as typeof import('./bridgeModule');
  // zod's functions by name (BRIDGE_ZOD), so the main bundle keeps only those it has anyway.
  const z = {
    any: zod.any, array: zod.array, boolean: zod.boolean, literal: zod.literal, never: zod.never, number: zod.number, object: zod.object,
    record: zod.record, string: zod.string, undefined: zod.undefined, union: zod.union, unknown: zod.unknown,
  };
  return bridgeModule = loadAppBridge({
    Protocol, z, CallToolResultSchema, ContentBlockSchema, EmbeddedResourceSchema, EmptyResultSchema, ImplementationSchema,
    JSONRPCMessageSchema, LoggingMessageNotificationSchema, RequestIdSchema, ResourceLinkSchema, ToolSchema,
  }).catch((err: unknown) => { bridgeModule = undefined; throw err; });
}
