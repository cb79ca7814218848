/**
 * The gateway process (`dist/gateway.js`): VS Code's own MCP support starts it as a stdio MCP server (the definition
 * MCP Host provides, src/extension/gateway). It carries MCP messages between its stdin/stdout and the running
 * extension over the private channel (wire.ts), after a hello with the per-window secret. It holds no state of its
 * own and decides nothing: the MCP server, consent, limits and History are in the extension. It bounds what it reads
 * on either side (a cap per line) and how many of VS Code's requests wait at once, and it exits when the channel
 * closes (the window went away, the gateway was turned off) or its stdin ends.
 *
 * Environment: MCP_HOST_GATEWAY_SOCKET (the channel's path), MCP_HOST_GATEWAY_SECRET. Nothing else is read.
 */
import * as net from 'node:net';
import { LineFramer } from '../process/lineFramer';
import {
  classify, errorLine, GATEWAY_ENV, GATEWAY_MAX_MESSAGE_BYTES, GATEWAY_MAX_PENDING, GATEWAY_WIRE_VERSION, helloLine,
  PendingBound, tooManyPendingMessage,
} from './wire';

/** Options (tests lower the caps); by default from the environment. */
export interface GatewayProcessOptions {
  socket: string;
  secret: string;
  maxMessageBytes?: number;
  maxPending?: number;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** A line for stderr (VS Code shows it in the server's output). */
  log?(line: string): void;
  /** Ends the process (tests observe it). */
  exit?(code: number): void;
}

/** Runs the gateway until the channel or stdin closes. */
export function runGateway(o: GatewayProcessOptions): void {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const max = o.maxMessageBytes ?? GATEWAY_MAX_MESSAGE_BYTES;
  const pending = new PendingBound(o.maxPending ?? GATEWAY_MAX_PENDING);
  let accepted = false;
  let connected = false;
  let ended = false;
  const end = (code: number, why?: string) => {
    if (ended) return;
    ended = true;
    if (why) log(why);
    socket.destroy();
    // Let what is queued for stdout go first.
    stdout.write('', () => exit(code));
  };

  const socket = net.createConnection(o.socket);
  const closed = () => end(accepted ? 0 : 1, accepted ? 'MCP Host gateway: MCP Host closed the channel' : 'MCP Host gateway: MCP Host refused the connection');
  socket.on('error', (e: NodeJS.ErrnoException) => {
    // A reset after connecting is MCP Host closing (or refusing) the connection, not a failure to reach it.
    if (connected && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) closed();
    else end(1, `MCP Host gateway: cannot reach MCP Host (${e.message}). Is the window that started it still open?`);
  });
  socket.on('close', closed);
  socket.once('connect', () => { connected = true; });
  socket.write(helloLine(o.secret));

  const fromHost = new LineFramer({ maxLineBytes: max, headBytes: 256 }, {
    line: bytes => {
      if (!accepted) {
        try {
          const v = JSON.parse(bytes.toString('utf8')) as { mcpHostGateway?: unknown; ok?: unknown };
          if (v.mcpHostGateway === GATEWAY_WIRE_VERSION && v.ok === true) { accepted = true; return; }
        } catch { /* fall through */ }
        end(1, 'MCP Host gateway: MCP Host answered something unexpected');
        return;
      }
      const c = classify(bytes);
      if (c.kind === 'response') pending.settle(c.id);
      stdout.write(Buffer.concat([bytes, Buffer.from('\n')]));
    },
    overflow: () => log(`MCP Host gateway: dropped a message from MCP Host over ${max} bytes`),
  });
  socket.on('data', (chunk: Buffer) => fromHost.push(chunk));

  const fromEditor = new LineFramer({ maxLineBytes: max, headBytes: 256 }, {
    line: bytes => {
      if (!bytes.length || (bytes.length === 1 && bytes[0] === 0x0d)) return;
      const c = classify(bytes);
      if (c.kind === 'cancelled') pending.settle(c.id);
      if (c.kind === 'request' && !pending.admit(c.id)) {
        stdout.write(errorLine(c.id, tooManyPendingMessage(pending.max)));
        return;
      }
      socket.write(Buffer.concat([bytes, Buffer.from('\n')]));
    },
    overflow: () => log(`MCP Host gateway: dropped a message from VS Code over ${max} bytes`),
  });
  stdin.on('data', (chunk: Buffer | string) => fromEditor.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  stdin.on('end', () => end(0));
  stdin.on('error', () => end(0));
}

/** The process entry: reads the two variables (and removes them from its environment) and runs. */
export function main(): void {
  const socketPath = process.env[GATEWAY_ENV.socket];
  const secret = process.env[GATEWAY_ENV.secret];
  delete process.env[GATEWAY_ENV.socket];
  delete process.env[GATEWAY_ENV.secret];
  if (!socketPath || !secret) {
    process.stderr.write('MCP Host gateway: started without its channel; VS Code starts it through MCP Host (is MCP Host running in this window, and the workspace trusted?)\n');
    process.exit(1);
  }
  runGateway({ socket: socketPath, secret });
}

if (require.main === module) main();
