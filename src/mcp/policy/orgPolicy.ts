/**
 * An organisation's MCP policy (issue 40): the `allowedMcpServers` / `deniedMcpServers` lists of the managed-settings
 * file GitHub Copilot's clients read (VS Code, Visual Studio, JetBrains, Xcode, the Copilot CLI), and VS Code's
 * `chat.mcp.access` policy (`all` / `registry` / `none`). One function decides, for the CLI and the editor alike,
 * whether a server may run ({@link policyVerdict}); {@link applyPolicy} turns every server it blocks into a
 * configuration problem, so the host never starts, connects or offers it, on any start path. The semantics, and the
 * sources they follow, are in docs/POLICY.md. Editor-free.
 *
 * Fail closed: a policy file that exists but cannot be read or parsed, or holds an entry of no known shape, blocks
 * every server (its problem names the file and the fix); a missing file means no policy.
 */
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { BoundedReadError, readBoundedText, readRefusal, type BoundedReadFacts } from '../boundedRead';
import { parseJsonc } from '../config/import';
import type { ConfigError, ServerDefinition } from '../types';

/** One entry of an allow- or deny-list: exactly one of the three keys. */
export type PolicyEntry =
  | { serverName: string }
  | { serverCommand: string[] }
  | { serverUrl: string };

/** VS Code's `chat.mcp.access` policy values. */
export type McpAccess = 'all' | 'registry' | 'none';

export interface OrgPolicy {
  /** Where the lists came from (a file path), for the messages. */
  source?: string;
  /** The allow-list; undefined = no allow-list (every server not denied may run). */
  allowed?: PolicyEntry[];
  denied: PolicyEntry[];
  /** Set when the policy file could not be used: every server is blocked; `policyBreakMessage` says why. */
  broken?: PolicyBreak;
  /** `chat.mcp.access` (the editor's; `all` when not set). */
  access?: McpAccess;
}

/** A policy file is a few KiB; a larger one is refused like any other bounded read. */
export const MAX_POLICY_BYTES = 1024 * 1024;

/**
 * The platform's managed-settings file. `root` replaces the platform folder (the tests' `MCP_HOST_POLICY_ROOT`
 * alone sets it, so a test never touches the machine's own policy).
 */
