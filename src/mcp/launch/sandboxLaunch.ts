/**
 * Sandboxed launches (issue 24; H90–H96): the operating system, not the server, enforces what a server may write,
 * read and reach. This module wraps one stdio launch's command line with the runtime's wrapper (sandboxRuntime.ts),
 * with the policy of that launch (sandboxPolicy.ts), and reports what the runtime says it denied that launch.
 *
 *   launch      wrapLaunch(...)                      `/bin/sh -c <bwrap …>` for the StdioTransport to spawn, and
 *                                                    the denials the runtime records for this launch only
 *   teardown    resetSandbox()                       the runtime's proxies and monitor ended
 *
 * One runtime per process (the runtime's SandboxManager is a singleton: one HTTP/SOCKS proxy pair and one
 * violation monitor); each launch gets its own filesystem policy (the wrap's per-command config) and its own
 * network allow list (registered under an unguessable per-launch id the proxy sees). Nothing is loaded or
 * started before the first sandboxed launch.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shellQuote } from '../config/commandLine';
import { inside, unique, type SandboxDenial, type SandboxHostOptions, type SandboxPolicy } from './sandboxPolicy';
import { loadRuntime, type Manager } from './sandboxRuntime';

interface LiveLaunch {
  id: string;
  policy: SandboxPolicy;
  seen: number;
  onDenial: (d: SandboxDenial) => void;
}

const live = new Map<string, LiveLaunch>();
let manager: Manager | undefined;
let initializing: Promise<Manager> | undefined;
let unsubscribe: (() => void) | undefined;

function parseDenial(line: string): SandboxDenial {
  const net = /^deny network-outbound (\S+)/.exec(line);
  if (net) return { kind: 'network', target: net[1], line };
  const fsm = /^deny (\S+) (\/.*)$/.exec(line);
  if (fsm) return { kind: 'write', target: fsm[2], line };
  return { kind: 'other', target: '', line };
}

/** The violation monitor learns its write list once, at initialize: a write inside this launch's boundary is no denial. */
function isDenial(d: SandboxDenial, policy: SandboxPolicy): boolean {
  if (d.kind !== 'write') return true;
  const p = d.target;
  if (['/dev/', '/proc/'].some(x => p.startsWith(x))) return false;
  const allowed = policy.allowWrite.some(a => inside(p, a)) || inside(p, '/tmp/claude');
  const denied = policy.denyWrite.some(a => inside(p, a));
  return !allowed || denied;
}

function dispatch(m: Manager): void {
  for (const l of live.values()) {
    const all = m.getSandboxViolationStore().getViolationsForCommand(l.id);
    for (const v of all.slice(l.seen)) {
      const d = parseDenial(v.line);
      if (isDenial(d, l.policy)) l.onDenial(d);
    }
    l.seen = all.length;
  }
}

async function ensureManager(options: SandboxHostOptions): Promise<Manager> {
  if (manager) return manager;
  initializing ??= (async () => {
    const rt = await loadRuntime();
    const m = rt.SandboxManager;
    // The session's own config is the strictest one: no domain, no write path; each launch widens it for itself.
    await m.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      ...(options.bwrapPath && { bwrapPath: options.bwrapPath }),
    }, undefined, true);
    unsubscribe = m.getSandboxViolationStore().subscribe(() => dispatch(m));
    manager = m;
    return m;
  })();
  try {
    return await initializing;
  } finally {
    initializing = undefined;
  }
}

/** Denied domains apply to the session's proxy as a whole: the union of every live launch's. */
function updateDeniedDomains(m: Manager): void {
  const config = m.getConfig();
  if (!config) return;
  const denied = unique([...live.values()].flatMap(l => l.policy.deniedDomains));
  if (JSON.stringify(denied) === JSON.stringify(config.network.deniedDomains ?? [])) return;
  m.updateConfig({ ...config, network: { ...config.network, deniedDomains: denied } });
}

/** A launch wrapped in the sandbox: spawn `command` with `args` (and `env`); dispose when the process is gone. */
export interface SandboxedLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  policy: SandboxPolicy;
  /** Stop listening, drop the launch's network list and remove its temporary folder. Idempotent. */
  dispose(): void;
}

/** Creates the launch's temporary folder (removed by dispose). */
export function makeLaunchTempDir(server: string, options: SandboxHostOptions): string {
  const base = options.tempDir ?? os.tmpdir();
  return fs.mkdtempSync(path.join(base, `mcp-host-sandbox-${server.replace(/[^\w.-]/g, '_').slice(0, 40)}-`));
}

/**
 * Wraps one stdio launch (the resolved program and its args) in the sandbox. The caller has checked
 * {@link sandboxUnavailable}; `onDenial` hears each denial the runtime records for this launch.
 */
export async function wrapLaunch(
  program: string, args: readonly string[], env: Record<string, string>, policy: SandboxPolicy,
  options: SandboxHostOptions, onDenial: (d: SandboxDenial) => void,
): Promise<SandboxedLaunch> {
  const m = await ensureManager(options);
  const id = randomBytes(16).toString('base64url');
  // The runtime sets TMPDIR to its shared folder: the launch's own one goes on the command line, after it.
  const command = ['exec', 'env', `TMPDIR=${policy.tempDir}`, program, ...args].map(shellQuote).join(' ');
  const launch: LiveLaunch = { id, policy, seen: 0, onDenial };
  live.set(id, launch);
  let wrapped: string;
  try {
    m.registerCommandNetworkLists(id, { allowedDomains: policy.allowedDomains });
    updateDeniedDomains(m);
    wrapped = await m.wrapWithSandbox(command, undefined, {
      filesystem: { allowWrite: policy.allowWrite, denyWrite: policy.denyWrite, denyRead: policy.denyRead },
    }, undefined, { commandId: id, commandText: [program, ...args].join(' ') });
  } catch (err) {
    live.delete(id);
    m.unregisterCommandNetworkLists(id);
    throw err;
  }
  let disposed = false;
  return {
    command: '/bin/sh',
    args: ['-c', wrapped],
    env,
    policy,
    dispose: () => {
      if (disposed) return;
      disposed = true;
      dispatch(m);
      live.delete(id);
      m.unregisterCommandNetworkLists(id);
      updateDeniedDomains(m);
      // Removes the mount points bubblewrap left for missing deny paths: only while no other sandbox uses them.
      if (live.size === 0) m.cleanupAfterCommand();
      fs.rmSync(policy.tempDir, { recursive: true, force: true });
    },
  };
}

/** Ends the runtime (its proxies and monitor), for a process that is about to exit or a test's teardown. */
export async function resetSandbox(): Promise<void> {
  const m = manager;
  manager = undefined;
  unsubscribe?.();
  unsubscribe = undefined;
  live.clear();
  if (m) await m.reset();
}
