/**
 * A small dotenv parser and the environment a stdio server gets: the user's environment, then the
 * `envFile`, then `env` (where `null` removes a variable). No variable expansion inside the file.
 * Values never appear in messages.
 */
import { BoundedReadError, READ_CAPS, readBoundedText } from '../boundedRead';
import type { ConfigError, ServerDefinition } from '../types';
import * as l10n from '@vscode/l10n';
import { joinPath } from './paths';
import { getOwn, setOwn } from '../schema/own';

export interface DotenvProblem {
  /** 1-based line number. */
  line: number;
  message: string;
}

export interface DotenvResult {
  vars: Record<string, string>;
  problems: DotenvProblem[];
}

const KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\', $: '$', '`': '`' };

/**
 * Parses dotenv text: `KEY=VALUE` lines, optional `export `, `#` comments (whole-line, or after a space
 * in an unquoted value), single/double/back quotes (double quotes understand `\n`, `\t`, `\"`, `\\`;
 * quoted values may span lines). Later keys win. Bad lines are reported (without their content) and skipped;
 * the lines after a bad one are still read.
 */
export function parseDotenv(text: string): DotenvResult {
  const vars: Record<string, string> = {};
  const problems: DotenvProblem[] = [];
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  let i = 0;
  let line = 1;
  const n = src.length;
  while (i < n) {
    const startLine = line;
    let end = src.indexOf('\n', i);
    if (end < 0) end = n;
    const rawLine = src.slice(i, end);
    const trimmed = rawLine.trim();
    if (!trimmed || trimmed.startsWith('#')) {
      i = end + 1; line++;
      continue;
    }
    const body = trimmed.replace(/^export\s+/, '');
    const eq = body.indexOf('=');
    if (eq < 0) {
      problems.push({ line: startLine, message: l10n.t('line {0} has no `=`; write KEY=value', startLine) });
      i = end + 1; line++;
      continue;
    }
    const key = body.slice(0, eq).trim();
    if (!KEY.test(key)) {
      problems.push({ line: startLine, message: l10n.t('line {0}: the name before `=` is not a valid variable name; use letters, digits and `_`, not starting with a digit', startLine) });
      i = end + 1; line++;
      continue;
    }
    // Position of the value in `src`.
    // The key and `export ` contain no `=`, so the first one on the line is the separator.
    const eqPos = src.indexOf('=', i);
    let j = eqPos + 1;
    while (j < end && (src[j] === ' ' || src[j] === '\t')) j++;
    const q = src[j];
    if (q === '"' || q === "'" || q === '`') {
      let value = '';
      let k = j + 1;
      let closed = false;
      while (k < n) {
        const c = src[k];
        if (c === '\n') line++;
        if (q === '"' && c === '\\' && k + 1 < n) {
          const next = src[k + 1];
          value += getOwn(ESCAPES, next) ?? `\\${next}`;
          if (next === '\n') line++;
          k += 2;
          continue;
        }
        if (c === q) { closed = true; k++; break; }
        value += c;
        k++;
      }
      if (!closed) {
        // Only this line is dropped: the lines after it are read as lines, not as the rest of a value.
        problems.push({ line: startLine, message: q === '"' ? l10n.t('line {0}: the value of {1} opens a double quote that is never closed, so {1} is not set; add the closing quote', startLine, key)
          : q === "'" ? l10n.t('line {0}: the value of {1} opens a single quote that is never closed, so {1} is not set; add the closing quote', startLine, key)
          : l10n.t('line {0}: the value of {1} opens a back quote that is never closed, so {1} is not set; add the closing quote', startLine, key) });
        i = end + 1; line = startLine + 1;
        continue;
      }
      let rest = src.indexOf('\n', k);
      if (rest < 0) rest = n;
      const after = src.slice(k, rest).trim();
      if (after && !after.startsWith('#')) {
        problems.push({ line, message: l10n.t('line {0}: text after the closing quote of {1} is ignored; move it inside the quotes or start a comment with #', line, key) });
      }
      setOwn(vars, key, value);
      i = rest + 1; line++;
      continue;
    }
    let value = src.slice(j, end);
    const hash = value.search(/\s#/);
    if (hash >= 0) value = value.slice(0, hash);
    setOwn(vars, key, value.trim());
    i = end + 1; line++;
  }
  return { vars, problems };
}

export interface LoadEnvironmentOptions {
  /** Prefix of setting paths in messages; default `mcpHost.servers`. */
  settingPrefix?: string;
  /** Variable names are case-insensitive on Windows; default process.platform. */
  platform?: NodeJS.Platform;
}

export type LoadEnvironmentResult =
  | { env: Record<string, string>; warnings: ConfigError[]; error?: undefined }
  | { error: ConfigError; warnings: ConfigError[]; env?: undefined };

/**
 * The environment for a server's process: `baseEnv` (default: this process's environment), then the
 * variables of `envFile`, then `env` (`null` deletes). For http/sse servers, just a copy of `baseEnv`.
 * Never throws; a missing or unreadable envFile is an error naming the setting.
 */
export async function loadEnvironment(
  def: ServerDefinition,
  baseEnv: Record<string, string | undefined> = process.env,
  opts: LoadEnvironmentOptions = {},
): Promise<LoadEnvironmentResult> {
  const caseInsensitive = (opts.platform ?? process.platform) === 'win32';
  const env: Record<string, string> = {};
  const set = (k: string, v: string | null) => {
    if (caseInsensitive) {
      const lower = k.toLowerCase();
      for (const existing of Object.keys(env)) if (existing.toLowerCase() === lower) delete env[existing];
    } else {
      delete env[k];
    }
    if (v !== null) setOwn(env, k, v);
  };
  for (const [k, v] of Object.entries(baseEnv)) if (typeof v === 'string') setOwn(env, k, v);
  const warnings: ConfigError[] = [];
  if (def.type !== 'stdio') return { env, warnings };
  const serverPath = joinPath(opts.settingPrefix ?? 'mcpHost.servers', def.name);
  if (def.envFile) {
    const settingPath = joinPath(serverPath, 'envFile');
    let text: string;
    try {
      text = await readBoundedText(def.envFile, { maxBytes: READ_CAPS.envFile, what: 'envFile' });
    } catch (e) {
      return { error: { server: def.name, path: settingPath, message: envFileError(def.name, settingPath, def.envFile, e) }, warnings };
    }
    const parsed = parseDotenv(text);
    for (const p of parsed.problems) {
      warnings.push({ server: def.name, path: settingPath, message: l10n.t('Server "{0}": {1} ("{2}") {3}.', def.name, settingPath, def.envFile, p.message) });
    }
    for (const [k, v] of Object.entries(parsed.vars)) set(k, v);
  }
  for (const [k, v] of Object.entries(def.env ?? {})) set(k, v);
  return { env, warnings };
}

/**
 * The message for an envFile that cannot be read (missing, a directory, a FIFO or device, over the cap): the server,
 * the setting, what the path is and the fix; never any of its content.
 */
export function envFileError(server: string, settingPath: string, file: string, e: unknown): string {
  if (!(e instanceof BoundedReadError)) return l10n.t('Server "{0}": {1} is "{2}", which cannot be read ({3}).', server, settingPath, file, e instanceof Error ? e.message : String(e));
  const why = e.why;
  switch (e.kind) {
    case 'missing': return l10n.t('Server "{0}": {1} is "{2}", {3}; create it or fix the path (a relative path is relative to the workspace folder).', server, settingPath, file, why);
    case 'directory': return l10n.t('Server "{0}": {1} is "{2}", {3}; point it at a dotenv file such as .env.', server, settingPath, file, why);
    case 'denied': return l10n.t('Server "{0}": {1} is "{2}", {3}; fix its permissions.', server, settingPath, file, why);
    case 'not-file': return l10n.t('Server "{0}": {1} is "{2}", {3}; point it at a dotenv file (KEY=value lines) such as .env.', server, settingPath, file, why);
    case 'too-large': return l10n.t('Server "{0}": {1} is "{2}", {3}; point it at a dotenv file of KEY=value lines, or split it.', server, settingPath, file, why);
    case 'unreadable': return l10n.t('Server "{0}": {1} is "{2}", {3}.', server, settingPath, file, why);
  }
}
