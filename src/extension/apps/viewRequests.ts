/**
 * What an MCP App view asks of the host, wired onto its `AppBridge` (`@modelcontextprotocol/ext-apps`): tool calls,
 * links, chat messages, model context, size, teardown, display modes, downloads, resource reads and log lines. Each
 * goes to `AppViewServices` (view.ts), where the rules and dialogs live; resource reads go to the view's own server
 * only (src/mcp/apps/files.ts), capped. One per view, across its loads (a download in progress stays one at a time).
 */
import type { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { contentsChars, downloadItems, logPreview, MAX_VIEW_FILE_CHARS, viewReadRefusal } from '../../mcp';
import type { AppView, AppViewServices } from './view';

/** Model context kept per view (characters); more is cut. */
export const MAX_MODEL_CONTEXT_CHARS = 16 * 1024;

/** The handlers of one view's requests (one per view, across its loads). */
export class ViewRequests {
  private downloading = false;
  private said = false;

  constructor(private readonly s: AppViewServices, private readonly v: AppView) {}

  /** Sets the bridge's handlers of the view's requests. */
  wire(b: AppBridge): void {
    const v = this.v;
    const server = v.server;
    const tool = v.tool.name;
    b.oninitialized = () => v.bridgeInitialized(b);
    b.oncalltool = async params => {
      v.trace.push(`tools/call ${params.name}`);
      const h = this.s.host.get(server);
      const target = h?.catalogue.tools.find(t => t.name === params.name);
      if (!h || h.state.kind !== 'running' || !target) throw new Error(`MCP server "${server}" has no running tool named "${params.name}"`);
      return this.s.callTool(server, target, (params.arguments ?? {}) as Record<string, unknown>, v.dialogs);
    };
    b.onopenlink = async ({ url }) => {
      v.trace.push('ui/open-link');
      return (await this.s.openLink(server, tool, url, v.dialogs)) ? {} : { isError: true };
    };
    b.onmessage = async params => {
      v.trace.push('ui/message');
      const text = contentText(params.content);
      if (!text) return { isError: true };
      return await this.s.sendToChat(server, tool, text) ? {} : { isError: true };
    };
    b.onupdatemodelcontext = async params => {
      v.trace.push('ui/update-model-context');
      const parts = [contentText(params.content)];
      if (params.structuredContent !== undefined) parts.push(JSON.stringify(params.structuredContent));
      const text = parts.filter(Boolean).join('\n');
      v.modelContext = text ? text.slice(0, MAX_MODEL_CONTEXT_CHARS) : undefined;
      this.s.changed(v);
      return {};
    };
    b.onsizechange = ({ height }) => { if (typeof height === 'number') void v.panel.webview.postMessage({ type: 'size', height }); };
    b.onrequestteardown = () => { v.trace.push('ui/notifications/request-teardown'); void v.close('the view asked to close'); };
    b.onrequestdisplaymode = async ({ mode }) => ({ mode: await v.requestDisplayMode(mode) });
    b.ondownloadfile = async ({ contents }) => {
      v.trace.push('ui/download-file');
      // One download at a time (its dialogs on screen); what comes meanwhile is refused at once.
      if (this.downloading) {
        v.modeCounts.downloadsRefused++;
        if (!this.said) { this.said = true; this.s.log(server, 'warning', `MCP App ${v.uri}: the view asked for a download while one was in progress; refused (and so are more, until it is done)`); }
        return { isError: true };
      }
      this.downloading = true;
      this.said = false;
      const dialogs = v.dialogs;
      try {
        for (const item of downloadItems(contents)) {
          const bytes = item.bytes ?? await this.linkBytes(item.link!);
          if (dialogs.signal.aborted || !await this.s.download(server, tool, { ...item, bytes, size: bytes.byteLength }, dialogs)) return { isError: true };
        }
        return {};
      } finally {
        this.downloading = false;
      }
    };
    b.onreadresource = async ({ uri }) => { v.trace.push('resources/read'); return this.readForView(uri); };
    b.onlistresources = async () => ({ resources: [...this.ownServer().catalogue.resources] });
    b.onlistresourcetemplates = async () => ({ resourceTemplates: [...this.ownServer().catalogue.resourceTemplates] });
    b.onloggingmessage = p => this.s.log(server, p.level === 'error' || p.level === 'critical' || p.level === 'alert' || p.level === 'emergency' ? 'error' : p.level === 'warning' ? 'warning' : 'info',
      `MCP App ${v.uri}: ${typeof p.data === 'string' ? p.data.slice(0, 4096) : logPreview(p.data, 4096)}`.slice(0, 4096));
  }

  private ownServer() {
    const h = this.s.host.get(this.v.server);
    if (!h || h.state.kind !== 'running') throw new Error(`MCP server "${this.v.server}" is not running`);
    return h;
  }

  /**
   * `resources/read` from the view: to its own server only, and only what it lists or a scheme it lists
   * (src/mcp/apps/files.ts); the result is capped. Refusals are JSON-RPC errors to the view, and a log line.
   */
  private async readForView(uri: unknown): Promise<ReadResourceResult> {
    const h = this.ownServer();
    const server = this.v.server;
    const why = viewReadRefusal(uri, h.catalogue, this.s.host.servers.filter(x => x.name !== server).map(x => x.catalogue));
    if (why) {
      this.s.log(server, 'warning', `MCP App ${this.v.uri}: refused a resource read: ${why}`);
      throw new Error(`Refused: ${why}`);
    }
    const r = await h.readResource(uri as string, { by: 'view' });
    const chars = contentsChars(r.contents);
    if (chars > MAX_VIEW_FILE_CHARS) {
      this.s.log(server, 'warning', `MCP App ${this.v.uri}: a resource read of ${chars} characters is over ${MAX_VIEW_FILE_CHARS} for a view; refused`);
      throw new Error(`Refused: the resource is larger than ${MAX_VIEW_FILE_CHARS / 1024 / 1024} MiB`);
    }
    return r;
  }

  /** The bytes of a download given as a resource link: read through `readForView` (its rules and cap). */
  private async linkBytes(uri: string): Promise<Uint8Array> {
    const r = await this.readForView(uri);
    const c = (Array.isArray(r.contents) ? r.contents : [])[0] as { text?: unknown; blob?: unknown } | undefined;
    if (typeof c?.text === 'string') return new TextEncoder().encode(c.text);
    if (typeof c?.blob === 'string') return new Uint8Array(Buffer.from(c.blob, 'base64'));
    throw new Error(`ui/download-file: ${uri.slice(0, 200)} has no contents`);
  }
}

/** The text of content blocks (ui/message, ui/update-model-context); other kinds are named. */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content.slice(0, 64).map(b => {
    const block = b as { type?: unknown; text?: unknown };
    return block?.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block?.type ?? 'unknown')} content]`;
  }).join('\n').slice(0, MAX_MODEL_CONTEXT_CHARS);
}
