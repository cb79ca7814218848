import assert from 'node:assert/strict';
import { parseInputs, parseServers, type ParseServersResult } from '../../src/mcp/config';
import { getServerValidator, plainStdio } from '../../src/mcp/config/validate';

/** The single error of a one-server config, asserting it names the server and path. */
function oneError(def: unknown, name = 'github'): { path: string; message: string } {
  const r = parseServers({ [name]: def });
  assert.equal(r.servers.length, 0, `expected ${JSON.stringify(def)} to be rejected`);
  assert.ok(r.errors.length >= 1);
  for (const e of r.errors) {
    assert.equal(e.server, name);
    assert.ok(e.path.startsWith(`mcpHost.servers.${name}`), e.path);
    assert.ok(e.message.includes(`"${name}"`), `message names the server: ${e.message}`);
  }
  return r.errors[0];
}

describe('config validation (parseServers, parseInputs)', () => {
  it('accepts good definitions and infers the type from command or url', () => {
    const r = parseServers({
      a: { command: 'npx', args: ['-y', 'pkg'] },
      b: { url: 'https://example.com/mcp' },
      c: { type: 'sse', url: 'http://127.0.0.1:3001/sse', headers: { 'X-Key': '${input:k}' } },
      d: { type: 'stdio', command: 'node', env: { A: '1', B: null }, envFile: '.env', cwd: 'sub', dev: { watch: '**' } },
      e: { url: '${input:endpoint}' },
    });
    assert.deepEqual(r.errors, []);
    assert.deepEqual(r.warnings, []);
    assert.deepEqual(r.servers.map(s => [s.name, s.type, s.typeInferred]), [
      ['a', 'stdio', true], ['b', 'http', true], ['c', 'sse', false], ['d', 'stdio', false], ['e', 'http', true],
    ]);
    assert.equal(r.servers[0].path, 'mcpHost.servers.a');
    assert.deepEqual(r.servers[3].env, { A: '1', B: null });
    assert.equal('dev' in r.servers[3], false, '`dev` is accepted and ignored');
  });

  it('keeps the per-server options (disabled, autoStart, timeout, roots, sampling)', () => {
    const r = parseServers({
      s: { command: 'x', disabled: true, autoStart: false, timeout: { startup: 5000, request: 90000 }, roots: ['api'], sampling: { allowedModels: ['gpt'], maxRequestsPerMinute: 3, maxTokens: 500, model: 'm' } },
    });
    assert.deepEqual(r.errors, []);
    const s = r.servers[0];
    assert.equal(s.disabled, true);
    assert.equal(s.autoStart, false);
    assert.deepEqual(s.timeout, { startup: 5000, request: 90000 });
    assert.deepEqual(s.roots, ['api']);
    assert.deepEqual(s.sampling, { allowedModels: ['gpt'], maxRequestsPerMinute: 3, maxTokens: 500, model: 'm' });
  });

  it('one bad server never blocks the others', () => {
    const r = parseServers({ good1: { command: 'a' }, bad: { command: 5 }, good2: { url: 'https://x.example' }, worse: 'npx foo' });
    assert.deepEqual(r.servers.map(s => s.name), ['good1', 'good2']);
    assert.deepEqual([...new Set(r.errors.map(e => e.server))], ['bad', 'worse']);
  });

  it('a number in args: names the index, shows the value and says to quote it', () => {
    const e = oneError({ command: 'npx', args: ['-y', 'pkg', 8080] });
    assert.equal(e.path, 'mcpHost.servers.github.args[2]');
    assert.match(e.message, /args\[2\]/);
    assert.match(e.message, /8080/);
    assert.match(e.message, /put the value in quotes/);
  });

  it('args as one string: says to write one string per argument', () => {
    const e = oneError({ command: 'npx', args: '-y pkg' });
    assert.equal(e.path, 'mcpHost.servers.github.args');
    assert.match(e.message, /expected an array/);
    assert.match(e.message, /one string per argument/);
  });

  it('a misspelt property gets "did you mean"', () => {
    const r = parseServers({ github: { comand: 'npx', args: [] } });
    assert.equal(r.errors.length, 1, 'only the spelling error, not also "no command"');
    assert.equal(r.errors[0].path, 'mcpHost.servers.github.comand');
    assert.match(r.errors[0].message, /unknown property `comand`.*did you mean `command`\?/);
    assert.match(oneError({ command: 'x', arg: [] }).message, /did you mean `args`/);
    assert.match(oneError({ url: 'https://x', header: {} }).message, /did you mean `headers`/);
    assert.match(oneError({ command: 'x', timeout: { startpu: 5000 } }).message, /timeout\.startpu.*did you mean `startup`/);
    // Nested objects take their allowed names from the schema itself (configErrors.ts propertiesAt), at any depth.
    assert.match(oneError({ command: 'x', sampling: { maxToken: 5 } }).message, /sampling\.maxToken.*did you mean `maxTokens`/);
    assert.match(oneError({ command: 'x', sandbox: { filesystem: { allowWrites: [] } } }).message, /sandbox\.filesystem\.allowWrites.*did you mean `allowWrite`/);
  });

  it('properties of other clients say what to write instead', () => {
    assert.match(oneError({ serverUrl: 'https://x' }).message, /use `url`/);
    assert.match(oneError({ command: 'x', autoApprove: [] }).message, /autoApprove.*remove it/);
    assert.match(oneError({ command: 'x', transport: 'stdio' }).message, /use `type`/);
  });

  it('type http without url, stdio without command, and neither', () => {
    const e1 = oneError({ type: 'http' });
    assert.equal(e1.path, 'mcpHost.servers.github.url');
    assert.match(e1.message, /`type` is `http` but there is no `url`/);
    const e2 = oneError({ type: 'stdio', url: 'https://x' });
    assert.equal(e2.path, 'mcpHost.servers.github.command');
    assert.match(e2.message, /`type` is `stdio` but there is no `command`.*"type": "http"/);
    const e3 = oneError({ args: ['x'] });
    assert.match(e3.message, /neither `command` nor `url`/);
    assert.match(oneError({ type: 'sse', command: 'x' }).message, /`type` is `sse` but there is no `url`.*"type": "stdio"/);
  });

  it('a wrong type value suggests the right one', () => {
    assert.match(oneError({ type: 'streamable-http', url: 'https://x' }).message, /did you mean "http"/);
    assert.match(oneError({ type: 'stido', command: 'x' }).message, /did you mean "stdio"/);
    assert.match(oneError({ type: 'websocket', url: 'wss://x' }).message, /one of "stdio", "http", "sse"/);
  });

  it('timeouts: range, and a hint when seconds were written instead of milliseconds', () => {
    const e = oneError({ command: 'x', timeout: { startup: 30 } });
    assert.equal(e.path, 'mcpHost.servers.github.timeout.startup');
    assert.match(e.message, /`30`.*at least 1000.*did you mean 30000/);
    assert.match(oneError({ command: 'x', timeout: { request: 1e9 } }).message, /at most 3600000/);
    assert.match(oneError({ command: 'x', timeout: { request: '5000' } }).message, /remove the quotes: 5000/);
    assert.match(oneError({ command: 'x', timeout: 5000 }).message, /timeout.*expected an object/);
  });

  it('booleans written as strings, empty command, duplicate roots, bad sampling', () => {
    assert.match(oneError({ command: 'x', disabled: 'true' }).message, /remove the quotes: true/);
    assert.match(oneError({ command: '' }).message, /command is empty; name the program/);
    assert.match(oneError({ command: 'x', roots: ['a', 'a'] }).message, /same value twice/);
    assert.match(oneError({ command: 'x', sampling: { maxTokens: 0 } }).message, /sampling\.maxTokens.*at least 1/);
    assert.match(oneError({ command: 'x', sampling: { maxTokenz: 1 } }).message, /did you mean `maxTokens`/);
  });

  it('urls must be http(s) and well-formed (unless they hold variables); query strings are not shown', () => {
    const e = oneError({ url: 'ftp://files.example/mcp?token=s3cret' });
    assert.equal(e.path, 'mcpHost.servers.github.url');
    assert.match(e.message, /scheme `ftp` is not supported; use http:\/\/ or https:\/\//);
    assert.doesNotMatch(e.message, /s3cret/);
    assert.match(oneError({ url: 'not a url' }).message, /not a valid URL/);
  });

  it('never shows env or header values, only "the value of env.NAME"', () => {
    const r = parseServers({ github: { command: 'x', env: { TOKEN: 123456789, OK: 'x' } }, h: { url: 'https://x', headers: { Authorization: ['Bearer', 'sekrit'] } } });
    const t = r.errors.find(e => e.server === 'github')!;
    assert.equal(t.path, 'mcpHost.servers.github.env.TOKEN');
    assert.match(t.message, /the value of mcpHost\.servers\.github\.env\.TOKEN is an integer; expected a string or null/);
    assert.doesNotMatch(t.message, /123456789/);
    const h = r.errors.find(e => e.server === 'h')!;
    assert.equal(h.path, 'mcpHost.servers.h.headers.Authorization');
    assert.doesNotMatch(h.message, /sekrit/);
  });

  it('warns about properties of the other transport type, and about command + url without type', () => {
    const r: ParseServersResult = parseServers({ a: { type: 'http', url: 'https://x', command: 'node' }, b: { command: 'x', url: 'https://y' } });
    assert.deepEqual(r.errors, []);
    assert.match(r.warnings.find(w => w.server === 'a')!.message, /command is ignored because the server's type is `http`/);
    assert.equal(r.servers.find(s => s.name === 'a')!.command, undefined);
    assert.match(r.warnings.find(w => w.server === 'b')!.message, /both `command` and `url`.*treated as stdio/);
  });

  it('names with dots or spaces get bracketed paths; a custom prefix is used', () => {
    const r = parseServers({ 'my.server': { command: 1 }, 'two words': { command: 2 } }, { settingPrefix: 'servers' });
    assert.deepEqual(r.errors.map(e => e.path).sort(), ['servers["my.server"].command', 'servers["two words"].command']);
  });

  it('the whole setting of the wrong type is one error at the prefix', () => {
    const r = parseServers([{ command: 'x' }]);
    assert.equal(r.errors.length, 1);
    assert.equal(r.errors[0].path, 'mcpHost.servers');
    assert.match(r.errors[0].message, /expected an object whose keys are server names/);
    assert.deepEqual(parseServers(undefined), { servers: [], errors: [], warnings: [] });
  });

  it('parseInputs: valid, duplicate id, unsupported type, bad id, not an array', () => {
    const r = parseInputs([
      { id: 'token', type: 'promptString', description: 'Token', password: true },
      { id: 'token', type: 'promptString' },
      { id: 'choice', type: 'pickString', options: ['a'] },
      { id: 'has space', type: 'promptString' },
      { type: 'promptString' },
      { id: 'p', type: 'promptString', default: 42 },
    ]);
    assert.deepEqual(r.inputs.map(i => i.id), ['token']);
    const at = (p: string) => r.errors.filter(e => e.path === p).map(e => e.message).join('\n');
    assert.match(at('mcpHost.inputs[1].id'), /repeats the id of mcpHost\.inputs\[0\]/);
    assert.match(at('mcpHost.inputs[2].type'), /only "promptString" is supported/);
    assert.match(at('mcpHost.inputs[3].id'), /letters, digits/);
    assert.match(at('mcpHost.inputs[4].id'), /missing; add "id"/);
    assert.match(at('mcpHost.inputs[5].default'), /the default value, an integer; expected a string/);
    assert.doesNotMatch(at('mcpHost.inputs[5].default'), /42/);
    assert.match(parseInputs({ id: 'x' }, { settingPrefix: 'inputs' }).errors[0].message, /^inputs is .*expected an array/);
  });

  it('warns about secrets written in plain text in env or headers, without showing them', () => {
    const r = parseServers({
      gh: { command: 'x', env: { GITHUB_TOKEN: 'ghp_abcdefghijklmnop', PLAIN: 'not-a-secret-at-all', API_KEY: '${input:key}', SHORT_TOKEN: 'abc' } },
      remote: { url: 'https://x', headers: { Authorization: 'Bearer sk-live-0123456789', 'X-Api-Key': '<your key>' } },
    });
    assert.deepEqual(r.errors, []);
    assert.equal(r.servers.length, 2, 'a warning never blocks a server');
    assert.deepEqual(r.warnings.map(w => w.path), ['mcpHost.servers.gh.env.GITHUB_TOKEN', 'mcpHost.servers.remote.headers.Authorization']);
    assert.match(r.warnings[0].message, /looks like a secret written in plain text; replace it with "\$\{input:github-token\}" and add \{ "id": "github-token", "type": "promptString", "password": true \}/);
    assert.match(r.warnings[1].message, /replace it with "Bearer \$\{input:remote-token\}"/);
    for (const w of r.warnings) assert.doesNotMatch(w.message, /ghp_|sk-live/);
  });

  it('common shapes from other tools get a concrete fix', () => {
    assert.match(oneError({ command: ['npx', '-y', 'pkg'] }).message, /put the program in `command` and its arguments in `args`: "command": "npx", "args": \["-y","pkg"\]/);
    const env = oneError({ command: 'x', env: ['TOKEN=abc123secret'] });
    assert.match(env.message, /the value of mcpHost\.servers\.github\.env is an array.*\{ "TOKEN": "…" \}/);
    assert.doesNotMatch(env.message, /abc123secret/);
    assert.match(oneError({ url: 'localhost:3000/mcp' }).message, /has no scheme; write "http:\/\/localhost:3000\/mcp"/);
    assert.match(oneError({ url: 'api.example.com/mcp' }).message, /write "https:\/\/api\.example\.com\/mcp"/);
    assert.match(oneError(null).message, /"disabled": true/);
    const t = parseServers({ github: { type: 5, command: 'x' } });
    assert.equal(t.errors.length, 1, 'one error per bad value');
    assert.match(t.errors[0].message, /write "stdio", "http" or "sse"/);
  });

  it('the plain-stdio fast path (no validator run) accepts only what the validator accepts', () => {
    // Well formed and common: decided without the validator.
    for (const def of [
      { command: 'npx', args: ['-y', 'pkg'] },
      { type: 'stdio', command: 'node', args: [], env: { A: '1', B: null }, envFile: '.env', cwd: 'sub', disabled: false, autoStart: true },
    ]) {
      assert.equal(plainStdio(def), true, JSON.stringify(def));
      assert.equal(getServerValidator()(def), true);
    }
    // Near misses go to the validator (its errors name server, setting and fix, as before).
    const hostile: Record<string, unknown>[] = [
      { command: '' }, { command: 1 }, { args: ['a'] }, { type: 'http', command: 'x' }, { type: 'sse', command: 'x', url: 'http://127.0.0.1/' },
      { command: 'x', args: 'a b' }, { command: 'x', args: ['a', 1] }, { command: 'x', args: [null] }, { command: 'x', env: { A: 1 } },
      { command: 'x', env: ['A=1'] }, { command: 'x', env: null }, { command: 'x', envFile: '' }, { command: 'x', cwd: '' },
      { command: 'x', autoStart: 'true' }, { command: 'x', comand: 'y' }, { command: 'x', url: 'https://example.com/' },
      { command: 'x', dev: {} }, { command: 'x', timeout: { startup: 1 } }, JSON.parse('{"command":"x","__proto__":{"a":1}}'),
      JSON.parse('{"command":"x","constructor":"y"}'), { command: 'x', toString: 'y' }, { command: 'x', args: new Array(2) },
    ];
    for (const def of hostile) assert.equal(plainStdio(def), false, JSON.stringify(def));
    const r = parseServers({ bad: { command: 'x', args: ['a', 1] }, good: { command: 'x', args: ['a'] } });
    assert.deepEqual(r.servers.map(s => s.name), ['good'], 'the bystander still parses');
    assert.match(r.errors[0].message, /"bad".*args\[1\]/s);
    // Random definitions from well-formed and hostile pieces: whatever the fast path accepts, the validator accepts.
    const keys = ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'disabled', 'autoStart', 'url', 'comand', 'headers', 'roots', '__proto__', 'constructor'];
    const values: unknown[] = ['', 'x', 'stdio', 'http', 1, 0, null, true, false, [], ['a'], ['a', 1], [null], {}, { A: '1' }, { A: 1 }, { A: null }, { A: ['1'] }, [{}]];
    let seed = 27;
    const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
    let accepted = 0;
    const good: [string, unknown][] = [['type', 'stdio'], ['args', ['a']], ['env', { A: null }], ['envFile', 'f'], ['cwd', 'c'], ['disabled', true], ['autoStart', false]];
    for (let i = 0; i < 5000; i++) {
      // A well-formed definition, then up to two properties set to any piece (own properties, whatever the key).
      const def: Record<string, unknown> = { command: 'x' };
      for (const [k, v] of good) if (rnd(2)) def[k] = v;
      for (let k = rnd(3); k > 0; k--) Object.defineProperty(def, keys[rnd(keys.length)], { value: values[rnd(values.length)], enumerable: true, writable: true, configurable: true });
      if (plainStdio(def)) {
        accepted++;
        assert.equal(getServerValidator()(def), true, `the fast path accepted what the validator rejects: ${JSON.stringify(def)}`);
      }
    }
    assert.ok(accepted > 50, `the random definitions reach the fast path (${accepted})`);
  });
});
