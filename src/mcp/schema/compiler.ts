/**
 * Compiles the JSON Schemas a server sends (tool `inputSchema` and `outputSchema`) into validators, with
 * everything a hostile server could use to stall or poison the host taken out:
 * - one compiler per server and per tools list (a `list_changed` gets a fresh one): two servers, or one
 *   server before and after `list_changed`, using the same `$id` never see each other's schemas, and
 *   the validators are freed with the list (no process-wide cache);
 * - a compile budget (JSON nodes and pattern characters per schema, `Limits`) checked before ajv
 *   sees the schema: over it, that schema is refused with a message naming server, limit and setting;
 * - every `pattern` and `patternProperties` key runs on RE2 (linear time); a pattern RE2 cannot run
 *   (backreferences, lookaround) refuses the schema with the reason;
 * - `uniqueItems` is checked in linear time (ajv's own is quadratic in the array length);
 * - property names are data: `required` and `properties` look at own properties only;
 * - ajv's own warnings (an unknown `format`, ignored) never reach the process's stderr: they go to `warn`
 *   (the server's log), naming the schema (`tool \`x\` inputSchema`) with control characters escaped.
 */
import * as l10n from '@vscode/l10n';
import { McpHostError } from '../errors';
import { createHash } from 'node:crypto';
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { DEFAULT_LIMITS, limitMessage, type Limits } from '../limits';
import { LinearRegExp, UnsupportedPatternError, linearRegExpEngine } from './regexp';
import { escapeControls } from '../logging/humanText';
import { ajvLib, ajvOf, checkAgainstMetaSchema, dialectOf, type AjvClass, type SchemaDialect } from './dialects';

export { dialectOf, prepareSchemaChecks, type SchemaDialect } from './dialects';

/**
 * Why the host refuses to compile a schema: over a compile budget (the limit in force), a pattern RE2 cannot run,
 * or `$ref`s in a loop (or nested deeper than ajv compiles).
 */
export type SchemaRefusal =
  | { kind: 'tooLarge'; limit: number }
  | { kind: 'patterns'; limit: number }
  | { kind: 'pattern'; pattern: UnsupportedPatternError }
  | { kind: 'refLoop' };

/**
 * A schema the host refuses to compile. It carries the facts (server, the schema's label, the refusal); its message,
 * naming the server (and, over a budget, the limit and the setting), is `schemaRefusalMessage`.
 */
export class SchemaRefusedError extends Error {
  constructor(readonly server: string, readonly label: string, readonly refusal: SchemaRefusal) {
    super(schemaRefusalMessage(server, label, refusal));
    this.name = 'SchemaRefusedError';
  }
}

/** The sentence of a refusal, in the configured language (English in the CLI): one whole message per kind (issue 40). */
export function schemaRefusalMessage(server: string, label: string, r: SchemaRefusal): string {
  switch (r.kind) {
    case 'tooLarge': return limitMessage(server, r.limit, { kind: 'schemaTooLarge', label });
    case 'patterns': return limitMessage(server, r.limit, { kind: 'schemaPatterns', label });
    case 'pattern': return l10n.t('server `{0}` {1}: {2}', server, label, r.pattern.message);
    case 'refLoop': return l10n.t('server `{0}` {1}: its `$ref`s refer to each other in a loop that never reaches a schema (or it nests deeper than the host compiles)', server, label);
  }
}

export type SchemaBudget = Pick<Limits, 'maxSchemaNodes' | 'maxSchemaPatternChars'>;

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a pattern. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples']);

interface SchemaCensus {
  /** Nodes counted, at most `maxNodes + 1` (the walk stops there). */
  nodes: number;
  patterns: string[];
  patternChars: number;
  /** Some `properties` keyword names a property `__proto__` (see withProtoAsPattern). */
  protoProperty: boolean;
}

