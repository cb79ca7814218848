/**
 * Reading configuration files: VS Code's `.vscode/mcp.json`, Claude Desktop / Claude Code (`.mcp.json`), Cursor,
 * Windsurf and GitHub Copilot CLI (`~/.copilot/mcp-config.json`) configs, and VS Code settings.json files, into the `{ servers, inputs }` shape that
 * `parseServers` / `parseInputs` validate. JSONC (comments, trailing commas) throughout. Never throws.
 */
import { BoundedReadError, READ_CAPS, readBoundedText, readRefusal } from '../boundedRead';
import * as nodePath from 'node:path';
import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import type { ConfigError } from '../types';
import { getOwn } from '../schema/own';
import { isServerField, type ServerField } from './schema';
import * as l10n from '@vscode/l10n';

export type ImportKind = 'vscode' | 'claude' | 'cursor' | 'windsurf' | 'copilot';

export interface ImportResult {
  /** Server definitions in this project's shape (still to be validated with parseServers). */
  servers: Record<string, unknown>;
  /** Input definitions (still to be validated with parseInputs). */
  inputs: unknown[];
  /** Things that were changed or dropped on the way, one readable sentence each. */
  warnings: string[];
  /** Problems that stopped the import (JSONC syntax errors name line:column). */
  errors: ConfigError[];
  /** The format that was read (what `auto` detected). */
  kind?: ImportKind;
}

/**
 * Parses JSONC text; syntax errors come back as ConfigErrors naming line:column. Every key is data: an
 * object's keys are its own properties (a server named `__proto__` stays a server), and a key written twice
 * in one object is reported in `warnings` (the last one is used, as JSON.parse and VS Code do).
 */
export function parseJsonc(text: string, label = 'the file'): { value: unknown; errors: ConfigError[]; warnings: string[] } {
  const problems: ParseError[] = [];
  const tree = parseTree(text, problems, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: true });
  const warnings: string[] = [];
  const value = tree ? valueOf(tree, '', text, label, warnings) : undefined;
  const errors = problems.map(p => {
    const { line, column } = lineColumn(text, p.offset);
    return {
      path: `${label}:${line}:${column}`,
      message: l10n.t('{0}:{1}:{2}: JSON syntax error ({3}); fix the text there.', label, line, column, describeParseError(printParseErrorCode(p.error))),
    };
  });
  return { value, errors, warnings };
}

/** Sets `key` as an own, enumerable property (never the prototype, whatever the key). */
export function setOwn(o: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function valueOf(node: Node, path: string, text: string, label: string, warnings: string[]): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      // Offsets, not lines: a line is counted from the start of the text, so it is counted only for a key written
      // twice (counting one for every key made a 10,000-server file quadratic: minutes before doctor began).
      const firstOffset = new Map<string, number>();
      for (const prop of node.children ?? []) {
        const [k, v] = prop.children ?? [];
        if (!k || typeof k.value !== 'string') continue;
        const key = k.value;
        const at = path ? `${path}.${key}` : key;
        const first = firstOffset.get(key);
        if (first !== undefined) warnings.push(`${label}:${lineColumn(text, k.offset).line}: "${at}" is written twice (also on line ${lineColumn(text, first).line}); the last one is used, remove the other.`);
        else firstOffset.set(key, k.offset);
        setOwn(out, key, v ? valueOf(v, at, text, label, warnings) : undefined);
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((c, i) => valueOf(c, `${path}[${i}]`, text, label, warnings));
    default:
      return node.value;
  }
}

function describeParseError(code: string): string {
  const names: Record<string, string> = {
    InvalidSymbol: 'unexpected character', InvalidNumberFormat: 'bad number', PropertyNameExpected: 'expected a property name in double quotes',
    ValueExpected: 'expected a value', ColonExpected: 'expected `:`', CommaExpected: 'expected `,`',
    CloseBraceExpected: 'expected `}`', CloseBracketExpected: 'expected `]`', EndOfFileExpected: 'unexpected text after the end',
    InvalidCommentToken: 'bad comment', UnexpectedEndOfComment: 'unclosed comment', UnexpectedEndOfString: 'unclosed string',
    UnexpectedEndOfNumber: 'unfinished number', InvalidUnicode: 'bad \\u escape', InvalidEscapeCharacter: 'bad escape', InvalidCharacter: 'invalid character in a string',
  };
  return names[code] ?? code;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1, column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') { line++; column = 1; } else column++;
  }
  return { line, column };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Detects the format of a parsed config document. */
