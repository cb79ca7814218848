/**
 * The extension's end of the gateway channel (wire.ts): listens on a private endpoint, refuses a connection whose
 * hello does not carry the current secret (constant-time compare, bounded size and time), and turns each accepted
 * connection into an SDK `Transport` for the gateway's MCP server (server.ts). Reads are framed with a cap per line;
 * requests from VS Code beyond {@link GATEWAY_MAX_PENDING} are answered with an error at once; a message the
 * extension would send over the cap becomes an error answer instead.
 *
 *   const channel = new GatewayChannel({ secret: () => current, onConnection: t => serve(t), log });
 *   await channel.listen();                 // channel.path → the definition's env
 *   channel.close();                        // every connection ends; the gateway processes exit
 */
import * as net from 'node:net';
// From the client package (the same SDK core): the server package loads only with the gateway's MCP server (server.ts).
import { parseJSONRPCMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { LineFramer } from '../process/lineFramer';
import { parseJson } from '../process/parseJson';
import {
  classify, errorLine, GATEWAY_HELLO_MAX_BYTES, GATEWAY_HELLO_TIMEOUT_MS, GATEWAY_MAX_CONNECTIONS, GATEWAY_MAX_HANDSHAKES,
  GATEWAY_MAX_MESSAGE_BYTES, GATEWAY_MAX_PENDING, HELLO_OK, parseHello, PendingBound, privateEndpoint, secretsEqual,
  tooManyPendingMessage, type PrivateEndpoint,
} from './wire';

/** Options of {@link GatewayChannel}. */
export interface GatewayChannelOptions {
  /** The secret a hello must carry now (undefined: refuse every connection). */
  secret(): string | undefined;
  /** An accepted connection, as a transport to connect an MCP server to. */
  onConnection(transport: GatewayTransport): void;
  /** One line for the log (refusals, dropped messages). */
  log?(message: string): void;
  /** Caps (tests lower them). */
  maxMessageBytes?: number;
  maxPending?: number;
  maxConnections?: number;
  helloTimeoutMs?: number;
}

/** Listens for gateway processes; see the module comment. */
export class GatewayChannel {
  private server: net.Server | undefined;
  private endpoint: PrivateEndpoint | undefined;
  private readonly sockets = new Set<net.Socket>();
  private readonly transports = new Set<GatewayTransport>();
  private handshakes = 0;

  constructor(private readonly options: GatewayChannelOptions) {}

  /** Where the gateway connects (undefined until listening). */
  get path(): string | undefined {
    return this.server ? this.endpoint?.path : undefined;
  }

  /** Accepted connections now open. */
  get connections(): number {
    return this.transports.size;
  }

  /** Starts listening on a fresh private endpoint. */
  async listen(): Promise<void> {
    if (this.server) return;
    const endpoint = this.endpoint = privateEndpoint();
    const server = net.createServer(socket => this.accept(socket));
    server.maxConnections = (this.options.maxConnections ?? GATEWAY_MAX_CONNECTIONS) + GATEWAY_MAX_HANDSHAKES;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(endpoint.path, () => { server.off('error', reject); resolve(); });
    });
    server.on('error', e => this.options.log?.(`MCP Host gateway: the channel failed: ${e.message}`));
    this.server = server;
  }

  /** Closes every connection (the gateway processes exit) and stops listening. */
  close(): void {
    for (const t of [...this.transports]) void t.close();
    for (const s of [...this.sockets]) s.destroy();
    this.server?.close();
    this.server = undefined;
    this.endpoint?.dispose();
    this.endpoint = undefined;
  }

  /** Ends the accepted connections (e.g. when the secret changed) but keeps listening. */
  closeConnections(): void {
    for (const t of [...this.transports]) void t.close();
  }

  private accept(socket: net.Socket): void {
    const log = this.options.log ?? (() => undefined);
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (this.handshakes >= GATEWAY_MAX_HANDSHAKES || this.transports.size >= (this.options.maxConnections ?? GATEWAY_MAX_CONNECTIONS)) {
      log('MCP Host gateway: refused a connection (too many connections at once)');
      socket.destroy();
      return;
    }
    this.handshakes++;
    let greeted = false;
    const done = () => { if (!greeted) { greeted = true; this.handshakes--; clearTimeout(timer); } };
    const timer = setTimeout(() => { if (!greeted) { done(); log('MCP Host gateway: refused a connection (no hello in time)'); socket.destroy(); } },
      this.options.helloTimeoutMs ?? GATEWAY_HELLO_TIMEOUT_MS);
    socket.once('close', done);
    let transport: GatewayTransport | undefined;
    const refuse = (why: string) => { done(); log(`MCP Host gateway: refused a connection (${why})`); socket.destroy(); };
    const framer = new LineFramer({ maxLineBytes: this.options.maxMessageBytes ?? GATEWAY_MAX_MESSAGE_BYTES, headBytes: 256 }, {
      line: bytes => {
        if (transport) { transport.receive(bytes); return; }
        if (greeted) return;
        const given = parseHello(bytes);
        const expected = this.options.secret();
        if (given === undefined || expected === undefined || !secretsEqual(given, expected)) { refuse('wrong or missing secret'); return; }
        done();
        socket.write(HELLO_OK);
        transport = new GatewayTransport(socket, {
          maxMessageBytes: this.options.maxMessageBytes ?? GATEWAY_MAX_MESSAGE_BYTES,
          maxPending: this.options.maxPending ?? GATEWAY_MAX_PENDING,
          log,
        });
        this.transports.add(transport);
        socket.once('close', () => this.transports.delete(transport!));
        this.options.onConnection(transport);
      },
      overflow: () => {
        if (!transport) { refuse(`hello over ${GATEWAY_HELLO_MAX_BYTES} bytes`); return; }
        transport.overflow();
      },
    });
    socket.on('data', (chunk: Buffer) => {
      // A hello is short: do not buffer more than its cap before it was accepted.
      if (!transport && !greeted && framer.buffered + chunk.length > GATEWAY_HELLO_MAX_BYTES && !chunk.includes(0x0a)) { refuse(`hello over ${GATEWAY_HELLO_MAX_BYTES} bytes`); return; }
      framer.push(chunk);
    });
    socket.once('end', () => { framer.end(false); socket.end(); });
  }
}

