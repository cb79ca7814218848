/**
 * Configuration for the CLI: which file (`--config`, else ./.vscode/settings.json, else
 * ./.vscode/mcp.json), its shape (settings `mcpHost.servers` / `mcp.servers`, mcp.json `servers`,
 * Claude Desktop / Cursor `mcpServers`), then the core's validation and variable resolution with
 * `${workspaceFolder}` = the current directory and `${input:…}` from the environment or the terminal.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfigFile, parseInputs, parseServers, resolveServers, type ConfigError, applyPolicy, loadPolicy, platformPolicyFile } from '../mcp';
import { UsageError } from './args';
import type { LoadedConfig } from './commandHost';
import { createInputResolver, type InputResolverOptions } from './inputs';

/** The candidates tried, in order, when no --config is given. */
export function defaultConfigFiles(cwd: string): string[] {
  return [path.join(cwd, '.vscode', 'settings.json'), path.join(cwd, '.vscode', 'mcp.json')];
}

export interface LoadOptions extends InputResolverOptions {
  cwd?: string;
  /** `--root DIR`: the folder offered to servers as their one root (relative to `cwd`). */
  root?: string;
}

/**
 * The root the CLI offers servers: `--root DIR` when given; else the folder of the configuration's
 * workspace (the parent of a `.vscode` folder holding the file, or the folder of a `.code-workspace`
 * file); else none (a Claude Desktop or Cursor file says nothing about a workspace). Never the
 * current directory by accident, never the file system root.
 */
export function cliRoots(configFile: string, cwd: string, root?: string): { roots: { uri: string; name: string }[]; warning?: string } {
  let folder: string | undefined;
  if (root !== undefined) folder = path.resolve(cwd, root);
  else if (configFile) {
    const dir = path.dirname(path.resolve(cwd, configFile));
    if (path.basename(dir) === '.vscode') folder = path.dirname(dir);
    else if (configFile.endsWith('.code-workspace')) folder = dir;
  }
  if (!folder) return { roots: [] };
  if (path.parse(folder).root === folder) {
    return { roots: [], warning: `not offering ${folder} as a root: the file system root is never a workspace root (pass --root DIR)` };
  }
  return { roots: [{ uri: pathToFileURL(folder).href, name: path.basename(folder) }] };
}

/** Loads, validates and resolves the configuration; never starts anything. */
export async function loadConfig(configFile: string | undefined, opts: LoadOptions = {}): Promise<LoadedConfig> {
  const cwd = opts.cwd ?? process.cwd();
  let loaded: Awaited<ReturnType<typeof loadConfigFile>> | undefined;
  let file: string;
  if (configFile) {
    file = path.resolve(cwd, configFile);
    loaded = await loadConfigFile(file);
  } else {
    // settings.json only counts when it defines servers (most settings files are about other things).
    file = '';
    for (const candidate of defaultConfigFiles(cwd).filter(f => fs.existsSync(f))) {
      const l = await loadConfigFile(candidate);
      if (l.errors.length || Object.keys(l.servers).length) {
        file = candidate;
        loaded = l;
        break;
      }
    }
    if (!loaded) throw new UsageError(`no servers configured in ${cwd}: neither .vscode/settings.json (mcpHost.servers) nor .vscode/mcp.json (servers) defines any; pass --config FILE`);
  }
  // Whole-document problems (missing file, JSON syntax, wrong shape): nothing can be used.
  if (loaded.errors.length) throw new UsageError(loaded.errors.map(e => e.message).join('\n'));
  if (!Object.keys(loaded.servers).length && loaded.source === undefined) {
    throw new UsageError(`${file} has no servers: expected "mcpHost.servers" (settings.json), "servers" (mcp.json) or "mcpServers" (Claude Desktop / Cursor)`);
  }
  const parsedInputs = parseInputs(loaded.inputs, { settingPrefix: loaded.inputsPrefix });
  const parsed = parseServers(loaded.servers, { settingPrefix: loaded.serversPrefix });
  const resolveInput = createInputResolver(parsedInputs.inputs, opts);
  const resolved = await resolveServers(parsed.servers, {
    workspaceFolders: [{ name: path.basename(cwd), path: cwd }],
    userHome: os.homedir(),
    env: opts.env ?? process.env,
    inputs: parsedInputs.inputs,
    resolveInput: input => resolveInput(input.id),
  });
  // The organisation's policy (issue 40): a server it blocks is a configuration problem, never started. No flag turns
  // it off.
  const policed = applyPolicy(await loadPolicy(platformPolicyFile(process.platform, opts.env ?? process.env)), resolved.definitions);
  const errors: ConfigError[] = [...parsedInputs.errors, ...parsed.errors, ...resolved.errors, ...policed.errors];
  const rooted = cliRoots(file, cwd, opts.root);
  const warnings = [...(rooted.warning ? [rooted.warning] : []), ...loaded.warnings, ...parsed.warnings.map(w => `${w.path}: ${w.message}`), ...resolved.warnings.map(w => `${w.path}: ${w.message}`)];
  return { file, definitions: policed.defs, errors, warnings, roots: rooted.roots };
}