export function detectKind(doc: unknown): ImportKind | undefined {
  if (!isObject(doc)) return undefined;
  if (isObject(doc.servers)) return 'vscode';
  if (isObject(doc.mcpServers)) {
    const entries = Object.values(doc.mcpServers).filter(isObject);
    // GitHub Copilot CLI: `type: "local"` for stdio, and a `tools` allow-list on each server.
    if (entries.some(e => e.type === 'local' || Array.isArray(e.tools))) return 'copilot';
    if (entries.some(e => 'serverUrl' in e)) return 'windsurf';
    if (entries.some(e => 'url' in e)) return 'cursor';
    return 'claude';
  }
  return undefined;
}

/** Properties other clients use that mean nothing here; dropped with a warning. */
const DROPPED = ['autoApprove', 'alwaysAllow', 'disabledTools', 'description', 'name', 'icon', 'options', 'gallery', 'version', 'enabled'];

const TYPE_MAP: Record<string, string> = {
  stdio: 'stdio', http: 'http', sse: 'sse', 'streamable-http': 'http', streamablehttp: 'http', streamable_http: 'http', local: 'stdio',
};

/** Fields of the table that other clients write in their own shape; each has its case in convertForeignServer. */
const FOREIGN_SHAPES: readonly ServerField[] = ['type', 'timeout'];

/** Converts one `mcpServers` entry (Claude/Cursor/Windsurf/Cline) to this project's shape. */
function convertForeignServer(name: string, def: unknown, kind: ImportKind, warnings: string[]): unknown {
  if (!isObject(def)) return def; // parseServers reports it with its path
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(def)) {
    // A field of the table (schema.ts SERVER_FIELDS) is carried over as it is, unless other clients write it in
    // another shape (FOREIGN_SHAPES, below): a new server-definition field is imported with no edit here.
    if (isServerField(k) && !FOREIGN_SHAPES.includes(k)) {
      setOwn(out, k, v);
      continue;
    }
    switch (k) {
      case 'serverUrl':
        if (def.url === undefined) out.url = v;
        break;
      case 'type':
      case 'transportType':
      case 'transport': {
        const mapped = typeof v === 'string' ? getOwn(TYPE_MAP, v.toLowerCase()) : undefined;
        if (mapped) out.type = mapped;
        else warnings.push(`${kind} server "${name}": \`${k}\` is ${JSON.stringify(v)}, which is not known; the type is inferred from \`command\`/\`url\` instead.`);
        break;
      }
      case 'tools':
        // The Copilot CLI's allow-list: "*" (every tool) is what MCP Host does anyway; a narrower list is not kept.
        if (!(Array.isArray(v) && v.length === 1 && v[0] === '*')) warnings.push(`${kind} server "${name}": \`tools\` (a list of allowed tools) is not used by MCP Host and was dropped; every tool of the server is offered.`);
        break;
      case 'timeout':
        if (typeof v === 'number' && v > 0) {
          // Cline and others write seconds.
          const ms = v < 1000 ? v * 1000 : v;
          out.timeout = { request: Math.round(ms) };
          warnings.push(`${kind} server "${name}": \`timeout: ${v}\` became \`timeout.request: ${Math.round(ms)}\` (milliseconds).`);
        } else if (isObject(v)) out.timeout = v;
        break;
      default:
        if (DROPPED.includes(k)) warnings.push(`${kind} server "${name}": \`${k}\` is not used by MCP Host and was dropped.`);
        else setOwn(out, k, v); // unknown: validation will point at it (and suggest a spelling)
    }
  }
  if (out.type === undefined && out.command === undefined && out.url !== undefined && kind !== 'vscode') out.type = 'http';
  return out;
}

/**
 * Reads a config text in one of the known formats into `{ servers, inputs }`.
 * `auto` (default) detects: `servers` → VS Code mcp.json; `mcpServers` → Claude/Cursor/Windsurf.
 */
