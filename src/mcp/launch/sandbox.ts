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
import { shellQuote } from '../config/commandLine';

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
  /**
   * The runtime's dependency check (default `SandboxManager.checkDependencies`): replaceable so a test can stand for
   * a machine without the seccomp helper without touching the installed files.
   */
  checkDependencies?: () => { errors: string[]; warnings: string[] };
}

/**
 * Secrets no sandboxed server may read, relative to the home folder (docs/SECURITY.md, "Sandbox"). The setting
 * `mcpHost.sandbox.denyRead` adds to it; `.env` files outside the roots and the editor's storage are denied too.
 */
export const DEFAULT_DENY_READ: readonly string[] = [
  '~/.ssh', '~/.aws', '~/.config/gcloud', '~/.kube', '~/.docker/config.json', '~/.azure', '~/.gnupg',
  '~/.netrc', '~/.git-credentials', '~/.config/gh', '~/.npmrc', '~/.pypirc',
  // Shell and REPL histories (tokens typed on a command line end up there).
  '~/.bash_history', '~/.zsh_history', '~/.zhistory', '~/.history', '~/.sh_history', '~/.local/share/fish/fish_history',
  '~/.python_history', '~/.node_repl_history', '~/.psql_history', '~/.mysql_history', '~/.sqlite_history', '~/.lesshst',
  '~/.rediscli_history',
  // Token stores under ~/.config and elsewhere.
  '~/.config/hub', '~/.config/glab-cli', '~/.config/op', '~/.config/doctl', '~/.config/netlify', '~/.config/heroku',
  '~/.config/gh-copilot', '~/.config/github-copilot', '~/.config/configstore', '~/.config/rclone', '~/.config/hcloud',
  '~/.config/vercel', '~/.config/stripe', '~/.config/fly', '~/.config/gitlab', '~/.config/git/credentials',
  '~/.config/containers/auth.json', '~/.local/share/keyrings', '~/.password-store', '~/.terraform.d/credentials.tfrc.json',
  '~/.cargo/credentials', '~/.cargo/credentials.toml', '~/.gem/credentials', '~/.m2/settings.xml', '~/.gradle/gradle.properties',
  '~/.vault-token', '~/.pgpass', '~/.my.cnf', '~/.s3cfg', '~/.boto',
  // The editor's Backups (unsaved buffers, on Linux and macOS, of VS Code and its builds).
  ...['Code', 'Code - Insiders', 'Code - OSS', 'VSCodium', 'Cursor', 'Windsurf'].flatMap(e => [
    `~/.config/${e}/Backups`, `~/Library/Application Support/${e}/Backups`,
  ]),
];

/**
 * Paths in the home folder that run code at login or on the next command, read-only even where `allowWrite`
 * reaches them (docs/SECURITY.md, "Sandbox"). With the runtime's own names ({@link ProtectedNames}: `.bashrc`,
 * `.profile`, `.gitconfig`, …), which {@link protectedPaths} applies to the home folder too.
 */
export const HOME_PROTECTED: readonly string[] = [
  '~/.config/autostart', '~/.local/bin', '~/bin', '~/.config/systemd', '~/.config/environment.d', '~/.config/fish',
  '~/.config/git', '~/.config/Code', '~/.config/Code - Insiders', '~/.config/VSCodium', '~/.vscode', '~/.vscode-server',
  '~/.bash_login', '~/.bash_logout', '~/.zshenv', '~/.zlogin', '~/.zlogout', '~/.xprofile', '~/.xsessionrc',
  '~/.pam_environment', '~/.config/pip', '~/.config/uv', '~/.docker',
];

/**
 * The names the runtime protects from writes in its working directory, which the host applies to every root, the
 * server's cwd and every writable folder (the runtime looks only at the host process's own cwd). From the
 * runtime itself ({@link sandboxProtectedNames}), never a copy.
 */
export interface ProtectedNames {
  /** Files (`.bashrc`, `.profile`, `.gitconfig`, `.mcp.json`, …). */
  files: readonly string[];
  /** Folders, some of two segments (`.vscode`, `.idea`, `.claude/commands`, …); `.git` is handled apart. */
  dirs: readonly string[];
}

/** How deep below each folder protected names are looked for: the runtime's own default (`mandatoryDenySearchDepth`). */
export const PROTECTED_SEARCH_DEPTH = 3;
/** Folders visited per scan at most (a home folder can be large). */
const PROTECTED_SCAN_LIMIT = 20_000;

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
  /**
   * Inside allowWrite but still read-only: `sandbox.filesystem.denyWrite` and {@link SandboxPolicy.protected}.
   * This is what the runtime gets.
   */
  denyWrite: string[];
  /**
   * The always-protected paths inside allowWrite (`.git/config`, `.git/hooks`, `.vscode`, `.mcp.json`, shell
   * startup files… in every root, the cwd and every writable folder, to the runtime's depth; HOME_PROTECTED).
   */
  protected: string[];
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

