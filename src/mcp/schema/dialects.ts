/**
 * Which JSON Schema dialect a server's schema is written in, the ajv that checks it (loaded with the first schema), and
 * the meta-schema check ("is this a JSON Schema at all?") on one host-owned checker per dialect, prepared a turn at a
 * time before a tools list's first check (issue 41). The compiler (compiler.ts) uses these; nothing of a server's
 * schema stays here.
 */
import * as l10n from '@vscode/l10n';
import type Ajv from 'ajv';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types';
import type * as AjvModule from './ajvModule';
import { McpHostError } from '../errors';
import { linearRegExpEngine } from './regexp';
import { yieldTurn } from '../jsonWalks';

/** An ajv class (one per dialect). */
export type AjvClass = new (o: object) => Ajv;

export type SchemaDialect = '2020-12' | '2019-09' | 'draft-07';

const DIALECT_URIS: ReadonlyMap<string, SchemaDialect> = new Map([
  ['json-schema.org/draft/2020-12/schema', '2020-12'],
  ['json-schema.org/draft/2019-09/schema', '2019-09'],
  ['json-schema.org/draft-07/schema', 'draft-07'],
  ['json-schema.org/draft-06/schema', 'draft-07'],
]);

/**
 * The dialect a schema is written in (MCP 2025-11-25): JSON Schema 2020-12 when `$schema` is absent;
 * otherwise the one it names (http or https, with or without the trailing `#`). A dialect the host does
 * not know throws, with the value it saw.
 */
export function dialectOf(schema: Record<string, unknown>): SchemaDialect {
  const declared = schema.$schema;
  if (declared === undefined) return '2020-12';
  if (typeof declared !== 'string') throw new McpHostError(l10n.t('`$schema` is not a string'));
  const key = declared.trim().replace(/^https?:\/\//, '').replace(/#$/, '');
  const dialect = DIALECT_URIS.get(key);
  if (!dialect) {
    throw new McpHostError(l10n.t('the schema declares an unsupported dialect ("$schema": "{0}"); supported: JSON Schema 2020-12 (the default when `$schema` is absent), 2019-09, draft-07 and draft-06', declared.slice(0, 200)));
  }
  return dialect;
}

let ajvModule: typeof AjvModule | undefined;
/** ajv, loaded with the first schema (a require, not an import: esbuild.mjs makes it a require of dist/ajv.js, LAZY). */
export function ajvLib(): typeof AjvModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return ajvModule ??= require('./ajvModule') as typeof AjvModule;
}

/** The ajv class of each dialect. */
export function ajvOf(dialect: SchemaDialect): AjvClass {
  const { Ajv, Ajv2019, Ajv2020 } = ajvLib();
  return dialect === '2020-12' ? Ajv2020 as unknown as AjvClass : dialect === '2019-09' ? Ajv2019 as unknown as AjvClass : Ajv;
}

/**
 * The meta-schema check (is this a JSON Schema at all?) runs on one host-owned instance per draft: it
 * only ever validates a server's schema as data, never adds it, so nothing of a server stays there,
 * and its compiled meta-schema (tens of milliseconds to build) is shared by every server's compiler.
 */
const metaCheckers = new Map<AjvClass, Ajv>();

/**
 * The draft meta-schemas' own patterns (`$id`, `$anchor`, `$dynamicAnchor`): the host's, never a server's, and linear
 * on any engine. The meta-schema checker runs these on the built-in engine, so checking a schema needs the RE2
 * engine (loaded on first use, regexp.ts) only when the schema itself has a pattern; any other pattern still runs
 * on RE2.
 */
const META_SCHEMA_PATTERNS = new Set(['^[^#]*#?$', '^[A-Za-z][-A-Za-z0-9.:_]*$', '^[A-Za-z_][-A-Za-z0-9._]*$']);
const metaSchemaRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => (META_SCHEMA_PATTERNS.has(pattern) ? new RegExp(pattern, flags) : linearRegExpEngine(pattern, flags)),
  { code: 'metaSchemaRegExp' },
);

function metaChecker(A: AjvClass): Ajv {
  let checker = metaCheckers.get(A);
  if (!checker) {
    checker = new A({ strict: false, allErrors: false, validateFormats: true, code: { regExp: metaSchemaRegExpEngine } });
    ajvLib().addFormats(checker);
    metaCheckers.set(A, checker);
  }
  return checker;
}

/** Throws, with ajv's words, when `schema` is not a schema of the dialect `A` checks. */
export function checkAgainstMetaSchema(A: AjvClass, schema: Record<string, unknown>): void {
  const checker = metaChecker(A);
  if (!checker.validateSchema(schema)) throw new McpHostError(l10n.t('schema is invalid: {0}', checker.errorsText(checker.errors)));
}

/** The one preparation of each dialect's meta-schema checker (prepareSchemaChecks). */
const preparing = new Map<SchemaDialect, Promise<void>>();

/**
 * Prepares the meta-schema check of a dialect (default: 2020-12, MCP's) a turn at a time, so that the first schema
 * check of the process does not do it all in one: loading ajv (~10 ms of CPU), making the checker (~5 ms) and compiling
 * the meta-schema (~32 ms: each vocabulary's meta-schema first, one per turn, the largest ~16 ms, then the dialect's
 * own, which uses them). At once the three held the thread ~50 ms of CPU (80 ms and more on a loaded machine) while
 * servers started and listed their tools (issue 41). The checks give the same answers either way (the same checker
 * compiles the same meta-schemas); a check before this is done (a tool called at once) prepares the rest in one go.
 */
export function prepareSchemaChecks(dialect: SchemaDialect = '2020-12'): Promise<void> {
  let p = preparing.get(dialect);
  if (!p) {
    p = (async () => {
      try {
        if (!ajvModule) {
          ajvLib();
          await yieldTurn();
        }
        const A = ajvOf(dialect);
        if (!metaCheckers.has(A)) {
          metaChecker(A);
          await yieldTurn();
        }
        const checker = metaChecker(A);
        // The vocabularies' meta-schemas (2020-12 and 2019-09 have them), then the rest (the dialect's own meta-schema).
        const ids = Object.keys(checker.schemas);
        for (const id of [...ids.filter(i => i.includes('/meta/')), ...ids.filter(i => !i.includes('/meta/'))]) {
          checker.getSchema(id);
          await yieldTurn();
        }
      } catch {
        // Nothing prepared is lost: the check itself does what is left, and says what fails (precheck, compile).
      }
    })();
    preparing.set(dialect, p);
  }
  return p;
}