/** Counts a schema's JSON nodes (iteratively, so depth cannot overflow the stack) and collects its patterns. */
export function census(schema: unknown, maxNodes: number): SchemaCensus {
  const out: SchemaCensus = { nodes: 0, patterns: [], patternChars: 0, protoProperty: false };
  const stack: Array<{ value: unknown; data: boolean }> = [{ value: schema, data: false }];
  while (stack.length) {
    const { value, data } = stack.pop()!;
    if (++out.nodes > maxNodes) return out;
    if (!value || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const v of value) stack.push({ value: v, data });
      continue;
    }
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (!data && key === 'pattern' && typeof v === 'string') {
        out.patterns.push(v);
        out.patternChars += v.length;
      }
      if (!data && key === 'patternProperties' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const p of Object.keys(v)) {
          out.patterns.push(p);
          out.patternChars += p.length;
        }
      }
      if (!data && key === 'properties' && v && typeof v === 'object' && Object.hasOwn(v, '__proto__')) out.protoProperty = true;
      stack.push({ value: v, data: data || DATA_KEYWORDS.has(key) });
    }
  }
  return out;
}

/**
 * ajv silently drops a property named `__proto__` from `properties` (so its value is never checked and
 * `additionalProperties: false` refuses it). A copy of the schema moves each such property to
 * `patternProperties` under `^__proto__$`, which ajv checks like any other name: property names are data.
 */
function withProtoAsPattern(schema: unknown, data = false): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map(v => withProtoAsPattern(v, data));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) {
    Object.defineProperty(out, key, {
      value: withProtoAsPattern((schema as Record<string, unknown>)[key], data || DATA_KEYWORDS.has(key)),
      enumerable: true, writable: true, configurable: true,
    });
  }
  const props = out.properties;
  if (!data && props && typeof props === 'object' && !Array.isArray(props) && Object.hasOwn(props, '__proto__')) {
    const rest: Record<string, unknown> = {};
    for (const k of Object.keys(props)) if (k !== '__proto__') rest[k] = (props as Record<string, unknown>)[k];
    const pp = out.patternProperties && typeof out.patternProperties === 'object' ? out.patternProperties as Record<string, unknown> : {};
    out.properties = rest;
    out.patternProperties = { ...pp, '^__proto__$': (props as Record<string, unknown>)['__proto__'] };
  }
  return out;
}

/** JSON with sorted keys: equal for values ajv's `uniqueItems` calls equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  }) ?? 'undefined';
}

function uniqueInLinearTime(items: unknown[]): boolean {
  const seen = new Set<string>();
  for (const item of items) {
    const key = canonical(item);
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** Schema texts up to this length are reuse keys as they are; longer ones by their SHA-256. */
const REUSE_TEXT_KEY_CHARS = 4096;

/** Where ajv's log lines go: warnings and errors to `warn`, the rest nowhere (never the console). */
interface AjvLogger { log(...args: unknown[]): void; warn(...args: unknown[]): void; error(...args: unknown[]): void }

function makeAjv(A: AjvClass, logger: AjvLogger): Ajv {
  const ajv = new A({
    strict: false, allErrors: true, validateFormats: true, validateSchema: false,
    ownProperties: true, logger,
    code: { regExp: linearRegExpEngine, optimize: false },
  });
  ajvLib().addFormats(ajv);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword({
    keyword: 'uniqueItems', type: 'array', schemaType: 'boolean',
    validate: (unique: boolean, data: unknown[]) => !unique || uniqueInLinearTime(data),
  });
  return ajv;
}

/** A copy of a schema without its `$schema` (the meta-schema check runs on the dialect's own instance). */
function withoutDialect(s: Record<string, unknown>): Record<string, unknown> {
  const out = { ...s };
  delete out.$schema;
  return out;
}

/** Pattern verdicts a compiler takes over from the previous list's (more: it starts afresh). */
const MAX_PATTERN_VERDICTS = 10_000;

/** Longest ajv warning passed on, in characters (a format name or a path is the server's text). */
const MAX_AJV_WARNING_CHARS = 1000;

/**
 * The validators of one server's tools list. Create one per list; `dispose` (or dropping it) frees
 * every compiled validator with it.
 *
 * A compiled validator depends on nothing but its own schema text and the budget (each schema is removed
 * from the ajv instance right after compiling, so no schema sees another's `$id`). So a compiler made with
 * `previous` (the compiler of the same server's previous list) takes over the validator of any schema whose
 * text and budget are byte-for-byte the same instead of compiling it again: a refreshed list pays only for
 * the schemas that changed. Only validators carry over (a refusal or error is worked out again: its message
 * names the tool), and only from the one previous list.
 */
