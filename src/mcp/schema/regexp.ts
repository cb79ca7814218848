/**
 * Server-supplied regular expressions (JSON Schema `pattern` and `patternProperties`, an elicitation
 * field's `pattern`) run on RE2 (`re2js`, pure JavaScript, linear time): no pattern a server sends can
 * backtrack catastrophically on the extension host's thread (docs/SECURITY.md, Threat model: "Never blocked").
 *
 * ECMAScript syntax is translated to RE2's (`\u0041`, `[^]`, `\cA`); what RE2 cannot do in linear time
 * (backreferences, lookaround) is refused with a readable reason instead of falling back to the
 * backtracking engine.
 *
 * The engine (~150 KiB) loads with the first pattern, not with the bundle: in the extension and the CLI its
 * `require` becomes one of dist/re2.js (esbuild.mjs, LAZY).
 */
import type { RE2JS } from 're2js';
import type * as Re2Module from 're2js';
import * as l10n from '@vscode/l10n';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import { DEFAULT_LIMITS } from '../limits';

let re2Module: typeof Re2Module | undefined;
function re2(): typeof RE2JS {
  // A require, not an import: esbuild.mjs turns it into a require of dist/re2.js (loaded on first use).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (re2Module ??= require('re2js') as typeof Re2Module).RE2JS;
}

/**
 * Why the linear-time engine cannot run a pattern: not a string, an ECMAScript-only feature, or the engine's own
 * refusal (`detail`: its parser's words, e.g. "invalid repeat count", kept as they are).
 */
export type PatternRefusal =
  | { kind: 'notString' }
  | { kind: 'backreference' }
  | { kind: 'lookahead' }
  | { kind: 'lookbehind' }
  | { kind: 'engine'; detail: string };

/** A pattern the linear-time engine cannot run; the message says why (one line, `patternRefusal`). */
export class UnsupportedPatternError extends Error {
  constructor(readonly pattern: string, readonly refusal: PatternRefusal) {
    super(patternRefusal(pattern, refusal));
    this.name = 'UnsupportedPatternError';
  }
}

/**
 * "pattern `(a)\1` uses a backreference, which the host's linear-time regular expression engine does not run", in the
 * configured language (English in the CLI): one whole message per refusal (issue 40).
 */
export function patternRefusal(pattern: string, r: PatternRefusal): string {
  const shown = shortPattern(pattern);
  switch (r.kind) {
    case 'notString': return l10n.t('pattern `{0}` is not a string', shown);
    case 'backreference': return l10n.t('pattern `{0}` uses a backreference, which the host\'s linear-time regular expression engine does not run', shown);
    case 'lookahead': return l10n.t('pattern `{0}` uses a lookahead, which the host\'s linear-time regular expression engine does not run', shown);
    case 'lookbehind': return l10n.t('pattern `{0}` uses a lookbehind, which the host\'s linear-time regular expression engine does not run', shown);
    case 'engine': return l10n.t('pattern `{0}` is not supported by the host\'s linear-time regular expression engine ({1})', shown, r.detail);
  }
}