/**
 * The always-protected paths of these folders: in each folder and in every folder below it to
 * PROTECTED_SEARCH_DEPTH (not in node_modules, not through links), the runtime's protected files and folders,
 * and of each `.git` folder its `hooks` and `config` (a `.git` file whole), as the runtime does for its own cwd;
 * plus HOME_PROTECTED. Paths that do not exist yet are included (the runtime keeps them from being created, as
 * it does in its own cwd). Sorted, absolute.
 */
export function protectedPaths(folders: readonly string[], home: string, names: ProtectedNames): string[] {
  const out = new Set<string>(HOME_PROTECTED.map(p => expandHome(p, home)));
  const files = new Set(names.files.map(f => f.toLowerCase()));
  const dirs = names.dirs.map(d => d.toLowerCase());
  const gitOf = (dir: string) => {
    const g = path.join(dir, '.git');
    let st: fs.Stats | undefined;
    try { st = fs.lstatSync(g); } catch { st = undefined; }
    if (st?.isDirectory()) { out.add(path.join(g, 'hooks')); out.add(path.join(g, 'config')); } else if (st) out.add(g);
  };
  for (const folder of unique(folders.map(f => path.normalize(f)))) {
    for (const f of names.files) out.add(path.join(folder, f));
    for (const d of names.dirs) out.add(path.join(folder, d));
    gitOf(folder);
    let visited = 0;
    const walk = (dir: string, depth: number) => {
      if (depth > PROTECTED_SEARCH_DEPTH || ++visited > PROTECTED_SCAN_LIMIT) return;
      let entries: fs.Dirent[];
      try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        const lower = e.name.toLowerCase();
        if (files.has(lower)) out.add(p);
        if (!e.isDirectory()) continue;
        const rel = path.relative(folder, p).toLowerCase().split(path.sep).join('/');
        if (dirs.some(d => rel === d || rel.endsWith(`/${d}`))) { out.add(p); continue; }
        if (lower === '.git') { gitOf(dir); continue; }
        if (lower === 'node_modules') continue;
        walk(p, depth + 1);
      }
    };
    walk(folder, 1);
  }
  return [...out].sort();
}

/**
 * The variables of the host's environment a sandboxed server gets (docs/SECURITY.md, "Sandbox"); what its definition's
 * `envFile` and `env` set comes on top. `LC_*` are the locale's; HOME is the home folder the policy is computed
 * for. Nothing else: no tokens (GITHUB_TOKEN, cloud keys), no SSH_AUTH_SOCK, no editor IPC variables.
 */
export const SANDBOX_ENV: readonly string[] = ['PATH', 'HOME', 'LANG', 'LANGUAGE', 'LC_*', 'TERM', 'TZ', 'USER', 'LOGNAME'];

/** The allow-listed part of `baseEnv` ({@link SANDBOX_ENV}) a sandboxed launch starts from. */
export function sandboxBaseEnv(baseEnv: NodeJS.ProcessEnv, options: SandboxHostOptions): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) {
    if (typeof v !== 'string') continue;
    if (SANDBOX_ENV.some(a => a.endsWith('*') ? k.startsWith(a.slice(0, -1)) : k === a)) out[k] = v;
  }
  out.HOME = options.home ?? out.HOME ?? os.homedir();
  return out;
}

/** Whether a stdio definition runs sandboxed under these host options. */
export function isSandboxed(def: { type: string; sandboxEnabled?: boolean }, options: SandboxHostOptions | undefined): boolean {
  return def.type === 'stdio' && (def.sandboxEnabled === true || options?.force === true);
}

/**
 * The policy of one launch (pure apart from listing `.env` files). `roots` are the folders the server is given
 * (absolute paths); `tempDir` is the launch's own temporary folder.
 */
export function sandboxPolicy(
  def: Pick<StdioServerDefinition, 'command' | 'cwd' | 'sandbox'>, roots: readonly string[], options: SandboxHostOptions, tempDir: string,
  names: ProtectedNames,
): SandboxPolicy {
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
  const cwd = def.cwd ? abs(def.cwd) : undefined;
  const prot = protectedPaths([...allowWrite, ...(cwd ? [cwd] : [])], home, names)
    .filter(p => allowWrite.some(a => inside(p, a)));
  return {
    allowWrite,
    denyWrite: unique([...(s.filesystem?.denyWrite ?? []).map(abs), ...prot]),
    protected: prot,
    denyRead,
    allowedDomains: unique([...(s.network?.allowedDomains ?? []), ...(registry ? REGISTRY_DOMAINS[registry] : [])]),
    deniedDomains: unique(s.network?.deniedDomains ?? []),
    roots: rootList,
    tempDir,
  };
}

