/**
 * Code mode's interpreter (issue 42; moved off the caller's thread in issue 41): runs a model's JavaScript program in
 * a fresh QuickJS context (WebAssembly, the release-sync build of quickjs-emscripten; never Node's `vm`) per run, on
 * the thread that calls it, which is code mode's worker (codeModeWorker.ts, the bundle dist/codemode-worker.js): the
 * extension host's and the CLI's main thread never run guest code (codeModeEngine.ts starts the worker). The program
 * sees only `mcp.<server>.<tool>(args)` (async; safe names from codeModeNames.ts, given as a `NameTable`),
 * `console.log` (captured, bounded) and the language's own built-ins: no `require`, `process`, host object or I/O
 * exists inside. Every tool call goes through the injected `callTool` (in the worker: a message to the main thread,
 * which runs the caller's gated call), so the caller's gates (consent, enablement, grants) apply.
 *
 * The program is the body of an async function: `return` gives its value (as JSON, bounded by outputBytes) and
 * `await` works at its top level. Limits (CodeModeLimits) stop it: CPU time across all its slices (the interrupt
 * handler's deadline), memory (runtime.setMemoryLimit), stack, output bytes and tool calls; each ends the run with a
 * CodeModeError naming the limit and its setting. The interpreter runs in slices: one slice is the program's code
 * between two awaits, the event loop turns after every BATCH_MS of slices and while a tool call is pending, and a
 * turn of the thread that used more than `sliceMs` of CPU (default 50 ms; set-up and earlier slices of the turn
 * counted, SLICE_STOP_MS of it kept for stopping) stops the program. Both limits count the thread's CPU time
 * (../cpuClock.ts: the worker's own), not the wall clock: on a loaded machine the time other processes had the core
 * is not the program's, and a short program is not stopped for it. A program with more work splits it with `await null`.
 *
 *   const r = await runInterpreter(source, { table, callTool, limits });
 *   // r: { json, console: string[], calls: [{ server, tool, ok }] }
 */
import { cpuMs } from '../cpuClock';
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten';
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { READ_CAPS, readBoundedSync } from '../boundedRead';
import { LIMIT_SETTING, type CodeModeLimits } from './codeModeLimits';
import { CodeModeError, type CodeModeCall, type CodeModeErrorKind } from './codeModeEngine';

/**
 * The safe names a program uses and the real (server, tool) each stands for: codeModeNames() of the caller's servers,
 * as plain arrays (they cross to the worker by structured clone; the tools' schemas stay on the main thread).
 */
export type NameTable = [safeServer: string, server: string, tools: [safeTool: string, tool: string][]][];

export interface InterpreterOptions {
  table: NameTable;
  /** The caller's gated call; resolves with the result as JSON text. A rejection becomes the program's exception. */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
  limits: CodeModeLimits;
  signal?: AbortSignal;
  /**
   * Whether the caller cancelled, read by the interrupt handler inside a slice (in the worker: a flag the main thread
   * sets in shared memory, which a message could not deliver while the slice holds the worker's thread).
   */
  cancelled?: () => boolean;
}

export interface InterpreterResult {
  /** The program's return value as JSON (at most outputBytes; undefined → null). */
  json: string;
  console: string[];
  calls: CodeModeCall[];
}

/**
 * Above this QuickJS's recursion reaches Node's own stack limit first (measured on a main thread's ~1 MB stack: 512 KiB
 * does, 384 KiB does not; a worker's is 4 MB, so the bound holds there too).
 */
export const MAX_STACK_BYTES = 384 * 1024;

/** How long the engine runs the program's jobs before it lets the event loop turn (ms). */
const BATCH_MS = 10;
/**
 * Of the slice limit (at most half of it), kept for stopping a slice that ran out (unwinding the interpreter, the
 * error, disposing the runtime), so that the whole hold of the thread, not only the guest's part, stays within it.
 */
const SLICE_STOP_MS = 2;

let modulePromise: Promise<QuickJSWASMModule> | undefined;
/**
 * The interpreter's WebAssembly file: next to the bundle (dist/vendor/quickjs/, copied by esbuild.mjs and shipped in
 * the VSIX), else the installed package's (tests and development). Read from disk, never fetched.
 */
