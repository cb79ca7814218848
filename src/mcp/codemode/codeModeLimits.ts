/**
 * Code mode's limits (issue 42): their names, defaults and settings (`mcpHost.codeModeLimits.<name>`, declared in
 * package.json with these defaults; test/unit/codemode.wiring.test.ts holds the two together). Apart from the engine so
 * that the extension reads its settings without loading the interpreter.
 */
/** The limits of one run; settings-shaped (mcpHost.codeModeLimits.<name>). */
export interface CodeModeLimits {
  /** CPU time of the guest, all slices together, in ms. */
  cpuMs: number;
  /** Longest synchronous stretch of guest code between two awaits, in ms (the worker's thread waits meanwhile, not the caller's). */
  sliceMs: number;
  /** QuickJS heap limit in bytes. */
  memoryBytes: number;
  /** QuickJS stack limit in bytes (at most MAX_STACK_BYTES: the interpreter's frames share its thread's own stack). */
  stackBytes: number;
  /** Bytes of the return value (as JSON) and, separately, of console output. */
  outputBytes: number;
  /** Tool calls per program. */
  maxToolCalls: number;
}

export const DEFAULT_CODE_MODE_LIMITS: Readonly<CodeModeLimits> = Object.freeze({
  cpuMs: 5_000,
  sliceMs: 50,
  memoryBytes: 64 * 1024 * 1024,
  stackBytes: 256 * 1024,
  outputBytes: 64 * 1024,
  maxToolCalls: 50,
});

/** The setting of each limit, by the engine's error kind. */
export const LIMIT_SETTING: Record<string, string> = {
  cpu: 'mcpHost.codeModeLimits.cpuMs', slice: 'mcpHost.codeModeLimits.sliceMs', memory: 'mcpHost.codeModeLimits.memoryBytes',
  stack: 'mcpHost.codeModeLimits.stackBytes', output: 'mcpHost.codeModeLimits.outputBytes', toolCalls: 'mcpHost.codeModeLimits.maxToolCalls',
};