/** The pattern as it appears in a message: at most 80 characters, control characters escaped. */
export function shortPattern(pattern: string): string {
  const clean = pattern.replace(/[\u0000-\u001f\u007f`]/g, c => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return clean.length > 80 ? `${clean.slice(0, 77)}...` : clean;
}

/** Why RE2 cannot run this ECMAScript pattern, found by a scan of its escapes and groups; undefined when none. */
function ecmaOnlyFeature(pattern: string): PatternRefusal | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const n = pattern[i + 1] ?? '';
      if (/[1-9]/.test(n) || (n === 'k' && pattern[i + 2] === '<')) return { kind: 'backreference' };
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(' && pattern[i + 1] === '?') {
      const rest = pattern.slice(i + 2, i + 4);
      if (rest.startsWith('=') || rest.startsWith('!')) return { kind: 'lookahead' };
      if (rest === '<=' || rest === '<!') return { kind: 'lookbehind' };
    }
  }
  return undefined;
}

/**
 * `\uD83D\uDE00` (a surrogate pair spelled as two escapes, as JSON Schema patterns often do) as one code
 * point `\x{1F600}`: RE2 matches code points, so two lone surrogates would never match. A linear scan.
 */
function joinSurrogateEscapes(pattern: string): string {
  const hex4 = (at: number) => /^[0-9a-fA-F]{4}$/.test(pattern.slice(at, at + 4)) ? parseInt(pattern.slice(at, at + 4), 16) : -1;
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') { out += pattern[i]; continue; }
    if (pattern[i + 1] === 'u' && pattern[i + 6] === '\\' && pattern[i + 7] === 'u') {
      const hi = hex4(i + 2);
      const lo = hex4(i + 8);
      if (hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) {
        out += `\\x{${(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)).toString(16).toUpperCase()}}`;
        i += 11;
        continue;
      }
    }
    out += pattern.slice(i, i + 2);
    i++;
  }
  return out;
}

/** A compiled pattern with the `test` of a RegExp (unanchored search, as JSON Schema's `pattern`). */
export class LinearRegExp implements RegExpLike {
  private constructor(readonly source: string, private readonly re: RE2JS) {}

  /** Compiles an ECMAScript pattern for RE2; throws UnsupportedPatternError. */
  static compile(pattern: string): LinearRegExp {
    if (typeof pattern !== 'string') throw new UnsupportedPatternError(String(pattern), { kind: 'notString' });
    const feature = ecmaOnlyFeature(pattern);
    if (feature) throw new UnsupportedPatternError(pattern, feature);
    // Outside the try: a missing engine bundle is a packaging fault, not a pattern the engine refuses.
    const engine = re2();
    let re: RE2JS;
    try {
      re = engine.compile(engine.translateRegExp(joinSurrogateEscapes(pattern)));
    } catch (err) {
      const detail = (err instanceof Error ? err.message : String(err)).replace(/^error parsing regexp: /, '').split('\n')[0].slice(0, 200);
      throw new UnsupportedPatternError(pattern, { kind: 'engine', detail });
    }
    return new LinearRegExp(pattern, re);
  }

  test(input: string): boolean {
    return this.re.test(input);
  }

  /** ajv keys its per-validator pattern cache by this text: it must differ between patterns. */
  toString(): string {
    return `/${this.source}/`;
  }
}

/** ajv's `code.regExp` engine: every `pattern` and `patternProperties` key runs on RE2. */
export const linearRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, _flags: string): RegExpLike => LinearRegExp.compile(pattern),
  { code: 'linearRegExp' },
);

/** The problem with a server-supplied pattern (one line), or undefined when the engine runs it. */
export function patternProblem(pattern: string): string | undefined {
  try {
    LinearRegExp.compile(pattern);
    return undefined;
  } catch (err) {
    return err instanceof UnsupportedPatternError ? err.message : String(err);
  }
}

/** Patterns compiled for testPattern, most recent last (bounded: a form re-checks on every keystroke). */
const recent = new Map<string, LinearRegExp | undefined>();
const RECENT_MAX = 32;

/**
 * Tests `value` against a server-supplied pattern without backtracking. Returns undefined when the
 * engine cannot run the pattern or it is longer than `maxPatternChars` (callers then skip the check:
 * the server validates its own input).
 */
export function testPattern(pattern: string, value: string, maxPatternChars = DEFAULT_LIMITS.maxSchemaPatternChars): boolean | undefined {
  if (typeof pattern !== 'string' || pattern.length > maxPatternChars) return undefined;
  let re = recent.get(pattern);
  if (!recent.has(pattern)) {
    try {
      re = LinearRegExp.compile(pattern);
    } catch {
      re = undefined;
    }
    if (recent.size >= RECENT_MAX) recent.delete(recent.keys().next().value as string);
  }
  recent.delete(pattern);
  recent.set(pattern, re);
  return re?.test(value);
}
