/**
 * The handlers of mcp-host's commands over the core's HostApi (the commands themselves are the rows of
 * `commandTable.ts`). Each one loads the configuration, starts only the servers it needs, and always shuts the host down.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { type HostApi, type ServerHandle, McpHostError, loadEnvironment, type Catalogue, type ClientFeatures, type ConfigError, type ServerDefinition, hasOwn, redactorFor, toolUi, visibleToModel, protocolLabel, countOf, shownName, SkillError, READ_CAPS, readBoundedText, programValue } from '../mcp';
import { ElicitFromFlag, parseElicitContent } from './elicit';
import { FailureError, UsageError, parsePromptArgs, parseToolArgs, type ParsedArgs } from './args';
import { describeCapabilities, describeCounts, formatPrompt, formatResource, formatToolResult } from './format';
import { jsonText, ownText } from './output';
import { cancelRunningTasks, taskReporter } from './tasks';
import { createInterface } from 'node:readline/promises';
import { CodeModeError, runProgram } from '../mcp/codemode/codeModeEngine';

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
const COMPILE_ALL: CompileTool = () => true;

/** How the doctor marks a server that runs in the OS sandbox (H93). */
export const SHIELD = '🛡 sandboxed';

/** Lines of stderr shown with a failure. */
const STDERR_TAIL = 10;

/** One line per config error: "<file>: <path>: <message>". */
export function configErrorLine(file: string, e: ConfigError): string {
  return `${file}: ${e.path}: ${e.message}`;
}

/** Applies `--timeout` to a definition (both the startup and the request timeout). */
function withTimeout(def: ServerDefinition, timeout: number | undefined): ServerDefinition {
  return timeout ? { ...def, timeout: { ...def.timeout, startup: timeout, request: timeout } } : def;
}

