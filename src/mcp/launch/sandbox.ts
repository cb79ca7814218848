/**
 * Sandboxed stdio servers (issue 24; H90–H96): the operating system, not the server, enforces what a server may
 * write, read and reach. The enforcing is `@anthropic-ai/sandbox-runtime`'s (bubblewrap + seccomp on Linux,
 * sandbox-exec on macOS); this module only turns a server's settings into the runtime's policy, wraps the
 * launch's command line with the runtime's wrapper, and reports what the runtime says it denied.
 *
 *   policy      sandboxPolicy(def, roots, options)   pure: the write boundary (roots, the launch's temporary
 *                                                    folder, `sandbox.filesystem.allowWrite`), the read denials
 *                                                    (DEFAULT_DENY_READ, `.env` files outside the roots, the
 *                                                    editor's storage, settings), the network allow list
 *   can it?     sandboxUnavailable(options)          why this machine cannot sandbox (Windows; Linux without
 *                                                    bubblewrap/socat/ripgrep or user namespaces), with the fix
 *   launch      wrapLaunch(...)                      `/bin/sh -c <bwrap …>` for the StdioTransport to spawn, and
 *                                                    the denials the runtime records for this launch only
 *
 * One runtime per process (the runtime's SandboxManager is a singleton: one HTTP/SOCKS proxy pair and one
 * violation monitor); each launch gets its own filesystem policy (the wrap's per-command config) and its own
 * network allow list (registered under an unguessable per-launch id the proxy sees). Nothing is loaded or
 * started before the first sandboxed launch.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings, StdioServerDefinition } from '../types';

/** What the host adds to every sandboxed launch (settings `mcpHost.sandbox.*`, the CLI's `--sandbox`). */
export interface SandboxHostOptions {
  /** Sandbox every stdio server, whatever its `sandboxEnabled` says (the CLI's `--sandbox`). */
  force?: boolean;
  /** More paths (or globs) nobody sandboxed may read (`mcpHost.sandbox.denyRead`). `~` is the home folder. */
  denyRead?: readonly string[];
  /** The editor's own storage (user data, extension storage): never readable from a sandbox. */
  privatePaths?: readonly string[];
  /** The home folder the defaults are relative to (default os.homedir(); tests use a fake one). */
  home?: string;
  /** Where per-launch temporary folders are made (default os.tmpdir()). */
  tempDir?: string;
  /** Absolute path of `bwrap` (default: looked up on PATH). */
  bwrapPath?: string;
}

/**
 * Secrets no sandboxed server may read, relative to the home folder (README, "Sandbox"). The setting
 * `mcpHost.sandbox.denyRead` adds to it; `.env` files outside the roots and the editor's storage are denied too.
 */
export const DEFAULT_DENY_READ: readonly string[] = [
  '~/.ssh', '~/.aws', '~/.config/gcloud', '~/.kube', '~/.docker/config.json', '~/.azure', '~/.gnupg',
  '~/.netrc', '~/.git-credentials', '~/.config/gh', '~/.npmrc', '~/.pypirc',
];

/** Package registries a `npx`/`uvx`-style launch needs to fetch the server (as VS Code allows `registry.npmjs.org`). */
const REGISTRY_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  npm: ['registry.npmjs.org'],
  python: ['pypi.org', 'files.pythonhosted.org'],
};
/** Caches a registry launch writes to (besides the temporary folder). */
const REGISTRY_CACHES: Readonly<Record<string, readonly string[]>> = {
  npm: ['~/.npm'],
  python: ['~/.cache/uv'],
};

/** Which registry a launcher fetches from, by the command's file name. */
export function registryOf(command: string): 'npm' | 'python' | undefined {
  const base = (command.split(/[\\/]/).pop() ?? command).toLowerCase().replace(/\.(cmd|exe|bat)$/, '');
  if (['npx', 'npm', 'pnpm', 'pnpx', 'yarn', 'bunx', 'bun'].includes(base)) return 'npm';
  if (['uvx', 'uv', 'pipx'].includes(base)) return 'python';
  return undefined;
}

/** The policy of one sandboxed launch: absolute paths, ready for the runtime. */
export interface SandboxPolicy {
  /** Where the server may write: its roots, its temporary folder, `allowWrite` (and registry caches for npx/uvx). */
  allowWrite: string[];
  /** Inside allowWrite but still read-only (`sandbox.filesystem.denyWrite`). */
  denyWrite: string[];
  /** Never readable: the defaults, `.env` files outside the roots, the editor's storage, settings. */
  denyRead: string[];
  /** Hosts (`host`, `*.host`, `host:port`) the server may reach through the runtime's proxy; nothing else. */
  allowedDomains: string[];
  /** Hosts refused even when allowed. */
  deniedDomains: string[];
  /** The roots (folders) the boundary was computed from: a change restarts the server. */
  roots: string[];
  /** The launch's own temporary folder (TMPDIR inside the sandbox). */
  tempDir: string;
}

