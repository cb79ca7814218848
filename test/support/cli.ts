/**
 * Running the shipped CLI in tests: spawn it, collect its output, and check that no process of its servers is
 * left (every server of a test runs with its cwd in a folder of that test, so "left behind" = a process whose
 * cwd is still inside it; Linux /proc, nothing elsewhere).
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { shippedCliWorkspace } from './shipped';
import { until } from './wait';

export interface CliRun { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/**
 * Starts `node <cli> …args` with no TTY (inputs come from the environment). The protocol-era cache is off unless a
 * test sets MCP_HOST_ERA_CACHE: runs stay independent of each other and of the user's cache directory.
 */
export function startCli(cli: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): ChildProcess {
  return spawn(process.execPath, [cli, ...args], { cwd: opts.cwd, env: { ...process.env, MCP_HOST_ERA_CACHE: 'off', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Collects a started CLI's output until it exits; kills it and fails after `timeoutMs`. */
export function finishCli(child: ChildProcess, timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '', stderr = '';
    child.stdout?.on('data', d => { stdout += d; });
    child.stderr?.on('data', d => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`mcp-host did not finish\n${stdout}\n${stderr}`)); }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
}

/**
 * Ctrl+C during `mcp-host call <server> <tool>` of a tool that runs as a task: starts the call, waits (readiness, not
 * time) for the CLI's `task <id> (<tool>): working` line on stderr, sends SIGINT and collects the run; `stderr` is all
 * the stderr it wrote. Shared by the task suites of both protocol eras (issue 39).
 */
export async function interruptTaskCall(cli: string, server: string, tool: string, opts: { cwd: string; config: string }): Promise<CliRun> {
  const child = startCli(cli, ['call', server, tool, '--config', opts.config], { cwd: opts.cwd });
  let early = '';
  child.stderr!.on('data', d => { early += d; });
  const working = new RegExp(`mcp-host: task task-\\d+ \\(${tool}\\): working`);
  const exited = new Promise<void>(resolve => child.once('exit', () => resolve()));
  const started = await until(() => working.test(early), `the task of ${tool} on ${server} working`, { ms: 30_000, wakeOn: [l => { child.stderr!.on('data', l); return { dispose: () => child.stderr!.off('data', l) }; }] })
    .catch(err => { child.kill('SIGKILL'); return exited.then(() => { throw err; }); });
  if (started) child.kill('SIGINT');
  const run = await finishCli(child);
  return { ...run, stderr: early };
}

/** Runs the CLI to completion. */
export function runCli(cli: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<CliRun> {
  return finishCli(startCli(cli, args, opts), opts.timeoutMs);
}

/** Pids of processes whose cwd is inside `dir` (Linux /proc; empty elsewhere). */
export function processesIn(dir: string): number[] {
  if (!fs.existsSync('/proc')) return [];
  const real = fs.realpathSync(dir);
  const pids: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${e}/cwd`);
      if (cwd === real || cwd.startsWith(real + path.sep)) pids.push(Number(e));
    } catch { /* gone, or not ours */ }
  }
  return pids;
}

/** Waits up to `ms` for every process with its cwd in `dir` to end; kills and reports any left. */
export async function assertNoProcessesIn(dir: string, ms = 4000): Promise<void> {
  for (const end = Date.now() + ms; processesIn(dir).length && Date.now() < end;) await new Promise(r => setTimeout(r, 100));
  const left = processesIn(dir);
  for (const pid of left) { try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ } }
  assert.deepEqual(left, [], `processes left running in ${dir}`);
}

/** The shipped CLI as one describe block uses it (made by {@link useShippedCli}). */
export interface ShippedCliSuite {
  /** The private copy's folder: the CLI runs with it as its cwd. */
  readonly dir: string;
  /** The copy's cli.js. */
  readonly cli: string;
  /** The cwd to give every server the suite starts (after each test no process may be left in it). */
  readonly serverCwd: string;
  /** The suite's mcp.json. */
  readonly config: string;
  /** Runs `cli …args --config <config>` in `dir` to completion (with the suite's `env`, then `env`). */
  run(args: string[], env?: NodeJS.ProcessEnv): Promise<CliRun>;
}

/**
 * A describe block's CLI start-up, written once (issue 39): before its tests a private copy of the shipped CLI
 * (shippedCliWorkspace) with an mcp.json of `servers(ws)`; after each test no process of its servers may be left in
 * `serverCwd` (assertNoProcessesIn); after all the copy is removed. Call it in the describe body; `servers` may start
 * what the servers need (a suite stops that in its own `after`).
 */
export function useShippedCli(
  prefix: string,
  servers: (ws: { dir: string; serverCwd: string }) => Record<string, unknown> | Promise<Record<string, unknown>>,
  opts: { setupMs?: number; env?: NodeJS.ProcessEnv } = {},
): ShippedCliSuite {
  let ws: ReturnType<typeof shippedCliWorkspace> | undefined;
  const get = () => {
    if (!ws) throw new Error(`the CLI of ${prefix} is not set up yet (use it inside a test or hook)`);
    return ws;
  };
  before(async function () {
    if (opts.setupMs) this.timeout(opts.setupMs);
    ws = shippedCliWorkspace(prefix);
    fs.writeFileSync(ws.config, JSON.stringify({ servers: await servers({ dir: ws.copy.dir, serverCwd: ws.serverCwd }) }));
  });
  afterEach(async () => { await assertNoProcessesIn(get().serverCwd); });
  after(() => ws?.copy.dispose());
  return {
    get dir() { return get().copy.dir; },
    get cli() { return get().copy.cli; },
    get serverCwd() { return get().serverCwd; },
    get config() { return get().config; },
    run: (args, env) => runCli(get().copy.cli, [...args, '--config', get().config], { cwd: get().copy.dir, env: { ...opts.env, ...env } }),
  };
}