/** The definition named `name`, or a usage error naming the file, the setting and the fix. */
function pick(cfg: LoadedConfig, name: string): ServerDefinition {
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
async function withHost<T>(rt: CliRuntime, defs: ServerDefinition[], fn: (host: HostApi) => Promise<T>, verbose = false, features?: ClientFeatures, compileTool?: CompileTool): Promise<T> {
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
async function startOne(host: HostApi, name: string, rt?: CliRuntime): Promise<ServerHandle> {
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
function oneLine(err: unknown): never {
  if (err instanceof FailureError) throw new FailureError(err.message.split('\n')[0]);
  throw err;
}

/** The running server's catalogue once every declared list has been fetched. */
async function catalogueOf(handle: ServerHandle): Promise<Catalogue> {
  return handle.catalogue;
}

/**
 * Runs `fn` on the one server `name`. Its tools' schemas are compiled only as `compileTool` says (default none: only
 * `call` validates arguments and results, and only for the tool it calls).
 */
async function withServer<T>(rt: CliRuntime, args: ParsedArgs, name: string, fn: (h: ServerHandle) => Promise<T>, features?: ClientFeatures, compileTool: CompileTool = COMPILE_NONE): Promise<T> {
  const cfg = await rt.loadConfig(args);
  const def = withTimeout(pick(cfg, name), args.timeout);
  return withHost(rt, [def], async host => fn(await startOne(host, name, rt).catch(oneLine)), args.verbose, features, compileTool);
}

/** What the server said in an error (the host's wording around it removed when it quotes the server). */
function serverWords(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const m = /\(-?\d+\): ([\s\S]*)$/.exec(msg);
  return m ? m[1] : msg;
}

function failed(server: string, what: string, err: unknown): Error {
  // Arguments that fail the tool's inputSchema are caught before sending: the user's mistake.
  if (err instanceof McpHostError && err.code === ProtocolErrorCode.InvalidParams) {
    return new UsageError(`${err.message} (mcp-host inspect ${server} shows the tool's inputSchema)`);
  }
  const msg = err instanceof Error ? err.message : String(err);
  return new FailureError(msg.includes(server) ? msg : `${what} on server "${server}" failed: ${msg}`);
}

// ---------------------------------------------------------------------------------------------

/**
 * The doctor's lines for a stdio server's envFile problems: each bad line by number and what is wrong (an unclosed
 * quote, a bad variable name, no `=`), from `loadEnvironment`, the one parser the launch uses; never a value. An
 * envFile that cannot be read at all is the launch's error, reported with the server.
 */
async function envFileProblems(def: ServerDefinition): Promise<string[]> {
  if (def.type !== 'stdio' || !def.envFile) return [];
  const r = await loadEnvironment(def, {});
  return r.error ? [] : r.warnings.map(w => `    ! ${w.message}`);
}

export async function doctor(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const cfg = await rt.loadConfig(args);
  rt.out(`config: ${cfg.file}`);
  for (const e of cfg.errors) rt.out(ownText(`✗ ${configErrorLine(cfg.file, e)}`, 4096));
  for (const w of cfg.warnings ?? []) rt.out(ownText(`! ${w}`, 4096));
  const defs = cfg.definitions.filter(d => !d.disabled).map(d => withTimeout(d, args.timeout));
  for (const d of cfg.definitions.filter(d => d.disabled)) rt.out(ownText(`- ${d.name}: disabled, skipped`));
  if (!defs.length && !cfg.errors.length) rt.out('no servers configured');

  let failures = 0;
  await withHost(rt, defs, async host => {
    // Start everything at once; report in configuration order.
    const results = await Promise.all(defs.map(async def => {
      const lines: string[] = [];
      let ok = true;
      let where = def.type === 'stdio' ? '' : ` ${redactorFor(def).url(def.url)}`;
      // The envFile's bad lines (line number and what is wrong, never a value), by the parser the launch uses.
      const envProblems = await envFileProblems(def);
      if (def.type === 'stdio') {
        try {
          const r = await rt.resolveCommand(def);
          where = ` ${r.path} (via ${r.via})`;
        } catch (err) {
          return { ok: false, lines: [`✗ ${def.name} (stdio): ${ownText(err instanceof Error ? err.message : String(err))}`, ...envProblems] };
        }
      }
      const handle = host.get(def.name);
      try {
        if (!handle) throw new Error('not created by the host');
        await startOne(host, def.name, rt);
        const s = handle.state;
        if (s.kind !== 'running') throw new Error(`state is ${s.kind}`);
        const cat = await catalogueOf(handle);
        lines.push(`✓ ${def.name} (${def.type})${where}${handle.sandboxed ? ` ${SHIELD}` : ''}`);
        lines.push(`    server ${s.serverInfo.name} ${s.serverInfo.version}, ${protocolLabel(s.protocolVersion)}`);
        lines.push(`    capabilities: ${describeCapabilities(s.capabilities)}`);
        lines.push(`    ${describeCounts(cat)}`);
      } catch (err) {
        ok = false;
        const msg = err instanceof FailureError ? err.message.replace(/^server "[^"]*" failed to start: /, '') : err instanceof Error ? err.message : String(err);
        lines.push(`✗ ${def.name} (${def.type})${where}${handle?.sandboxed ? ` ${SHIELD}` : ''}`);
        lines.push(...msg.split('\n').map(l => `    ${l.trimStart() === l ? l : l.slice(2)}`));
      }
      lines.push(...envProblems);
      return { ok, lines };
    }));
    for (const r of results) {
      if (!r.ok) failures++;
      for (const l of r.lines) rt.out(ownText(l));
    }
  }, args.verbose, undefined, COMPILE_ALL);
  const total = defs.length;
  rt.out(`${total - failures} of ${total} server${total === 1 ? '' : 's'} OK${cfg.errors.length ? `, ${cfg.errors.length} configuration error${cfg.errors.length === 1 ? '' : 's'}` : ''}`);
  if (cfg.errors.length) return 2;
  return failures ? 1 : 0;
}

export async function inspect(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name] = args.positionals;
  if (!name) throw new UsageError('inspect needs a server name: mcp-host inspect <server>', { help: true });
  const report = await withServer(rt, args, name, async handle => {
    const s = handle.state;
    if (s.kind !== 'running') throw new FailureError(`server "${name}" is not running`);
    const cat = await catalogueOf(handle);
    return {
      serverInfo: s.serverInfo,
      protocolVersion: s.protocolVersion,
      era: s.era,
      capabilities: s.capabilities,
      ...(s.instructions ? { instructions: s.instructions } : {}),
      tools: cat.tools,
      prompts: cat.prompts,
      resources: cat.resources,
      resourceTemplates: cat.resourceTemplates,
      // MCP Apps: the tools that come with a view, and its ui:// resource; app-only tools are marked.
      apps: cat.tools.filter(t => toolUi(t) || !visibleToModel(t)).map(t => ({ tool: t.name, ...(toolUi(t) ? { resourceUri: toolUi(t) } : {}), visibility: visibleToModel(t) ? ['model', 'app'] : ['app'] })),
    };
  });
  rt.out(jsonText(report));
  return 0;
}

/** What `taskBound`'s `expired` rejects with. */
const TASK_TIMED_OUT = new Error('task timed out');

/** A timer started with the call's task (once): `expired` rejects with TASK_TIMED_OUT `ms` later. */
function taskBound(ms: number): { start(): void; expired: Promise<never>; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let fire!: () => void;
  const expired = new Promise<never>((_, reject) => { fire = () => reject(TASK_TIMED_OUT); });
  expired.catch(() => undefined);
  return {
    start: () => { timer ??= setTimeout(fire, ms); },
    expired,
    dispose: () => clearTimeout(timer),
  };
}

export async function call(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, tool] = args.positionals;
  if (!name || !tool) throw new UsageError(`call needs a server and a tool: mcp-host call <server> <tool> --args '{"key":"value"}'`, { help: true });
  const toolArgs = parseToolArgs(args.args);
  // --elicit: checked before any server starts; then the answer to every form the server asks for.
  const answers = args.elicit === undefined ? undefined : new ElicitFromFlag(parseElicitContent(args.elicit, name), rt.err);
  let ui: string | undefined;
  const result = await withServer(rt, args, name, async handle => {
    ui = toolUi(handle.catalogue.tools.find(t => t.name === tool));
    if (!handle.catalogue.tools.some(t => t.name === tool) && handle.catalogue.tools.length) {
      throw new UsageError(`server "${name}" has no tool "${tool}"; tools: ${handle.catalogue.tools.map(t => t.name).join(', ')}`);
    }
    // --timeout bounds a task's wait too: from the task's creation, at most that long (then tasks/cancel).
    const bound = args.timeout === undefined ? undefined : taskBound(args.timeout);
    const report = taskReporter(rt.err);
    const running = handle.callTool(tool, toolArgs, { userStarted: true, onTask: t => { bound?.start(); report(t); }, ...(args.task ? { task: args.task } : {}) });
    try {
      // Content that does not fit a form ends the call at once (the servers then stop), task or not.
      return await Promise.race([running, ...(answers ? [answers.failed] : []), ...(bound ? [bound.expired] : [])]);
    } catch (err) {
      if ((answers && err instanceof UsageError) || err === TASK_TIMED_OUT) {
        running.catch(() => undefined);
        await cancelRunningTasks([{ servers: [handle] }], rt.err);
        if (err === TASK_TIMED_OUT) {
          throw new FailureError(`server "${name}": the task of tool "${tool}" did not end within --timeout ${args.timeout} ms, so it was cancelled (tasks/cancel); give a larger --timeout, or none to wait until the task ends (Ctrl+C cancels it)`);
        }
        throw err;
      }
      throw failed(name, `tools/call ${tool}`, err);
    } finally {
      bound?.dispose();
    }
  }, answers ? { elicit: (server, params) => answers.elicit(server, params) } : rt.askElicitation && { elicit: rt.askElicitation },
  (server, t) => server === name && t === tool);
  if (args.json) rt.out(jsonText(result));
  else rt.out(formatToolResult(result));
  // The editor renders this result in the tool's MCP App view; the command line names it.
  if (ui) rt.err(`ui: ${ui} (an MCP App view; the editor renders it, mcp-host read ${name} ${ui} prints its HTML)`);
  if (result.isError) {
    rt.err(`mcp-host: tool "${tool}" on server "${name}" reported an error (isError: true)`);
    return 1;
  }
  return 0;
}

export async function read(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, uri] = args.positionals;
  if (!name || !uri) throw new UsageError('read needs a server and a resource URI: mcp-host read <server> <uri>', { help: true });
  const result = await withServer(rt, args, name, async handle => {
    try {
      return await handle.readResource(uri);
    } catch (err) {
      // Not the user's mistake in a tool's arguments (no inputSchema hint, no usage exit): the server has no such
      // resource (-32002, or -32602 as 2025-11-25 servers say it) or failed to read it; its words, escaped, exit 1.
      const code = err instanceof McpHostError ? err.code : undefined;
      if (code === ProtocolErrorCode.ResourceNotFound || code === ProtocolErrorCode.InvalidParams) {
        throw new FailureError(`server "${name}" has no resource ${JSON.stringify(uri)}: ${serverWords(err)}`);
      }
      throw failed(name, `resources/read ${uri}`, err);
    }
  });
  rt.out(args.json ? jsonText(result) : formatResource(result));
  return 0;
}

