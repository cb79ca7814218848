/**
 * Small helpers shared by the config modules: setting paths, value display (with secrets kept out),
 * and edit distance for "did you mean" hints.
 */

import * as l10n from '@vscode/l10n';
import { Redactor } from '../logging/redact';

const IDENTIFIER = /^[A-Za-z_$][\w$-]*$/;

/** Appends a property key or array index to a setting path: `a.b` + `c` → `a.b.c`, + 2 → `a.b[2]`. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (IDENTIFIER.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Appends a relative path (`args[2]`, `env.TOKEN`) to a setting path. */
export function appendPath(base: string, rel: string): string {
  if (!rel) return base;
  return rel.startsWith('[') || !base ? `${base}${rel}` : `${base}.${rel}`;
}

/** Appends an ajv `instancePath` (`/args/2`) to a setting path. */
export function joinPointer(base: string, pointer: string): string {
  if (!pointer) return base;
  let out = base;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out = /^\d+$/.test(seg) ? joinPath(out, Number(seg)) : joinPath(out, seg);
  }
  return out;
}

/** The path of a value relative to its server (`env.TOKEN`, `args[2]`) from a pointer. */
export function relativePath(pointer: string): string {
  return joinPointer('', pointer).replace(/^\./, '');
}

/** True when a value at this server-relative path may be a secret (env and header values). */
export function isSecretPath(rel: string): boolean {
  return /^(env|headers)($|\.|\[)/.test(rel);
}

/** Truncates a string to `max` characters with an ellipsis. */
export function truncate(s: string, max = 60): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A short, readable rendering of a value for an error message; never shows secrets. */
export function describeValue(rel: string, value: unknown): string {
  if (isSecretPath(rel)) return l10n.t('the value of {0}', rel);
  if (value === undefined) return l10n.t('nothing');
  let text: string;
  if (typeof value === 'string') text = JSON.stringify(rel === 'url' || rel.startsWith('url') ? Redactor.none.url(value) : value);
  else {
    try { text = JSON.stringify(value) ?? String(value); } catch { text = String(value); }
  }
  return `\`${truncate(text)}\``;
}

/**
 * A JSON type as a phrase for people ("a string", "an integer"): the one place these words are made, for a value's
 * type (`typeName`) and for the type a setting expects (configErrors.ts `article`). `null` (the JSON word, said as
 * is) and a name that is not a JSON type are `undefined`.
 */
export function typeWord(type: string): string | undefined {
  switch (type) {
    case 'array': return l10n.t('an array');
    case 'string': return l10n.t('a string');
    case 'integer': return l10n.t('an integer');
    case 'number': return l10n.t('a number');
    case 'boolean': return l10n.t('a boolean');
    case 'object': return l10n.t('an object');
    default: return undefined;
  }
}

/** JSON-ish type name of a value, for "expected X, got Y". */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return typeWord('array')!;
  const t = typeof value === 'number' && Number.isInteger(value) ? 'integer' : typeof value;
  return typeWord(t) ?? t;
}

/** Edit distance counting a swap of neighbours as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const m = a.length, n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[m][n];
}

/** The closest candidate within a sensible distance (case-insensitive), if any. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (d < bestD) { best = c; bestD = d; }
  }
  const limit = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  return bestD <= limit ? best : undefined;
}
