/**
 * The one reader of `mcpHost.*` settings: a typed function per key, with its default and the scope it may come from.
 * Settings that only user scope may set (limits, the OAuth client metadata URL) are read from the user value alone,
 * so a workspace cannot raise a limit or choose where the host identifies itself. The writers (imports, the sandbox's
 * "Allow …", tool enablement) write through here too, to the scope they name.
 */
import * as vscode from 'vscode';
import { DEFAULT_LIMITS, readTimeouts, type Timeouts, type Limits, configSourcesSetting, type PortableSource, DEFAULT_CODE_MODE_LIMITS, type CodeModeLimits } from '../mcp';

const SECTION = 'mcpHost';
const cfg = (scope?: vscode.ConfigurationScope) => vscode.workspace.getConfiguration(SECTION, scope);

/**
 * `mcpHost.*` as it is now, for several reads in one go (a settings sync): each reader below takes it, so the editor
 * builds the section once instead of once per key.
 */
export type Snapshot = vscode.WorkspaceConfiguration;
export const snapshot = (): Snapshot => cfg();

/** What each scope sets for `mcpHost.servers` / `mcpHost.inputs` (raw JSON, validated by the core). */
export interface ScopedValues<T> { user?: T; workspace?: T }

/** What user and workspace settings each set for `key` (never VS Code's merge of the two). */
function scoped<T>(key: string, c: Snapshot = cfg()): ScopedValues<T> {
  const v = c.inspect<T>(key);
  return { user: v?.globalValue, workspace: v?.workspaceValue };
}

/** `mcpHost.servers` in user and workspace settings. */
export function serversSetting(c: Snapshot = cfg()): ScopedValues<unknown> {
  return scoped('servers', c);
}

/** `mcpHost.servers` in one folder's own settings (multi-root windows). */
export function folderServersSetting(folder: vscode.WorkspaceFolder): unknown {
  return cfg(folder.uri).inspect<unknown>('servers')?.workspaceFolderValue;
}

/** `mcpHost.inputs` in user and workspace settings. */
export function inputsSetting(c: Snapshot = cfg()): ScopedValues<unknown[]> {
  return scoped('inputs', c);
}

/** Where a writer puts a value: user settings or the workspace's. */
export type SettingsTarget = 'user' | 'workspace';
const vsTarget = (t: SettingsTarget) => (t === 'user' ? vscode.ConfigurationTarget.Global : vscode.ConfigurationTarget.Workspace);

/** Writes `mcpHost.servers` of one scope (the whole object; callers start from `serversSetting()[target]`). */
export async function writeServers(servers: Record<string, unknown>, target: SettingsTarget): Promise<void> {
  await cfg().update('servers', servers, vsTarget(target));
}

/** Writes `mcpHost.inputs` of one scope. */
export async function writeInputs(inputs: unknown[], target: SettingsTarget): Promise<void> {
  await cfg().update('inputs', inputs, vsTarget(target));
}

/** `mcpHost.disabledTools` where it is set: the workspace value if there is one, else the user value. */
export function disabledToolsWhereSet(): { value: unknown; target: SettingsTarget } {
  const v = cfg().inspect<unknown>('disabledTools');
  return v?.workspaceValue !== undefined ? { value: v.workspaceValue, target: 'workspace' } : { value: v?.globalValue, target: 'user' };
}

/** Writes `mcpHost.disabledTools` of one scope (undefined removes it). */
export async function writeDisabledTools(value: unknown, target: SettingsTarget): Promise<void> {
  await cfg().update('disabledTools', value, vsTarget(target));
}

/** `mcpHost.autoStart` (default true). */
export const autoStart = (c: Snapshot = cfg()): boolean => c.get<boolean>('autoStart', true);

/** `mcpHost.startup`: `eager` starts servers on activation, `lazy` on first use. */
export const startupMode = (c: Snapshot = cfg()): 'eager' | 'lazy' => (c.get<string>('startup', 'eager') === 'lazy' ? 'lazy' : 'eager');

/** `mcpHost.timeout.*` (every row of `TIMEOUT_LIMITS`: `startup`, `request`), in milliseconds. */
export const timeouts = (c: Snapshot = cfg()): Timeouts => readTimeouts((setting, fallback) => c.get<number>(setting.slice(SECTION.length + 1), fallback));

/** `mcpHost.trace`: the protocol trace in every server's log. */
export const traceAll = (): boolean => cfg().get<boolean>('trace', false);

/** `mcpHost.showFailureNotifications` (default true). */
export const showFailureNotifications = (): boolean => cfg().get<boolean>('showFailureNotifications', true);