export async function prompt(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, promptName] = args.positionals;
  if (!name || !promptName) throw new UsageError('prompt needs a server and a prompt name: mcp-host prompt <server> <name> --arg key=value', { help: true });
  const promptArgs = parsePromptArgs(args.arg);
  const result = await withServer(rt, args, name, async handle => {
    const known = handle.catalogue.prompts.find(p => p.name === promptName);
    if (!known && handle.catalogue.prompts.length) {
      throw new UsageError(`server "${name}" has no prompt "${promptName}"; prompts: ${handle.catalogue.prompts.map(p => p.name).join(', ')}`);
    }
    const missing = (known?.arguments ?? []).filter(a => a.required && !hasOwn(promptArgs, a.name)).map(a => a.name);
    if (missing.length) throw new UsageError(`prompt "${promptName}" on server "${name}" needs ${missing.map(m => `--arg ${m}=…`).join(' ')}`);
    try {
      return await handle.getPrompt(promptName, promptArgs);
    } catch (err) {
      throw failed(name, `prompts/get ${promptName}`, err);
    }
  });
  rt.out(args.json ? jsonText(result) : formatPrompt(result));
  return 0;
}

/** `mcp-host skills <server>`: the server's skills (SEP-2640), one per line: name, then description (H119). */
export async function skills(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name] = args.positionals;
  if (!name) throw new UsageError('skills needs a server: mcp-host skills <server>', { help: true });
  const list = await withServer(rt, args, name, async handle => handle.skills.map(s => ({ ...s })));
  if (args.json) {
    rt.out(jsonText({ skills: list }));
    return 0;
  }
  if (!list.length) {
    rt.out(`server "${name}" lists no skills`);
    return 0;
  }
  // Server text on one line each: controls, bidi and line breaks folded (humanText.ts), then escaped by rt.out.
  const width = Math.min(40, Math.max(...list.map(s => shownName(s.name).length)));
  for (const s of list) rt.out(`${shownName(s.name).padEnd(width)}  ${shownName(s.description, 200)}`);
  return 0;
}

