/**
 * Code mode's engine (issue 42; off the caller's thread since issue 41): runs a model's JavaScript program in a fresh
 * QuickJS context (WebAssembly, quickjs-emscripten; never Node's `vm`) inside a `worker_threads` Worker of its own
 * (codeModeWorker.ts, the bundle dist/codemode-worker.js next to the bundle that loads this file; unbundled,
 * codeModeWorker.js beside this one), so the extension host's and the CLI's main thread never run guest code and a
 * runaway program holds only its worker. The program sees only `mcp.<server>.<tool>(args)` (async; safe names from
 * codeModeNames.ts), `console.log` (captured, bounded) and the language's own built-ins: no `require`, `process`,
 * host object or I/O exists inside. Every tool call comes back to this thread as a message and goes through the
 * injected `callTool`, so the caller's gates (consent, enablement, grants) apply: the engine has no other path to a server.
 *
 * The program is the body of an async function: `return` gives its value (as JSON, bounded by outputBytes) and
 * `await` works at its top level. Limits (CodeModeLimits) stop it, enforced in the worker by the interpreter
 * (codeModeInterpreter.ts): CPU time across all its slices, the longest stretch without awaiting (`sliceMs`), both
 * counted on the worker's own CPU clock, memory, stack, output bytes and tool calls; each ends the run with a
 * CodeModeError naming the limit and its setting. As a last resort this thread ends a worker that stops answering
 * (`worker.terminate()`, STALL_MS); every run's worker is ended when the run ends.
 *
 *   const r = await runProgram('const a = await mcp.echo.echo({ text: "hi" }); return a;', { servers, callTool });
 *   // r: { value, console: string[], calls: [{ server, tool, ok }] }
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { codeModeNames, type CodeModeServer } from './codeModeNames';
import { DEFAULT_CODE_MODE_LIMITS, LIMIT_SETTING, type CodeModeLimits } from './codeModeLimits';
import type { NameTable } from './codeModeInterpreter';
import type { FromWorker, ToWorker, WorkerStart } from './codeModeWorker';

export { DEFAULT_CODE_MODE_LIMITS, type CodeModeLimits };

/** Why a run ended without a value. */
export type CodeModeErrorKind = 'cpu' | 'slice' | 'memory' | 'stack' | 'toolCalls' | 'output' | 'program' | 'aborted' | 'stalled';

/** A program that did not finish: `kind` says why, the message says what to change (for the model or the user). */
export class CodeModeError extends Error {
  constructor(readonly kind: CodeModeErrorKind, message: string, readonly console: string[] = [], readonly calls: CodeModeCall[] = []) {
    super(message);
    this.name = 'CodeModeError';
  }
}

/** One tool call a program made. */
export interface CodeModeCall {
  server: string;
  tool: string;
  ok: boolean;
}

