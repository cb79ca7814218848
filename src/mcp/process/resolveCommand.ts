/**
 * Resolve a stdio server's `command` to an absolute path before spawning, so that a missing
 * executable becomes a readable error ("command `npx` not found on PATH (PATH=…); install Node.js or
 * set `command` to an absolute path") instead of an `ENOENT` stack trace, and so that editors started
 * from a desktop launcher (whose PATH lacks nvm/fnm/volta/asdf shims) still find `npx` and friends.
 *
 * Search order: absolute / relative paths as given; `env.PATH` (with `PATHEXT` on Windows); the usual
 * version-manager and package-manager directories; finally (macOS/Linux, optional, bounded to 3 s) the
 * PATH printed by the user's login shell, computed once per process.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants, promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tokenize } from '../config/commandLine';
import * as l10n from '@vscode/l10n';

/** Where a command was found, and how. */
export interface ResolvedCommand {
  /** Absolute path of the executable. */
  path: string;
  /** How it was found, for the doctor. */
  via: 'absolute' | 'relative' | 'PATH' | 'shim' | 'login-shell';
  /** Every directory (or candidate path) that was looked at, in order, up to and including the hit. */
  searched: string[];
}

/**
 * How to fix a command that was not found (issue 40: facts, never English text; `commandFix` says it): install the
 * program (`what`: a product name such as "Node.js", or the command in backticks), split a whole command line, fix a
 * path that holds no program, make a file executable, or fill in an empty `command`.
 */
export type CommandFix =
  | { kind: 'empty' }
  | { kind: 'install'; what: string }
  | { kind: 'split'; program: string; /** The other words, as JSON. */ args: string; installed: boolean }
  | { kind: 'noFile'; full: string; /** Set when `command` was relative: the folder it was resolved against. */ cwd?: string }
  | { kind: 'directory'; full: string }
  | { kind: 'notExecutable'; full: string };

/** How to fix it, in the configured language (English in the CLI): one whole message per fix. */
export function commandFix(f: CommandFix): string {
  switch (f.kind) {
    case 'empty': return l10n.t('set `command` to the program that starts the server');
    case 'install': return l10n.t('install {0} or set `command` to an absolute path', f.what);
    case 'split': return f.installed
      ? l10n.t('`command` holds a whole command line: set `command` to `{0}` and `args` to {1}', f.program, f.args)
      : l10n.t('`command` holds a whole command line: set `command` to the program (`{0}`, which is not installed either) and `args` to {1}', f.program, f.args);
    case 'noFile': return f.cwd === undefined
      ? l10n.t('no executable file at {0}; fix the path in `command`', f.full)
      : l10n.t('no executable file at {0} (relative to {1}); set `cwd` or use an absolute path in `command`', f.full, f.cwd);
    case 'directory': return l10n.t('{0} is a directory, not a program; set `command` to the program inside it', f.full);
    case 'notExecutable': return l10n.t('{0} exists but is not executable; make it executable (chmod +x) or set `command` to its interpreter (e.g. node) and put the file in `args`', f.full);
  }
  return f satisfies never;
}

/** The command could not be found anywhere; the message names the command, the PATH and the fix. */
export class CommandNotFoundError extends Error {
  /** Directories looked at, in order (filled in by resolveCommand). */
  searched: string[] = [];

  constructor(
    /** The command as configured. */
    readonly command: string,
    /** The PATH that was searched. */
    readonly pathValue: string,
    /** How to fix it (`commandFix` says it), e.g. install Node.js or set `command` to an absolute path. */
    readonly fix: CommandFix,
    /** `command` was a path (not searched for on PATH): the message does not show the PATH. */
    readonly isPath = false,
  ) {
    // `(PATH=…)` goes in as a value: the failure toast cuts it out by that shape (src/extension/ui/failureNotice.ts)
    super(isPath
      ? l10n.t('command `{0}` not found: {1}', command, commandFix(fix))
      : l10n.t('command `{0}` not found on PATH {1}; {2}', command, `(PATH=${pathValue})`, commandFix(fix)));
    this.name = 'CommandNotFoundError';
  }

  /** How to fix it, in the configured language. */
  get hint(): string {
    return commandFix(this.fix);
  }
}