export function importConfig(text: string, kind: ImportKind | 'auto' = 'auto', label = 'the file'): ImportResult {
  const result: ImportResult = { servers: {}, inputs: [], warnings: [], errors: [] };
  const { value: doc, errors, warnings } = parseJsonc(text, label);
  result.warnings.push(...warnings);
  if (errors.length) { result.errors.push(...errors); return result; }
  if (doc === undefined) return { ...result, kind: kind === 'auto' ? undefined : kind };
  if (!isObject(doc)) {
    result.errors.push({ path: label, message: Array.isArray(doc)
      ? l10n.t('{0} holds an array; expected an object with "servers" (VS Code mcp.json) or "mcpServers" (Claude, Cursor, Windsurf, Copilot CLI).', label)
      : l10n.t('{0} holds {1}; expected an object with "servers" (VS Code mcp.json) or "mcpServers" (Claude, Cursor, Windsurf, Copilot CLI).', label, typeof doc) });
    return result;
  }
  const k = kind === 'auto' ? detectKind(doc) : kind;
  result.kind = k;
  if (!k) {
    result.errors.push({ path: label, message: l10n.t('{0} has neither "servers" (VS Code mcp.json) nor "mcpServers" (Claude, Cursor, Windsurf); add one of them.', label) });
    return result;
  }
  if (k === 'vscode') {
    if (doc.servers !== undefined && !isObject(doc.servers)) {
      result.errors.push({ path: `${label}: servers`, message: l10n.t('{0}: "servers" must be an object of server names to definitions.', label) });
    } else {
      for (const [name, def] of Object.entries(doc.servers ?? {})) setOwn(result.servers, name, def);
    }
    if (Array.isArray(doc.inputs)) result.inputs = doc.inputs;
    else if (doc.inputs !== undefined) result.errors.push({ path: `${label}: inputs`, message: l10n.t('{0}: "inputs" must be an array of {1}.', label, '{ "id", "type": "promptString", … }') });
    if (isObject(doc.mcpServers)) {
      for (const [name, def] of Object.entries(doc.mcpServers)) {
        if (name in result.servers) { result.warnings.push(`"mcpServers.${name}" is also under "servers"; the "servers" one is used.`); continue; }
        setOwn(result.servers, name, convertForeignServer(name, def, 'claude', result.warnings));
      }
    }
    return result;
  }
  const field = doc.mcpServers;
  if (!isObject(field)) {
    result.errors.push({ path: `${label}: mcpServers`, message: l10n.t('{0}: "mcpServers" must be an object of server names to definitions.', label) });
    return result;
  }
  for (const [name, def] of Object.entries(field)) setOwn(result.servers, name, convertForeignServer(name, def, k, result.warnings));
  return result;
}

export interface ImportLocation {
  kind: ImportKind;
  scope: 'user' | 'workspace';
  /** Human label, e.g. "Claude Desktop". */
  label: string;
  path: string;
}

/**
 * The usual places of MCP configs on a platform. `appData` defaults to `<home>\AppData\Roaming` on
 * Windows; workspace files are listed when `workspaceFolder` is given.
 */
export function defaultImportLocations(
  platform: NodeJS.Platform, home: string, opts: { appData?: string; workspaceFolder?: string } = {},
): ImportLocation[] {
  const p = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  const appData = opts.appData ?? (platform === 'win32' ? p.join(home, 'AppData', 'Roaming')
    : platform === 'darwin' ? p.join(home, 'Library', 'Application Support') : p.join(home, '.config'));
  const out: ImportLocation[] = [];
  if (opts.workspaceFolder) {
    const w = opts.workspaceFolder;
    out.push(
      { kind: 'vscode', scope: 'workspace', label: l10n.t('VS Code workspace (.vscode/mcp.json)'), path: p.join(w, '.vscode', 'mcp.json') },
      { kind: 'cursor', scope: 'workspace', label: l10n.t('Cursor workspace (.cursor/mcp.json)'), path: p.join(w, '.cursor', 'mcp.json') },
      { kind: 'claude', scope: 'workspace', label: l10n.t('Claude Code project (.mcp.json)'), path: p.join(w, '.mcp.json') },
    );
  }
  out.push(
    { kind: 'vscode', scope: 'user', label: l10n.t('VS Code user mcp.json'), path: p.join(appData, 'Code', 'User', 'mcp.json') },
    { kind: 'claude', scope: 'user', label: 'Claude Desktop', path: p.join(appData, 'Claude', 'claude_desktop_config.json') },
    { kind: 'claude', scope: 'user', label: l10n.t('Claude Code (user)'), path: p.join(home, '.claude.json') },
    { kind: 'cursor', scope: 'user', label: l10n.t('Cursor (user)'), path: p.join(home, '.cursor', 'mcp.json') },
    { kind: 'windsurf', scope: 'user', label: 'Windsurf', path: p.join(home, '.codeium', 'windsurf', 'mcp_config.json') },
    { kind: 'copilot', scope: 'user', label: 'GitHub Copilot CLI', path: p.join(home, '.copilot', 'mcp-config.json') },
  );
  return out;
}