export interface RunOptions {
  /** The catalogue view: servers and the tools a program may call (already filtered by the caller's gate). */
  servers: readonly CodeModeServer[];
  /** The only path to a server: the caller's gated call. A rejection becomes the program's exception. */
  callTool(server: string, tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  limits?: Partial<CodeModeLimits>;
  signal?: AbortSignal;
}

export interface RunResult {
  /** The program's return value (JSON-compatible; undefined → null). */
  value: unknown;
  console: string[];
  calls: CodeModeCall[];
}

/** How often this thread asks a silent worker whether it still answers (ms of wall time). */
const PING_MS = 1_000;
/**
 * How long a worker may stay silent (wall time) before this thread ends it: the interpreter stops a stretch without
 * awaiting after `sliceMs` of the worker's CPU, and its event loop answers in between, so only a broken interpreter is
 * silent this long; a loaded machine stretches a slice's wall time, hence the generous floor.
 */
const stallMs = (limits: CodeModeLimits) => Math.max(10_000, 20 * limits.sliceMs);

/** The worker's script: the bundle next to this one (dist/), else the compiled module beside this file (tests). */
let workerScript: string | undefined;
function workerFile(): string {
  if (workerScript) return workerScript;
  const bundled = path.join(__dirname, 'codemode-worker.js');
  const unbundled = path.join(__dirname, 'codeModeWorker.js');
  workerScript = existsSync(bundled) ? bundled : existsSync(unbundled) ? unbundled : undefined;
  if (!workerScript) throw new Error(`code mode's engine is missing: ${bundled} does not exist (it ships next to the extension's and the CLI's bundles; reinstall mcp-host)`);
  return workerScript;
}

/** The interpreter as the first worker compiled it: handed to every later worker of this process. */
let compiled: WebAssembly.Module | undefined;

/** Runs `source` (the body of an async function) in a worker and resolves with its value, or rejects with a CodeModeError. */
export async function runProgram(source: string, opts: RunOptions): Promise<RunResult> {
  const limits: CodeModeLimits = { ...DEFAULT_CODE_MODE_LIMITS, ...opts.limits };
  if (opts.signal?.aborted) throw new CodeModeError('aborted', 'The program was cancelled.');
  const names = codeModeNames(opts.servers);
  const table: NameTable = [...names.servers].map(([sid, s]) => [sid, s.server, [...s.tools].map(([tid, t]) => [tid, t.name])]);
  const cancelled = new Int32Array(new SharedArrayBuffer(4));
  const codeMode: WorkerStart = { source, table, limits, compiled, cancelled };
  const worker = new Worker(workerFile(), { workerData: { codeMode } });
  /** The calls as this thread saw them: the outcome's list when the worker is ended before it tells its own. */
  const seen: CodeModeCall[] = [];
  const calls = new AbortController();
  const post = (m: ToWorker) => worker.postMessage(m);
  let lastHeard = performance.now();
  let settle!: (r: RunResult | CodeModeError | Error) => void;
  const outcome = new Promise<RunResult | CodeModeError | Error>(resolve => { settle = resolve; });
  const onAbort = () => { calls.abort(); Atomics.store(cancelled, 0, 1); post({ type: 'abort' }); };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const watchdog = setInterval(() => {
    if (performance.now() - lastHeard <= stallMs(limits)) { post({ type: 'ping' }); return; }
    settle(new CodeModeError('slice', `The program's engine did not answer for ${Math.round(stallMs(limits) / 1000)} s and was stopped (setting ${LIMIT_SETTING.slice}). Split long work with \`await null\` between parts.`, [], seen));
  }, PING_MS);
  worker.on('online', () => { lastHeard = performance.now(); });
  worker.on('message', (m: FromWorker) => {
    lastHeard = performance.now();
    switch (m.type) {
      case 'pong': return;
      case 'module': compiled ??= m.compiled; return;
      case 'call': {
        const record: CodeModeCall = { server: m.server, tool: m.tool, ok: false };
        seen.push(record);
        void (async () => {
          let answer: ToWorker;
          try {
            const result = await opts.callTool(m.server, m.tool, m.args, calls.signal);
            answer = { type: 'settled', id: m.id, ok: true, json: JSON.stringify(result ?? null) ?? 'null' };
            record.ok = true;
          } catch (err) {
            answer = { type: 'settled', id: m.id, ok: false, message: err instanceof Error ? err.message : String(err) };
          }
          if (!calls.signal.aborted) post(answer);
        })();
        return;
      }
      case 'done': settle({ value: JSON.parse(m.json) as unknown, console: m.console, calls: m.calls }); return;
      case 'failed': settle(new CodeModeError(m.kind, m.message, m.console, m.calls)); return;
      case 'crashed': settle(new Error(m.message)); return;
      default: assertNever(m);
    }
  });
  worker.on('error', err => settle(err));
  worker.on('exit', code => settle(new Error(`code mode's engine stopped unexpectedly (its worker exited with code ${code})`)));
  try {
    const r = await outcome;
    if (r instanceof Error) throw r;
    return r;
  } finally {
    clearInterval(watchdog);
    opts.signal?.removeEventListener('abort', onAbort);
    calls.abort();
    void worker.terminate();
  }
}

function assertNever(m: never): never {
  throw new Error(`code mode's worker sent an unknown message: ${JSON.stringify(m)}`);
}