/** Options for {@link resolveCommand}. */
export interface ResolveCommandOptions {
  /** Directory relative commands (`./server.js`, `bin/server`) are resolved against; default process.cwd(). */
  cwd?: string;
  /** The environment the child will get (its PATH, PATHEXT, HOME, SHELL, NVM_DIR… are used). */
  env: NodeJS.ProcessEnv;
  /** Ask the login shell for its PATH as a last resort (default true; ignored on Windows). */
  loginShell?: boolean;
}

const isWindows = process.platform === 'win32';
const LOGIN_SHELL_TIMEOUT_MS = 3000;

/** Absolute path of `command`; see the module comment for the search order. */
export async function resolveCommand(command: string, opts: ResolveCommandOptions): Promise<ResolvedCommand> {
  const env = opts.env;
  const pathValue = getEnv(env, 'PATH') ?? '';
  const searched: string[] = [];
  const exts = executableExtensions(env);

  if (command.trim() === '') {
    throw new CommandNotFoundError(command, pathValue, { kind: 'empty' });
  }

  // `~/bin/server` means the home directory, as in a terminal.
  if (command === '~' || command.startsWith('~/') || (isWindows && command.startsWith('~\\'))) {
    const home = getEnv(env, 'HOME') ?? getEnv(env, 'USERPROFILE') ?? os.homedir();
    command = path.join(home, command.slice(1));
  }

  // 1. Anything with a directory part is taken as a path, not searched for.
  if (path.isAbsolute(command) || hasDirectoryPart(command)) {
    const via = path.isAbsolute(command) ? 'absolute' : 'relative';
    const full = path.resolve(opts.cwd ?? process.cwd(), command);
    searched.push(full);
    const hit = await findInDir(path.dirname(full), path.basename(full), exts);
    if (hit) return { path: hit, via, searched };
    const split = await wholeCommandLineHint(command, opts) ?? await notRunnableHint(full);
    const err = new CommandNotFoundError(command, pathValue, split ?? (
      via === 'absolute' ? { kind: 'noFile', full } : { kind: 'noFile', full, cwd: opts.cwd ?? process.cwd() }), true);
    err.searched = searched;
    throw err;
  }

  // 2. env.PATH
  const pathDirs = splitPath(pathValue);
  for (const dir of pathDirs) {
    searched.push(dir);
    const hit = await findInDir(dir, command, exts);
    if (hit) return { path: hit, via: 'PATH', searched };
  }

  // 3. Version managers and the usual bin directories.
  const seen = new Set(pathDirs.map(normalizeDir));
  for (const dir of await shimDirectories(env)) {
    if (seen.has(normalizeDir(dir))) continue;
    seen.add(normalizeDir(dir));
    searched.push(dir);
    const hit = await findInDir(dir, command, exts);
    if (hit) return { path: hit, via: 'shim', searched };
  }

  // 4. The login shell's PATH (what the user's terminal would see).
  if (!isWindows && opts.loginShell !== false) {
    const shellPath = await loginShellPath(getEnv(env, 'SHELL'));
    for (const dir of splitPath(shellPath ?? '')) {
      if (seen.has(normalizeDir(dir))) continue;
      seen.add(normalizeDir(dir));
      searched.push(dir);
      const hit = await findInDir(dir, command, exts);
      if (hit) return { path: hit, via: 'login-shell', searched };
    }
  }

  const err = new CommandNotFoundError(command, pathValue, await wholeCommandLineHint(command, opts) ?? hintFor(command));
  err.searched = searched;
  throw err;
}

/** `"npx -y some-server"` in `command`: say to split it (as a shell would, quotes kept), naming the program if it exists. */
async function wholeCommandLineHint(command: string, opts: ResolveCommandOptions): Promise<CommandFix | undefined> {
  const words = tokenize(command);
  if (words.length < 2) return undefined;
  const [program, ...rest] = words;
  const found = await resolveCommand(program, opts).then(() => true, () => false);
  return { kind: 'split', program, args: JSON.stringify(rest), installed: found };
}

/**
 * A copy of `env` whose PATH starts with `dir` (if not already on it). Spawn a resolved command with
 * `withPathPrefix(env, path.dirname(resolved.path))` so that `#!/usr/bin/env node` scripts such as `npx`
 * found through a shim directory also find their interpreter.
 */
