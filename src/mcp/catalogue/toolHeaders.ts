/**
 * SEP-2243 custom headers (2026-07-28, Streamable HTTP): a tool whose inputSchema marks parameters with
 * `x-mcp-header` has their values mirrored into `Mcp-Param-*` headers by the SDK's `Client.callTool`
 * when it is given the tool's definition. The host calls such a tool that way; every other call keeps
 * the host's own result checks (tool results block by block).
 */
import type { Tool } from '@modelcontextprotocol/client';

/** The tool's definition when its call must go through `Client.callTool` for header mirroring. */
export function headerMirroredTool(
  tools: readonly Tool[], name: string, session: { era?: 'modern' | 'legacy'; kind: string },
): Tool | undefined {
  if (session.era !== 'modern' || session.kind !== 'streamableHttp') return undefined;
  const tool = tools.find(t => t.name === name);
  return tool && JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"') ? tool : undefined;
}

/** RFC 9110 §5.1 `token`: what an x-mcp-header value may be (it becomes part of a header name). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The property types an x-mcp-header may annotate (2026-07-28: not `number`, nothing structured). */
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reachable through a chain of `properties` (no annotation may sit below them). */
const UNREACHABLE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems',
  'propertyNames', 'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions'];
const NAMED = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * Why a tool's x-mcp-header annotations break SEP-2243's rules, or undefined when they do not: each
 * must sit on a property reached only through `properties`, be a non-empty RFC 9110 token, annotate a
 * string, integer or boolean, and be unique regardless of case. A client must leave such a tool out
 * (2026-07-28, Streamable HTTP). The walk is bounded by the schema, which the catalogue limits already bound.
 */
export function headerAnnotationProblem(inputSchema: unknown): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    const where = path.length ? path.join('.') : '<root>';
    if (Object.hasOwn(schema, 'x-mcp-header')) {
      const name = schema['x-mcp-header'];
      if (!reachable || path.length === 0) return `${where}: x-mcp-header is allowed only on a property reached through \`properties\``;
      if (typeof name !== 'string' || !name) return `${where}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(name)) return `${where}: x-mcp-header \`${name}\` is not a valid header name token`;
      if (typeof schema.type !== 'string' || !HEADER_TYPES.has(schema.type)) return `${where}: x-mcp-header may annotate only a string, integer or boolean (here: ${typeof schema.type === 'string' ? schema.type : 'no type'})`;
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header \`${name}\` is declared twice (also as \`${prior}\`)`;
      seen.set(name.toLowerCase(), name);
    }
    const props = schema.properties;
    if (props !== null && typeof props === 'object') {
      for (const [key, child] of Object.entries(props)) {
        const p = visit(child, [...path, key], reachable);
        if (p) return p;
      }
    }
    for (const k of UNREACHABLE) {
      const sub = schema[k];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : NAMED.has(k) && sub !== null && typeof sub === 'object' ? Object.values(sub) : [sub];
      for (const b of branches) {
        const p = visit(b, [...path, `<${k}>`], false);
        if (p) return p;
      }
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}

/** Marks (and warns about) the tools of `tools` whose header annotations are invalid: they leave the tool list. */
export function excludeInvalidHeaderTools(
  tools: readonly Tool[], validators: Map<string, { invalid?: string; malformed?: boolean }>, warn: (msg: string) => void,
): void {
  for (const tool of tools) {
    const problem = headerAnnotationProblem(tool.inputSchema);
    if (!problem) continue;
    const v = validators.get(tool.name) ?? {};
    v.invalid = `tool \`${tool.name}\` has an invalid x-mcp-header annotation (${problem})`;
    v.malformed = true;
    validators.set(tool.name, v);
    warn(`${v.invalid}; it is left out of the tool list`);
  }
}