function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

function absolute(p: string, home: string, base: string | undefined): string {
  const e = expandHome(p.trim(), home);
  return path.isAbsolute(e) ? path.normalize(e) : path.resolve(base ?? home, e);
}

function inside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function unique(xs: string[]): string[] {
  return [...new Set(xs)];
}

/**
 * `.env` files (`.env`, `.env.*`) the server must not read because they are outside its roots: in the home
 * folder and two levels below it, and in every folder above a root or the server's cwd. Listed, not globbed, so
 * that a `.env` inside a root stays readable (the runtime would keep a more specific deny glob inside an allow).
 */
export function envFilesOutside(roots: readonly string[], home: string, cwd: string | undefined): string[] {
  const found: string[] = [];
  const scan = (dir: string) => {
    let names: string[];
    try { names = fs.readdirSync(dir); } catch { return; }
    for (const n of names) if (n === '.env' || n.startsWith('.env.')) found.push(path.join(dir, n));
  };
  const dirs = new Set<string>([home]);
  const children = (dir: string): string[] => {
    try {
      return fs.readdirSync(dir, { withFileTypes: true }).filter(e => e.isDirectory() && !e.isSymbolicLink()).map(e => path.join(dir, e.name));
    } catch { return []; }
  };
  for (const c of children(home)) {
    dirs.add(c);
    if (path.basename(c) !== 'node_modules') for (const g of children(c).slice(0, 200)) dirs.add(g);
  }
  for (const start of [...roots, ...(cwd ? [cwd] : [])]) {
    for (let d = path.dirname(start); ; d = path.dirname(d)) {
      dirs.add(d);
      if (d === path.dirname(d)) break;
    }
  }
  for (const d of dirs) scan(d);
  return unique(found.filter(f => !roots.some(r => inside(f, r))));
}

/** Whether a stdio definition runs sandboxed under these host options. */
export function isSandboxed(def: { type: string; sandboxEnabled?: boolean }, options: SandboxHostOptions | undefined): boolean {
  return def.type === 'stdio' && (def.sandboxEnabled === true || options?.force === true);
}

/**
 * The policy of one launch (pure apart from listing `.env` files). `roots` are the folders the server is given
 * (absolute paths); `tempDir` is the launch's own temporary folder.
 */
export function sandboxPolicy(def: Pick<StdioServerDefinition, 'command' | 'cwd' | 'sandbox'>, roots: readonly string[], options: SandboxHostOptions, tempDir: string): SandboxPolicy {
  const home = options.home ?? os.homedir();
  const s: SandboxSettings = def.sandbox ?? {};
  const abs = (p: string) => absolute(p, home, def.cwd);
  const registry = registryOf(def.command);
  const rootList = unique(roots.map(r => path.normalize(r)));
  const allowWrite = unique([
    ...rootList, tempDir,
    ...(s.filesystem?.allowWrite ?? []).map(abs),
    ...(registry ? REGISTRY_CACHES[registry].map(abs) : []),
  ]);
  const denyRead = unique([
    ...DEFAULT_DENY_READ.map(abs),
    ...(options.denyRead ?? []).map(abs),
    ...(s.filesystem?.denyRead ?? []).map(abs),
    ...(options.privatePaths ?? []).map(abs),
    ...envFilesOutside(rootList, home, def.cwd),
  ]);
  return {
    allowWrite,
    denyWrite: unique((s.filesystem?.denyWrite ?? []).map(abs)),
    denyRead,
    allowedDomains: unique([...(s.network?.allowedDomains ?? []), ...(registry ? REGISTRY_DOMAINS[registry] : [])]),
    deniedDomains: unique(s.network?.deniedDomains ?? []),
    roots: rootList,
    tempDir,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The runtime (loaded on first use)

type Runtime = typeof import('@anthropic-ai/sandbox-runtime', { with: { 'resolution-mode': 'import' } });
type Manager = Runtime['SandboxManager'];

let runtimePromise: Promise<Runtime> | undefined;

/**
 * The runtime: the production bundles ship it as `dist/sandbox-runtime.js` next to themselves (with its
 * `vendor/` helpers, see esbuild.mjs); tests and development load the package.
 */
function loadRuntime(): Promise<Runtime> {
  runtimePromise ??= (async () => {
    const shipped = path.join(__dirname, 'sandbox-runtime.js');
    if (fs.existsSync(shipped)) {
      ensureHelpersExecutable(__dirname);
      return (module.require as (id: string) => Runtime)(shipped);
    }
    return import('@anthropic-ai/sandbox-runtime');
  })();
  return runtimePromise;
}

/** A VSIX unpacked without file modes leaves the shipped helper (apply-seccomp) not executable: fix that. */
function ensureHelpersExecutable(dir: string): void {
  for (const arch of ['x64', 'arm64']) {
    const p = path.join(dir, 'vendor', 'seccomp', arch, 'apply-seccomp');
    try {
      const st = fs.statSync(p);
      if ((st.mode & 0o111) === 0) fs.chmodSync(p, st.mode | 0o755);
    } catch {
      // Not shipped for this architecture.
    }
  }
}

/** Linux: what stops bubblewrap from creating a user namespace, as a sentence with the fix. */
function userNamespaceProblem(bwrap: string): string | undefined {
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net', '--proc', '/proc', '--', 'true'], {
    encoding: 'utf8', timeout: 10_000,
  });
  if (r.status === 0) return undefined;
  const read = (f: string) => { try { return fs.readFileSync(f, 'utf8').trim(); } catch { return undefined; } };
  const why = (r.stderr || r.error?.message || `exit ${r.status ?? r.signal}`).trim().split('\n')[0];
  const fixes: string[] = [];
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0') fixes.push('enable unprivileged user namespaces: `sudo sysctl -w kernel.unprivileged_userns_clone=1`');
  if (read('/proc/sys/user/max_user_namespaces') === '0') fixes.push('allow user namespaces: `sudo sysctl -w user.max_user_namespaces=15000`');
  if (read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') {
    fixes.push('AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): add an AppArmor profile allowing `userns` for bwrap, or `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`');
  }
  if (!fixes.length) fixes.push('in a container, run it with user namespaces allowed (e.g. Docker `--security-opt seccomp=unconfined --security-opt apparmor=unconfined`)');
  return `bubblewrap cannot create a user namespace here (${why}); ${fixes.join('; or ')}`;
}