export function withPathPrefix(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const key = Object.keys(env).find(k => k.toUpperCase() === 'PATH') ?? 'PATH';
  const current = env[key] ?? '';
  const parts = splitPath(current);
  if (parts.some(p => normalizeDir(p) === normalizeDir(dir))) return { ...env };
  return { ...env, [key]: current ? `${dir}${path.delimiter}${current}` : dir };
}

// ---------------------------------------------------------------------------------------------

/** What to tell the user to install for well-known launchers. */
function hintFor(command: string): CommandFix {
  const base = path.basename(command).toLowerCase().replace(/\.(exe|cmd|bat)$/, '');
  const install = (what: string): CommandFix => ({ kind: 'install', what });
  switch (base) {
    case 'node': case 'npx': case 'npm': case 'pnpm': case 'yarn': case 'corepack':
      return install('Node.js');
    case 'uv': case 'uvx':
      return install('uv (https://docs.astral.sh/uv/)');
    case 'python': case 'python3': case 'pip': case 'pipx':
      return install('Python');
    case 'docker': case 'podman':
      return install(base === 'docker' ? 'Docker' : 'Podman');
    case 'deno':
      return install('Deno');
    case 'bun': case 'bunx':
      return install('Bun');
    default:
      return install(`\`${command}\``);
  }
}

function hasDirectoryPart(command: string): boolean {
  return command.includes('/') || (isWindows && command.includes('\\'));
}

/** Case-insensitive on Windows (Path vs PATH). */
function getEnv(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (Object.hasOwn(env, name) && env[name] !== undefined) return env[name];
  if (!isWindows) return undefined;
  const key = Object.keys(env).find(k => k.toUpperCase() === name);
  return key === undefined ? undefined : env[key];
}

function splitPath(value: string): string[] {
  return value.split(path.delimiter).map(s => s.trim().replace(/^"(.*)"$/, '$1')).filter(s => s.length > 0);
}

function normalizeDir(dir: string): string {
  const n = path.resolve(dir);
  return isWindows ? n.toLowerCase() : n;
}

/** `['']` on POSIX; on Windows the PATHEXT list (a name that already has one of them is tried as is first). */
function executableExtensions(env: NodeJS.ProcessEnv): string[] {
  if (!isWindows) return [''];
  const pathext = getEnv(env, 'PATHEXT') ?? '.COM;.EXE;.BAT;.CMD';
  return ['', ...pathext.split(';').filter(Boolean).map(e => e.toLowerCase())];
}

