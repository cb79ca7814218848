/**
 * The one key of a server definition: an HMAC-SHA256, under a random per-installation key, of a stable serialisation
 * (sorted keys) of the definition's *identity* fields — the table `DEFINITION_FIELDS` in schema.ts (what runs and where
 * values go; never its tuning: timeouts, `disabled`, `autoStart`). Everything the host remembers about a definition is
 * keyed by it — launch consent and its denials, "always" grants, History, the start-up cache, era verdicts — and the
 * host's restart rule is the same key: a tuning edit keeps all of them and the process; an identity edit is another
 * server, asked about again.
 *
 * Keyed, not a bare hash: stored state (workspace state, the CLI's era cache) is no oracle for the values hashed (a
 * 6-digit `${input:}` PIN is not recovered by hashing a million guesses). The installation key is the owner's: the
 * extension keeps it in SecretStorage, the CLI in a 0600 file of its state dir; the core only receives it.
 *
 *   const key = definitionKeyer(installationKey);
 *   key(def) === key({ ...def, timeout: { request: 5000 } })   // tuning: the same server
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition } from '../types';
import { DEFINITION_FIELDS, IDENTITY_FIELDS, type FieldClass } from './schema';

/** A type error when a field of `ServerDefinition` has no class in the table (schema.ts). */
const _classified: Record<keyof StdioServerDefinition | keyof HttpServerDefinition, FieldClass> = DEFINITION_FIELDS;
void _classified;

/** The key of a definition (see the header): what every store and the restart rule use. */
export type DefinitionKey = (def: ServerDefinition) => string;

/** JSON with sorted keys, so key order never counts as a change. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.keys(v).sort().map(k => [k, (v as Record<string, unknown>)[k]]));
    }
    return v;
  });
}

/** The identity fields of a definition (the table's), nothing else. */
export function identityOf(def: ServerDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const d = def as unknown as Record<string, unknown>;
  for (const k of IDENTITY_FIELDS) if (d[k] !== undefined) out[k] = d[k];
  return out;
}

/** Bytes of a fresh installation key. */
export const INSTALLATION_KEY_BYTES = 32;

/** A fresh random installation key (hex), for an owner that has none stored yet. */
export function newInstallationKey(): string {
  return randomBytes(INSTALLATION_KEY_BYTES).toString('hex');
}

/** True when `s` is an installation key as stored (64 hex digits at least). */
export function isInstallationKey(s: unknown): s is string {
  return typeof s === 'string' && /^[0-9a-f]{64,}$/.test(s);
}

/** The definition key under one installation key: HMAC-SHA256 (hex) of the identity fields. */
export function definitionKeyer(installationKey: string): DefinitionKey {
  return def => createHmac('sha256', installationKey).update(stableStringify(identityOf(def))).digest('hex');
}

/**
 * A key for a host or connection nobody gave one (tests, a short-lived tool): a random installation key of its own,
 * so what it compares is the identity, and nothing it could store is comparable across processes.
 */
export function ephemeralKeyer(): DefinitionKey {
  return definitionKeyer(newInstallationKey());
}

/**
 * The key before issue 35 (sha256 of the whole resolved definition but `autoStart`, unsalted): only to find what state
 * an older version stored (migrateKeys), never to store.
 */
export function legacyDefinitionKey(def: ServerDefinition): string {
  return createHash('sha256').update(stableStringify({ ...def, autoStart: undefined })).digest('hex');
}

/**
 * The one-time re-keying: for each current definition, its legacy key → its new key. A stored legacy key found here is
 * re-keyed; any other legacy key (a definition that no longer exists, another workspace's) is dropped.
 */
export function keyMigration(defs: readonly ServerDefinition[], key: DefinitionKey): ReadonlyMap<string, string> {
  return new Map(defs.map(d => [legacyDefinitionKey(d), key(d)]));
}

/** True when `s` has the shape of a definition key (64 hex digits): what stored keys are checked against. */
export function isDefinitionKey(s: unknown): s is string {
  return typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
}
