/**
 * What installing a registry entry will do, said from the very definition that will be written (issue 34: "a registry
 * entry runs only what the user saw"). `describeInstall` renders a resolved install option (serverJson.ts) as the
 * install dialog's detail: the exact command line, shell-quoted, and the environment it adds (non-secret values as
 * they are; `${input:…}` ones by name, asked for when the server starts), or for a remote its URL and the NAMES of
 * the headers it sends. serverJson.ts refuses an entry whose description would be too long to show whole.
 * Plain functions, no I/O and no `vscode`: the CLI can share them.
 *
 *   const detail = describeInstall(option);        // then write option.server, the same object
 */
import type { InstallOption } from './serverJson';
import { shellQuote } from '../config/commandLine';

/** The part of an install option the dialog describes and settings receive. */
export type ResolvedInstall = Pick<InstallOption, 'name' | 'server' | 'inputs'>;

/** The longest install description a dialog shows whole; a longer entry is refused (a cut one would not be exact). */
export const MAX_INSTALL_DESCRIPTION = 4000;

const INPUT_REF = /^\$\{input:([A-Za-z0-9_.-]+)\}$/;

/**
 * The install dialog's detail for `r`: the server's name in settings, then for stdio `Runs: <command line>` and
 * `Environment:` (one `NAME=value` line each; a `${input:id}` value is named, not resolved), for http/sse
 * `Connects to: <url>` and `Headers sent:` (names only). Every word of the command line is `shellQuote`d: pasted
 * into a shell it runs exactly `command` with `args`.
 */
export function describeInstall(r: ResolvedInstall): string {
  const s = r.server;
  const inputs = new Map(r.inputs.map(i => [i.id, i]));
  const asked = (value: string, when: string): string => {
    const id = INPUT_REF.exec(value)?.[1];
    const input = id === undefined ? undefined : inputs.get(id);
    return input ? ` (asked for when it ${when}${input.password ? ', kept secret' : ''})` : '';
  };
  const lines = [`Name in settings: ${r.name}`];
  // A definition without a type is stdio when it has a command (mcp.json's rule; an import's servers may omit it).
  if (s.type === 'stdio' || (s.type === undefined && typeof s.command === 'string')) {
    const argv = [String(s.command), ...(Array.isArray(s.args) ? s.args.map(String) : [])];
    lines.push(`Runs: ${argv.map(shellQuote).join(' ')}`);
    if (typeof s.cwd === 'string') lines.push(`Working directory: ${s.cwd}`);
    if (typeof s.envFile === 'string') lines.push(`Environment file: ${s.envFile}`);
    const env = Object.entries((s.env ?? {}) as Record<string, string>);
    if (!env.length) lines.push('Environment: nothing added');
    else {
      lines.push('Environment:');
      for (const [k, raw] of env) { const v = String(raw); lines.push(`  ${k}=${INPUT_REF.test(v) ? v : shellQuote(v)}${asked(v, 'starts')}`); }
    }
  } else {
    lines.push(`Connects to: ${String(s.url)} (${s.type === 'sse' ? 'SSE' : 'Streamable HTTP'})`);
    const headers = Object.entries((s.headers ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)] as const);
    lines.push(headers.length
      ? `Headers sent: ${headers.map(([k, v]) => `${k}${asked(v, 'connects')}`).join(', ')}`
      : 'Headers sent: none');
  }
  return lines.join('\n');
}
