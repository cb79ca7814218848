/**
 * Code mode's worker (issue 41): the entry of the `worker_threads` Worker that runs one program (its own bundle,
 * dist/codemode-worker.js, next to the bundle that starts it; unbundled, this file). codeModeEngine.ts starts it per
 * run with a {@link WorkerStart}, and the two threads talk only by messages (structured clone):
 *   worker → main  `call` a tool (the main thread runs the caller's gated call), `pong`, `module` (the compiled
 *                  interpreter, kept by the main thread for the next worker), then `done` or `failed` (the run's end)
 *   main → worker  `settled` (a call's JSON result or its error text), `abort`, `ping`
 * The interpreter (codeModeInterpreter.ts) enforces every limit here, on this thread's CPU time, so a runaway program
 * holds this thread, never the extension host's or the CLI's; what crosses is bounded by the same limits (the
 * program's arguments by its memory, console and return value by outputBytes). Guest code never runs on the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CodeModeLimits } from './codeModeLimits';
import { CodeModeError, type CodeModeCall, type CodeModeErrorKind } from './codeModeEngine';
import { loadInterpreter, runInterpreter, type NameTable } from './codeModeInterpreter';

/** What the main thread gives the worker at its start (workerData). */
export interface WorkerStart {
  source: string;
  table: NameTable;
  limits: CodeModeLimits;
  /** The interpreter compiled by an earlier worker of this process, if any (compiling it again costs the worker ~15 ms of CPU). */
  compiled?: WebAssembly.Module;
  /** Set to 1 by the main thread when the run is cancelled: read inside a slice, where no message arrives. */
  cancelled: Int32Array<SharedArrayBuffer>;
}

export type ToWorker =
  | { type: 'settled'; id: number; ok: true; json: string }
  | { type: 'settled'; id: number; ok: false; message: string }
  | { type: 'abort' }
  | { type: 'ping' };

export type FromWorker =
  | { type: 'call'; id: number; server: string; tool: string; args: Record<string, unknown> }
  | { type: 'pong' }
  | { type: 'module'; compiled: WebAssembly.Module }
  | { type: 'done'; json: string; console: string[]; calls: CodeModeCall[] }
  | { type: 'failed'; kind: CodeModeErrorKind; message: string; console: string[]; calls: CodeModeCall[] }
  | { type: 'crashed'; message: string };

if (parentPort && (workerData as { codeMode?: WorkerStart } | undefined)?.codeMode) {
  const port = parentPort;
  const start = (workerData as { codeMode: WorkerStart }).codeMode;
  const send = (m: FromWorker) => port.postMessage(m);
  const abort = new AbortController();
  const waiting = new Map<number, { resolve(json: string): void; reject(err: Error): void }>();
  let nextId = 0;
  port.on('message', (m: ToWorker) => {
    if (m.type === 'ping') send({ type: 'pong' });
    else if (m.type === 'abort') abort.abort();
    else {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.ok) w?.resolve(m.json);
      else w?.reject(new Error(m.message));
    }
  });
  void (async () => {
    try {
      // The interpreter first: a compiled module goes back at once, so a run that never ends still hands it over.
      const compiled = start.compiled ?? await loadInterpreter();
      if (!start.compiled) send({ type: 'module', compiled });
      const r = await runInterpreter(start.source, {
        table: start.table,
        limits: start.limits,
        signal: abort.signal,
        cancelled: () => Atomics.load(start.cancelled, 0) === 1,
        callTool: (server, tool, args) => new Promise<string>((resolve, reject) => {
          const id = nextId++;
          waiting.set(id, { resolve, reject });
          send({ type: 'call', id, server, tool, args });
        }),
      }, compiled);
      send({ type: 'done', json: r.json, console: r.console, calls: r.calls });
    } catch (err) {
      if (err instanceof CodeModeError) send({ type: 'failed', kind: err.kind, message: err.message, console: err.console, calls: err.calls });
      else send({ type: 'crashed', message: err instanceof Error ? err.message : String(err) });
    }
    // The main thread ends the worker when it has the outcome.
  })();
}