function wasmFile(): string {
  const shipped = path.join(__dirname, 'vendor', 'quickjs', 'emscripten-module.wasm');
  if (existsSync(shipped)) return shipped;
  try {
    const pkg = createRequire(__filename).resolve('@jitl/quickjs-wasmfile-release-sync/package.json');
    return path.join(path.dirname(pkg), 'dist', 'emscripten-module.wasm');
  } catch {
    throw new Error(`code mode's interpreter is missing: ${shipped} does not exist (it ships next to the bundle in vendor/quickjs/; reinstall mcp-host)`);
  }
}

/**
 * The interpreter, loaded once per thread (each run still gets its own runtime and context): from `compiled` (the
 * WebAssembly module an earlier worker compiled, handed over by the main thread) or from the file, compiled here.
 */
function quickJS(compiled?: WebAssembly.Module): Promise<QuickJSWASMModule> {
  return (modulePromise ??= (async () => {
    const wasmModule = compiled ?? await loadInterpreter();
    return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmModule }));
  })());
}

/** The interpreter's WebAssembly file, compiled (the worker hands the module to the main thread for the next worker). */
export async function loadInterpreter(): Promise<WebAssembly.Module> {
  return WebAssembly.compile(new Uint8Array(readBoundedSync(wasmFile(), { maxBytes: READ_CAPS.interpreter, what: 'interpreter' })));
}

/** The guest set-up: builds `mcp` and `console` from the one host function, then hides it. Returns the JSON encoder. */
function setupSource(table: Record<string, string[]>): string {
  return `(() => {
  const call = globalThis.__mcpHostCall, log = globalThis.__mcpHostLog, stringify = JSON.stringify, parse = JSON.parse;
  delete globalThis.__mcpHostCall; delete globalThis.__mcpHostLog;
  const table = ${JSON.stringify(table)};
  const mcp = Object.create(null);
  for (const s of Object.keys(table)) {
    const tools = Object.create(null);
    for (const t of table[s]) {
      tools[t] = async (args) => parse(await call(s, t, stringify(args === undefined ? {} : args)));
    }
    mcp[s] = Object.freeze(tools);
  }
  Object.defineProperty(globalThis, 'mcp', { value: Object.freeze(mcp), enumerable: false, writable: false, configurable: false });
  const fmt = (v) => { if (typeof v === 'string') return v; try { const s = stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); } };
  const consoleObj = Object.freeze({ log: (...a) => { log(a.map(fmt).join(' ')); }, error: (...a) => { log(a.map(fmt).join(' ')); } });
  Object.defineProperty(globalThis, 'console', { value: consoleObj, enumerable: false, writable: false, configurable: false });
  return (v) => { const s = stringify(v === undefined ? null : v); return s === undefined ? 'null' : s; };
})()`;
}

/**
 * Runs `source` (the body of an async function) on this thread and resolves with its value as JSON, or rejects with a
 * CodeModeError. `compiled`: the interpreter's WebAssembly module, when the caller has one.
 */
