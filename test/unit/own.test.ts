/**
 * Names are data (H71): wherever the core looks a name up in an object — `${env:}` variables, envFile and `env`
 * entries, headers, config-validation suggestions, imported types, icon types, error codes — only own properties
 * count. `constructor`, `toString` and `__proto__` never resolve to Object.prototype's members, and the ordinary
 * names beside them (the bystanders) keep working.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadEnvironment, parseDotenv, parseServers, resolveServer, type RawServer, type ResolveContext } from '../../src/mcp/config';
import { loadConfigFile } from '../../src/mcp/config/import';
import type { StdioServerDefinition, HttpServerDefinition } from '../../src/mcp/types';

function raw(def: unknown, name = 'srv'): RawServer {
  const r = parseServers({ [name]: def });
  assert.deepEqual(r.errors, [], 'fixture definitions are valid');
  return r.servers[0];
}

function ctx(over: Partial<ResolveContext> = {}): ResolveContext {
  return { workspaceFolders: [{ name: 'web', path: '/ws/web' }], userHome: '/home/me', env: { HOME: '/home/me', TOKEN: 't0k' }, platform: 'linux', ...over };
}

describe('H71: names are looked up as own properties only', () => {
  it('${env:constructor} and ${env:toString} are unset variables (empty, with a warning); ${env:TOKEN} still resolves', async () => {
    for (const env of [{ HOME: '/h', TOKEN: 't0k' }, Object.assign(Object.create(null) as Record<string, string>, { TOKEN: 't0k' })]) {
      const r = await resolveServer(raw({ command: 'x', args: ['${env:constructor}', '${env:toString}', '${env:__proto__}', '${env:TOKEN}'] }), ctx({ env }));
      assert.equal(r.error, undefined, r.error?.message);
      assert.deepEqual((r.definition as StdioServerDefinition).args, ['', '', '', 't0k']);
      assert.equal(r.warnings.filter(w => /is not set in the environment/.test(w.message)).length, 3, r.warnings.map(w => w.message).join('\n'));
    }
    // On Windows (case-insensitive lookup) too.
    const win = await resolveServer(raw({ command: 'x', args: ['${env:constructor}', '${env:token}'] }), ctx({ platform: 'win32' }));
    assert.deepEqual((win.definition as StdioServerDefinition).args, ['', 't0k']);
  });

  it('an unknown variable named like an Object.prototype member gets no "did you mean" from the prototype', async () => {
    const r = await resolveServer(raw({ command: 'x', args: ['${constructor}'] }), ctx());
    assert.ok(r.error);
    assert.doesNotMatch(r.error.message, /function|native code|\[object/, r.error.message);
    assert.match(r.error.message, /unknown variable `\$\{constructor\}`/);
    const alias = await resolveServer(raw({ command: 'x', args: ['${workspaceRoot}'] }), ctx());
    assert.match(alias.error?.message ?? '', /did you mean `\$\{workspaceFolder\}`/, 'the real alias table still answers');
  });

  it('"type": "__proto__" / "constructor" and a property named `constructor` are reported without [object Object] or a function', () => {
    for (const type of ['__proto__', 'constructor', 'toString']) {
      const r = parseServers({ s: { type, command: 'x' } });
      const text = r.errors.map(e => e.message).join('\n');
      assert.ok(r.errors.length, `type ${type} is an error`);
      assert.doesNotMatch(text, /\[object Object\]|function|native code/, text);
    }
    const bystander = parseServers({ s: { type: 'HTTP', url: 'https://example.com/mcp' } });
    assert.ok(bystander.servers.length || /did you mean "http"/.test(bystander.errors.map(e => e.message).join('\n')));
    const prop = parseServers({ s: { command: 'x', constructor: 1, toString: 2 } });
    const text = prop.errors.map(e => e.message).join('\n');
    assert.match(text, /unknown property `constructor`/);
    assert.doesNotMatch(text, /function|native code|\[object/, text);
  });

  it('envFile, env and headers keep `__proto__`, `constructor` and `toString` as own entries', async () => {
    const parsed = parseDotenv('__proto__=p1\nconstructor=c1\ntoString="t\\1"\nPLAIN=ok\n');
    assert.equal(Object.getPrototypeOf(parsed.vars), Object.prototype, 'the prototype was not replaced');
    assert.deepEqual(Object.entries(parsed.vars), [['__proto__', 'p1'], ['constructor', 'c1'], ['toString', 't\\1'], ['PLAIN', 'ok']]);

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-own-'));
    try {
      fs.writeFileSync(path.join(dir, '.env'), '__proto__=from-file\nconstructor=c2\n');
      const r = await resolveServer(raw({ command: 'x', envFile: path.join(dir, '.env'), env: { ['__proto__']: 'from-env', toString: 't2', PLAIN: 'ok' } }), ctx());
      const def = r.definition as StdioServerDefinition;
      assert.ok(Object.hasOwn(def.env ?? {}, '__proto__') && Object.hasOwn(def.env ?? {}, 'toString'), JSON.stringify(def.env));
      assert.equal(def.env?.PLAIN, 'ok');
      const loaded = await loadEnvironment(def, { PATH: '/bin' });
      assert.ok(loaded.env);
      assert.equal(Object.getOwnPropertyDescriptor(loaded.env, '__proto__')?.value, 'from-env');
      assert.equal(Object.getOwnPropertyDescriptor(loaded.env, 'constructor')?.value, 'c2');
      assert.equal(loaded.env.PATH, '/bin');

      const http = await resolveServer(raw({ type: 'http', url: 'https://example.com/mcp', headers: { ['__proto__']: 'h1', 'X-Key': 'k' } }), ctx());
      const h = (http.definition as HttpServerDefinition).headers ?? {};
      assert.deepEqual(Object.entries(h), [['__proto__', 'h1'], ['X-Key', 'k']]);

      // An imported Claude Desktop file: a `type` named like a prototype member is not a transport.
      const claude = path.join(dir, 'claude_desktop_config.json');
      fs.writeFileSync(claude, JSON.stringify({ mcpServers: { a: { type: 'constructor', command: 'x' }, b: { type: 'stdio', command: 'y' } } }));
      const imported = await loadConfigFile(claude);
      const servers = imported.servers as Record<string, Record<string, unknown>>;
      assert.equal(servers.a.type, undefined, JSON.stringify(servers.a));
      assert.equal(servers.b.type, 'stdio');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