async function findInDir(dir: string, name: string, exts: string[]): Promise<string | undefined> {
  for (const ext of exts) {
    if (isWindows && ext === '' && !/\.[^\\/.]+$/.test(name)) continue; // bare names need an extension on Windows
    const candidate = path.resolve(dir, name + ext);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Why a path that exists cannot be run (a directory, no execute permission), naming `command`; undefined if it does not exist. */
async function notRunnableHint(full: string): Promise<CommandFix | undefined> {
  try {
    const st = await fsp.stat(full);
    return st.isDirectory() ? { kind: 'directory', full } : { kind: 'notExecutable', full };
  } catch {
    return undefined;
  }
}

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const st = await fsp.stat(file);
    if (!st.isFile()) return false;
    if (isWindows) return true;
    await fsp.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Version-manager shims and the usual bin directories, in search order. */
async function shimDirectories(env: NodeJS.ProcessEnv): Promise<string[]> {
  const home = getEnv(env, 'HOME') ?? getEnv(env, 'USERPROFILE') ?? os.homedir();
  const dirs: string[] = [];

  // nvm: every installed version, newest first.
  const nvmDir = getEnv(env, 'NVM_DIR') ?? path.join(home, '.nvm');
  dirs.push(...(await versionDirs(path.join(nvmDir, 'versions', 'node'))).map(v => path.join(v, 'bin')));

  // fnm: the default alias, then installed versions newest first.
  const fnmDirs = [getEnv(env, 'FNM_DIR'), path.join(home, '.local', 'share', 'fnm'), path.join(home, '.fnm'),
    path.join(home, 'Library', 'Application Support', 'fnm')].filter((d): d is string => !!d);
  for (const fnm of fnmDirs) {
    dirs.push(path.join(fnm, 'aliases', 'default', 'bin'));
    dirs.push(...(await versionDirs(path.join(fnm, 'node-versions'))).map(v => path.join(v, 'installation', 'bin')));
  }

  // volta, asdf, mise, and the usual user/system bin directories.
  dirs.push(path.join(getEnv(env, 'VOLTA_HOME') ?? path.join(home, '.volta'), 'bin'));
  dirs.push(path.join(getEnv(env, 'ASDF_DATA_DIR') ?? path.join(home, '.asdf'), 'shims'));
  dirs.push(path.join(home, '.local', 'share', 'mise', 'shims'));
  dirs.push(path.join(home, '.local', 'bin'));
  dirs.push(path.join(home, '.cargo', 'bin'));
  dirs.push(path.join(getEnv(env, 'PYENV_ROOT') ?? path.join(home, '.pyenv'), 'shims'));
  dirs.push(path.join(home, '.bun', 'bin'), path.join(home, '.deno', 'bin'));
  if (isWindows) {
    const appData = getEnv(env, 'APPDATA');
    if (appData) dirs.push(path.join(appData, 'npm'));
    const programFiles = getEnv(env, 'ProgramFiles');
    if (programFiles) dirs.push(path.join(programFiles, 'nodejs'));
  } else {
    dirs.push('/usr/local/bin', '/opt/homebrew/bin', '/usr/bin', '/bin');
  }
  return dirs;
}

/** Subdirectories of `root` named like versions (`v20.11.1`, `22.3.0`), newest first. */
async function versionDirs(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await fsp.readdir(root);
  } catch {
    return [];
  }
  const parsed = names
    .map(name => ({ name, v: /^v?(\d+)\.(\d+)\.(\d+)/.exec(name) }))
    .filter((e): e is { name: string; v: RegExpExecArray } => e.v !== null)
    .map(e => ({ name: e.name, nums: [Number(e.v[1]), Number(e.v[2]), Number(e.v[3])] }));
  parsed.sort((a, b) => b.nums[0] - a.nums[0] || b.nums[1] - a.nums[1] || b.nums[2] - a.nums[2]);
  return parsed.map(e => path.join(root, e.name));
}

const loginShellCache = new Map<string, Promise<string | undefined>>();

/**
 * The login shell's PATH, asked once per process per shell; undefined on failure or after 3 s.
 * Like VS Code's own shell-environment probe: `-i -l -c`, detached (its own session, so an rc file
 * cannot grab a terminal), stdin closed, output between markers so rc-file banners do not matter.
 */
function loginShellPath(shell: string | undefined): Promise<string | undefined> {
  const sh = shell && path.isAbsolute(shell) ? shell : '/bin/sh';
  let p = loginShellCache.get(sh);
  if (!p) {
    p = askLoginShell(sh);
    loginShellCache.set(sh, p);
  }
  return p;
}

function askLoginShell(sh: string): Promise<string | undefined> {
  const name = path.basename(sh);
  const script = name === 'fish'
    ? 'printf "\\n__MCP_PATH__%s__MCP_PATH__" (string join : $PATH)'
    : name === 'nu' || name === 'nushell'
      ? 'print $"__MCP_PATH__($env.PATH | str join (char esep))__MCP_PATH__"'
      : 'printf "\\n__MCP_PATH__%s__MCP_PATH__" "$PATH"';
  const args = name === 'nu' || name === 'nushell' ? ['-l', '-c', script] : ['-i', '-l', '-c', script];
  return new Promise<string | undefined>(resolve => {
    let out = '';
    let done = false;
    const finish = (value: string | undefined) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(sh, args, {
        detached: true,
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, TERM: 'dumb', MCP_HOST_RESOLVING_ENVIRONMENT: '1' },
      });
    } catch {
      finish(undefined);
      return;
    }
    const timer = setTimeout(() => {
      // Kill the shell's whole process group (it is detached, so it leads one); then give up.
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
      finish(undefined);
    }, LOGIN_SHELL_TIMEOUT_MS);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => { if (out.length < 1 << 20) out += d; });
    child.on('error', () => finish(undefined));
    child.on('close', () => {
      const m = /__MCP_PATH__(.*?)__MCP_PATH__/s.exec(out);
      finish(m && m[1].trim() ? m[1].trim() : undefined);
    });
  });
}
