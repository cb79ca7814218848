/**
 * The MCP Apps bridge's transport inside the extension host: JSON-RPC messages to and from the view travel as
 * JSON text over the webview's message channel (the webview page relays them to and from the sandboxed frame
 * that runs the view). The view is untrusted: a message larger than the cap or not JSON-RPC is dropped with a
 * log line, and at most MAX_INBOX messages wait for the bridge.
 */
import { deserializeMessage, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';

/** A larger message from a view is dropped. */
export const MAX_VIEW_MESSAGE_CHARS = 4 * 1024 * 1024;

/** What the transport needs of the webview (a WebviewPanel's `webview`, or a test double). */
export interface ViewChannel {
  postMessage(message: unknown): Thenable<boolean>;
}

export class ViewTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  /** Responses the host's own requests-as-the-view wait for (tests: `AppView.asView`). */
  private readonly waiting = new Map<string, (message: JSONRPCMessage) => void>();
  private nextId = 0;

  constructor(private readonly channel: ViewChannel, private readonly log: (message: string) => void) {}

  async start(): Promise<void> { /* the channel exists already */ }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    const id = 'id' in message && !('method' in message) ? String(message.id) : undefined;
    const waiter = id !== undefined ? this.waiting.get(id) : undefined;
    if (waiter && id !== undefined) { this.waiting.delete(id); waiter(message); return; }
    await this.channel.postMessage({ type: 'app', text: serializeMessage(message).trimEnd() });
  }

  /** A message from the view (the `text` the webview page relayed). */
  receive(text: unknown): void {
    if (this.closed) return;
    if (typeof text !== 'string') return this.log('the view sent a message that is not text; dropped');
    if (text.length > MAX_VIEW_MESSAGE_CHARS) return this.log(`the view sent a message of ${text.length} characters (over ${MAX_VIEW_MESSAGE_CHARS}); dropped`);
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (err) {
      this.log(`the view sent a message that is not JSON-RPC (${err instanceof Error ? err.message.slice(0, 200) : 'unreadable'}); dropped`);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Sends `method` to the bridge as if the view had, and resolves the bridge's answer (never reaches the view).
   * For tests: they cannot click inside the sandboxed frame from the extension host.
   */
  asView(method: string, params: Record<string, unknown>): Promise<JSONRPCMessage> {
    const id = `host-test-${++this.nextId}`;
    return new Promise(resolve => {
      this.waiting.set(id, resolve);
      this.receive(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
