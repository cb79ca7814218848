/**
 * Configuration for the CLI: which file (`--config`, else ./.vscode/settings.json, else
 * ./.vscode/mcp.json), its shape (settings `mcpHost.servers` / `mcp.servers`, mcp.json `servers`,
 * Claude Desktop / Cursor `mcpServers`), then the core's validation and variable resolution with
 * `${workspaceFolder}` = the current directory and `${input:…}` from the environment or the terminal.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parseInputs, parseServers } from '../mcp/config/validate';
import { resolveServers } from '../mcp/config/variables';
import type { ConfigError } from '../mcp/types';
import { UsageError } from './args';
import type { LoadedConfig } from './commands';
import { createInputResolver, type InputResolverOptions } from './inputs';

/** Where the servers and inputs sit in a document, and the setting paths to name in errors. */
interface Shape {
  servers: unknown;
  inputs: unknown;
  serversPath: string;
  inputsPath: string;
}

/** The candidates tried, in order, when no --config is given. */
export function defaultConfigFiles(cwd: string): string[] {
  return [path.join(cwd, '.vscode', 'settings.json'), path.join(cwd, '.vscode', 'mcp.json')];
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/** Reads a JSONC file; a syntax error is a usage error naming the file and the line. */
export function readJsonc(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT'
      ? `config file ${file} does not exist; pass --config FILE or run mcp-host in a folder with .vscode/settings.json or .vscode/mcp.json`
      : `cannot read config file ${file}: ${(err as Error).message}`);
  }
  const errors: ParseError[] = [];
  const value = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length) {
    const e = errors[0];
    throw new UsageError(`${file}: line ${lineOf(text, e.offset)}: ${printParseErrorCode(e.error)}; fix the JSON`);
  }
  return value;
}

/** Finds the servers in any of the supported shapes; `undefined` when the document has none. */
export function detectShape(doc: unknown): Shape | undefined {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const d = doc as Record<string, unknown>;
  const nested = (key: string): Record<string, unknown> | undefined => {
    const v = d[key];
    return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : undefined;
  };
  if ('mcpHost.servers' in d || 'mcpHost.inputs' in d) {
    return { servers: d['mcpHost.servers'], inputs: d['mcpHost.inputs'], serversPath: 'mcpHost.servers', inputsPath: 'mcpHost.inputs' };
  }
  const mcpHost = nested('mcpHost');
  if (mcpHost && 'servers' in mcpHost) return { servers: mcpHost.servers, inputs: mcpHost.inputs, serversPath: 'mcpHost.servers', inputsPath: 'mcpHost.inputs' };
  if ('servers' in d) return { servers: d.servers, inputs: d.inputs, serversPath: 'servers', inputsPath: 'inputs' };
  if ('mcpServers' in d) return { servers: d.mcpServers, inputs: d.inputs, serversPath: 'mcpServers', inputsPath: 'inputs' };
  const mcp = nested('mcp');
  if (mcp && 'servers' in mcp) return { servers: mcp.servers, inputs: mcp.inputs, serversPath: 'mcp.servers', inputsPath: 'mcp.inputs' };
  return undefined;
}

export interface LoadOptions extends InputResolverOptions {
  cwd?: string;
}

/** Loads, validates and resolves the configuration; never starts anything. */
export async function loadConfig(configFile: string | undefined, opts: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = opts.cwd ?? process.cwd();
  let file: string;
  if (configFile) file = path.resolve(cwd, configFile);
  else {
    const found = defaultConfigFiles(cwd).find(f => fs.existsSync(f) && detectShape(readJsonc(f)));
    if (!found) throw new UsageError(`no servers configured: neither ./.vscode/settings.json (mcpHost.servers) nor ./.vscode/mcp.json (servers) defines any in ${cwd}; pass --config FILE`);
    file = found;
  }
  const shape = detectShape(readJsonc(file));
  if (!shape) {
    throw new UsageError(`${file} has no servers: expected "mcpHost.servers" (settings.json), "servers" (mcp.json) or "mcpServers" (Claude Desktop / Cursor)`);
  }
  const parsedInputs = parseInputs(shape.inputs, { settingPrefix: shape.inputsPath });
  const parsed = parseServers(shape.servers, { settingPrefix: shape.serversPath });
  const resolveInput = createInputResolver(parsedInputs.inputs, opts);
  const resolved = await resolveServers(parsed.servers, {
    workspaceFolders: [{ name: path.basename(cwd), path: cwd }],
    userHome: os.homedir(),
    env: opts.env ?? process.env,
    inputs: parsedInputs.inputs,
    resolveInput: input => resolveInput(input.id),
  });
  const errors: ConfigError[] = [...parsedInputs.errors, ...parsed.errors, ...resolved.errors];
  return { file, definitions: resolved.definitions, errors };
}
