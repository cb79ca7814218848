/**
 * Portable config files MCP Host also reads servers from (issue 40, `mcpHost.configSources`): a workspace folder's
 * `.mcp.json` and the GitHub Copilot CLI's `~/.copilot/mcp-config.json`, beside its own `mcpHost.servers`. This is
 * the merge rule, pure: which source's entry of a name runs. `.vscode/mcp.json` is not a source (VS Code starts those
 * itself). The files are read with the one bounded reader and parsed with `importConfig` (import.ts); nothing here
 * reads a file.
 *
 * The most specific source wins: workspace settings > `.mcp.json` > user settings > `~/.copilot/mcp-config.json`. A
 * name defined in several sources runs once, from the most specific one (the definition key includes the name:
 * config/schema.ts, so two sources define "the same server" exactly when they use one name); when the entries differ,
 * a warning says which one runs.
 */
import { identityOf, stableStringify } from './definitionKey';
import { parseServers } from './validate';
import * as l10n from '@vscode/l10n';
import { importConfig } from './import';
import { BoundedReadError, READ_CAPS, readRefusal } from '../boundedRead';
import { formatBytes } from '../logging/humanText';
import type { ConfigError, ServerDefinition } from '../types';

/** Where a server's entry was written. */
export type ConfigSourceId = 'workspaceSettings' | 'mcpJson' | 'userSettings' | 'copilotCli';

/** Most specific first: the order the merge keeps the first entry of a name in. */
export const SOURCE_PRECEDENCE: readonly ConfigSourceId[] = ['workspaceSettings', 'mcpJson', 'userSettings', 'copilotCli'];

/** The portable files `mcpHost.configSources` turns on or off, by its keys. */
export type PortableSource = 'mcpJson' | 'copilotCli';

/** `mcpHost.configSources` read: each portable file on unless set to `false` (default on). */
export function configSourcesSetting(value: unknown): Record<PortableSource, boolean> {
  const v = value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {};
  return { mcpJson: v.mcpJson !== false, copilotCli: v.copilotCli !== false };
}

/** One source's servers (settings-shaped entries by name) and how the views name it ("from .mcp.json"). */
export interface SourceLayer {
  source: ConfigSourceId;
  /** E.g. `.mcp.json`, `app/.mcp.json`, `~/.copilot/mcp-config.json`; undefined for MCP Host's own settings. */
  label?: string;
  /** Multi-root: the folder whose file it is (its servers' roots and `${workspaceFolder}` default to it). */
  folder?: string;
  servers: Record<string, unknown>;
}

export interface MergedSources {
  /** One entry per name, from the most specific source that has it. */
  servers: Record<string, unknown>;
  /** Per name: the layer its entry came from. */
  from: Map<string, SourceLayer>;
  /** One sentence per name a less specific source also defines with another definition. */
  warnings: string[];
}

/** The identity of one settings-shaped entry as written (undefined when it does not parse). */
function identity(name: string, entry: unknown): string | undefined {
  const raw = parseServers({ [name]: entry }).servers[0];
  return raw && stableStringify(identityOf(raw as unknown as ServerDefinition));
}

const describe = (l: SourceLayer) => l.label ?? (l.source === 'workspaceSettings' ? 'workspace settings' : 'user settings');

/** Merges the layers (any order) by the precedence above: each name once, from the most specific source. */
export function mergeSources(layers: readonly SourceLayer[]): MergedSources {
  const ordered = [...layers].sort((a, b) => SOURCE_PRECEDENCE.indexOf(a.source) - SOURCE_PRECEDENCE.indexOf(b.source));
  const servers: Record<string, unknown> = {};
  const from = new Map<string, SourceLayer>();
  const warnings: string[] = [];
  for (const layer of ordered) {
    for (const [name, entry] of Object.entries(layer.servers)) {
      const kept = from.get(name);
      if (!kept) {
        Object.defineProperty(servers, name, { value: entry, enumerable: true, writable: true, configurable: true });
        from.set(name, layer);
        continue;
      }
      if (identity(name, entry) !== identity(name, servers[name])) {
        warnings.push(`"${name}" is defined in ${describe(kept)} and differently in ${describe(layer)}; the one in ${describe(kept)} runs. Remove or rename one of them.`);
      }
    }
  }
  return { servers, from, warnings };
}

/** The fix every problem of a portable file ends with. */
const turnOff = (key: PortableSource) => l10n.t('or set "{0}": false in mcpHost.configSources (user settings) to stop reading it', key);

/** What one portable file gave: its servers and inputs, or the one problem that kept it out. */
export type PortableFile =
  | { ok: true; servers: Record<string, unknown>; inputs: unknown[]; warnings: string[] }
  | { ok: false; errors: ConfigError[]; warnings: string[] };

/**
 * One portable file's text (or the bounded reader's rejection) as servers, or as problems naming `label` and the fix.
 * `undefined` for a missing file (nothing to say). The text is parsed by the importer (`importConfig`).
 */
export function portableFile(read: { text: string } | { error: unknown }, label: string, key: PortableSource): PortableFile | undefined {
  if ('error' in read) {
    const r = read.error instanceof BoundedReadError ? read.error : undefined;
    if (r?.kind === 'missing') return undefined;
    const why = r ? readRefusal(r.facts, 'it') : l10n.t('it cannot be read ({0})', String(read.error));
    return { ok: false, warnings: [], errors: [{
      path: label,
      message: l10n.t('{0} cannot be read for MCP servers: {1}; replace it with a JSON file of at most {2}, {3}.', label, why, formatBytes(READ_CAPS.configFile), turnOff(key)),
    }] };
  }
  const r = importConfig(read.text, key === 'copilotCli' ? 'copilot' : 'auto', label);
  const warnings = r.warnings.map(w => `${label}: ${w}`);
  if (r.errors.length) {
    // One problem per file: the first syntax error (the ones after it follow from it).
    return { ok: false, warnings, errors: r.errors.slice(0, 1).map(e => ({ ...e, message: l10n.t('{0} (MCP servers of {1}), {2}.', e.message.replace(/\.$/, ''), label, turnOff(key)) })) };
  }
  return { ok: true, servers: r.servers, inputs: r.inputs, warnings };
}
