/**
 * Checks a stdio launch before spawning, so a bad setting fails with a sentence naming that setting rather
 * than `spawn ENOENT` / `E2BIG` / a Node argument error: `cwd` missing or not a folder, NUL bytes in the
 * command, args or environment, and values over what the OS accepts for one variable or a whole launch.
 * Values are never quoted (they may be secrets); names are.
 */
import { promises as fsp } from 'node:fs';
import { formatBytes } from '../logging/humanText';
import type { StdioServerDefinition } from '../types';

/** Linux's limit on one argument or one `NAME=value` environment entry (MAX_ARG_STRLEN). */
export const MAX_ENV_ENTRY_BYTES = 128 * 1024;
/** A conservative bound on the arguments plus environment of one launch (ARG_MAX is 2 MiB on Linux, 1 MiB on macOS). */
export const MAX_LAUNCH_BYTES = process.platform === 'darwin' ? 1024 * 1024 : 2 * 1024 * 1024;

/** Where an environment variable of the launch came from, as the user would find it. */
function envSetting(def: StdioServerDefinition, name: string, env: NodeJS.ProcessEnv, baseEnv: NodeJS.ProcessEnv): string {
  if (def.env && Object.hasOwn(def.env, name)) return `\`env.${name}\``;
  if (def.envFile && (Object.hasOwn(env, name) ? env[name] : undefined) !== (Object.hasOwn(baseEnv, name) ? baseEnv[name] : undefined)) return `the variable ${name} of \`envFile\` (${def.envFile})`;
  return `the variable ${name} of the environment the host runs in`;
}

/** The first problem of a launch, as a sentence naming the setting; undefined when it can be tried. */
export async function launchProblem(def: StdioServerDefinition, env: NodeJS.ProcessEnv, baseEnv: NodeJS.ProcessEnv = {}): Promise<string | undefined> {
  if (def.cwd !== undefined) {
    if (def.cwd.includes('\0')) return '`cwd` contains a NUL byte; fix the path in `cwd`';
    try {
      const st = await fsp.stat(def.cwd);
      if (!st.isDirectory()) return `\`cwd\` is "${def.cwd}", which is a file, not a folder; point \`cwd\` at a folder`;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR'
        ? `\`cwd\` is "${def.cwd}", which does not exist; create the folder or fix \`cwd\``
        : `\`cwd\` is "${def.cwd}", which cannot be used (${code ?? String(e)}); fix \`cwd\` or its permissions`;
    }
  }
  if (def.command.includes('\0')) return '`command` contains a NUL byte; remove it';
  let total = Buffer.byteLength(def.command) + 1;
  for (const [i, a] of (def.args ?? []).entries()) {
    if (a.includes('\0')) return `\`args[${i}]\` contains a NUL byte, which no program can receive; remove it`;
    const bytes = Buffer.byteLength(a) + 1;
    if (process.platform === 'linux' && bytes > MAX_ENV_ENTRY_BYTES) return `\`args[${i}]\` is ${formatBytes(bytes)}, over the ${formatBytes(MAX_ENV_ENTRY_BYTES)} the OS accepts for one argument; pass it in a file instead`;
    total += bytes;
  }
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (k.includes('\0') || k.includes('=')) return `the environment variable name ${JSON.stringify(k.replace(/\0/g, '\\0'))} contains ${k.includes('=') ? '`=`' : 'a NUL byte'}; rename it in \`env\` or \`envFile\``;
    if (v.includes('\0')) return `the value of ${envSetting(def, k, env, baseEnv)} contains a NUL byte, which no program can receive; remove it`;
    const bytes = Buffer.byteLength(k) + Buffer.byteLength(v) + 2;
    if (process.platform === 'linux' && bytes > MAX_ENV_ENTRY_BYTES) {
      return `the value of ${envSetting(def, k, env, baseEnv)} is ${formatBytes(bytes)}, over the ${formatBytes(MAX_ENV_ENTRY_BYTES)} the OS accepts for one environment variable; pass it in a file instead`;
    }
    if (process.platform === 'win32' && v.length > 32_767) return `the value of ${envSetting(def, k, env, baseEnv)} is longer than the 32,767 characters Windows accepts; pass it in a file instead`;
    total += bytes;
  }
  if (total > MAX_LAUNCH_BYTES) {
    return `the command line and environment together are ${formatBytes(total)}, over the ${formatBytes(MAX_LAUNCH_BYTES)} the OS accepts for one launch; make \`args\`, \`env\` or \`envFile\` smaller`;
  }
  return undefined;
}
