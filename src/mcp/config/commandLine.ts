/**
 * A server definition from a command line as a person types it (MCP: Add Server…): quote-aware splitting
 * (also used for `@mcp` chat input and the "whole command line in `command`" hint), and a name guessed from
 * what is launched rather than from the runner or a trailing folder.
 */

/** Characters a POSIX shell reads as themselves outside quotes. */
const SHELL_PLAIN = /^[\w@%+=:,./-]+$/;

/**
 * One word as a POSIX shell reads it back: as is when plain, else in single quotes (a `'` as `'\''`). The one
 * quoting of a command line the host writes for a shell (the sandbox's wrapped command) or shows as one (the install
 * and import dialogs, registry/install.ts).
 */
export function shellQuote(word: string): string {
  return SHELL_PLAIN.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Splits on whitespace; "double" or 'single' quotes group (also after `key=`); `\` escapes in double quotes. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) { quote = undefined; continue; }
      if (c === '\\' && quote === '"' && i + 1 < text.length) { cur += text[++i]; continue; }
      cur += c;
      continue;
    }
    if (c === '"' || c === "'") { quote = c; has = true; continue; }
    if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = ''; has = false;
      continue;
    }
    cur += c; has = true;
  }
  if (has) out.push(cur);
  return out;
}

/** Programs that run another one: the name comes from what they run. */
const RUNNERS = new Set(['npx', 'uvx', 'uv', 'pnpm', 'pnpx', 'bunx', 'bun', 'yarn', 'npm', 'node', 'deno', 'python', 'python3', 'py', 'pipx', 'docker', 'podman', 'run', 'exec', 'dlx', 'x', 'tool']);

/**
 * A short server name for a command line: the first word that is not a runner, a flag or a variable, without
 * its scope, version, extension and the usual `mcp-server-` / `server-` / `-mcp` decorations.
 * `npx -y @modelcontextprotocol/server-filesystem ${workspaceFolder}` → `filesystem`.
 */
export function guessServerName(argv: readonly string[]): string {
  const words = argv.filter((w, i) => !w.startsWith('-') && !w.includes('${') && !(RUNNERS.has(baseName(w).toLowerCase()) && i < argv.length - 1));
  const base = baseName(words[0] ?? argv.find(w => !w.includes('${')) ?? '')
    .replace(/@[^@/]*$/, '')            // version: pkg@1.2.3
    .replace(/\.(m?js|cjs|ts|py|exe|cmd)$/i, '')
    .replace(/^(mcp[-_]server[-_]|server[-_]|mcp[-_])/i, '')
    .replace(/([-_]mcp[-_]server|[-_]server|[-_]mcp)$/i, '')
    .replace(/[^\w-]/g, '');
  return base || 'server';
}

function baseName(word: string): string {
  return word.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? word;
}

/** `{ name, definition }` for a stdio command line; undefined when it is empty. */
export function definitionFromCommandLine(text: string): { name: string; definition: { type: 'stdio'; command: string; args: string[] } } | undefined {
  const argv = tokenize(text.trim());
  if (argv.length === 0) return undefined;
  return { name: guessServerName(argv), definition: { type: 'stdio', command: argv[0], args: argv.slice(1) } };
}