/** `mcp-host skill <server> <name> [file]`: a skill's SKILL.md (or one of its files), verified before it is printed (H121). */
export async function skill(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, skillName, file] = args.positionals;
  if (!name || !skillName) throw new UsageError('skill needs a server and a skill name: mcp-host skill <server> <name> [file]', { help: true });
  const loaded = await withServer(rt, args, name, async handle => {
    try {
      return await handle.loadSkill(skillName, file);
    } catch (err) {
      if (err instanceof SkillError) throw new FailureError(err.message);
      throw failed(name, `loading skill ${JSON.stringify(skillName)}`, err);
    }
  });
  rt.out(args.json ? jsonText(loaded) : loaded.text);
  return 0;
}

/**
 * `mcp-host run [<server>…] <file.js>` (issue 42, code mode): runs a JavaScript program in the code-mode engine
 * (src/mcp/codemode) against the named servers (none named: every enabled server). Each `mcp.<server>.<tool>(args)`
 * goes through the same call path as `call` (the host's `callTool`, arguments checked against the schema); a tool may
 * be called only when `--allow server/tool` (or `server/*`) grants it, else on a terminal the user is asked once per
 * tool, and without a terminal the call is refused with the flag to pass. A tool's result reaches the program as its
 * structuredContent, else the text of a single text block, else its content array; `isError: true` throws.
 */
