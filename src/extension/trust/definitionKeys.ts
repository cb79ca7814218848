/**
 * The extension's definition key (src/mcp/config/definitionKey.ts): an HMAC under a random per-installation key kept
 * in SecretStorage, so nothing in workspace or global state (consent, grants, caches, History file names) is an oracle
 * for the values a definition carries. And the one-time re-keying of what an older version stored under the unsalted
 * sha256: on the first sync with the new key, a stored key that is the unsalted key of a current definition is
 * re-keyed; every other unsalted key (a definition gone or edited, another workspace's) is dropped.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { definitionKeyer, isInstallationKey, keyMigration, legacyDefinitionKey, newInstallationKey, type DefinitionKey, type ServerDefinition } from '../../mcp';
import { historyKey } from '../state/historyStore';

/** The SecretStorage entry of the installation key. */
export const INSTALLATION_KEY_SECRET = 'mcpHost.definitionKey';
/** Set (to 2) in workspace and global state once that state's keys are re-keyed. */
export const KEYS_VERSION_STATE = 'mcpHost.definitionKeysVersion';
const KEYS_VERSION = 2;

/** The installation's definition key: the stored installation key, or a new one stored now. */
export async function installationKeyer(secrets: Pick<vscode.SecretStorage, 'get' | 'store'>): Promise<DefinitionKey> {
  let key: string | undefined;
  try { key = await secrets.get(INSTALLATION_KEY_SECRET); } catch { key = undefined; }
  if (!isInstallationKey(key)) {
    key = newInstallationKey();
    try { await secrets.store(INSTALLATION_KEY_SECRET, key); } catch { /* kept for this session only: state is re-keyed again next time */ }
  }
  return definitionKeyer(key);
}

/**
 * The definition key while the installation key is read (issue 41): a SecretStorage round trip to the editor's main
 * process (50–100 ms on a loaded machine) that the first settings sync does not wait for. It decides every server it
 * can without a keyed lookup (serverController.ts); everything keyed (launch consent, grants, the catalogue cache, era
 * verdicts, History) waits for `ready`. `key` asked before then throws: a lookup that did not wait is a bug, never a
 * guess.
 */
export interface PendingKey {
  /** The definition key; throws until the installation key was read. */
  readonly key: DefinitionKey;
  /** True once the installation key was read (`key` answers). */
  has(): boolean;
  /** Resolves once the installation key was read. */
  readonly ready: Promise<void>;
}

/** The definition key of `load` (installationKeyer's promise), usable as soon as it resolves (see PendingKey). */
export function pendingKey(load: Promise<DefinitionKey>): PendingKey {
  let keyer: DefinitionKey | undefined;
  const ready = load.then(k => { keyer = k; });
  return {
    key: def => {
      if (!keyer) throw new Error('MCP Host: a definition key was asked for before the installation key was read from SecretStorage');
      return keyer(def);
    },
    has: () => keyer !== undefined,
    ready,
  };
}

/** A memento as the stores use it. */
export type KeyMemento = Pick<vscode.Memento, 'get' | 'update'>;

/** Something in memory keyed by definition keys that re-keys itself (the era verdicts, the catalogue cache). */
export interface Rekeyable { rekey(map: ReadonlyMap<string, string>): void }

/** Where keyed state lives (see migrateStoredKeys). */
export interface KeyedState {
  workspace: KeyMemento;
  global: KeyMemento;
  /** Workspace-state entries that are lists of definition keys (launch consent and denials). */
  keyLists: readonly string[];
  /** Entries (in both mementos) that are lists of grant keys `scope:name:key[/suffix]` (identity.ts grantKey). */
  grantLists: readonly string[];
  /** In-memory stores keyed by definition keys (workspace state). */
  stores: readonly (Rekeyable | undefined)[];
  /** The History folder (historyStore.ts), if History is kept. */
  historyDir?: string;
}

/** `list` (stored keys) re-keyed: known legacy keys mapped, the rest dropped. */
export function rekeyList(list: unknown, map: ReadonlyMap<string, string>): string[] {
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const k of list) {
    const next = typeof k === 'string' ? map.get(k) : undefined;
    if (next !== undefined && !out.includes(next)) out.push(next);
  }
  return out;
}

/** A grant key (`scope:name:key[/suffix]`) re-keyed, or undefined when its key is not a current definition's. */
export function rekeyGrant(grant: string, map: ReadonlyMap<string, string>): string | undefined {
  const m = /^(.*?):([0-9a-f]{64})((?:\/[\s\S]*)?)$/.exec(grant);
  const next = m && map.get(m[2]);
  return m && next !== undefined ? `${m[1]}:${next}${m[3]}` : undefined;
}

/**
 * Re-keys the state an older version stored, once per memento (KEYS_VERSION_STATE), with the first sync's resolved
 * definitions. Synchronous where it decides (the memento values are set before the first lookup); History files are
 * renamed with the file system's synchronous calls (at most MAX_HISTORY_FILES files, once).
 */
export function migrateStoredKeys(defs: readonly ServerDefinition[], key: DefinitionKey, state: KeyedState): void {
  const map = keyMigration(defs, key);
  const done = (m: KeyMemento) => m.get<number>(KEYS_VERSION_STATE) === KEYS_VERSION;
  if (!done(state.global)) {
    rekeyGrants(state.global, state.grantLists, map);
    void state.global.update(KEYS_VERSION_STATE, KEYS_VERSION);
  }
  if (done(state.workspace)) return;
  for (const k of state.keyLists) {
    const v = state.workspace.get<unknown>(k);
    if (v !== undefined) { const next = rekeyList(v, map); void state.workspace.update(k, next.length ? next : undefined); }
  }
  rekeyGrants(state.workspace, state.grantLists, map);
  for (const s of state.stores) s?.rekey(map);
  if (state.historyDir) rekeyHistory(state.historyDir, defs, key);
  void state.workspace.update(KEYS_VERSION_STATE, KEYS_VERSION);
}

function rekeyGrants(m: KeyMemento, lists: readonly string[], map: ReadonlyMap<string, string>): void {
  for (const k of lists) {
    const v = m.get<unknown>(k);
    if (!Array.isArray(v)) continue;
    const next = [...new Set(v.flatMap(g => { const r = typeof g === 'string' ? rekeyGrant(g, map) : undefined; return r === undefined ? [] : [r]; }))];
    void m.update(k, next.length ? next : undefined);
  }
}

/** History files of current definitions renamed to their new names; every other file of the folder removed. */
function rekeyHistory(dir: string, defs: readonly ServerDefinition[], key: DefinitionKey): void {
  let names: string[];
  try { names = fs.readdirSync(dir); } catch { return; }
  const renames = new Map(defs.map(d => [`${historyKey(d.name, d, legacyDefinitionKey)}.json`, `${historyKey(d.name, d, key)}.json`]));
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    const to = renames.get(n);
    try {
      if (to !== undefined) fs.renameSync(path.join(dir, n), path.join(dir, to));
      else fs.rmSync(path.join(dir, n), { force: true });
    } catch { /* a History file is not worth failing activation for */ }
  }
}