export class SchemaCompiler {
  /** One ajv per dialect this server's schemas use, made on first use. */
  private readonly ajvs = new Map<SchemaDialect, Ajv>();
  private readonly budget: SchemaBudget;
  /** This list's validators by schema text (see reuseKey), for the next list's compiler. */
  private compiled = new Map<string, ValidateFunction>();
  /** The previous list's, taken over when the same schema comes again. */
  private reuse: Map<string, ValidateFunction> | undefined;
  /** Each distinct pattern checked so far: null when RE2 runs it, else the refusal (taken over from the previous list's compiler). */
  private readonly patterns: Map<string, UnsupportedPatternError | null>;
  /** The schema being compiled (`tool \`x\` inputSchema`), named in ajv's warnings. */
  private compiling = 'schema';
  /** ajv's warnings passed on so far (each once). */
  private readonly said = new Set<string>();
  private readonly logger: AjvLogger = {
    log: () => undefined,
    warn: (...args) => this.ajvSays(args),
    error: (...args) => this.ajvSays(args),
  };

  /**
   * `warn` gets ajv's warnings about this server's schemas (default: dropped), one line each, naming the schema;
   * the server's name is the log's.
   */
  constructor(readonly server: string, budget: Partial<SchemaBudget> = {}, previous?: SchemaCompiler, private readonly warn?: (message: string) => void) {
    this.budget = { maxSchemaNodes: DEFAULT_LIMITS.maxSchemaNodes, maxSchemaPatternChars: DEFAULT_LIMITS.maxSchemaPatternChars, ...budget };
    const same = previous && previous.budget.maxSchemaNodes === this.budget.maxSchemaNodes
      && previous.budget.maxSchemaPatternChars === this.budget.maxSchemaPatternChars;
    this.reuse = same ? previous.compiled : undefined;
    this.patterns = previous && previous.patterns.size <= MAX_PATTERN_VERDICTS ? new Map(previous.patterns) : new Map();
  }

  /** The schema's text (or its digest, when long); undefined when it cannot be serialised. */
  private reuseKey(schema: object): string | undefined {
    let text: string | undefined;
    try { text = JSON.stringify(schema); } catch { return undefined; }
    if (text === undefined) return undefined;
    // The budget is the same for every schema of one compiler, and a compiler only takes over from one made
    // with the same budget (see the constructor), so the text alone is the key; a long text is kept as its digest.
    return text.length <= REUSE_TEXT_KEY_CHARS ? text : `sha256:${createHash('sha256').update(text).digest('base64')}`;
  }

  /**
   * Compiles a JSON Schema: 2020-12 when `$schema` is absent (the MCP default), else the dialect it
   * names (2019-09, draft-07, draft-06). `label` names it in messages
   * ("tool `x` inputSchema"). Returns a SchemaRefusedError (budget, pattern) or an Error (not a valid
   * schema) instead of throwing.
   */
  compile(schema: unknown, label: string): ValidateFunction | Error {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return new McpHostError(l10n.t('the schema is not an object'));
    // Over the node budget: refused below without serialising it (the census stops at the budget).
    const key = census(schema, this.budget.maxSchemaNodes).nodes > this.budget.maxSchemaNodes ? undefined : this.reuseKey(schema);
    const known = key === undefined ? undefined : this.compiled.get(key) ?? this.reuse?.get(key);
    if (known) {
      this.compiled.set(key!, known);
      return known;
    }
    const out = this.compileNew(schema, label);
    if (key !== undefined && typeof out === 'function') this.compiled.set(key, out);
    return out;
  }

  /**
   * The checks that need no compile, for a tools list as it arrives (the validators are compiled on a tool's first
   * call): the schema is an object, within the compile budget, its patterns run on RE2 (each distinct pattern
   * checked once per compiler), its dialect is known and it passes its dialect's meta-schema. Returns the problem
   * (a SchemaRefusedError or an Error, as `compile` would) or undefined; what only a compile finds (a `$ref` that
   * resolves nowhere) is left to `compile`.
   */
  precheck(schema: unknown, label: string): Error | undefined {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return new McpHostError(l10n.t('the schema is not an object'));
    try {
      const c = this.checked(schema as object, label);
      if (c instanceof Error) return c;
      const s = (c.protoProperty ? withProtoAsPattern(schema) : schema) as Record<string, unknown>;
      const A = ajvOf(dialectOf(s));
      checkAgainstMetaSchema(A, s.$schema === undefined ? s : withoutDialect(s));
      return undefined;
    } catch (err) {
      return this.problemOf(err, label);
    }
  }