export interface LoadedConfig extends ImportResult {
  /** What the file was: a settings.json, or one of the import formats. */
  source: 'settings' | ImportKind | undefined;
  /** Prefix for setting paths in validation messages (`mcpHost.servers`, `servers`, `mcpServers`, …). */
  serversPrefix: string;
  inputsPrefix: string;
  /** The workspace folder the file belongs to, when it sits in `.vscode/` or `.cursor/`. */
  folder?: string;
}

/**
 * Reads a config file for the CLI: a VS Code settings.json (`mcpHost.servers` / `mcpHost.inputs`, or a
 * user settings `mcp` section), or an mcp.json / Claude / Cursor / Windsurf file. Never throws.
 */
export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  const dir = nodePath.dirname(nodePath.resolve(file));
  const folder = ['.vscode', '.cursor'].includes(nodePath.basename(dir)) ? nodePath.dirname(dir) : undefined;
  const base: LoadedConfig = {
    servers: {}, inputs: [], warnings: [], errors: [], source: undefined,
    serversPrefix: 'servers', inputsPrefix: 'inputs', ...(folder && { folder }),
  };
  let text: string;
  try {
    text = await readBoundedText(file, { maxBytes: READ_CAPS.configFile, what: 'configFile' });
  } catch (e) {
    const r = e instanceof BoundedReadError ? e : undefined;
    base.errors.push({
      path: file,
      message: r?.kind === 'missing' ? l10n.t('The config file {0} does not exist; check the path.', file)
        : r && r.kind !== 'unreadable' && r.kind !== 'denied' ? l10n.t('The config file {0} cannot be used: {1}; pass a JSON or JSONC file (settings.json, mcp.json).', file, readRefusal(r.facts, 'it'))
        : l10n.t('The config file {0} cannot be read ({1}).', file, r?.code ?? String(e)),
    });
    return base;
  }
  const { value: doc, errors, warnings } = parseJsonc(text, file);
  if (errors.length) return { ...base, errors, warnings };
  if (isObject(doc)) {
    const nested = isObject(doc.mcpHost) ? doc.mcpHost : undefined;
    if ('mcpHost.servers' in doc || 'mcpHost.inputs' in doc || nested) {
      const servers = doc['mcpHost.servers'] ?? nested?.servers;
      const inputs = doc['mcpHost.inputs'] ?? nested?.inputs;
      const out: LoadedConfig = { ...base, warnings, source: 'settings', serversPrefix: 'mcpHost.servers', inputsPrefix: 'mcpHost.inputs' };
      if (servers !== undefined) {
        if (isObject(servers)) out.servers = servers;
        else out.errors.push({ path: 'mcpHost.servers', message: l10n.t('{0}: mcpHost.servers must be an object of server names to definitions.', file) });
      }
      if (inputs !== undefined) {
        if (Array.isArray(inputs)) out.inputs = inputs;
        else out.errors.push({ path: 'mcpHost.inputs', message: l10n.t('{0}: mcpHost.inputs must be an array.', file) });
      }
      return out;
    }
    if (isObject(doc.mcp) && (isObject(doc.mcp.servers) || Array.isArray(doc.mcp.inputs))) {
      const r = importConfig(JSON.stringify(doc.mcp), 'vscode', file);
      return { ...base, ...r, warnings: [...warnings, ...r.warnings], source: 'settings', serversPrefix: 'mcp.servers', inputsPrefix: 'mcp.inputs' };
    }
  }
  const r = importConfig(text, 'auto', file);
  const prefix = r.kind === undefined || r.kind === 'vscode' ? 'servers' : 'mcpServers';
  return { ...base, ...r, source: r.kind, serversPrefix: prefix, inputsPrefix: 'inputs' };
}

