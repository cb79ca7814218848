import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv from 'ajv';
import { configSchema, serverSchema, inputsSchema, serversSchema, EDITOR_KEYWORDS } from '../../src/mcp/config';

const ROOT = path.resolve(__dirname, '../../..');
const JSON_FILE = path.join(ROOT, 'src/mcp/config/server-schema.json');

/** Every (sub)schema object with a `type`, with its JSON pointer. */
function* subschemas(node: unknown, at = ''): Generator<[string, Record<string, unknown>]> {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) return;
  const o = node as Record<string, unknown>;
  if ('type' in o && typeof o.type !== 'object') yield [at, o];
  for (const key of ['properties']) {
    const props = o[key] as Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(props ?? {})) yield* subschemas(v, `${at}/${key}/${k}`);
  }
  for (const key of ['items', 'additionalProperties']) {
    if (o[key] && typeof o[key] === 'object') yield* subschemas(o[key], `${at}/${key}`);
  }
}

describe('config schema', () => {
  it('is a valid draft-07 schema that ajv compiles in strict mode', () => {
    const ajv = new Ajv({ strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
    ajv.addVocabulary([...EDITOR_KEYWORDS]);
    assert.equal(ajv.validateSchema(configSchema), true, JSON.stringify(ajv.errors));
    assert.doesNotThrow(() => ajv.compile(configSchema));
    assert.equal(configSchema.$schema, 'http://json-schema.org/draft-07/schema#');
  });

  it('server-schema.json is the generated copy of schema.ts (UPDATE_SCHEMA=1 rewrites it)', () => {
    const expected = JSON.stringify(configSchema, null, 2) + '\n';
    if (process.env.UPDATE_SCHEMA === '1') fs.writeFileSync(JSON_FILE, expected);
    assert.equal(fs.readFileSync(JSON_FILE, 'utf8'), expected, 'run the config tests with UPDATE_SCHEMA=1 to regenerate');
  });

  it('uses no $ref, so package.json can embed any sub-schema as it is', () => {
    assert.equal(JSON.stringify(configSchema).includes('"$ref"'), false);
  });

  it('documents every property with markdownDescription', () => {
    const missing = [...subschemas(configSchema)].filter(([at, s]) => at.includes('/properties/') && typeof s.markdownDescription !== 'string');
    // Items/additionalProperties of simple string maps need no description of their own.
    assert.deepEqual(missing.filter(([at]) => !/\/(items|additionalProperties)$/.test(at)).map(([at]) => at), []);
  });

  it('gives enums descriptions, and booleans, arrays and maps defaults', () => {
    for (const [at, s] of subschemas(configSchema)) {
      if (Array.isArray(s.enum)) assert.ok(Array.isArray(s.enumDescriptions), `${at} has enumDescriptions`);
      if (at.split('/').at(-2) === 'properties' && (s.type === 'boolean' || (s.type === 'array' && at.endsWith('/args')))) {
        assert.ok('default' in s, `${at} has a default`);
      }
    }
    assert.deepEqual(serverSchema.properties.type.enum, ['stdio', 'http', 'sse']);
    assert.equal(serverSchema.properties.autoStart.default, true);
    assert.equal(serverSchema.properties.disabled.default, false);
  });

  it('accepts the documented examples and VS Code mcp.json shapes', () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(configSchema);
    const doc = {
      servers: {
        everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
        typed: { type: 'stdio', command: 'node', args: ['server.js'], env: { A: 'b', REMOVE: null }, envFile: '${workspaceFolder}/.env', cwd: '${workspaceFolder}', dev: { watch: 'src/**' } },
        remote: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${input:token}' } },
        legacy: { type: 'sse', url: 'http://127.0.0.1:3001/sse' },
        inferred: { url: 'https://example.com/mcp' },
        full: {
          command: 'x', disabled: true, autoStart: false, timeout: { startup: 5000, request: 120000 }, roots: ['api'],
          sampling: { allowedModels: ['gpt'], model: 'gpt-4o', maxRequestsPerMinute: 5, maxTokens: 1000 },
        },
      },
      inputs: [{ id: 'token', type: 'promptString', description: 'API token', password: true, default: '' }],
    };
    assert.equal(validate(doc), true, JSON.stringify(validate.errors));
    // The `examples` in the schema are themselves valid.
    const serverValidate = ajv.compile(serverSchema);
    for (const [prop, sub] of Object.entries(serverSchema.properties)) {
      for (const ex of (sub as { examples?: unknown[] }).examples ?? []) {
        const def = prop === 'url' || prop === 'headers' ? { url: 'https://x', [prop]: ex } : { command: 'x', [prop]: ex };
        assert.equal(serverValidate(def), true, `${prop} example ${JSON.stringify(ex)}: ${JSON.stringify(serverValidate.errors)}`);
      }
    }
  });

  it('rejects a server of type http without url and a stdio server without command', () => {
    const ajv = new Ajv({ strict: false });
    const validate = ajv.compile(serversSchema);
    assert.equal(validate({ a: { type: 'http' } }), false);
    assert.equal(validate({ a: { type: 'stdio', url: 'https://x' } }), false);
    assert.equal(validate({ a: {} }), false);
    assert.equal(ajv.compile(inputsSchema)([{ id: 'x', type: 'pickString' }]), false);
  });
});