export function platformPolicyFile(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.MCP_HOST_POLICY_ROOT;
  if (root) return path.join(root, 'managed-settings.json');
  if (platform === 'darwin') return '/Library/Application Support/GitHubCopilot/managed-settings.json';
  if (platform === 'win32') return path.win32.join(env.ProgramFiles ?? 'C:\\Program Files', 'GitHubCopilot', 'managed-settings.json');
  return '/etc/github-copilot/managed-settings.json';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with one entry of a list (facts; `policyBreakMessage` says it). */
export type EntryProblem =
  | { kind: 'notObject' }
  | { kind: 'keys'; /** The known keys it has (none, or more than one). */ has: string[] }
  | { kind: 'command' }
  | { kind: 'emptyString'; key: 'serverName' | 'serverUrl' };

/**
 * Why an organisation's policy file is broken (issue 40: facts, never English text): not valid JSON, not an object,
 * a list that is not an array, an entry of no known shape, or a file that cannot be read. `policyBreakMessage` makes
 * the sentence; callers match on `kind`.
 */
export type PolicyBreak =
  | { kind: 'notJson'; file: string; /** The parser's message. */ detail: string }
  | { kind: 'notObject'; file: string }
  | { kind: 'notArray'; file: string; key: PolicyListKey }
  | { kind: 'badEntry'; file: string; key: PolicyListKey; index: number; problem: EntryProblem }
  | { kind: 'unusable'; file: string; /** A refused bounded read, else the error's text. */ read: BoundedReadFacts | string };

export type PolicyListKey = 'allowedMcpServers' | 'deniedMcpServers';

/** Why the policy file is broken, in the configured language (English in the CLI): one whole message per situation. */
export function policyBreakMessage(b: PolicyBreak): string {
  switch (b.kind) {
    case 'notJson': return l10n.t('{0} is not valid JSON ({1}); ask your administrator to correct it; until then no MCP server may run', b.file, b.detail);
    case 'notObject': return l10n.t('{0} does not hold an object; ask your administrator to correct it; until then no MCP server may run', b.file);
    case 'notArray': return l10n.t('{0}: {1} is not an array; ask your administrator to correct it; until then no MCP server may run', b.file, b.key);
    case 'badEntry': {
      const at = `${b.key}[${b.index}]`;
      const p = b.problem;
      switch (p.kind) {
        case 'notObject': return l10n.t('{0}: {1} is not an object; ask your administrator to correct it; until then no MCP server may run', b.file, at);
        case 'keys': return p.has.length
          ? l10n.t('{0}: {1} must have exactly one of serverName, serverCommand, serverUrl (it has {2}); ask your administrator to correct it; until then no MCP server may run', b.file, at, p.has.join(', '))
          : l10n.t('{0}: {1} must have exactly one of serverName, serverCommand, serverUrl (it has none); ask your administrator to correct it; until then no MCP server may run', b.file, at);
        case 'command': return l10n.t('{0}: {1} serverCommand must be a non-empty array of strings; ask your administrator to correct it; until then no MCP server may run', b.file, at);
        case 'emptyString': return l10n.t('{0}: {1} {2} must be a non-empty string; ask your administrator to correct it; until then no MCP server may run', b.file, at, p.key);
      }
      return p satisfies never;
    }
    case 'unusable': {
      const why = typeof b.read === 'string' ? b.read : readRefusal(b.read);
      return l10n.t('the organisation\'s policy file {0} cannot be used ({1}); ask your administrator to fix it; until then no MCP server may run', b.file, why);
    }
  }
  return b satisfies never;
}

function entryOf(v: unknown): PolicyEntry | EntryProblem {
  if (!isObject(v)) return { kind: 'notObject' };
  const keys = Object.keys(v).filter(k => k === 'serverName' || k === 'serverCommand' || k === 'serverUrl');
  if (keys.length !== 1) return { kind: 'keys', has: keys };
  const k = keys[0];
  if (k === 'serverCommand') {
    const c = v.serverCommand;
    return Array.isArray(c) && c.length > 0 && c.every(s => typeof s === 'string') ? { serverCommand: c as string[] } : { kind: 'command' };
  }
  const s = v[k];
  if (typeof s !== 'string' || !s) return { kind: 'emptyString', key: k as 'serverName' | 'serverUrl' };
  return k === 'serverName' ? { serverName: s } : { serverUrl: s };
}

/** Parses a managed-settings file's MCP lists; anything it cannot use makes a broken (fail-closed) policy. */
export function parsePolicy(text: string, source: string): OrgPolicy {
  const { value, errors } = parseJsonc(text, source);
  const broken = (b: PolicyBreak): OrgPolicy => ({ source, denied: [], broken: b });
  if (errors.length) return broken({ kind: 'notJson', file: source, detail: errors[0].message });
  if (value === undefined) return { source, denied: [] };
  if (!isObject(value)) return broken({ kind: 'notObject', file: source });
  const lists: { allowed?: PolicyEntry[]; denied: PolicyEntry[] } = { denied: [] };
  for (const key of ['allowedMcpServers', 'deniedMcpServers'] as const) {
    const raw = value[key];
    if (raw === undefined) continue;
    if (!Array.isArray(raw)) return broken({ kind: 'notArray', file: source, key });
    const entries: PolicyEntry[] = [];
    for (const [index, item] of raw.entries()) {
      const e = entryOf(item);
      if ('kind' in e) return broken({ kind: 'badEntry', file: source, key, index, problem: e });
      entries.push(e);
    }
    if (key === 'allowedMcpServers') lists.allowed = entries; else lists.denied = entries;
  }
  return { source, ...lists };
}

/** Reads the policy file: missing = no policy; unreadable, too large or malformed = broken (every server blocked). */
export async function loadPolicy(file: string): Promise<OrgPolicy> {
  try {
    return parsePolicy(await readBoundedText(file, { maxBytes: MAX_POLICY_BYTES, what: 'policyFile' }), file);
  } catch (err) {
    if (err instanceof BoundedReadError && err.kind === 'missing') return { denied: [] };
    return { source: file, denied: [], broken: { kind: 'unusable', file, read: err instanceof BoundedReadError ? err.facts : String(err) } };
  }
}

/** `*` matches any run of characters (none included); everything else literally, the whole URL. */
function urlMatches(pattern: string, url: string): boolean {
  const re = new RegExp(`^${pattern.split('*').map(s => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return re.test(url);
}

function matches(e: PolicyEntry, name: string, def: ServerDefinition): boolean {
  if ('serverName' in e) return e.serverName === name;
  if ('serverCommand' in e) return def.type === 'stdio' && e.serverCommand.length === def.args.length + 1 && e.serverCommand.every((s, i) => s === (i === 0 ? def.command : def.args[i - 1]));
  return def.type !== 'stdio' && urlMatches(e.serverUrl, def.url);
}

export type PolicyVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether `def` may run. Order (the published rules): a deny entry that matches blocks; with an allow-list, a server
 * no entry allows is blocked; when the allow-list has `serverCommand` entries a stdio server must match one of them
 * (its name is not enough), and when it has `serverUrl` entries a remote server must match one of them. `registry`
 * access lets only servers installed from the registry run (`fromRegistry` true: policy/provenance.ts; a string says
 * why it is not, for the reason), `none` none at all.
 */
export function policyVerdict(policy: OrgPolicy, def: ServerDefinition, fromRegistry: boolean | string = false): PolicyVerdict {
  const where = policy.source ? ` (${policy.source})` : '';
  if (policy.broken) return { allowed: false, reason: l10n.t('blocked: {0}', policyBreakMessage(policy.broken)) };
  if (policy.access === 'none') return { allowed: false, reason: l10n.t('blocked by your organisation\'s policy: chat.mcp.access is "none" (no MCP server may run)') };
  if (policy.access === 'registry' && fromRegistry !== true) {
    const why = typeof fromRegistry === 'string' && fromRegistry ? `: ${fromRegistry}` : '';
    return { allowed: false, reason: l10n.t('blocked by your organisation\'s policy: chat.mcp.access is "registry" (only servers installed from the MCP Registry may run){0}', why) };
  }
  const name = def.name;
  if (policy.denied.some(e => matches(e, name, def))) return { allowed: false, reason: l10n.t('blocked by your organisation\'s policy{0}: deniedMcpServers names it', where) };
  const allow = policy.allowed;
  if (!allow) return { allowed: true };
  const byKind = def.type === 'stdio' ? allow.filter(e => 'serverCommand' in e) : allow.filter(e => 'serverUrl' in e);
  const ok = byKind.length ? byKind.some(e => matches(e, name, def)) : allow.some(e => matches(e, name, def));
  return ok ? { allowed: true } : { allowed: false, reason: l10n.t('blocked by your organisation\'s policy{0}: allowedMcpServers does not list it', where) };
}

/**
 * The definitions the policy lets run, and a configuration problem for each it blocks (the host shows those in an
 * error state and never starts them). `fromRegistry` tells which servers came from the MCP Registry (true), or why
 * one did not (policy/provenance.ts `registryProvenance`); asked only under `registry` access.
 */
export function applyPolicy(policy: OrgPolicy | undefined, defs: readonly ServerDefinition[], fromRegistry: (def: ServerDefinition) => boolean | string = () => false): { defs: ServerDefinition[]; errors: ConfigError[] } {
  if (!policy) return { defs: [...defs], errors: [] };
  const out: ServerDefinition[] = [];
  const errors: ConfigError[] = [];
  for (const def of defs) {
    const v = policyVerdict(policy, def, policy.access === 'registry' ? fromRegistry(def) : false);
    if (v.allowed) out.push(def);
    else errors.push({ server: def.name, path: policy.source ?? 'chat.mcp.access', message: l10n.t('Server "{0}" is {1}.', def.name, v.reason) });
  }
  return { defs: out, errors };
}
