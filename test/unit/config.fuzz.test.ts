import assert from 'node:assert/strict';
import Ajv from 'ajv';
import {
  importConfig, parseDotenv, parseInputs, parseServers, resolveServer, serverSchema, type ResolveContext,
} from '../../src/mcp/config';
import { rng } from '../support/rng';

const KEYS = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'url', 'headers', 'disabled', 'autoStart', 'timeout', 'roots',
  'sampling', 'dev', 'comand', 'serverUrl', 'ARGS', '', 'transport', '__proto__', 'constructor', 'toString'];
const STRINGS = ['', 'npx', 'stdio', 'http', 'sse', 'https://example.com/mcp', 'ftp://x', 'not a url', '${workspaceFolder}',
  '${workspaceFolder:nope}', '${env:HOME}', '${input:token}', '${input:missing}', '${bogus}', '${', '}', '${env:}', '${/}',
  'a'.repeat(300), '\u0000', 'http://127.0.0.1:1/sse', '${workspaceFolder:web}/x', 'relative/dir', '/abs/dir', '~/x'];

function value(r: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  switch (Math.floor(r() * (depth > 2 ? 6 : 9))) {
    case 0: return pick(STRINGS);
    case 1: return Math.floor(r() * 2e6) - 1e3;
    case 2: return r() < 0.5;
    case 3: return null;
    case 4: return r() * 10;
    case 5: return pick(STRINGS);
    case 6: return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 4); i > 0; i--) o[r() < 0.5 ? pick(KEYS) : pick(['startup', 'request', 'A', 'maxTokens', 'model', 'watch'])] = value(r, depth + 1);
      return o;
    }
  }
}

/** Every string inside a value. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

/** A definition that starts plausible and is then damaged a little or a lot. */
function definition(r: () => number): unknown {
  if (r() < 0.1) return value(r);
  const base: Record<string, unknown> = r() < 0.5
    ? { command: 'node', args: ['server.js', '${workspaceFolder}'], env: { A: '1' } }
    : { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${input:token}' } };
  // Often only a string changes: variables, paths and URLs that validate but may not resolve.
  if (r() < 0.5) {
    const s = STRINGS[Math.floor(r() * STRINGS.length)];
    const roll = r();
    if (base.command) {
      if (roll < 0.5) (base.args as string[]).push(s);
      else if (roll < 0.75) base.cwd = s;
      else base.env = { K: s };
    }
    else if (r() < 0.5) base.url = `https://example.com/${s}`;
    else base.headers = { H: s };
    return base;
  }
  for (let i = Math.floor(r() * 4); i > 0; i--) {
    const key = KEYS[Math.floor(r() * KEYS.length)];
    if (r() < 0.2) delete base[key];
    else base[key] = value(r);
  }
  return base;
}

describe('config fuzz (random and malformed definitions)', function () {
  this.timeout(120_000);
  const PREFIX = 'mcpHost.servers';
  const ctx: ResolveContext = {
    workspaceFolders: [{ name: 'web', path: '/ws/web' }, { name: 'api', path: '/ws/api' }],
    userHome: '/home/me', env: { HOME: '/home/me' }, platform: 'linux',
    inputs: [{ id: 'token', type: 'promptString' }],
    resolveInput: async () => 'tok',
  };
  const ajv = new Ajv({ strict: false, allErrors: true });
  const schemaValid = ajv.compile(serverSchema);

  it('nothing throws; every server is either accepted or has ConfigErrors under its own path', async () => {
    const r = rng(20261122);
    let accepted = 0, rejected = 0, resolved = 0;
    for (let round = 0; round < 400; round++) {
      const servers: Record<string, unknown> = {};
      const n = 1 + Math.floor(r() * 4);
      for (let i = 0; i < n; i++) servers[`s${round}_${i}${r() < 0.1 ? '.dotted name' : ''}`] = definition(r);
      const result = parseServers(servers);
      for (const e of [...result.errors, ...result.warnings]) {
        assert.ok(e.path.startsWith(PREFIX), `path ${e.path} starts with ${PREFIX}`);
        assert.equal(typeof e.message, 'string');
        assert.ok(e.message.length > 20 && e.message.length < 1200, `readable length: ${e.message}`);
      }
      for (const [name, def] of Object.entries(servers)) {
        const ok = result.servers.find(s => s.name === name);
        const errs = result.errors.filter(e => e.server === name);
        assert.ok(Boolean(ok) !== (errs.length > 0), `${name}: accepted xor errors (${JSON.stringify(def)})`);
        if (ok) {
          accepted++;
          assert.equal(schemaValid(def), true, `accepted ${name} is schema-valid`);
          const res = await resolveServer(ok, ctx);
          for (const e of [...(res.error ? [res.error] : []), ...res.warnings]) {
            assert.ok(e.path.startsWith(`${PREFIX}.`) || e.path.startsWith(`${PREFIX}[`), e.path);
            assert.equal(e.server, name);
          }
          if (res.definition) {
            resolved++;
            for (const str of strings(res.definition)) assert.doesNotMatch(str, /\$\{[^{}]*\}/, `no variable left after resolution: ${JSON.stringify(def)}`);
          }
        } else {
          rejected++;
          for (const e of errs) assert.ok(e.path.startsWith(PREFIX), e.path);
        }
      }
    }
    // The generator must exercise both outcomes.
    assert.ok(accepted > 50 && rejected > 50 && resolved > 20 && resolved < accepted, `accepted ${accepted}, rejected ${rejected}, resolved ${resolved}`);
  });

  it('top-level garbage, inputs garbage, random JSONC text and dotenv text never throw', () => {
    const r = rng(7);
    for (let i = 0; i < 300; i++) {
      const v = value(r);
      const s = parseServers(v);
      for (const e of s.errors) assert.ok(e.path.startsWith(PREFIX));
      const inputs = parseInputs(r() < 0.5 ? v : [v, value(r)]);
      for (const e of inputs.errors) assert.ok(e.path.startsWith('mcpHost.inputs'), e.path);
      const text = JSON.stringify({ [r() < 0.5 ? 'servers' : 'mcpServers']: v }) ?? '';
      const cut = text.slice(0, Math.floor(r() * (text.length + 1)));
      const imported = importConfig(cut);
      assert.ok(Array.isArray(imported.errors) && Array.isArray(imported.warnings));
      parseServers(imported.servers);
      const env = Array.from({ length: 20 }, () => String.fromCharCode(Math.floor(r() * 128))).join('');
      parseDotenv(`${env}\nA="${env}`);
    }
  });
});
