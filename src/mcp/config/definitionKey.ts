/**
 * The one key of a server definition: a sha256 hash of a stable serialisation (sorted keys) of the resolved
 * definition without `autoStart` (which only says whether to start now). Everything the host remembers about a
 * definition is keyed by it — launch consent and its denials, "always" grants, the start-up cache, reconcile — so
 * what is kept is a hash, never a resolved definition: `${input:}` values, `env`, `headers` and envFile secrets never
 * reach workspace or global state in clear. An edited definition has another key, so it is asked about again.
 */
import { createHash } from 'node:crypto';
import type { ServerDefinition } from '../types';

/** JSON with sorted keys, so key order never counts as a change. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.keys(v).sort().map(k => [k, (v as Record<string, unknown>)[k]]));
    }
    return v;
  });
}

/** sha256 (hex) of the resolved definition without `autoStart`. */
export function definitionKey(def: ServerDefinition): string {
  return createHash('sha256').update(stableStringify({ ...def, autoStart: undefined })).digest('hex');
}

/** True when `s` has the shape of a definition key (64 hex digits): what stored keys are checked against. */
export function isDefinitionKey(s: unknown): s is string {
  return typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);
}
