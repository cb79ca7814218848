/**
 * Type hints for code mode (issue 42): TypeScript-like declarations of `mcp.<server>.<tool>(args): Promise<result>`
 * from each tool's inputSchema / outputSchema, for the model to read. Covers object (properties, required,
 * additionalProperties), array (items, tuple prefixItems), string, number, integer, boolean, null, enum, const,
 * anyOf, oneOf, allOf (as an intersection) and a `type` array; anything else (a `$ref`, a missing schema) is `unknown`.
 * Nesting is bounded (depth 8) so a hostile schema cannot make the text unbounded in depth.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { codeModeNames, type CodeModeServer } from './codeModeNames';

const MAX_DEPTH = 8;
type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as a TypeScript literal type. */
function literal(v: unknown): string {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v) ? JSON.stringify(v) : 'unknown';
}

/** The TypeScript-like type of one JSON Schema (unknown for what it does not describe). */
export function schemaType(schema: unknown, depth = 0): string {
  if (!isSchema(schema) || depth > MAX_DEPTH) return 'unknown';
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.length ? schema.enum.map(literal).join(' | ') : 'never';
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length) return list.map(s => wrap(schemaType(s, depth + 1))).join(' | ');
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) return schema.allOf.map(s => wrap(schemaType(s, depth + 1))).join(' & ');
  const type = schema.type;
  if (Array.isArray(type)) return type.map(t => wrap(schemaType({ ...schema, type: t }, depth))).join(' | ') || 'unknown';
  switch (type) {
    case 'string': return 'string';
    case 'number': case 'integer': return 'number';
    case 'boolean': return 'boolean';
    case 'null': return 'null';
    case 'array': {
      if (Array.isArray(schema.prefixItems)) return `[${schema.prefixItems.map(s => schemaType(s, depth + 1)).join(', ')}]`;
      return `${wrap(schemaType(schema.items, depth + 1))}[]`;
    }
    case 'object': return objectType(schema, depth);
    default: return isSchema(schema.properties) ? objectType(schema, depth) : 'unknown';
  }
}

function wrap(t: string): string {
  return /[|&]/.test(t) && !/^[{[]/.test(t) ? `(${t})` : t;
}

function objectType(schema: Schema, depth: number): string {
  const props = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const members = Object.entries(props).map(([k, v]) => `${IDENT.test(k) ? k : JSON.stringify(k)}${required.has(k) ? '' : '?'}: ${schemaType(v, depth + 1)}`);
  const extra = schema.additionalProperties;
  if (isSchema(extra)) members.push(`[key: string]: ${schemaType(extra, depth + 1)}`);
  if (!members.length) return extra === false ? '{}' : 'Record<string, unknown>';
  return `{ ${members.join('; ')} }`;
}

/** A one-line comment from a description (no `*\/` can close it early, no newline can break it). */
function comment(text: string | undefined): string {
  const line = (text ?? '').replace(/\s+/g, ' ').replace(/\*\//g, '* /').trim().slice(0, 200);
  return line ? `  /** ${line} */\n` : '';
}

/**
 * The declarations for every tool of every server (or those `only` picks), under the safe names `runProgram` exposes
 * for the whole of `servers` (picking after naming keeps each name the program uses).
 */
export function describeTools(servers: readonly CodeModeServer[], only?: (server: string, tool: string) => boolean): string {
  const out: string[] = ['declare const mcp: {'];
  for (const [sid, { server, tools }] of codeModeNames(servers).servers) {
    const picked = [...tools].filter(([, t]) => !only || only(server, t.name));
    if (only && !picked.length) continue;
    out.push(`  /** Server ${JSON.stringify(server)} */`, `  ${sid}: {`);
    for (const [tid, tool] of picked) {
      const t: Tool = tool;
      const result = t.outputSchema ? schemaType(t.outputSchema) : 'unknown';
      out.push(`${comment(t.description).replace(/^ {2}/, '    ')}    ${tid}(args: ${schemaType(t.inputSchema)}): Promise<${result}>;`);
    }
    out.push('  };');
  }
  out.push('};');
  return out.join('\n');
}
