/** Argument parsing for mcp-host: positionals plus a small set of known options. No dependencies. */

/** A usage or configuration problem: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  /** Point the user at the command's --help (for malformed command lines, not bad values). */
  readonly showHelp: boolean;
  constructor(message: string, opts: { help?: boolean } = {}) {
    super(message);
    this.name = 'UsageError';
    this.showHelp = opts.help ?? false;
  }
}

/** A server or tool failed: printed as one line, exit code 1. */
export class FailureError extends Error {
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = 'FailureError';
  }
}

export interface ParsedArgs {
  positionals: string[];
  /** `--config FILE` */
  config?: string;
  /** `--root DIR`: the folder offered to servers as their root */
  root?: string;
  /** `--args JSON` (tool arguments) */
  args?: string;
  /** `--arg k=v`, repeatable (prompt arguments) */
  arg: string[];
  /** `--timeout MS` (every timeout of `TIMEOUT_LIMITS`: startup and request) */
  timeout?: number;
  /** `--json`: machine-readable output */
  json: boolean;
  /** `--raw`: tool results, resources and prompts as the server sent them (control characters unescaped) */
  raw: boolean;
  /** `--verbose`: every log line (server stderr, notifications/message, lifecycle) on stderr */
  verbose: boolean;
  /** `--task` (run an `optional` tool as a task) or `--no-task` (never); default: the host's policy */
  task?: 'task' | 'plain';
  /** `--elicit JSON`: the answer to the server's form elicitation(s) of a `call` (no terminal prompt) */
  elicit?: string;
  /** `--allow server/tool`, repeatable: the tools a `run` program may call without asking (issue 42) */
  allow: string[];
  /** `--sandbox`: run every stdio server of this run in the OS sandbox (as `sandboxEnabled` does for one) */
  sandbox: boolean;
  help: boolean;
}

/** Options that take a value, and the flags. */
const VALUE_OPTIONS = new Set(['--config', '--root', '--args', '--arg', '--timeout', '--elicit', '--allow']);
const FLAGS = new Set(['--json', '--raw', '--verbose', '-v', '--help', '-h', '--task', '--no-task', '--sandbox']);

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], arg: [], allow: [], json: false, raw: false, verbose: false, sandbox: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (FLAGS.has(name)) {
      if (name === '--json') out.json = true;
      else if (name === '--raw') out.raw = true;
      else if (name === '--sandbox') out.sandbox = true;
      else if (name === '--verbose' || name === '-v') out.verbose = true;
      else if (name === '--task' || name === '--no-task') {
        const mode = name === '--task' ? 'task' : 'plain';
        if (out.task && out.task !== mode) throw new UsageError('--task and --no-task contradict each other; pass one', { help: true });
        out.task = mode;
      }
      else out.help = true;
      continue;
    }
    if (!VALUE_OPTIONS.has(name)) throw new UsageError(`unknown option ${name}`, { help: true });
    let value: string;
    if (eq > 0 && name !== a) value = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value`, { help: true });
      value = argv[++i];
    }
    switch (name) {
      case '--config': out.config = value; break;
      case '--root': out.root = value; break;
      case '--args': out.args = value; break;
      case '--elicit': out.elicit = value; break;
      case '--arg': out.arg.push(value); break;
      case '--allow': out.allow.push(value); break;
      case '--timeout': {
        const n = Number(value);
        if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--timeout must be a positive number of milliseconds, got "${value}"`);
        out.timeout = n;
        break;
      }
    }
  }
  return out;
}

/** `--args '{"a":1}'` → the object; anything but a JSON object is a usage error. */
export function parseToolArgs(json: string | undefined): Record<string, unknown> {
  if (json === undefined || json.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (err) {
    throw new UsageError(`--args is not valid JSON (${(err as Error).message}); pass an object, e.g. --args '{"message":"hi"}'`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new UsageError(`--args must be a JSON object, e.g. --args '{"message":"hi"}'`);
  return v as Record<string, unknown>;
}

/** `--arg k=v …` → { k: v }; the first `=` splits, values may contain more. */
export function parsePromptArgs(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new UsageError(`--arg expects name=value, got "${p}"`);
    // An own property whatever the name (`__proto__` too): argument names are the server's.
    Object.defineProperty(out, p.slice(0, eq), { value: p.slice(eq + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