export async function run(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const file = args.positionals[args.positionals.length - 1];
  const named = args.positionals.slice(0, -1);
  if (!file) throw new UsageError('run needs a program: mcp-host run [<server>…] <file.js> [--allow server/tool]', { help: true });
  for (const a of args.allow) {
    if (!/^[^/]+\/.+$/.test(a)) throw new UsageError(`--allow ${a}: give a server and a tool as server/tool (or server/* for all its tools)`, { help: true });
  }
  let source: string;
  try {
    source = await readBoundedText(file, { maxBytes: READ_CAPS.program, what: 'a program' });
  } catch (err) {
    throw new UsageError(`cannot read the program ${err instanceof Error ? err.message : String(err)}`);
  }
  const cfg = await rt.loadConfig(args);
  const defs = (named.length ? named.map(n => pick(cfg, n)) : cfg.definitions.filter(d => !d.disabled)).map(d => withTimeout(d, args.timeout));
  if (!defs.length) throw new UsageError(`no servers to run the program against: ${cfg.file} defines no enabled server`);
  const granted = new Set(args.allow);
  // One question per tool and run, even when the program calls it several times at once (Promise.all).
  const asked = new Map<string, Promise<boolean>>();
  const interactive = process.stdin.isTTY && process.stderr.isTTY;
  const ask = async (server: string, tool: string): Promise<boolean> => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(ownText(`mcp-host run: the program calls tool "${tool}" on server "${server}"; allow it for this run? [y/N] `));
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
  const allowed = (server: string, tool: string): Promise<boolean> => {
    if (granted.has(`${server}/${tool}`) || granted.has(`${server}/*`)) return Promise.resolve(true);
    if (!interactive) return Promise.resolve(false);
    const key = `${server}/${tool}`;
    let answer = asked.get(key);
    if (!answer) {
      // Questions one after another on the terminal, each after the one before.
      const before = [...asked.values()].at(-1) ?? Promise.resolve(false);
      asked.set(key, answer = before.catch(() => false).then(() => ask(server, tool)));
    }
    return answer;
  };
  const outcome = await withHost(rt, defs, async host => {
    const handles = await Promise.all(defs.map(d => startOne(host, d.name, rt).catch(oneLine)));
    const servers = handles.map(h => ({ name: h.name, tools: h.catalogue.tools.filter(visibleToModel) }));
    try {
      return await runProgram(source, {
        servers,
        callTool: async (server, tool, toolArgs, signal) => {
          if (!(await allowed(server, tool))) {
            throw new Error(`tool "${tool}" on server "${server}" is not allowed for this program; grant it with --allow ${server}/${tool} (or --allow ${server}/*)`);
          }
          const handle = handles.find(h => h.name === server);
          if (!handle) throw new Error(`server "${server}" is not part of this run`);
          return programValue(server, tool, await handle.callTool(tool, toolArgs, { userStarted: true, signal }));
        },
      });
    } catch (err) {
      if (err instanceof CodeModeError) return err;
      throw err;
    }
  }, args.verbose, undefined, (server, tool) => defs.some(d => d.name === server) && !!tool);
  for (const line of outcome.console) rt.err(ownText(line, 16 * 1024));
  if (outcome instanceof CodeModeError) throw new FailureError(`the program ${file} stopped: ${outcome.message}`);
  rt.out(args.json ? jsonText(outcome) : jsonText(outcome.value));
  return 0;
}
