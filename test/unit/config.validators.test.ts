/**
 * The precompiled settings validators (src/mcp/config/validators.generated.ts, ajv standalone code written by
 * scripts/gen-config-validators.mjs): the file matches the schema it was generated from, and on good and bad
 * definitions and inputs the precompiled validators decide and report exactly as ajv compiling the schema at run
 * time with the same options did.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import Ajv from 'ajv';
import { EDITOR_KEYWORDS, inputSchema, serverSchema } from '../../src/mcp/config/schema';
import { getServerValidator, parseInputs, parseServers } from '../../src/mcp/config/validate';
import { compiledInputValidator } from '../../src/mcp/config/validators.generated';

const ROOT = path.resolve(__dirname, '../../..');

/** What validate.ts compiled at run time before the validators were precompiled. */
function runtimeAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, allowUnionTypes: true, validateSchema: false });
  ajv.addVocabulary([...EDITOR_KEYWORDS]);
  return ajv;
}

const SERVERS: unknown[] = [
  { command: 'node', args: ['server.js'] },
  { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${input:t}' } },
  { type: 'stdio' },
  { type: 'sse' },
  {},
  { command: '', args: 'not an array', env: { A: 1, B: null } },
  { command: 'x', timeout: { startup: 10, request: 'soon', extra: 1 } },
  { url: 'https://x.test', roots: ['a', 'a'], sampling: { maxRequestsPerMinute: -1, model: '' } },
  { command: 'x', sandbox: { filesystem: { allowWrite: ['/tmp', '/tmp'] }, network: { allowedDomains: [1] } }, unknown: true },
  { type: 'ftp', command: 'x' },
  { command: 'x', sandboxEnabled: 'yes', disabled: 0, autoStart: null, dev: { watch: 'x' } },
  'just a string',
  null,
];
const INPUTS: unknown[] = [
  { id: 'api-token', type: 'promptString', password: true },
  { id: 'bad id!', type: 'promptString' },
  { id: 'x', type: 'pickString', extra: 1 },
  { type: 'promptString' },
  { id: 'x'.repeat(3), type: 'promptString', default: 5 },
  [],
];

describe('precompiled settings validators (validators.generated.ts)', () => {
  it('the generated file is current with src/mcp/config/schema.ts (scripts/gen-config-validators.mjs --check)', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/gen-config-validators.mjs'), '--check'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('decide and report exactly as the schema compiled at run time, definition by definition', () => {
    const ajv = runtimeAjv();
    const server = ajv.compile(serverSchema);
    const input = ajv.compile(inputSchema);
    const pre = getServerValidator();
    for (const def of SERVERS) {
      assert.equal(pre(def), server(def), JSON.stringify(def));
      assert.deepEqual(pre.errors ?? null, server.errors ?? null, JSON.stringify(def));
    }
    for (const entry of INPUTS) {
      const valid = compiledInputValidator(entry) as boolean;
      assert.equal(valid, input(entry), JSON.stringify(entry));
      assert.deepEqual((compiledInputValidator as unknown as { errors: unknown }).errors ?? null, input.errors ?? null, JSON.stringify(entry));
    }
  });

  it('a bad definition is reported with its fix while a good one next to it parses', () => {
    const r = parseServers({ good: { command: 'node' }, bad: { command: 'node', timeout: { startup: 10 } } });
    assert.deepEqual(r.servers.map(s => s.name), ['good']);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /mcpHost\.servers\.bad\.timeout\.startup/);
    const i = parseInputs([{ id: 'ok', type: 'promptString' }, { id: 'bad id', type: 'promptString' }]);
    assert.deepEqual(i.inputs.map(x => x.id), ['ok']);
    assert.equal(i.errors.length, 1);
  });
});