function executable(p: string): boolean {
  try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile(); } catch { return false; }
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some(d => d && executable(path.join(d, program)));
}

const unavailableCache = new Map<string, Promise<string | undefined>>();

/**
 * Why sandboxed servers cannot run on this machine, as a sentence that says how to fix it; undefined when they
 * can. A server that asks for the sandbox never starts without it (H94).
 */
export function sandboxUnavailable(options: SandboxHostOptions = {}): Promise<string | undefined> {
  const key = `${process.platform}:${options.bwrapPath ?? ''}:${process.env.PATH ?? ''}`;
  let p = unavailableCache.get(key);
  if (!p) {
    p = (async () => {
      if (process.platform === 'win32') {
        return 'the sandbox is not available on Windows; run the server unsandboxed (remove `sandboxEnabled`, `mcpHost.sandbox.default` or `--sandbox`) or run the host in WSL, where bubblewrap sandboxes it';
      }
      if (process.platform !== 'linux' && process.platform !== 'darwin') return `the sandbox is not available on ${process.platform} (only Linux and macOS)`;
      if (process.platform === 'linux') {
        // The runtime's own check looks at PATH too; this one names every missing program and the package to install.
        const missing = [
          ...(options.bwrapPath ? (executable(options.bwrapPath) ? [] : [`bubblewrap (\`${options.bwrapPath}\` is not an executable)`]) : onPath('bwrap') ? [] : ['bubblewrap (`bwrap`)']),
          ...(onPath('socat') ? [] : ['socat']),
          ...(onPath('rg') ? [] : ['ripgrep (`rg`)']),
        ];
        if (missing.length) {
          return `the sandbox needs ${missing.join(', ')}, not found on PATH; install ${missing.length > 1 ? 'them' : 'it'} ` +
            '(Debian/Ubuntu: `sudo apt-get install bubblewrap socat ripgrep`; Fedora: `sudo dnf install bubblewrap socat ripgrep`)';
        }
      }
      const rt = await loadRuntime();
      const deps = rt.SandboxManager.checkDependencies();
      if (deps.errors.length) {
        const install = process.platform === 'linux'
          ? 'install them (Debian/Ubuntu: `sudo apt-get install bubblewrap socat ripgrep`; Fedora: `sudo dnf install bubblewrap socat ripgrep`)'
          : 'check that `sandbox-exec` and ripgrep (`brew install ripgrep`) are available';
        return `the sandbox cannot start: ${deps.errors.join('; ')}; ${install}`;
      }
      if (process.platform === 'linux') {
        const bwrap = options.bwrapPath ?? 'bwrap';
        return userNamespaceProblem(bwrap);
      }
      return undefined;
    })().catch(err => `the sandbox runtime could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
    unavailableCache.set(key, p);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------------------------
// Launches

/** One thing the runtime reported it refused a sandboxed server. */
export interface SandboxDenial {
  /** `write`: a write outside the boundary; `network`: a connection not on the allow list; `other`: anything else. */
  kind: 'write' | 'network' | 'other';
  /** The path (write) or `host:port` (network) refused. */
  target: string;
  /** The runtime's line, e.g. `deny openat /home/me/x` or `deny network-outbound example.com:443 (…)`. */
  line: string;
}

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

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
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
