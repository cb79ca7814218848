/**
 * One MCP App view: an editor panel (a webview) framing the `ui://` resource of one tool of one server, and the
 * host side of the MCP Apps protocol (`AppBridge` from `@modelcontextprotocol/ext-apps`) over the webview's
 * message channel. The webview page (media/apps/host.js) runs the view in a sandboxed frame whose Content
 * Security Policy comes from the resource's `_meta.ui.csp` and nothing more. What the view asks of the host
 * (tool calls, links, chat messages, model context) goes through `AppViewServices`, where the rules live.
 */
import * as vscode from 'vscode';
import * as path from 'path';
import type { AppBridge, McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import type * as BridgeModule from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { allowAttribute, buildAppCsp, injectCsp, loadAppResource, type HostApi } from '../../mcp';
import { ViewTransport } from './transport';

export const APP_VIEW_TYPE = 'mcpHost.app';
/** How long a teardown request may take before the view is closed anyway. */
export const TEARDOWN_MS = 3_000;
/** Model context kept per view (characters); more is cut. */
export const MAX_MODEL_CONTEXT_CHARS = 16 * 1024;
/** Theme variables taken from the page (count, value length). */
const MAX_STYLE_VARIABLES = 80;
const MAX_STYLE_VALUE = 300;

/** What a view needs of the extension: the confirmation rules, the log, the chat. */
export interface AppViewServices {
  host: HostApi;
  extensionUri: vscode.Uri;
  hostInfo: { name: string; version: string };
  /** A tool call the view asks for (already checked: same server, visible to apps); resolves the result or throws. */
  callTool(server: string, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult>;
  /** Asks the user, then opens the link through the editor; resolves whether it was opened. */
  openLink(server: string, tool: string, url: string): Promise<boolean>;
  /** Puts a message from the view into the @mcp chat input, visibly. */
  sendToChat(server: string, tool: string, text: string): Promise<void>;
  log(server: string, level: 'info' | 'warning' | 'error', message: string): void;
  /** Fired for tests and the views' registry. */
  changed(view: AppView): void;
}

/** What the panel last delivered, to deliver again after a reload. */
interface Delivery { args?: Record<string, unknown>; result?: CallToolResult; cancelled?: string }

export class AppView implements vscode.Disposable {
  readonly panel: vscode.WebviewPanel;
  private bridge?: AppBridge;
  private transport?: ViewTransport;
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
  /** Messages the host sent and got (method names, for tests and the log). */
  readonly trace: string[] = [];

  constructor(private readonly s: AppViewServices, readonly server: string, readonly tool: Tool, readonly uri: string) {
    this.panel = vscode.window.createWebviewPanel(APP_VIEW_TYPE, `${tool.title ?? tool.name} — ${server}`, { viewColumn: vscode.ViewColumn.Active, preserveFocus: false }, {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: true,
      localResourceRoots: [vscode.Uri.joinPath(s.extensionUri, 'media', 'apps')],
    });
    this.panel.iconPath = vscode.Uri.joinPath(s.extensionUri, 'media', 'mcp.svg');
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage(m => this.onPage(m)),
      this.panel.onDidDispose(() => this.dispose()),
      this.s.host.onDidChangeState(e => { if (e.server === this.server) this.onServerState(e.state.kind); }),
    );
    this.panel.webview.html = this.page();
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

  /** Sends a request to the bridge as the view would (tests); rejects when the view is not loaded. */
  async asView(method: string, params: Record<string, unknown>): Promise<unknown> {
    if (!this.transport) throw new Error('the view is not loaded');
    return this.transport.asView(method, params);
  }

  reveal(preserveFocus = false): void { this.panel.reveal(undefined, preserveFocus); }

  /** Asks the view to tear down (bounded), then closes the panel. */
  async close(reason = 'closed by the user'): Promise<void> {
    await this.teardown(reason);
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
    if (!h || h.state.kind !== 'running') return this.banner(`Server "${this.server}" is not running: this view is stale. It reloads when the server runs again.`);
    this.closeBridge();
    let res;
    try {
      res = await loadAppResource(h, this.tool.name, this.uri);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.s.log(this.server, 'error', `MCP App: ${message}`);
      return this.banner(`The view could not be loaded: ${message}`);
    }
    if (this.disposed) return;
    if (res.csp.dropped.length) this.s.log(this.server, 'warning', `MCP App ${this.uri}: ignored CSP domains that are not plain https (or loopback) origins: ${res.csp.dropped.join(', ')}`);
    const transport = this.transport = new ViewTransport(this.panel.webview, m => this.s.log(this.server, 'warning', `MCP App ${this.uri}: ${m}`));
    const { AppBridge } = loadBridge();
    const bridge = this.bridge = new AppBridge(null, this.s.hostInfo, {
      openLinks: {}, serverTools: {}, logging: {},
      message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} },
      sandbox: { csp: { connectDomains: res.csp.connect, resourceDomains: res.csp.resource, frameDomains: res.csp.frame, baseUriDomains: res.csp.baseUri } },
    }, { hostContext: this.hostContext() });
    this.wire(bridge);
    await bridge.connect(transport);
    this.stale = false;
    this.initialized = false;
    this.banner('');
    this.policy = buildAppCsp(res.csp);
    await this.panel.webview.postMessage({ type: 'load', html: injectCsp(res.html, this.policy), allow: allowAttribute(res.permissions) });
    this.s.changed(this);
  }

  private wire(b: AppBridge): void {
    const server = this.server;
    const tool = this.tool.name;
    b.oninitialized = () => {
      this.initialized = true;
      this.trace.push('ui/notifications/initialized');
      const d = this.delivery;
      if (d.args) void b.sendToolInput({ arguments: d.args }).catch(err => this.warn('tool input', err));
      if (d.result) void b.sendToolResult(d.result).catch(err => this.warn('tool result', err));
      else if (d.cancelled) void b.sendToolCancelled({ reason: d.cancelled }).catch(err => this.warn('tool cancelled', err));
      this.s.changed(this);
    };
    b.oncalltool = async params => {
      this.trace.push(`tools/call ${params.name}`);
      const h = this.s.host.get(server);
      const target = h?.catalogue.tools.find(t => t.name === params.name);
      if (!h || h.state.kind !== 'running' || !target) throw new Error(`MCP server "${server}" has no running tool named "${params.name}"`);
      return this.s.callTool(server, target, (params.arguments ?? {}) as Record<string, unknown>);
    };
    b.onopenlink = async ({ url }) => {
      this.trace.push('ui/open-link');
      return (await this.s.openLink(server, tool, url)) ? {} : { isError: true };
    };
    b.onmessage = async params => {
      this.trace.push('ui/message');
      const text = contentText(params.content);
      if (!text) return { isError: true };
      await this.s.sendToChat(server, tool, text);
      return {};
    };
    b.onupdatemodelcontext = async params => {
      this.trace.push('ui/update-model-context');
      const parts = [contentText(params.content)];
      if (params.structuredContent !== undefined) parts.push(JSON.stringify(params.structuredContent));
      const text = parts.filter(Boolean).join('\n');
      this.modelContext = text ? text.slice(0, MAX_MODEL_CONTEXT_CHARS) : undefined;
      this.s.changed(this);
      return {};
    };
    b.onsizechange = ({ height }) => { if (typeof height === 'number') void this.panel.webview.postMessage({ type: 'size', height }); };
    b.onrequestteardown = () => { this.trace.push('ui/notifications/request-teardown'); void this.close('the view asked to close'); };
    b.onloggingmessage = p => this.s.log(server, p.level === 'error' || p.level === 'critical' || p.level === 'alert' || p.level === 'emergency' ? 'error' : p.level === 'warning' ? 'warning' : 'info',
      `MCP App ${this.uri}: ${typeof p.data === 'string' ? p.data : JSON.stringify(p.data)}`.slice(0, 4096));
  }

  private hostContext(): McpUiHostContext {
    const p = this.pageReady;
    return {
      toolInfo: { tool: this.tool },
      theme: p?.theme ?? (vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.Light || vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.HighContrastLight ? 'light' : 'dark'),
      ...(p ? { styles: { variables: p.variables as never } } : {}),
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
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
      case 'app': this.transport?.receive(msg.text); break;
      case 'ready':
        this.pageReady = { theme: msg.theme === 'light' ? 'light' : 'dark', variables: styleVariables(msg.variables), width: num(msg.width), height: num(msg.height) };
        if (this.delivery.args || this.delivery.result) void this.load();
        break;
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
      this.closeBridge();
      this.banner(`Server "${this.server}" stopped: this view is stale. It reloads when the server runs again.`, 'Reload');
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
    this.bridge = undefined;
    this.transport = undefined;
    this.initialized = false;
    if (b) void b.close().catch(() => undefined);
  }

  private banner(text: string, action?: string): void {
    void this.panel.webview.postMessage({ type: 'banner', text, action });
  }

  private warn(what: string, err: unknown): void {
    this.s.log(this.server, 'warning', `MCP App ${this.uri}: could not send ${what}: ${err instanceof Error ? err.message : String(err)}`);
  }

  /** The page that frames the view: its own script and style from media/apps, and the view's policy plus them. */
  private page(): string {
    const w = this.panel.webview;
    const media = (f: string) => w.asWebviewUri(vscode.Uri.joinPath(this.s.extensionUri, 'media', 'apps', f)).toString();
    // The view's frame inherits this policy: before the resource is known it allows no network at all.
    const policy = buildAppCsp({ connect: [], resource: [], frame: [], baseUri: [], dropped: [] }, { script: [w.cspSource] });
    return `<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<link rel="stylesheet" href="${media('host.css')}"></head>
<body><div id="banner" hidden><span id="banner-text"></span><button id="banner-button" hidden></button></div>
<iframe id="app" title="${esc(this.tool.title ?? this.tool.name)} (MCP App of ${esc(this.server)})" sandbox="allow-scripts allow-forms"></iframe>
<script src="${media('host.js')}"></script></body></html>`;
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
 * The bridge's bundle (dist/app-bridge.js, built apart by esbuild.mjs) loads with the first view, not at activation:
 * it carries the protocol schemas ext-apps validates with.
 */
let bridgeModule: typeof BridgeModule | undefined;
function loadBridge(): typeof BridgeModule {
  // A computed path: esbuild leaves this require to run time (an import() would be bundled into extension.js).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return bridgeModule ??= require(path.join(__dirname, 'app-bridge.js')) as typeof BridgeModule;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 && v < 100_000 ? Math.round(v) : 0;
}

/** Theme variables from the page, checked: known shape of name, bounded value, no markup. */
function styleVariables(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!v || typeof v !== 'object') return out;
  for (const [k, val] of Object.entries(v as Record<string, unknown>).slice(0, MAX_STYLE_VARIABLES)) {
    if (/^--[a-z0-9-]{1,60}$/.test(k) && typeof val === 'string' && val.length <= MAX_STYLE_VALUE && !/[<>{};]/.test(val)) out[k] = val;
  }
  return out;
}

/** The text of content blocks (ui/message, ui/update-model-context); other kinds are named. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.slice(0, 64).map(b => {
    const block = b as { type?: unknown; text?: unknown };
    return block?.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block?.type ?? 'unknown')} content]`;
  }).join('\n').slice(0, MAX_MODEL_CONTEXT_CHARS);
}