/** One accepted gateway connection as an SDK transport (start / send / close, onmessage / onclose / onerror). */
export class GatewayTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly pending: PendingBound;
  private closed = false;

  constructor(private readonly socket: net.Socket, private readonly o: { maxMessageBytes: number; maxPending: number; log(m: string): void }) {
    this.pending = new PendingBound(o.maxPending);
    socket.once('close', () => this.closedNow());
  }

  /** Requests from VS Code waiting for an answer now. */
  get pendingRequests(): number {
    return this.pending.size;
  }

  async start(): Promise<void> { /* the socket is already open */ }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    let line = `${JSON.stringify(message)}\n`;
    const c = classify(line);
    if (Buffer.byteLength(line) > this.o.maxMessageBytes) {
      this.o.log(`MCP Host gateway: a message to VS Code is over ${this.o.maxMessageBytes} bytes; sent an error instead`);
      if (c.kind !== 'response') return;
      line = errorLine(c.id, `MCP Host gateway: the answer is over ${this.o.maxMessageBytes} bytes`);
    }
    if (c.kind === 'response') this.pending.settle(c.id);
    this.socket.write(line);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.socket.end();
    this.socket.destroy();
    this.closedNow();
  }

  /** A complete line from the gateway. */
  receive(bytes: Buffer): void {
    if (this.closed) return;
    const text = bytes.toString('utf8');
    const c = classify(text);
    if (c.kind === 'invalid') { this.o.log('MCP Host gateway: dropped a line from VS Code that is not a JSON-RPC message'); return; }
    // A cancelled request is answered by nobody: it no longer waits.
    if (c.kind === 'cancelled') this.pending.settle(c.id);
    if (c.kind === 'request' && !this.pending.admit(c.id)) {
      this.socket.write(errorLine(c.id, tooManyPendingMessage(this.pending.max)));
      return;
    }
    let message: JSONRPCMessage;
    try {
      // The SDK's deserializeMessage, with keys written with an escape decoded right on Node 24 too (parseJson).
      message = parseJSONRPCMessage(parseJson(text));
    } catch (e) {
      if (c.kind === 'request') { this.pending.settle(c.id); this.socket.write(errorLine(c.id, 'MCP Host gateway: not a valid JSON-RPC message')); }
      this.o.log(`MCP Host gateway: dropped an invalid message from VS Code (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    this.onmessage?.(message);
  }

  /** The line being read went over the cap: it is dropped (its request, if any, times out on VS Code's side). */
  overflow(): void {
    this.o.log(`MCP Host gateway: dropped a message from VS Code over ${this.o.maxMessageBytes} bytes`);
  }

  private closedNow(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.clear();
    this.onclose?.();
  }
}
