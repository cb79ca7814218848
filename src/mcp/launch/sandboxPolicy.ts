/**
 * The sandbox's policy (issue 24; H90–H96): what one sandboxed stdio launch may write, read and reach, computed from
 * the server's definition, its roots and the host's settings. Pure apart from listing `.env` files and the protected
 * names below the roots; nothing here loads the runtime (sandboxRuntime.ts) or starts a launch (sandboxLaunch.ts).
 *
 *   policy      sandboxPolicy(def, roots, options)   the write boundary (roots, the launch's temporary folder,
 *                                                    `sandbox.filesystem.allowWrite`), the read denials
 *                                                    (DEFAULT_DENY_READ, `.env` files outside the roots, the
 *                                                    editor's storage, settings), the network allow list
 *   environment sandboxBaseEnv(env, options)         the allow-listed variables a sandboxed server starts from
 *   in words    describeWall(policy, home)           the wall as the consent dialog and the CLI show it
 *
 * With the types the sandbox is spoken of in (SandboxHostOptions, SandboxPolicy, SandboxDenial).
 */
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

/** One thing the runtime reported it refused a sandboxed server (sandboxLaunch.ts reports them). */
export interface SandboxDenial {
  /** `write`: a write outside the boundary; `network`: a connection not on the allow list; `other`: anything else. */
  kind: 'write' | 'network' | 'other';
  /** The path (write) or `host:port` (network) refused. */
  target: string;
  /** The runtime's line, e.g. `deny openat /home/me/x` or `deny network-outbound example.com:443 (…)`. */
  line: string;
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

/** Whether `p` is `dir` or below it. */
export function inside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The strings of `xs` once each, in their first order. */
export function unique(xs: string[]): string[] {
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
