/**
 * Launching a stdio server: its environment (the user's, `envFile`, `env`), the preflight checks, the
 * command resolved on PATH, and the host's own StdioTransport (its child, line framing and process-tree
 * stop) wired to the callbacks the supervisor and the log need. Nothing here speaks MCP.
 */
import fs from 'node:fs';
import { McpHostError, messageOf } from '../errors';
import { loadEnvironment as configLoadEnvironment } from '../config/envFile';
import { environmentSecrets } from '../logging/redact';
import type { Limits } from '../limits';
import { launchProblem } from '../process/preflight';
import { resolveCommand } from '../process/resolveCommand';
import { StdioTransport } from '../process/stdioTransport';
import type { StdioMessageError } from '../process/stdoutReader';
import type { StopOptions } from '../process/processTree';
import type { StdioServerDefinition } from '../types';
import { setOwn } from '../schema/own';
import * as l10n from '@vscode/l10n';
import { sandboxBaseEnv, sandboxPolicy, type SandboxDenial, type SandboxHostOptions, type SandboxPolicy } from './sandboxPolicy';
import { sandboxProtectedNames, sandboxUnavailable } from './sandboxRuntime';
import { makeLaunchTempDir, wrapLaunch } from './sandboxLaunch';

export type LoadEnvironment = (def: StdioServerDefinition, baseEnv: NodeJS.ProcessEnv, warn?: (message: string) => void) => Promise<NodeJS.ProcessEnv>;

/**
 * The user's environment + envFile + env (`null` removes a variable), via the config module's
 * `loadEnvironment`; an unreadable envFile is a readable error naming the setting.
 */
export async function defaultLoadEnvironment(def: StdioServerDefinition, baseEnv: NodeJS.ProcessEnv, warn?: (message: string) => void): Promise<NodeJS.ProcessEnv> {
  const r = await configLoadEnvironment(def, baseEnv);
  if (r.error) throw new McpHostError(r.error.message);
  for (const w of r.warnings) warn?.(w.message);
  return r.env;
}

export interface StdioLaunchOptions {
  name: string;
  baseEnv?: NodeJS.ProcessEnv;
  loadEnvironment?: LoadEnvironment;
  limits: Limits;
  stopGrace?: Pick<StopOptions, 'eofGraceMs' | 'termGraceMs'>;
  /** A warning for the log (envFile problems). */
  warn: (message: string) => void;
  /** True once the start was abandoned (stop, startup timeout): nothing is spawned then. */
  aborted: () => boolean;
  /** Run the launch in the OS sandbox (launch/sandboxLaunch.ts): `roots` are the folders it may write. */
  sandbox?: { options: SandboxHostOptions; roots: readonly string[]; onDenial: (d: SandboxDenial) => void };
}

/** What the launch's process does, for the supervisor and the log. */
export interface StdioLaunchEvents {
  stderr: (line: string, moreBytes: number) => void;
  spawn: (pid: number) => void;
  exit: (code: number | null, signal: NodeJS.Signals | null) => void;
  stdoutEnd: () => void;
  /** stderr ended: every line the process tree wrote there has been handed to `stderr`. */
  stderrEnd: () => void;
  dropped: (err: StdioMessageError) => void;
}

export interface StdioLaunch {
  transport: StdioTransport;
  /** Secret-looking values of the environment the launch got from `envFile`/`env` (for the redactor). */
  secrets: readonly string[];
  /** A sandboxed launch: its policy, and the release of what it holds (network list, temporary folder). */
  sandbox?: { policy: SandboxPolicy; dispose: () => void };
}

/** Prepares one launch: the transport is created, not started (the SDK Client's connect starts it). */
export async function prepareStdio(def: StdioServerDefinition, o: StdioLaunchOptions, on: StdioLaunchEvents): Promise<StdioLaunch> {
  // A sandboxed server starts from an allow-listed environment (sandboxPolicy.ts, SANDBOX_ENV), then its envFile and env.
  const baseEnv = o.sandbox ? sandboxBaseEnv(o.baseEnv ?? process.env, o.sandbox.options) : o.baseEnv ?? process.env;
  const env = await (o.loadEnvironment ?? defaultLoadEnvironment)(def, baseEnv, o.warn);
  const secrets = environmentSecrets(env, baseEnv);
  const problem = await launchProblem(def, env, baseEnv);
  if (problem) throw Object.assign(new McpHostError(l10n.t('server `{0}`: {1}', o.name, problem)), { secrets });
  let command: string;
  try {
    command = (await resolveCommand(def.command, { cwd: def.cwd, env })).path;
  } catch (err) {
    throw Object.assign(new McpHostError(l10n.t('server `{0}`: {1}', o.name, messageOf(err)), undefined, { cause: err }), { secrets });
  }
  if (o.aborted()) throw new McpHostError(l10n.t('server `{0}` start was abandoned', o.name));
  const cleanEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) setOwn(cleanEnv, k, v);
  let spawnCommand = command;
  let spawnArgs: readonly string[] = def.args ?? [];
  let sandbox: StdioLaunch['sandbox'];
  if (o.sandbox) {
    // H94: a server that asks for the sandbox never runs without it.
    const why = await sandboxUnavailable(o.sandbox.options);
    if (why) throw Object.assign(new McpHostError(l10n.t('server `{0}` is set to run sandboxed and was not started: {1}', o.name, why)), { secrets });
    const tempDir = makeLaunchTempDir(o.name, o.sandbox.options);
    try {
      const policy = sandboxPolicy(def, o.sandbox.roots, o.sandbox.options, tempDir, await sandboxProtectedNames());
      const wrapped = await wrapLaunch(command, spawnArgs, cleanEnv, policy, o.sandbox.options, o.sandbox.onDenial);
      spawnCommand = wrapped.command;
      spawnArgs = wrapped.args;
      sandbox = { policy, dispose: wrapped.dispose };
    } catch (err) {
      fs.rmSync(tempDir, { recursive: true, force: true });
      throw Object.assign(new McpHostError(l10n.t('server `{0}` is set to run sandboxed and was not started: the sandbox could not wrap it ({1})', o.name, messageOf(err)), undefined, { cause: err }), { secrets });
    }
  }
  const transport = new StdioTransport({
    server: o.name, command: spawnCommand, args: spawnArgs, env: cleanEnv, cwd: def.cwd, limits: o.limits, stopGrace: o.stopGrace,
  });
  transport.onstderr = on.stderr;
  transport.onspawn = on.spawn;
  transport.onexit = on.exit;
  transport.onstdoutend = on.stdoutEnd;
  transport.onstderrend = on.stderrEnd;
  transport.ondropped = on.dropped;
  return { transport, secrets, ...(sandbox && { sandbox }) };
}