/** `mcpHost.oauth.clientMetadataUrl`, from user settings only (trimmed; undefined when unset). */
export const oauthClientMetadataUrl = (): string | undefined => cfg().inspect<string>('oauth.clientMetadataUrl')?.globalValue?.trim() || undefined;

/** `mcpHost.limits.*` as the user set them in user settings (workspace values never count); invalid values ignored. */
export function userLimits(): Partial<Limits> {
  const limits = vscode.workspace.getConfiguration(`${SECTION}.limits`);
  const out: Partial<Limits> = {};
  for (const k of Object.keys(DEFAULT_LIMITS) as (keyof Limits)[]) {
    const v = limits.inspect<number>(k)?.globalValue;
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) out[k] = v;
  }
  return out;
}

/** True when a configuration change touches `mcpHost.<key>` (or any `mcpHost.*` key without one). */
export const affects = (e: vscode.ConfigurationChangeEvent, key?: string): boolean => e.affectsConfiguration(key ? `${SECTION}.${key}` : SECTION);

/**
 * `mcpHost.configSources` (issue 40), from user settings only: which portable files (`.mcp.json`,
 * `~/.copilot/mcp-config.json`) servers are also read from; a workspace cannot turn one on or off.
 */
export const configSources = (c: Snapshot = cfg()): Record<PortableSource, boolean> => configSourcesSetting(c.inspect<unknown>('configSources')?.globalValue);

/** `mcpHost.sandbox.default`, from user settings only: workspace stdio servers run sandboxed unless they opt out. */
export const sandboxDefault = (c: Snapshot = cfg()): boolean => c.inspect<boolean>('sandbox.default')?.globalValue === true;

/** `mcpHost.sandbox.denyRead`, from user settings only: paths no sandboxed server may read, beyond the defaults. */
export function sandboxDenyRead(): string[] | undefined {
  const v = cfg().inspect<unknown>('sandbox.denyRead')?.globalValue;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

/** `mcpHost.gateway.enabled` (default true): the "MCP Host" definition for VS Code's own chat. */
export const gatewayEnabled = (): boolean => cfg().get<boolean>('gateway.enabled', true) !== false;

/** `mcpHost.chat.maxToolRounds`'s default: VS Code's agent (`chat.agent.maxRequests`) stops at 25 requests per turn too. */
export const DEFAULT_MAX_TOOL_ROUNDS = 25;

/**
 * `mcpHost.chat.maxToolRounds`: model ↔ tool round trips per `@mcp` request. The user's value (or the default) is the
 * bound; a workspace may only lower it (a workspace never lets a model loop longer than the user allows).
 */
export function chatMaxToolRounds(): number {
  const i = cfg().inspect<unknown>('chat.maxToolRounds');
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;
  const user = ok(i?.globalValue) ? i.globalValue : DEFAULT_MAX_TOOL_ROUNDS;
  const ws = [i?.workspaceValue, i?.workspaceFolderValue].filter(ok);
  return Math.min(user, ...ws);
}

/** `mcpHost.registry.url`, from user settings only (a workspace does not choose where servers are installed from). */
export const registryUrl = (): string | undefined => cfg().inspect<string>('registry.url')?.globalValue;

/** The registry searched when `mcpHost.registry.url` is not set (and no policy names a private registry). */
export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/**
 * `mcpHost.toolBudget` (raw `{ tools?, tokens? }`) per scope: the core merges them (modelTools.ts mergeToolBudgets: a
 * workspace may only lower it), not VS Code's object merge.
 */
export function toolBudget(): ScopedValues<unknown> {
  return scoped('toolBudget');
}

/**
 * `mcpHost.disabledTools` (raw) per scope: the core merges them (toolPolicy.ts mergeToolPolicies: a workspace may only
 * turn tools off), not VS Code's object merge, which would let a workspace's entry replace the user's.
 */
export function disabledTools(): ScopedValues<unknown> {
  return scoped('disabledTools');
}

/**
 * `mcpHost.codeMode` (default off) with `mcpHost.codeModeLimits.*` (user settings only, like `mcpHost.limits.*`;
 * invalid values ignored, the engine's defaults for the rest): the limits when code mode is on, else undefined.
 * Off in Restricted Mode whatever the settings say.
 */
export function codeMode(c: Snapshot = cfg()): CodeModeLimits | undefined {
  if (c.get<unknown>('codeMode', false) !== true || !vscode.workspace.isTrusted) return undefined;
  const limits = vscode.workspace.getConfiguration(`${SECTION}.codeModeLimits`);
  const out: CodeModeLimits = { ...DEFAULT_CODE_MODE_LIMITS };
  for (const k of Object.keys(DEFAULT_CODE_MODE_LIMITS) as (keyof CodeModeLimits)[]) {
    const v = limits.inspect<number>(k)?.globalValue;
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) out[k] = v;
  }
  return out;
}
