/**
 * What every mcp-host command stands on (the handlers are in `commands.ts`, `doctor.ts` and `codeModeRun.ts`): the
 * runtime a command runs in (CliRuntime: configuration, host, output), the definition a command names (`pick`, with
 * `--timeout` applied), a host holding the servers it needs that is always shut down afterwards (`withHost`,
 * `withServer`; `shutdownAll` on Ctrl+C), a server started or a readable failure naming it with its stderr tail.
 */
import { type HostApi, type ServerHandle, McpHostError, type Catalogue, type ClientFeatures, type ConfigError, type ServerDefinition, countOf, everyTimeout } from '../mcp';
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { FailureError, UsageError, type ParsedArgs } from './args';
import { ownText } from './output';
import { cancelRunningTasks } from './tasks';

/** What a command needs from its surroundings (real: config files + McpHost; tests may pass others). */
export interface CliRuntime {
  loadConfig(args: ParsedArgs): Promise<LoadedConfig>;
  /**
   * A host; `features` are the client features this command can serve (elicitation for `call --elicit`);
   * `compileTool` names the tools whose schemas the command needs compiled when listed (default: each tool's on its first call).
   */
  createHost(features?: ClientFeatures, compileTool?: CompileTool): HostApi;
  /** Where a stdio command resolves to, for the doctor. */
  resolveCommand(def: ServerDefinition): Promise<{ path: string; via: string }>;
  out(text: string): void;
  err(text: string): void;
  /** OAuth sign-ins for remote servers (none: a 401 is an error). */
  signIn?: {
    isPending(server: string): boolean;
    waitForCode(server: string, timeoutMs: number): Promise<string>;
    /** Whether to wait for the user to finish signing in (a terminal, or asked to). */
    readonly wait: boolean;
    readonly waitMs: number;
  };
  /** Releases what the runtime holds (the sign-in listener). */
  dispose?(): Promise<void>;
  /** On a terminal: asks a server's form elicitation field by field (`call` without `--elicit`). */
  askElicitation?: ClientFeatures['elicit'];
}

export interface LoadedConfig {
  /** The file read (absolute). */
  file: string;
  definitions: ServerDefinition[];
  errors: ConfigError[];
  /** Things that do not stop a server (dropped properties, plain-text secrets…), one sentence each. */
  warnings?: string[];
  /** The roots offered to servers (the configuration's workspace folder or `--root`; may be none). */
  roots?: { uri: string; name?: string }[];
}

/** Which tools' schemas a command compiles: `call` only the tool it calls; `inspect`, `read`, … none; `doctor` all. */
export type CompileTool = (server: string, tool: string) => boolean;

const COMPILE_NONE: CompileTool = () => false;
/** `doctor` checks every tool's schemas when the list arrives (the core otherwise compiles a tool's on its first call). */
export const COMPILE_ALL: CompileTool = () => true;

/** Lines of stderr shown with a failure. */
const STDERR_TAIL = 10;

/** One line per config error: "<file>: <path>: <message>". */
export function configErrorLine(file: string, e: ConfigError): string {
  return `${file}: ${e.path}: ${e.message}`;
}

/** Applies `--timeout` to a definition (every timeout of `TIMEOUT_LIMITS`: the startup and the request timeout). */
export function withTimeout(def: ServerDefinition, timeout: number | undefined): ServerDefinition {
  return timeout ? { ...def, timeout: { ...def.timeout, ...everyTimeout(timeout) } } : def;
}

/** The definition named `name`, or a usage error naming the file, the setting and the fix. */
export function pick(cfg: LoadedConfig, name: string): ServerDefinition {
  const errors = cfg.errors.filter(e => e.server === name);
  if (errors.length) throw new UsageError(errors.map(e => configErrorLine(cfg.file, e)).join('\n'));
  const def = cfg.definitions.find(d => d.name === name);
  if (!def) {
    const names = [...new Set([...cfg.definitions.map(d => d.name), ...cfg.errors.flatMap(e => (e.server ? [e.server] : []))])];
    throw new UsageError(`no server named "${name}" in ${cfg.file}; ${names.length ? `servers: ${names.join(', ')}` : 'it defines no servers'}`);
  }
  if (def.disabled) throw new UsageError(`server "${name}" is disabled in ${cfg.file} (servers.${name}.disabled); set it to false to use it`);
  return def;
}

/** Hosts to shut down when the user presses Ctrl+C. */
const liveHosts = new Set<HostApi>();

let shuttingDown = false;

/** Shuts down every live host (SIGINT/SIGTERM, closed output); no host starts after this. */
export async function shutdownAll(err?: (line: string) => void): Promise<void> {
  shuttingDown = true;
  // Ctrl+C during `call` of a task: the server hears tasks/cancel before it is stopped.
  await cancelRunningTasks(liveHosts, err ?? (() => undefined));
  await Promise.allSettled([...liveHosts].map(h => h.shutdown()));
  liveHosts.clear();
}

