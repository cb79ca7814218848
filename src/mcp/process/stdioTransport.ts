/**
 * The host's own stdio transport (the SDK `Transport` interface: start / send / close and
 * onmessage / onerror / onclose). It spawns the server itself, serialises with the SDK's public `serializeMessage`,
 * frames stderr with a cap per line enforced while reading, hands stdout to its reader (stdoutReader.ts: framing with
 * a cap, `parseJSONRPCMessage(parseJson(line))`, big lines in slices, responses matched to our requests), and owns
 * the whole launch: every process it starts carries a per-launch marker in its environment, and stopping (or the
 * server exiting) ends every process of the launch, daemons included (docs/SECURITY.md, Threat model: "Bounded",
 * "Processes"). This file is the process's lifetime; turning bytes into messages is the reader's.
 *
 *   const t = new StdioTransport({ server: 'files', command, args, env, limits });
 *   t.onstderr = (line, moreBytes) => …;   t.onexit = (code, signal) => …;   t.onstdoutend = () => …;
 *   await client.connect(t);               // start(): spawn
 *   await t.stop();                        // stdin EOF → SIGTERM → SIGKILL of the launch; close() also does it
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { serializeMessage } from '@modelcontextprotocol/client';
import type { Transport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { McpHostError, messageOf } from '../errors';
import * as l10n from '@vscode/l10n';
import type { Limits } from '../limits';
import { LineFramer, stripCr, utf8Boundary } from './lineFramer';
import { StdoutReader, type StdioMessageError } from './stdoutReader';
import { launchMarker, stopProcessTree, type LaunchMarker, type StopOptions, type StopResult } from './processTree';
import { spawnCommand } from './windowsCommand';

/** stderr lines are kept this much longer than the cap so that redaction runs before the cut. */
export const STDERR_REDACTION_SLACK = 4 * 1024;

