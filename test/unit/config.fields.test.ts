/**
 * Server-definition fields from one table (issue 39): the server schema (`serverSchema`) and its table (`SERVER_FIELDS`)
 * in src/mcp/config/schema.ts are the one source. `RawServer` and `ServerDefinition` are typed from the schema, the
 * parser, the resolver and the import of other clients' configs iterate the table. The definitions below are made from
 * the schema itself (each property's first example, its enum, its properties, its default), so a property added to the
 * schema with a row in the table is validated, copied, resolved and imported here with no edit of this test: when one
 * of those steps drops it, the round trip fails naming the field.
 */
import assert from 'node:assert/strict';
import { importConfig, parseServers, resolveServerNow, type ResolveContext, type ResolveResult } from '../../src/mcp/config';
import {
  COMMON_PROPERTIES, HTTP_PROPERTIES, IGNORED_PROPERTIES, SERVER_FIELDS, STDIO_PROPERTIES, serverSchema,
  type IgnoredProperty, type ServerField, type ServerFields,
} from '../../src/mcp/config/schema';
import type { FromSchema } from '../../src/mcp/config/schemaType';
import type { RawServer } from '../../src/mcp/config/validate';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition, TimeoutConfig, WorkloadIdentityConfig } from '../../src/mcp/types';

/** True when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;

interface SchemaNode {
  type?: string | readonly string[];
  enum?: readonly unknown[];
  examples?: readonly unknown[];
  default?: unknown;
  minimum?: number;
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
}

/**
 * Values a rule outside the schema decides: `workloadIdentity` needs exactly one of `tokenFile` and `tokenEnv` (the
 * resolver's rule, which the schema cannot say without `oneOf`, kept out for the settings editor's sake).
 */
const CHOSEN: Partial<Record<ServerField, unknown>> = { workloadIdentity: { clientId: 'ci-workload', tokenEnv: 'MCP_WORKLOAD_TOKEN' } };

/** A value the schema accepts, written the way a person would: its first example, else its first choice, else made up. */
function sample(s: SchemaNode): unknown {
  if (s.examples?.length) return structuredClone(s.examples[0]);
  if (s.enum?.length) return s.enum[0];
  if (s.properties) return Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, sample(p)]));
  if (s.default !== undefined && typeof s.default !== 'boolean') return structuredClone(s.default);
  switch (s.type) {
    case 'boolean': return !s.default; // not the default, so the value written is what is seen
    case 'integer': case 'number': return s.minimum ?? 1;
    case 'string': return 'x';
    case 'array': return s.items ? [sample(s.items)] : [];
    default: return {};
  }
}

/** A definition of `type` that sets every field of the table its transport may have, `dev` included. */
function everyField(type: 'stdio' | 'http'): Record<string, unknown> {
  const other: readonly string[] = type === 'stdio' ? HTTP_PROPERTIES : STDIO_PROPERTIES;
  const props = serverSchema.properties as unknown as Record<ServerField, SchemaNode>;
  const def: Record<string, unknown> = { type };
  for (const k of Object.keys(SERVER_FIELDS) as ServerField[]) {
    if (k !== 'type' && !other.includes(k)) def[k] = k in CHOSEN ? CHOSEN[k] : sample(props[k]);
  }
  return def;
}

const FOLDERS = [{ name: 'frontend', path: '/ws/frontend' }, { name: 'backend', path: '/ws/backend' }];
function ctx(): ResolveContext {
  return {
    workspaceFolders: FOLDERS, definingFolder: 'frontend', userHome: '/home/me', env: { MCP_WORKLOAD_TOKEN: 'jwt' }, platform: 'linux',
    inputs: [{ id: 'github-token', type: 'promptString', password: true }, { id: 'api-token', type: 'promptString', password: true }],
    resolveInput: async i => `value-of-${i.id}`,
  };
}

async function resolved(raw: RawServer): Promise<ServerDefinition> {
  const r: ResolveResult = await resolveServerNow(raw, ctx());
  assert.equal(r.error, undefined, r.error?.message);
  return r.definition!;
}