/** Runs `fn` with a host holding `defs`, and shuts the host down afterwards whatever happens. */
export async function withHost<T>(rt: CliRuntime, defs: ServerDefinition[], fn: (host: HostApi) => Promise<T>, verbose = false, features?: ClientFeatures, compileTool?: CompileTool): Promise<T> {
  if (shuttingDown) throw new FailureError('stopping: no server is started');
  const host = compileTool ? rt.createHost(features, compileTool) : features ? rt.createHost(features) : rt.createHost();
  liveHosts.add(host);
  // Warnings the user would otherwise never see (e.g. a catalogue that could not be loaded); with
  // --verbose, every log line. Start failures are reported by the commands themselves.
  const logs = host.onLog(e => {
    if (verbose) rt.err(`[${e.server || 'host'}] ${e.source} ${e.level}: ${e.message}`);
    else if (e.source === 'lifecycle' && e.level === 'warning') rt.err(`mcp-host: warning: server "${e.server}": ${e.message}`);
    // What the OS sandbox refused a server (H93).
    else if (e.source === 'sandbox' && e.level !== 'info') rt.err(`mcp-host: sandbox: server "${e.server}": ${e.message}`);
  });
  try {
    await host.reconcile(defs);
    return await fn(host);
  } finally {
    // The OS sandbox reports a denial over its own socket, apart from the server's answer: what it has sent by now is
    // read (one turn of the event loop's poll phase) and printed before the servers stop.
    if (host.servers.some(s => s.sandboxed)) await new Promise(resolve => setTimeout(resolve, 50));
    try {
      await host.shutdown();
    } finally {
      logs.dispose();
      host.dispose();
      liveHosts.delete(host);
    }
  }
}

/** A readable failure for a server that would not start: message plus the stderr tail. */
function startFailure(handle: ServerHandle, err: unknown): string {
  const state = handle.state;
  const message = state.kind === 'error' ? state.message : err instanceof Error ? err.message : String(err);
  const tail = (state.kind === 'error' ? state.stderrTail : handle.stderrTail).slice(-STDERR_TAIL);
  // The server's own words, redacted, escaped and cut: the report per server stays small.
  const own = (s: string) => ownText(handle.redactor.text(s)).split('\n').slice(0, STDERR_TAIL).join('\n');
  return tail.length ? `${own(message)}\n  stderr (last ${countOf(tail.length, 'line')}):\n${tail.map(l => `    ${own(l)}`).join('\n')}` : own(message);
}

/** A remote server that needs the user to sign in: wait for the redirect, then finish on the connection. */
async function finishSignIn(rt: CliRuntime, handle: ServerHandle): Promise<void> {
  const signIn = rt.signIn;
  const finish = (handle as Partial<{ finishAuth(code: string): Promise<void> }>).finishAuth;
  if (!signIn?.isPending(handle.name) || !finish) return;
  if (!signIn.wait) {
    throw new FailureError(`server "${handle.name}" needs you to sign in: run mcp-host in a terminal (or set MCP_HOST_SIGN_IN=wait), open the URL it prints, and approve`);
  }
  const code = await signIn.waitForCode(handle.name, signIn.waitMs).catch(err => { throw new FailureError(err instanceof Error ? err.message : String(err)); });
  await finish.call(handle, code);
}

/** Starts one server; rejects with a FailureError that names the server and carries its stderr. */
export async function startOne(host: HostApi, name: string, rt?: CliRuntime): Promise<ServerHandle> {
  const handle = host.get(name);
  if (!handle) throw new FailureError(`server "${name}" was not created by the host`);
  if (rt && handle.state.kind === 'error') await finishSignIn(rt, handle);
  // reconcile() already started it (autoStart) and recorded any failure: do not launch it twice.
  if (handle.state.kind !== 'running' && handle.state.kind !== 'error') {
    try {
      await handle.start();
    } catch (err) {
      throw new FailureError(`server "${name}" failed to start: ${startFailure(handle, err)}`);
    }
  }
  if (handle.state.kind !== 'running') throw new FailureError(`server "${name}" failed to start: ${startFailure(handle, undefined)}`);
  return handle;
}

/** Start failures outside the doctor: one line (the core's message already quotes the last stderr line). */
export function oneLine(err: unknown): never {
  if (err instanceof FailureError) throw new FailureError(err.message.split('\n')[0]);
  throw err;
}

/** The running server's catalogue once every declared list has been fetched. */
export async function catalogueOf(handle: ServerHandle): Promise<Catalogue> {
  return handle.catalogue;
}

/**
 * Runs `fn` on the one server `name`. Its tools' schemas are compiled only as `compileTool` says (default none: only
 * `call` validates arguments and results, and only for the tool it calls).
 */
export async function withServer<T>(rt: CliRuntime, args: ParsedArgs, name: string, fn: (h: ServerHandle) => Promise<T>, features?: ClientFeatures, compileTool: CompileTool = COMPILE_NONE): Promise<T> {
  const cfg = await rt.loadConfig(args);
  const def = withTimeout(pick(cfg, name), args.timeout);
  return withHost(rt, [def], async host => fn(await startOne(host, name, rt).catch(oneLine)), args.verbose, features, compileTool);
}

/** What the server said in an error (the host's wording around it removed when it quotes the server). */
export function serverWords(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const m = /\(-?\d+\): ([\s\S]*)$/.exec(msg);
  return m ? m[1] : msg;
}

/** A command's failure on a server: arguments its inputSchema refused are a usage error; else the failure, naming the server. */
export function failed(server: string, what: string, err: unknown): Error {
  // Arguments that fail the tool's inputSchema are caught before sending: the user's mistake.
  if (err instanceof McpHostError && err.code === ProtocolErrorCode.InvalidParams) {
    return new UsageError(`${err.message} (mcp-host inspect ${server} shows the tool's inputSchema)`);
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new FailureError(msg.includes(server) ? msg : `${what} on server "${server}" failed: ${msg}`);
}
