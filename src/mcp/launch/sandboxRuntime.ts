/**
 * The sandbox runtime (issue 24; H90–H96), `@anthropic-ai/sandbox-runtime` (bubblewrap + seccomp on Linux,
 * sandbox-exec on macOS): loaded on first use, never before the first sandboxed launch, and asked whether this
 * machine can sandbox at all.
 *
 *   can it?     sandboxUnavailable(options)          why this machine cannot sandbox (Windows; Linux without
 *                                                    bubblewrap/socat/ripgrep or user namespaces), with the fix
 *   names       sandboxProtectedNames()              the names the runtime protects in its own cwd, which the
 *                                                    policy (sandboxPolicy.ts) protects in every root
 *   loading     loadRuntime()                        the shipped dist/sandbox-runtime.js, else the package; for
 *                                                    the launches (sandboxLaunch.ts)
 */
import { McpHostError } from '../errors';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as l10n from '@vscode/l10n';
import type { ProtectedNames, SandboxHostOptions } from './sandboxPolicy';

type RuntimeUtils = typeof import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js', { with: { 'resolution-mode': 'import' } });
/** The runtime's index and the names it protects (esbuild.mjs bundles both into dist/sandbox-runtime.js). */
type Runtime = typeof import('@anthropic-ai/sandbox-runtime', { with: { 'resolution-mode': 'import' } })
  & Pick<RuntimeUtils, 'DANGEROUS_FILES' | 'getDangerousDirectories'>;
/** The runtime's SandboxManager (a singleton: one proxy pair and one violation monitor per process). */
export type Manager = Runtime['SandboxManager'];

let runtimePromise: Promise<Runtime> | undefined;

/**
 * The runtime: the production bundles ship it as `dist/sandbox-runtime.js` next to themselves (with its
 * `vendor/` helpers, see esbuild.mjs); tests and development load the package.
 */
export function loadRuntime(): Promise<Runtime> {
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
    throw new McpHostError(l10n.t('this sandbox runtime does not name the paths it protects (DANGEROUS_FILES); the host cannot protect the roots'));
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
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0') fixes.push(l10n.t('enable unprivileged user namespaces: `{0}`', 'sudo sysctl -w kernel.unprivileged_userns_clone=1'));
  if (read('/proc/sys/user/max_user_namespaces') === '0') fixes.push(l10n.t('allow user namespaces: `{0}`', 'sudo sysctl -w user.max_user_namespaces=15000'));
  if (read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') {
    fixes.push(l10n.t('AppArmor restricts unprivileged user namespaces (Ubuntu 23.10+): add an AppArmor profile allowing `userns` for bwrap, or `{0}`', 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0'));
  }
  if (!fixes.length) fixes.push(l10n.t('in a container, run it with user namespaces allowed (e.g. Docker `{0}`)', '--security-opt seccomp=unconfined --security-opt apparmor=unconfined'));
  return l10n.t('bubblewrap cannot create a user namespace here ({0}); {1}', why, fixes.join(l10n.t('; or ')));
}

function executable(p: string): boolean {
  try { fs.accessSync(p, fs.constants.X_OK); return fs.statSync(p).isFile(); } catch { return false; }
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some(d => d && executable(path.join(d, program)));
}

/** The commands that install the sandbox's programs (shown in the reasons; commands, never translated). */
const APT_INSTALL = 'sudo apt-get install bubblewrap socat ripgrep';
const DNF_INSTALL = 'sudo dnf install bubblewrap socat ripgrep';

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
        return l10n.t('the sandbox is not available on Windows; run the server unsandboxed (remove `sandboxEnabled`, `mcpHost.sandbox.default` or `--sandbox`) or run the host in WSL, where bubblewrap sandboxes it');
      }
      if (process.platform !== 'linux' && process.platform !== 'darwin') return l10n.t('the sandbox is not available on {0} (only Linux and macOS)', process.platform);
      if (process.platform === 'linux') {
        // The runtime's own check looks at PATH too; this one names every missing program and the package to install.
        const missing = [
          ...(options.bwrapPath ? (executable(options.bwrapPath) ? [] : [l10n.t('bubblewrap (`{0}` is not an executable)', options.bwrapPath)]) : onPath('bwrap') ? [] : ['bubblewrap (`bwrap`)']),
          ...(onPath('socat') ? [] : ['socat']),
          ...(onPath('rg') ? [] : ['ripgrep (`rg`)']),
        ];
        if (missing.length) {
          return missing.length > 1
            ? l10n.t('the sandbox needs {0}, not found on PATH; install them (Debian/Ubuntu: `{1}`; Fedora: `{2}`)', missing.join(', '), APT_INSTALL, DNF_INSTALL)
            : l10n.t('the sandbox needs {0}, not found on PATH; install it (Debian/Ubuntu: `{1}`; Fedora: `{2}`)', missing[0], APT_INSTALL, DNF_INSTALL);
        }
      }
      const rt = await loadRuntime();
      const deps = (options.checkDependencies ?? (() => rt.SandboxManager.checkDependencies()))();
      if (deps.errors.length) {
        return process.platform === 'linux'
          ? l10n.t('the sandbox cannot start: {0}; install them (Debian/Ubuntu: `{1}`; Fedora: `{2}`)', deps.errors.join('; '), APT_INSTALL, DNF_INSTALL)
          : l10n.t('the sandbox cannot start: {0}; check that `sandbox-exec` and ripgrep (`{1}`) are available', deps.errors.join('; '), 'brew install ripgrep');
      }
      // Fail closed (issue 34): a warning is a part of the wall that would be missing. Without the seccomp helper
      // the server could connect to any Unix socket (docker.sock, the ssh-agent); an old bubblewrap leaves masks open.
      if (deps.warnings.length) {
        const fixes = deps.warnings.map(w => /seccomp/i.test(w)
          ? l10n.t('the seccomp helper (apply-seccomp) for {0} is missing ({1}); it ships for x64 and arm64 Linux in the sandbox runtime\'s vendor/seccomp: reinstall the extension or CLI, or run the server unsandboxed', process.arch, w)
          : /bwrap|bubblewrap/i.test(w) ? l10n.t('{0}; update bubblewrap (Debian/Ubuntu: `{1}`)', w, 'sudo apt-get install --only-upgrade bubblewrap') : w);
        return l10n.t('the sandbox cannot start: {0}', fixes.join('; '));
      }
      if (process.platform === 'linux') {
        const bwrap = options.bwrapPath ?? 'bwrap';
        return userNamespaceProblem(bwrap);
      }
      return undefined;
    })().catch(err => l10n.t('the sandbox runtime could not be loaded: {0}', err instanceof Error ? err.message : String(err)));
    if (!options.checkDependencies) unavailableCache.set(key, p);
  }
  return p;
}