/** Fields the resolver rewrites in this sample (a variable, a `~` path): present, their values resolved. */
const rewritten = (v: unknown) => /\$\{|~/.test(JSON.stringify(v));
const kept = (def: Record<string, unknown>) => Object.keys(def).filter(k => !(IGNORED_PROPERTIES as readonly string[]).includes(k));

describe('server-definition fields from one table (issue 39)', () => {
  for (const type of ['stdio', 'http'] as const) {
    it(`H611: a ${type} definition setting every field of the table survives parse, resolve and import (dev ignored)`, async () => {
      const def = everyField(type);
      // Validated: the schema's own examples pass the (generated) validator, with no error and no warning but secrets'.
      const parsed = parseServers({ s: def });
      assert.deepEqual(parsed.errors, []);
      const raw = parsed.servers[0];
      // Copied into RawServer as written; the ignored ones (`dev`) not at all.
      for (const k of kept(def)) assert.deepEqual((raw as unknown as Record<string, unknown>)[k], def[k], `RawServer.${k}`);
      for (const k of IGNORED_PROPERTIES) assert.ok(!(k in raw), `RawServer has the ignored ${k}`);
      // Resolved: every field reaches the definition; those without a variable or a `~` path unchanged.
      const d = await resolved(raw) as unknown as Record<string, unknown>;
      for (const k of kept(def)) {
        assert.ok(d[k] !== undefined, `the resolved definition lost ${k}`);
        if (!rewritten(def[k])) assert.deepEqual(d[k], def[k], `ServerDefinition.${k}`);
      }
      for (const k of IGNORED_PROPERTIES) assert.ok(!(k in d), `the resolved definition has the ignored ${k}`);
      assert.deepEqual(Object.keys(d).filter(k => k !== 'name' && k !== 'secrets').sort(), kept(def).sort());
      // Imported from every other client's shape: carried over as written, and it resolves to the same definition.
      for (const kind of ['claude', 'cursor', 'windsurf', 'copilot'] as const) {
        const imported = importConfig(JSON.stringify({ mcpServers: { s: def } }), kind);
        assert.deepEqual(imported.errors, [], kind);
        assert.deepEqual(imported.warnings, [], kind);
        assert.deepEqual(imported.servers.s, def, `${kind}: the import changed a field`);
        const again = parseServers(imported.servers);
        assert.deepEqual(again.errors, [], kind);
        assert.deepEqual(await resolved(again.servers[0]), d, kind);
      }
    });
  }

  it('H611: a bystander definition with only a command is untouched by the table walk (nothing added)', async () => {
    const raw = parseServers({ plain: { command: 'node', args: ['server.js'] } }).servers[0];
    assert.deepEqual(raw, { name: 'plain', path: 'mcpHost.servers.plain', type: 'stdio', typeInferred: true, command: 'node', args: ['server.js'] });
    const d = await resolved(raw);
    assert.deepEqual(d, { name: 'plain', type: 'stdio', command: 'node', args: ['server.js'], env: {}, cwd: '/ws/frontend' });
  });

  it('H612: every field of the table has one place: `type`, stdio only, http only, ignored, or common to both', () => {
    const places = new Map<string, string[]>();
    const put = (where: string, keys: readonly string[]) => keys.forEach(k => places.set(k, [...(places.get(k) ?? []), where]));
    put('type', ['type']);
    put('stdio', STDIO_PROPERTIES);
    put('http', HTTP_PROPERTIES);
    put('ignored', IGNORED_PROPERTIES);
    put('common', COMMON_PROPERTIES);
    assert.deepEqual([...places.keys()].sort(), Object.keys(SERVER_FIELDS).sort());
    for (const [k, where] of places) assert.equal(where.length, 1, `${k} is in ${where.join(' and ')}`);
    // A new property in neither transport list is common: both transports' parsed and resolved shapes carry it.
    assert.deepEqual(COMMON_PROPERTIES, Object.keys(SERVER_FIELDS).filter(k => !['type', ...STDIO_PROPERTIES, ...HTTP_PROPERTIES, ...IGNORED_PROPERTIES].includes(k)));
  });

  it('H613: RawServer and ServerDefinition are typed from the schema: exactly the table\'s fields (checked by tsc)', () => {
    // Each line is a type error when a type is written by hand again and drifts from the schema.
    const checks = [
      true satisfies Same<keyof RawServer, Exclude<ServerField, IgnoredProperty> | 'name' | 'path' | 'typeInferred'>,
      true satisfies Same<keyof StdioServerDefinition | keyof HttpServerDefinition, Exclude<ServerField, IgnoredProperty> | 'name' | 'secrets'>,
      true satisfies Same<RawServer['timeout'], ServerFields['timeout']>,
      true satisfies Same<StdioServerDefinition['env'], Record<string, string | null>>,
      true satisfies Same<HttpServerDefinition['type'], 'http' | 'sse'>,
      true satisfies Same<TimeoutConfig, { startup?: number; request?: number }>,
      true satisfies Same<WorkloadIdentityConfig, { clientId: string; tokenFile?: string; tokenEnv?: string }>,
      true satisfies Same<FromSchema<{ type: 'array'; items: { type: readonly ['string', 'null'] } }>, (string | null)[]>,
    ];
    assert.ok(checks.every(Boolean));
    // What a new common field would be: a property of the schema is a field of both shapes, optional in each.
    const withNew: FromSchema<{ type: 'object'; properties: { timeoutMs: { type: 'integer' } } }> = { timeoutMs: 5000 };
    assert.deepEqual(withNew, { timeoutMs: 5000 });
  });
});