/** Options for {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** Server name, for messages. */
  server: string;
  /** Absolute path of the program (see resolveCommand). */
  command: string;
  args?: readonly string[];
  /** The child's whole environment (the launch marker is added). */
  env: Record<string, string>;
  cwd?: string;
  limits: Pick<Limits, 'maxMessageBytes' | 'maxStderrLineBytes'>;
  /** Grace periods of the stop sequence. */
  stopGrace?: Pick<StopOptions, 'eofGraceMs' | 'termGraceMs'>;
}

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** A stderr line (its `\r` removed), cut at `maxStderrLineBytes` + {@link STDERR_REDACTION_SLACK}; `moreBytes` were dropped after it. */
  onstderr?: (line: string, moreBytes: number) => void;
  /** The process was spawned. */
  onspawn?: (pid: number) => void;
  /** The root process exited. */
  onexit?: (code: number | null, signal: NodeJS.Signals | null) => void;
  /** stdout ended (EOF); the process may still be running. */
  onstdoutend?: () => void;
  /** stderr ended (EOF), every line of it handed to `onstderr` first. */
  onstderrend?: () => void;
  /**
   * Something the server wrote was dropped (not JSON-RPC, over a limit, an unknown response id). When set, these
   * come here instead of `onerror`: they reach the host even while the SDK owns `onerror` for its connect-time probe.
   */
  ondropped?: (error: StdioMessageError) => void;

  /** The marker every process of this launch carries in its environment. */
  readonly marker: LaunchMarker = launchMarker();
  private child: ChildProcess | undefined;
  private exited = false;
  private closed = false;
  private stopping: Promise<StopResult | undefined> | undefined;
  /** stdout as messages (stdoutReader.ts). */
  private readonly stdout: StdoutReader;
  private readonly stderrFramer: LineFramer;

  constructor(private readonly options: StdioTransportOptions) {
    this.stdout = new StdoutReader(options.server, options.limits.maxMessageBytes, {
      message: message => this.onmessage?.(message),
      dropped: error => {
        if (this.ondropped) this.ondropped(error);
        else this.onerror?.(error);
      },
      pause: () => this.child?.stdout?.pause(),
      resume: () => this.child?.stdout?.resume(),
    });
    const maxStderr = options.limits.maxStderrLineBytes + STDERR_REDACTION_SLACK;
    this.stderrFramer = new LineFramer({ maxLineBytes: maxStderr, headBytes: maxStderr }, {
      line: bytes => this.onstderr?.(stripCr(bytes.toString('utf8')), 0),
      overflowEnd: (total, head) => {
        const end = utf8Boundary(head);
        this.onstderr?.(stripCr(head.toString('utf8', 0, end)), total - end);
      },
    });
  }

  /**
   * The root process's pid, once spawned. With `stderr`, this is what marks a transport as stdio to the SDK's
   * era negotiation: a stdio server silent on the `server/discover` probe is a legacy server, not an outage.
   */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The child's stderr stream (read by the transport's own line framer; exposed for stdio detection). */
  get stderr(): NodeJS.ReadableStream | null {
    return this.child?.stderr ?? null;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error(`the stdio transport of server \`${this.options.server}\` was already started`));
    const { server, command, cwd } = this.options;
    const env = { ...this.options.env, [this.marker.name]: this.marker.value };
    const how = spawnCommand(command, this.options.args ?? []);
    return new Promise<void>((resolve, reject) => {
      let spawned = false;
      const fail = (err: unknown) => reject(new McpHostError(l10n.t('server `{0}` could not be started ({1}): {2}', server, command, messageOf(err)), undefined, { cause: err }));
      let child: ChildProcess;
      try {
        child = spawn(how.file, how.args, {
          env, cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: false, windowsHide: true,
          ...(how.windowsVerbatimArguments ? { windowsVerbatimArguments: true } : {}),
        });
      } catch (err) {
        fail(err);
        return;
      }
      this.child = child;
      child.once('spawn', () => {
        spawned = true;
        if (child.pid !== undefined) this.onspawn?.(child.pid);
        resolve();
      });
      child.on('error', err => {
        if (!spawned) fail(err);
        else this.onerror?.(err);
      });
      child.once('exit', (code, signal) => {
        this.exited = true;
        this.onexit?.(code, signal);
      });
      child.once('close', () => this.onChildClosed());
      child.stdin?.on('error', err => this.onerror?.(err));
      child.stdout?.on('data', (chunk: Buffer) => this.stdout.push(chunk));
      child.stdout?.on('error', err => this.onerror?.(err));
      child.stdout?.once('end', () => {
        this.stdout.end();
        this.stdout.whenParsed(() => this.onstdoutend?.());
      });
      child.stderr?.on('data', (chunk: Buffer) => this.stderrFramer.push(chunk));
      child.stderr?.on('error', () => undefined);
      child.stderr?.once('end', () => {
        this.stderrFramer.end(true);
        this.onstderrend?.();
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (this.closed || !stdin || stdin.destroyed || !stdin.writable) return Promise.reject(new Error('Not connected'));
    this.stdout.track(message);
    if (stdin.write(serializeMessage(message)) && !this.drained) return Promise.resolve();
    // Backpressure: every send that finds the pipe full waits for the same drain (one listener pair, however
    // many messages are queued: a server that reads slowly must not pile up listeners).
    this.drained ??= new Promise<void>(resolve => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.drained = undefined;
        resolve();
      };
      stdin.once('drain', done);
      stdin.once('close', done);
    });
    return this.drained;
  }

  /** Resolves when stdin has drained (or closed); set while the pipe is full. */
  private drained: Promise<void> | undefined;

  /** Stops the launch (if still running) and reports the close. */
  async close(): Promise<void> {
    await this.stop();
    this.fireClose();
  }

  /**
   * Ends every process of this launch: close stdin, wait, SIGTERM, wait, SIGKILL, for the root's tree
   * and (Linux) every process carrying the launch marker. Single-flight; resolves with what it had to do
   * (undefined when nothing was ever spawned).
   */
  stop(): Promise<StopResult | undefined> {
    // Lines still queued for parsing are dropped: the host asked to stop (after the server exits by itself, they
    // are delivered before the close, see onChildClosed).
    this.stdout.dropQueue();
    this.stopping ??= this.stopLaunch();
    return this.stopping;
  }

  /** End the child's stdin (EOF), the polite first step of a stop. False if there is none. Never throws. */
  endStdin(): boolean {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return false;
    try {
      stdin.end();
      return true;
    } catch {
      return false;
    }
  }

  private async stopLaunch(): Promise<StopResult | undefined> {
    if (this.child?.pid === undefined) return undefined;
    const pid = this.exited ? undefined : this.child.pid;
    try {
      return await stopProcessTree(pid, () => { this.endStdin(); }, { ...this.options.stopGrace, marker: this.marker });
    } finally {
      this.stdout.clear();
      this.stderrFramer.clear();
    }
  }

  private onChildClosed(): void {
    // The server exited and its stdout closed: whatever of its launch is left (a daemon) cannot talk to
    // us; end it in the background (close() waits for that). Lines it wrote before are still delivered.
    if (!this.stopping) this.stopping = this.stopLaunch().catch(() => undefined);
    this.stdout.whenParsed(() => this.fireClose());
  }

  private fireClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

