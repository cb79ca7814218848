/**
 * The catalogue of one server session: tools, prompts, resources and resource templates, every page
 * (H20), refreshed on `notifications/<kind>/list_changed` (H21) with coalescing, plus the ajv
 * validators for each tool's inputSchema and outputSchema (H25) — for all tools, not just the SDK's
 * "last page" cache.
 */
import Ajv, { type ValidateFunction, type ErrorObject } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ListPromptsResultSchema, ListResourceTemplatesResultSchema, ListResourcesResultSchema, ListToolsResultSchema,
  ResultSchema, ToolSchema, type ServerCapabilities, type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Catalogue } from './types';
import type { RequestOptions as SdkRequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';

export type CatalogueKind = keyof Catalogue;
export const CATALOGUE_KINDS: readonly CatalogueKind[] = ['tools', 'prompts', 'resources', 'resourceTemplates'];

/** A safety net against a server whose cursors never end. */
export const MAX_PAGES = 10_000;

export function emptyCatalogue(): Catalogue {
  return { tools: [], prompts: [], resources: [], resourceTemplates: [] };
}

const LIST = {
  tools: { method: 'tools/list', schema: ListToolsResultSchema, field: 'tools', cap: 'tools' },
  prompts: { method: 'prompts/list', schema: ListPromptsResultSchema, field: 'prompts', cap: 'prompts' },
  resources: { method: 'resources/list', schema: ListResourcesResultSchema, field: 'resources', cap: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', schema: ListResourceTemplatesResultSchema, field: 'resourceTemplates', cap: 'resources' },
} as const;

/** Whether the server declared the capability a list needs. */
export function declares(caps: ServerCapabilities | undefined, kind: CatalogueKind): boolean {
  return !!caps?.[LIST[kind].cap];
}

/**
 * Fetches every page of one list. Cursors are opaque and live only inside this call (H20).
 * A page that repeats a cursor ends the loop (a broken server must not spin forever).
 */
export async function fetchAll<K extends CatalogueKind>(
  client: Client, kind: K, options?: SdkRequestOptions,
): Promise<Catalogue[K]> {
  const spec = LIST[kind];
  const out: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    // Tools are checked one by one (buildToolValidators): one malformed tool must not hide the others.
    const result = await client.request(
      { method: spec.method, params: cursor === undefined ? {} : { cursor } },
      (kind === 'tools' ? ResultSchema : spec.schema) as typeof ListToolsResultSchema,
      options,
    ) as unknown as Record<string, unknown>;
    const items = result[spec.field];
    if (Array.isArray(items)) {
      for (const i of items) if (kind !== 'tools' || typeof (i as { name?: unknown } | null)?.name === 'string') out.push(i);
    }
    const next = result.nextCursor;
    if (typeof next !== 'string' || next === '' || seen.has(next)) break;
    seen.add(next);
    cursor = next;
  }
  return out as Catalogue[K];
}

// ---------------------------------------------------------------------------------------------
// Tool schemas
// ---------------------------------------------------------------------------------------------

function makeAjv<T extends Ajv>(A: new (o: object) => T): T {
  const ajv = new A({ strict: false, allErrors: true, validateFormats: true, validateSchema: true });
  addFormats(ajv as unknown as Ajv);
  return ajv;
}

let ajv7: Ajv | undefined;
let ajv2020: Ajv | undefined;
const compiled = new Map<string, ValidateFunction | Error>();

/** Compiles a JSON Schema (draft-07 or 2020-12), caching by its text. Returns an Error for a bad schema. */
export function compileSchema(schema: unknown): ValidateFunction | Error {
  let key: string;
  try { key = JSON.stringify(schema); } catch { return new Error('the schema is not JSON'); }
  const hit = compiled.get(key);
  if (hit) return hit;
  let result: ValidateFunction | Error;
  try {
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Error('the schema is not an object');
    const s = { ...(schema as Record<string, unknown>) };
    const draft = typeof s.$schema === 'string' ? s.$schema : '';
    delete s.$schema;
    const ajv = /2020-12|2019-09/.test(draft)
      ? (ajv2020 ??= makeAjv(Ajv2020 as unknown as new (o: object) => Ajv))
      : (ajv7 ??= makeAjv(Ajv));
    result = ajv.compile(s);
  } catch (err) {
    result = err instanceof Error ? err : new Error(String(err));
  }
  if (compiled.size > 5000) compiled.clear();
  compiled.set(key, result);
  return result;
}

/** "`path`: message" for the first few ajv errors; names the field. */
export function describeAjvErrors(errors: ErrorObject[] | null | undefined, root = 'arguments'): string {
  if (!errors?.length) return 'does not match the schema';
  return errors.slice(0, 3).map(e => {
    let where = e.instancePath ? `${root}${e.instancePath.replace(/\//g, '.')}` : root;
    if (e.keyword === 'required' && typeof (e.params as { missingProperty?: string }).missingProperty === 'string') {
      where = `${where}.${(e.params as { missingProperty: string }).missingProperty}`;
      return `\`${where}\` is required`;
    }
    if (e.keyword === 'additionalProperties') {
      return `\`${where}.${(e.params as { additionalProperty: string }).additionalProperty}\` is not allowed`;
    }
    return `\`${where}\` ${e.message ?? 'is invalid'}`;
  }).join('; ');
}

export interface ToolValidators {
  input?: ValidateFunction;
  output?: ValidateFunction;
  /** Why the tool cannot be called (a malformed inputSchema), if so. */
  invalid?: string;
  /** The tool's definition does not have the shape MCP requires: it is left out of the catalogue. */
  malformed?: boolean;
}

/** Builds validators for every tool; never throws. `warn` gets one line per malformed schema. */
export function buildToolValidators(tools: readonly Tool[], warn: (msg: string) => void): Map<string, ToolValidators> {
  const out = new Map<string, ToolValidators>();
  for (const tool of tools) {
    const v: ToolValidators = {};
    const shape = ToolSchema.safeParse(tool);
    if (!shape.success) {
      const issues = shape.error.issues;
      const what = issues.every(i => i.path[0] === 'inputSchema') ? 'inputSchema' : 'definition';
      v.invalid = `tool \`${tool.name}\` has an invalid ${what}: ${issues.map(i => `${i.path.join('.')}: ${i.message}`).join('; ')}`;
      v.malformed = true;
      warn(`${v.invalid}; it is left out of the tool list`);
      out.set(tool.name, v);
      continue;
    }
    const input = compileSchema(tool.inputSchema);
    if (input instanceof Error) {
      v.invalid = `tool \`${tool.name}\` has an invalid inputSchema: ${input.message}`;
      warn(v.invalid);
    } else {
      v.input = input;
    }
    if (tool.outputSchema !== undefined) {
      const output = compileSchema(tool.outputSchema);
      if (output instanceof Error) warn(`tool \`${tool.name}\` has an invalid outputSchema (results are not validated): ${output.message}`);
      else v.output = output;
    }
    out.set(tool.name, v);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The per-session catalogue with coalesced refreshes
// ---------------------------------------------------------------------------------------------

export interface CatalogueSessionOptions {
  client: Client;
  capabilities: ServerCapabilities | undefined;
  /** Timeout per page request. */
  timeout: number;
  /** Called after any list changed. */
  onChange: (c: Catalogue) => void;
  warn: (msg: string) => void;
}

/** One session's catalogue. A new session (restart, re-initialize) gets a new instance: no cursors survive. */
export class CatalogueSession {
  private current: Catalogue = emptyCatalogue();
  private validators = new Map<string, ToolValidators>();
  private readonly running = new Map<CatalogueKind, Promise<void>>();
  private readonly dirty = new Set<CatalogueKind>();
  private disposed = false;

  constructor(private readonly opts: CatalogueSessionOptions) {}

  get catalogue(): Catalogue {
    return this.current;
  }

  toolValidators(name: string): ToolValidators | undefined {
    return this.validators.get(name);
  }

  /** Fetches every declared list (concurrently). Rejects if any list fails. */
  async loadAll(): Promise<void> {
    await Promise.all(CATALOGUE_KINDS.filter(k => declares(this.opts.capabilities, k)).map(k => this.fetch(k, false)));
    if (!this.disposed) this.opts.onChange(this.current);
  }

  /**
   * Refresh one list after list_changed. Notifications arriving while a fetch is in flight are
   * coalesced into a single follow-up fetch. Failures become a warning; the old list stays.
   */
  refresh(kind: CatalogueKind): Promise<void> {
    if (this.disposed || !declares(this.opts.capabilities, kind)) return Promise.resolve();
    const inFlight = this.running.get(kind);
    if (inFlight) {
      this.dirty.add(kind);
      return inFlight;
    }
    const run = (async () => {
      do {
        this.dirty.delete(kind);
        try {
          await this.fetch(kind, true);
        } catch (err) {
          if (!this.disposed) this.opts.warn(`could not refresh ${kind}: ${err instanceof Error ? err.message : String(err)}`);
          return;
        }
      } while (this.dirty.has(kind) && !this.disposed);
    })().finally(() => this.running.delete(kind));
    this.running.set(kind, run);
    return run;
  }

  private async fetch(kind: CatalogueKind, notify: boolean): Promise<void> {
    let items = await fetchAll(this.opts.client, kind, { timeout: this.opts.timeout });
    if (this.disposed) return;
    if (kind === 'tools') {
      const validators = buildToolValidators(items as Tool[], this.opts.warn);
      this.validators = validators;
      items = (items as Tool[]).filter(t => !validators.get(t.name)?.malformed);
    }
    this.current = { ...this.current, [kind]: items };
    if (notify) this.opts.onChange(this.current);
  }

  dispose(): void {
    this.disposed = true;
  }
}