export async function runInterpreter(source: string, opts: InterpreterOptions, compiled?: WebAssembly.Module): Promise<InterpreterResult> {
  const limits = opts.limits;
  const names = new Map(opts.table.map(([sid, server, tools]) => [sid, { server, tools: new Map(tools) }]));
  const table: Record<string, string[]> = {};
  for (const [sid, , tools] of opts.table) table[sid] = tools.map(([tid]) => tid);

  const qjs = await quickJS(compiled);
  /**
   * Issue 41: when the engine's current turn of the thread began (the run's set-up, then the end of each await). The
   * slice limit counts from here, not from the slice's own start: the runtime's set-up and the earlier slices of the
   * same turn held the thread too (the bench measured a runaway's hold at 51.8 ms under a 50 ms limit).
   */
  let turnStart = cpuMs();
  const runtime = qjs.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(Math.min(limits.stackBytes, MAX_STACK_BYTES));
  const ctx = runtime.newContext();

  const abort = new AbortController();
  const onAbort = () => abort.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const consoleLines: string[] = [];
  let consoleBytes = 0;
  let consoleCut = false;
  const calls: CodeModeCall[] = [];
  let fatal: CodeModeError | undefined;
  let cpuUsed = 0;
  let sliceStart = 0;
  let disposed = false;
  const pending = new Set<Promise<void>>();
  const fail = (kind: CodeModeErrorKind, message: string) => new CodeModeError(kind, message, consoleLines, calls);

  // The host's own set-up (setupSource) runs before the program and is not the program's time: on a loaded machine
  // its wall time alone could pass the slice limit and end the run with QuickJS's bare "interrupted".
  let programStarted = false;
  runtime.setInterruptHandler(() => {
    if (!programStarted) return false;
    if (fatal) return true;
    if (abort.signal.aborted || opts.cancelled?.()) { fatal = fail('aborted', 'The program was cancelled.'); return true; }
    const now = cpuMs();
    if (cpuUsed + (now - sliceStart) > limits.cpuMs) {
      fatal = fail('cpu', `The program used more than ${limits.cpuMs} ms of CPU time and was stopped (setting ${LIMIT_SETTING.cpu}). Do less work per program.`);
      return true;
    }
    if (now - turnStart > limits.sliceMs - Math.min(SLICE_STOP_MS, limits.sliceMs / 2)) {
      fatal = fail('slice', `The program ran ${limits.sliceMs} ms without awaiting and was stopped (setting ${LIMIT_SETTING.slice}). Split long work with \`await null\` between parts.`);
      return true;
    }
    return false;
  });

  /** Runs guest code synchronously as one slice, counting its CPU time. */
  let poisoned = false;
  const slice = <T>(fn: () => T): T => {
    sliceStart = cpuMs();
    try {
      return fn();
    } catch (err) {
      // The host's own stack ran out inside the interpreter: the module's state is unknown, so it is not reused.
      poisoned = true;
      if (err instanceof RangeError) throw (fatal ??= fail('stack', `The program overflowed its stack (setting ${LIMIT_SETTING.stack}). Recurse less deeply.`));
      throw err;
    } finally {
      cpuUsed += cpuMs() - sliceStart;
    }
  };

  let wake: () => void = () => undefined;
  const hostCall = ctx.newFunction('__mcpHostCall', (sH, tH, aH) => {
    const sid = ctx.getString(sH), tid = ctx.getString(tH), argsJson = ctx.getString(aH);
    const entry = names.get(sid);
    const tool = entry?.tools.get(tid);
    if (!entry || tool === undefined) throw new Error(`mcp.${sid}.${tid} is not a tool of this program.`);
    if (calls.length >= limits.maxToolCalls) {
      fatal ??= fail('toolCalls', `The program made more than ${limits.maxToolCalls} tool calls and was stopped (setting ${LIMIT_SETTING.toolCalls}). Call fewer tools per program.`);
      throw new Error(fatal.message);
    }
    const record: CodeModeCall = { server: entry.server, tool, ok: false };
    calls.push(record);
    let args: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(argsJson);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      args = parsed as Record<string, unknown>;
    } catch {
      throw new TypeError(`mcp.${sid}.${tid}(args): args must be an object.`);
    }
    const deferred = ctx.newPromise();
    const settle = (async () => {
      let ok = true, json = 'null', message = '';
      try {
        json = await opts.callTool(entry.server, tool, args, abort.signal);
      } catch (err) {
        ok = false;
        message = `mcp.${sid}.${tid}: ${err instanceof Error ? err.message : String(err)}`;
      }
      record.ok = ok;
      if (disposed) return;
      if (ok) {
        const h = ctx.newString(json);
        deferred.resolve(h);
        h.dispose();
      } else {
        const e = ctx.newError(message);
        deferred.reject(e);
        e.dispose();
      }
      deferred.dispose();
    })();
    const tracked = settle.finally(() => { pending.delete(tracked); wake(); });
    pending.add(tracked);
    return deferred.handle;
  });
  const hostLog = ctx.newFunction('__mcpHostLog', lineH => {
    const line = ctx.getString(lineH);
    if (consoleCut) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (consoleBytes + bytes > limits.outputBytes) {
      consoleCut = true;
      consoleLines.push(`… console output cut at ${limits.outputBytes} bytes (setting ${LIMIT_SETTING.output})`);
      return;
    }
    consoleBytes += bytes;
    consoleLines.push(line);
  });
  ctx.setProp(ctx.global, '__mcpHostCall', hostCall);
  ctx.setProp(ctx.global, '__mcpHostLog', hostLog);
  hostCall.dispose();
  hostLog.dispose();

  const handles: QuickJSHandle[] = [];
  try {
    const encoder = ctx.unwrapResult(slice(() => ctx.evalCode(setupSource(table), 'setup.js')));
    handles.push(encoder);
    programStarted = true;
    const evaluated = slice(() => ctx.evalCode(`(async () => {\n${source}\n})()`, 'program.js'));
    if (evaluated.error) throw guestError(ctx, evaluated.error, fatal, fail);
    const promise = evaluated.value;
    handles.push(promise);
    const aborted = new Promise<void>(resolve => abort.signal.addEventListener('abort', () => resolve(), { once: true }));
    let lastTurn = performance.now();
    for (;;) {
      // One job per slice (each job is the program's code between two awaits), and back to the event loop after
      // BATCH_MS of them: a program that awaits (a tool call, or only `await null`) never holds the thread longer.
      const batchStart = performance.now();
      do {
        const jobs = slice(() => runtime.executePendingJobs(1));
        if (jobs.error) throw guestError(ctx, jobs.error, fatal, fail);
        if (fatal) throw fatal;
      } while (runtime.hasPendingJob() && performance.now() - batchStart < BATCH_MS);
      const state = ctx.getPromiseState(promise);
      if (state.type === 'rejected') throw guestError(ctx, state.error, fatal, fail);
      if (state.type === 'fulfilled') {
        const value = state.value;
        handles.push(value);
        const encoded = slice(() => ctx.callFunction(encoder, ctx.undefined, value));
        if (encoded.error) throw guestError(ctx, encoded.error, fatal, fail);
        const json = ctx.getString(encoded.value);
        encoded.value.dispose();
        const size = Buffer.byteLength(json);
        if (size > limits.outputBytes) {
          throw fail('output', `The program's return value is ${size} bytes, over ${limits.outputBytes} (setting ${LIMIT_SETTING.output}). Return a summary, not the whole data.`);
        }
        return { json, console: consoleLines, calls };
      }
      if (runtime.hasPendingJob() || performance.now() - lastTurn >= BATCH_MS) {
        // A macrotask turn, not only a microtask: tool calls that answer at once settle as microtasks and would
        // otherwise keep the thread from timers and I/O for the whole program.
        await new Promise<void>(resolve => setImmediate(resolve));
        lastTurn = performance.now();
        turnStart = cpuMs();
      } else if (!pending.size) {
        throw fail('stalled', 'The program awaits something that never settles (only mcp.* calls settle in code mode).');
      } else {
        const woken = new Promise<void>(resolve => { wake = resolve; });
        await Promise.race([woken, aborted]);
        turnStart = cpuMs();
      }
      if (abort.signal.aborted) throw (fatal ??= fail('aborted', 'The program was cancelled.'));
    }
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    abort.abort();
    disposed = true;
    try {
      if (poisoned) throw new Error('poisoned');
      for (const h of handles) if (h.alive) h.dispose();
      ctx.dispose();
      runtime.dispose();
    } catch {
      // A runtime stopped mid-way (out of memory, host stack) may still hold objects and QuickJS then aborts its
      // module: the next run loads a fresh module instead, and this one goes with its last reference.
      modulePromise = undefined;
    }
  }
}

/** A guest exception as a CodeModeError: a limit's own error when one tripped, else the program's error text. */
function guestError(ctx: QuickJSContext, handle: QuickJSHandle, fatal: CodeModeError | undefined, fail: (k: CodeModeErrorKind, m: string) => CodeModeError): CodeModeError {
  const dumped: unknown = ctx.dump(handle);
  handle.dispose();
  if (fatal) return fatal;
  const obj = typeof dumped === 'object' && dumped !== null ? (dumped as Record<string, unknown>) : undefined;
  const name = typeof obj?.name === 'string' ? obj.name : 'Error';
  const message = typeof obj?.message === 'string' ? obj.message : String(dumped);
  if (/out of memory/i.test(message)) {
    return fail('memory', `The program ran out of memory (setting ${LIMIT_SETTING.memory}). Keep less data at once.`);
  }
  if (/stack overflow|call stack/i.test(message)) {
    return fail('stack', `The program overflowed its stack (setting ${LIMIT_SETTING.stack}). Recurse less deeply.`);
  }
  const stack = typeof obj?.stack === 'string' ? `\n${obj.stack.split('\n').slice(0, 5).join('\n')}` : '';
  return fail('program', `${name}: ${message}${stack}`);
}