  /** The budget and pattern checks of `precheck` and `compileNew`: the census, or the refusal. */
  private checked(schema: object, label: string): SchemaCensus | SchemaRefusedError {
    const { maxSchemaNodes, maxSchemaPatternChars } = this.budget;
    const c = census(schema, maxSchemaNodes);
    if (c.nodes > maxSchemaNodes) {
      return new SchemaRefusedError(this.server, label, { kind: 'tooLarge', limit: maxSchemaNodes });
    }
    if (c.patternChars > maxSchemaPatternChars) {
      return new SchemaRefusedError(this.server, label, { kind: 'patterns', limit: maxSchemaPatternChars });
    }
    for (const p of c.patterns) {
      let problem = this.patterns.get(p);
      if (problem === undefined) {
        try {
          LinearRegExp.compile(p);
          problem = null;
        } catch (err) {
          if (!(err instanceof UnsupportedPatternError)) throw err;
          problem = err;
        }
        this.patterns.set(p, problem);
      }
      if (problem) return new SchemaRefusedError(this.server, label, { kind: 'pattern', pattern: problem });
    }
    return c;
  }

  private compileNew(schema: object, label: string): ValidateFunction | Error {
    try {
      const c = this.checked(schema, label);
      if (c instanceof Error) return c;
      const s: Record<string, unknown> = { ...(c.protoProperty ? withProtoAsPattern(schema) as Record<string, unknown> : schema as Record<string, unknown>) };
      const dialect = dialectOf(s);
      delete s.$schema;
      const A = ajvOf(dialect);
      checkAgainstMetaSchema(A, s);
      let ajv = this.ajvs.get(dialect);
      if (!ajv) this.ajvs.set(dialect, ajv = makeAjv(A, this.logger));
      this.compiling = label;
      try {
        return ajv.compile(s);
      } finally {
        this.compiling = 'schema';
        // The validator keeps what it needs; the instance forgets the schema and its `$id`, so the next
        // tool of this server may use the same `$id` and nothing piles up.
        ajv.removeSchema(s);
      }
    } catch (err) {
      return this.problemOf(err, label);
    }
  }

  /** What a compile that threw says: a refusal naming the server, or the error. */
  private problemOf(err: unknown, label: string): Error {
    if (err instanceof UnsupportedPatternError) return new SchemaRefusedError(this.server, label, { kind: 'pattern', pattern: err });
    // ajv follows `$ref`s recursively: references that only point at each other (#/$defs/a → b → a) never
    // reach a schema and overflow the stack. Said as what it is, never as the engine's raw text.
    if (err instanceof RangeError) {
      return new SchemaRefusedError(this.server, label, { kind: 'refLoop' });
    }
    return err instanceof Error ? err : new Error(String(err));
  }

  /** One ajv warning (its text names the keyword and the path in the schema), escaped and cut, to `warn`. */
  private ajvSays(args: unknown[]): void {
    if (!this.warn) return;
    const text = args.map(a => (a instanceof Error ? a.message : String(a))).join(' ');
    const line = escapeControls(`${this.compiling}: ${text}`).replace(/\n/g, '\\n');
    // ajv says some things more than once per schema (an unknown format: twice): once per compiler is enough.
    if (this.said.has(line)) return;
    this.said.add(line);
    this.warn(line.length > MAX_AJV_WARNING_CHARS ? `${line.slice(0, MAX_AJV_WARNING_CHARS - 1)}…` : line);
  }

  /** The list is complete: the previous list's validators not taken over are let go. */
  forgetPrevious(): void {
    this.reuse = undefined;
  }

  /** Drops the ajv instances (and with them every schema they still hold) and the previous list's validators. */
  dispose(): void {
    this.ajvs.clear();
    this.reuse = undefined;
  }
}