/**
 * The sandbox's wall, from the policy the launch gets ({@link sandboxPolicy}), for the consent dialog (extension/consent.ts): every folder it may write (those
 * outside its roots named apart, as its definition's widening), the protected paths inside them, every domain it
 * may reach.
 */
export function describeWall(wall: SandboxPolicy, home: string): string[] {
  const show = (p: string) => p === wall.tempDir ? 'its own temporary folder' : p === home ? `${p} (your whole home folder)` : p;
  const inRoots = (p: string) => p === wall.tempDir || wall.roots.some(r => p === r || p.startsWith(r.endsWith(path.sep) ? r : r + path.sep));
  const extra = wall.allowWrite.filter(p => !inRoots(p));
  const protectedNames = [...new Set(wall.protected.map(p => path.basename(p) === 'hooks' || path.basename(p) === 'config' ? `.git/${path.basename(p)}` : path.basename(p)))];
  return [
    `Sandbox: on: it may write only in: ${wall.allowWrite.filter(inRoots).map(show).join(', ') || '(nothing)'}`,
    ...(extra.length ? [`Sandbox: its definition ALSO lets it write OUTSIDE its roots, in: ${extra.map(show).join(', ')}`] : []),
    `Sandbox: read-only inside those: ${wall.protected.length} protected paths (${protectedNames.slice(0, 12).join(', ')}${protectedNames.length > 12 ? ', …' : ''})`,
    `Sandbox: it cannot read ${wall.denyRead.length} paths of your keys, tokens, histories and the editor's storage`,
    `Sandbox: network: ${wall.allowedDomains.length ? `only ${wall.allowedDomains.join(', ')}` : 'none'}`,
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// The runtime (loaded on first use)

type RuntimeUtils = typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js', { with: { 'resolution-mode': 'import' } });
/** The runtime's index and the names it protects (esbuild.mjs bundles both into dist/sandbox-runtime.js). */
type Runtime = typeof import('@anthropic-ai/sandbox-runtime', { with: { 'resolution-mode': 'import' } })
  & Pick<RuntimeUtils, 'DANGEROUS_FILES' | 'getDangerousDirectories'>;
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
    const [index, utils] = await Promise.all([
      import('@anthropic-ai/sandbox-runtime'),
      import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js'),
    ]);
    return { ...index, DANGEROUS_FILES: utils.DANGEROUS_FILES, getDangerousDirectories: utils.getDangerousDirectories };
  })();
  return runtimePromise;
}

/** The names the runtime protects in its own cwd, for {@link sandboxPolicy} to protect in every root. */
export async function sandboxProtectedNames(): Promise<ProtectedNames> {
  const rt = await loadRuntime();
  if (!Array.isArray(rt.DANGEROUS_FILES) || typeof rt.getDangerousDirectories !== 'function') {
    throw new Error('this sandbox runtime does not name the paths it protects (DANGEROUS_FILES); the host cannot protect the roots');
  }
  return { files: [...rt.DANGEROUS_FILES], dirs: rt.getDangerousDirectories() };
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
  let p = options.checkDependencies ? undefined : unavailableCache.get(key);
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
      const deps = (options.checkDependencies ?? (() => rt.SandboxManager.checkDependencies()))();
      if (deps.errors.length) {
        const install = process.platform === 'linux'
          ? 'install them (Debian/Ubuntu: `sudo apt-get install bubblewrap socat ripgrep`; Fedora: `sudo dnf install bubblewrap socat ripgrep`)'
          : 'check that `sandbox-exec` and ripgrep (`brew install ripgrep`) are available';
        return `the sandbox cannot start: ${deps.errors.join('; ')}; ${install}`;
      }
      // Fail closed (issue 34): a warning is a part of the wall that would be missing. Without the seccomp helper
      // the server could connect to any Unix socket (docker.sock, the ssh-agent); an old bubblewrap leaves masks open.
      if (deps.warnings.length) {
        const fixes = deps.warnings.map(w => /seccomp/i.test(w)
          ? `the seccomp helper (apply-seccomp) for ${process.arch} is missing (${w}); it ships for x64 and arm64 Linux in the sandbox runtime's vendor/seccomp: reinstall the extension or CLI, or run the server unsandboxed`
          : /bwrap|bubblewrap/i.test(w) ? `${w}; update bubblewrap (Debian/Ubuntu: \`sudo apt-get install --only-upgrade bubblewrap\`)` : w);
        return `the sandbox cannot start: ${fixes.join('; ')}`;
      }
      if (process.platform === 'linux') {
        const bwrap = options.bwrapPath ?? 'bwrap';
        return userNamespaceProblem(bwrap);
      }
      return undefined;
    })().catch(err => `the sandbox runtime could not be loaded: ${err instanceof Error ? err.message : String(err)}`);
    if (!options.checkDependencies) unavailableCache.set(key, p);
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
