import assert from 'node:assert/strict';
import {
  parseServers, referencedInputs, resolveServer, resolveServerNow, resolveServers,
  type RawServer, type ResolveContext, type ResolveResult,
} from '../../src/mcp/config';
import type { InputDefinition, ServerDefinition, StdioServerDefinition, HttpServerDefinition } from '../../src/mcp/types';

const FOLDERS = [{ name: 'web', path: '/ws/web' }, { name: 'api', path: '/ws/api' }];

function raw(def: unknown, name = 'srv'): RawServer {
  const r = parseServers({ [name]: def });
  assert.deepEqual(r.errors, [], 'fixture definitions are valid');
  return r.servers[0];
}

function ctx(over: Partial<ResolveContext> = {}): ResolveContext {
  return { workspaceFolders: [FOLDERS[0]], userHome: '/home/me', env: { HOME: '/home/me', TOKEN: 't0k' }, platform: 'linux', ...over };
}

function ok(r: ResolveResult): ServerDefinition {
  assert.equal(r.error, undefined, r.error?.message);
  return r.definition!;
}

function stdio(r: ResolveResult): StdioServerDefinition {
  const d = ok(r);
  assert.equal(d.type, 'stdio');
  return d as StdioServerDefinition;
}

describe('config variables (resolveServer)', () => {
  it('resolves each variable kind in command, args, env, cwd and envFile', async () => {
    const d = stdio(await resolveServer(raw({
      command: '${workspaceFolder}/bin/server',
      args: ['${workspaceFolderBasename}', '${userHome}${/}x', 'a${pathSeparator}b', '${env:TOKEN}', '${workspaceFolder:web}'],
      env: { HOME_COPY: '${userHome}', GONE: null },
      cwd: '${workspaceFolder}/sub',
      envFile: '${workspaceFolder}/.env',
    }), ctx()));
    assert.equal(d.command, '/ws/web/bin/server');
    assert.deepEqual(d.args, ['web', '/home/me/x', 'a/b', 't0k', '/ws/web']);
    assert.deepEqual(d.env, { HOME_COPY: '/home/me', GONE: null });
    assert.equal(d.cwd, '/ws/web/sub');
    assert.equal(d.envFile, '/ws/web/.env');
  });

  it('resolves url and headers of http servers, with defaults filled in', async () => {
    const d = ok(await resolveServer(raw({ url: 'https://${env:HOST}/mcp', headers: { 'X-Token': '${env:TOKEN}' } }), ctx({ env: { HOST: 'api.example', TOKEN: 'abc' } }))) as HttpServerDefinition;
    assert.equal(d.type, 'http');
    assert.equal(d.url, 'https://api.example/mcp');
    assert.deepEqual(d.headers, { 'X-Token': 'abc' });
    const plain = ok(await resolveServer(raw({ type: 'sse', url: 'http://127.0.0.1:1/sse' }), ctx())) as HttpServerDefinition;
    assert.deepEqual(plain.headers, {});
    assert.equal(plain.type, 'sse');
  });

  it('fills defaults: args [], env {}, cwd = the defining folder; keeps per-server options', async () => {
    const d = stdio(await resolveServer(raw({ command: 'node', disabled: true, autoStart: false, timeout: { startup: 2000 }, roots: ['web'], sampling: { maxTokens: 10 } }), ctx()));
    assert.deepEqual(d.args, []);
    assert.deepEqual(d.env, {});
    assert.equal(d.cwd, '/ws/web');
    assert.equal(d.name, 'srv');
    assert.equal(d.disabled, true);
    assert.equal(d.autoStart, false);
    assert.deepEqual(d.timeout, { startup: 2000 });
    assert.deepEqual(d.roots, ['web']);
    assert.deepEqual(d.sampling, { maxTokens: 10 });
  });

  it('relative cwd and envFile are relative to the defining folder; ~ is the home folder', async () => {
    const d = stdio(await resolveServer(raw({ command: 'x', cwd: 'tools/../srv', envFile: '~/.env' }), ctx({ workspaceFolders: FOLDERS, definingFolder: FOLDERS[1] })));
    assert.equal(d.cwd, '/ws/api/srv');
    assert.equal(d.envFile, '/home/me/.env');
  });

  it('multi-root: ${workspaceFolder} is the defining folder when known', async () => {
    const r = await resolveServer(raw({ command: 'x', args: ['${workspaceFolder}'] }), ctx({ workspaceFolders: FOLDERS, definingFolder: FOLDERS[1] }));
    assert.deepEqual(stdio(r).args, ['/ws/api']);
    assert.equal(stdio(r).cwd, '/ws/api');
    assert.deepEqual(r.warnings, []);
  });

  it('multi-root: the defining folder may be given by name or path', async () => {
    const byName = await resolveServer(raw({ command: 'x', args: ['${workspaceFolder}'], cwd: 'sub' }), ctx({ workspaceFolders: FOLDERS, definingFolder: 'api' }));
    assert.deepEqual(stdio(byName).args, ['/ws/api']);
    assert.equal(stdio(byName).cwd, '/ws/api/sub');
    const byPath = await resolveServer(raw({ command: 'x', args: ['${workspaceFolder}'] }), ctx({ workspaceFolders: FOLDERS, definingFolder: '/ws/api' }));
    assert.deepEqual(stdio(byPath).args, ['/ws/api']);
    const gone = await resolveServer(raw({ command: 'x' }), ctx({ workspaceFolders: FOLDERS, definingFolder: 'closed' }));
    assert.equal(stdio(gone).cwd, '/ws/web');
    assert.match(gone.warnings[0].message, /the folder "closed" it was defined in is not open; using "web" instead/);
  });

  it('multi-root: without a defining folder, the first folder is used and the ambiguity is a warning', async () => {
    const r = await resolveServer(raw({ command: 'x', args: ['${workspaceFolder}', '${workspaceFolder}'] }), ctx({ workspaceFolders: FOLDERS }));
    assert.deepEqual(stdio(r).args, ['/ws/web', '/ws/web']);
    assert.equal(r.warnings.length, 1);
    assert.equal(r.warnings[0].path, 'mcpHost.servers.srv.args[0]');
    assert.match(r.warnings[0].message, /ambiguous with 2 workspace folders.*"web".*\$\{workspaceFolder:name\}/);
    // ${workspaceFolder:name} picks a folder explicitly and is not ambiguous.
    const r2 = await resolveServer(raw({ command: 'x', args: ['${workspaceFolder:api}'] }), ctx({ workspaceFolders: FOLDERS }));
    assert.deepEqual(stdio(r2).args, ['/ws/api']);
    assert.deepEqual(r2.warnings, []);
  });

  it('Windows: ${pathSeparator} is a backslash and relative cwd uses win32 paths', async () => {
    const d = stdio(await resolveServer(raw({ command: 'x', args: ['a${/}b'], cwd: 'sub' }), ctx({ platform: 'win32', workspaceFolders: [{ name: 'w', path: 'C:\\ws' }] })));
    assert.deepEqual(d.args, ['a\\b']);
    const e = stdio(await resolveServer(raw({ command: 'x', args: ['${env:Path}'] }), ctx({ platform: 'win32', env: { PATH: 'C:\\bin' }, workspaceFolders: [] })));
    assert.deepEqual(e.args, ['C:\\bin'], 'environment names are case-insensitive on Windows');
    assert.equal(d.cwd, 'C:\\ws\\sub');
  });

  it('an unknown variable is an error naming server, path, value and the supported list', async () => {
    const r = await resolveServer(raw({ command: 'x', args: ['--root', '${workspaceRoot}'] }), ctx());
    assert.ok(r.error);
    assert.equal(r.error.server, 'srv');
    assert.equal(r.error.path, 'mcpHost.servers.srv.args[1]');
    assert.match(r.error.message, /Server "srv".*args\[1\].*\$\{workspaceRoot\}.*unknown variable.*did you mean `\$\{workspaceFolder\}`\?.*supported:/);
    const r2 = await resolveServer(raw({ command: 'x', args: ['${config:editor.fontSize}'] }), ctx());
    assert.match(r2.error!.message, /unknown variable `\$\{config:editor\.fontSize\}`/);
  });

  it('a folder name that is not open, and no folder at all, are errors', async () => {
    const r = await resolveServer(raw({ command: 'x', cwd: '${workspaceFolder:docs}' }), ctx({ workspaceFolders: FOLDERS }));
    assert.equal(r.error!.path, 'mcpHost.servers.srv.cwd');
    assert.match(r.error!.message, /no open workspace folder is named "docs" \(open: "web", "api"\)/);
    const r2 = await resolveServer(raw({ command: '${workspaceFolder}/x' }), ctx({ workspaceFolders: [] }));
    assert.match(r2.error!.message, /no workspace folder is open; open a folder or write an absolute path/);
    const r3 = await resolveServer(raw({ command: 'x', cwd: 'rel' }), ctx({ workspaceFolders: [] }));
    assert.match(r3.error!.message, /relative path, but no workspace folder is open/);
    // Without folders and without cwd, there is simply no cwd.
    assert.equal(stdio(await resolveServer(raw({ command: 'x' }), ctx({ workspaceFolders: [] }))).cwd, undefined);
  });

  it('an unset ${env:NAME} resolves to empty with a warning (values never shown)', async () => {
    const r = await resolveServer(raw({ command: 'x', env: { KEY: 'secret-prefix-${env:NOPE}' } }), ctx());
    assert.deepEqual(stdio(r).env, { KEY: 'secret-prefix-' });
    assert.equal(r.warnings[0].path, 'mcpHost.servers.srv.env.KEY');
    assert.match(r.warnings[0].message, /the value of mcpHost\.servers\.srv\.env\.KEY uses `\$\{env:NOPE\}` but NOPE is not set/);
    assert.doesNotMatch(r.warnings[0].message, /secret-prefix/);
  });

  it('${input:id}: asks the resolver once per id, across places and servers, with the input definition', async () => {
    const inputs: InputDefinition[] = [{ id: 'token', type: 'promptString', password: true }, { id: 'host', type: 'promptString', default: 'h' }];
    const asked: string[] = [];
    const c = ctx({ inputs, resolveInput: async i => { asked.push(i.id); return `v-${i.id}`; } });
    const a = raw({ command: 'x', args: ['${input:token}', '${input:token}'], env: { T: '${input:token}' } }, 'a');
    const b = raw({ url: 'https://${input:host}/mcp', headers: { Authorization: 'Bearer ${input:token}' } }, 'b');
    assert.deepEqual(referencedInputs(a), ['token']);
    assert.deepEqual(referencedInputs(b), ['host', 'token']);
    const all = await resolveServers([a, b], c);
    assert.deepEqual(all.errors, []);
    assert.deepEqual(asked, ['token', 'host']);
    const [da, db] = all.definitions as [StdioServerDefinition, HttpServerDefinition];
    assert.deepEqual(da.args, ['v-token', 'v-token']);
    assert.deepEqual(da.env, { T: 'v-token' });
    assert.equal(db.url, 'https://v-host/mcp');
    assert.deepEqual(db.headers, { Authorization: 'Bearer v-token' });
    // Concurrent resolutions share one question too.
    asked.length = 0;
    const c2 = ctx({ inputs, resolveInput: async i => { asked.push(i.id); await new Promise(r => setTimeout(r, 5)); return 'v'; } });
    await Promise.all([resolveServer(a, c2), resolveServer(a, c2), resolveServer(b, c2)]);
    assert.deepEqual(asked.sort(), ['host', 'token']);
  });

  it('${input:id}: undeclared id, cancelled, failing resolver, and default without a resolver', async () => {
    const inputs: InputDefinition[] = [{ id: 'token', type: 'promptString' }, { id: 'port', type: 'promptString', default: '8080' }];
    let asked = 0;
    const undeclared = await resolveServer(raw({ command: 'x', args: ['${input:tokne}'] }), ctx({ inputs, resolveInput: async () => { asked++; return 'v'; } }));
    assert.equal(undeclared.error!.path, 'mcpHost.servers.srv.args[0]');
    assert.match(undeclared.error!.message, /no input with id "tokne"; did you mean `\$\{input:token\}`\?/);
    assert.equal(asked, 0, 'nobody is asked for inputs of a definition that cannot work');

    const cancelled = await resolveServer(raw({ command: 'x', env: { T: '${input:token}' } }), ctx({ inputs, resolveInput: async () => undefined }));
    assert.equal(cancelled.error!.path, 'mcpHost.servers.srv.env.T');
    assert.match(cancelled.error!.message, /no value was given for input "token"/);

    const failing = await resolveServer(raw({ command: 'x', args: ['${input:token}'] }), ctx({ inputs, resolveInput: async () => { throw new Error('keychain locked'); } }));
    assert.match(failing.error!.message, /asking for input "token".*failed: keychain locked/);

    const noResolver = await resolveServer(raw({ command: 'x', args: ['${input:port}'] }), ctx({ inputs }));
    assert.deepEqual(stdio(noResolver).args, ['8080']);
    const noValue = await resolveServer(raw({ command: 'x', args: ['${input:token}'] }), ctx({ inputs }));
    assert.match(noValue.error!.message, /has no value and there is no way to ask for it/);
  });

  it('a failed input is asked again on a later resolution; a given one is not', async () => {
    const inputs: InputDefinition[] = [{ id: 'k', type: 'promptString' }];
    let calls = 0;
    const c = ctx({ inputs, resolveInput: async () => { calls++; if (calls === 1) throw new Error('first fails'); return 'v'; } });
    const r = raw({ command: 'x', args: ['${input:k}'] });
    assert.ok((await resolveServer(r, c)).error);
    assert.deepEqual(stdio(await resolveServer(r, c)).args, ['v']);
    assert.deepEqual(stdio(await resolveServer(r, c)).args, ['v']);
    assert.equal(calls, 2);
  });

  it('a url that is not http(s) after resolution is an error; header values with newlines too', async () => {
    const r = await resolveServer(raw({ url: '${env:U}' }), ctx({ env: { U: 'file:///etc/passwd' } }));
    assert.equal(r.error!.path, 'mcpHost.servers.srv.url');
    assert.match(r.error!.message, /scheme `file` is not supported/);
    const h = await resolveServer(raw({ url: 'https://x', headers: { A: '${env:V}' } }), ctx({ env: { V: 'a\r\nInjected: 1' } }));
    assert.match(h.error!.message, /the value of mcpHost\.servers\.srv\.headers\.A contains a line break/);
    assert.doesNotMatch(h.error!.message, /Injected/);
  });

  it('never throws, even for garbage passed as a raw server', async () => {
    const r = await resolveServer({ name: 'z', path: 'p' } as unknown as RawServer, ctx());
    assert.ok(r.error || r.definition);
    const r2 = await resolveServer(null as unknown as RawServer, ctx());
    assert.ok(r2.error);
  });
});

describe('config: workloadIdentity (H109/H110)', () => {
  it('resolves variables in tokenFile and keeps tokenEnv as a name; the definition key follows it', async () => {
    const d = ok(await resolveServer(raw({ url: 'https://api.example/mcp', workloadIdentity: { clientId: 'ci', tokenFile: '${userHome}/.tokens/mcp.jwt' } }), ctx())) as HttpServerDefinition;
    assert.deepEqual(d.workloadIdentity, { clientId: 'ci', tokenFile: '/home/me/.tokens/mcp.jwt' });
    const e = ok(await resolveServer(raw({ url: 'https://api.example/mcp', workloadIdentity: { clientId: 'ci', tokenEnv: 'MCP_TOKEN' } }), ctx())) as HttpServerDefinition;
    assert.deepEqual(e.workloadIdentity, { clientId: 'ci', tokenEnv: 'MCP_TOKEN' });
    const plain = ok(await resolveServer(raw({ url: 'https://api.example/mcp' }), ctx())) as HttpServerDefinition;
    assert.equal(plain.workloadIdentity, undefined, 'a bystander without it is unchanged');
  });

  it('needs exactly one of tokenFile and tokenEnv, an absolute tokenFile and a clientId; says which and how to fix it', async () => {
    const both = await resolveServer(raw({ url: 'https://a.example/mcp', workloadIdentity: { clientId: 'ci', tokenFile: '/t', tokenEnv: 'T' } }), ctx());
    assert.match(both.error?.message ?? '', /workloadIdentity needs exactly one of `tokenFile` .* and `tokenEnv` .*; remove one/);
    const none = await resolveServer(raw({ url: 'https://a.example/mcp', workloadIdentity: { clientId: 'ci' } }), ctx());
    assert.match(none.error?.message ?? '', /needs exactly one of .*; add one/);
    const rel = await resolveServer(raw({ url: 'https://a.example/mcp', workloadIdentity: { clientId: 'ci', tokenFile: 'token.jwt' } }), ctx());
    assert.match(rel.error?.message ?? '', /workloadIdentity\.tokenFile is "token\.jwt", not an absolute path/);
    const r = parseServers({ s: { url: 'https://a.example/mcp', workloadIdentity: { tokenEnv: 'T' } } });
    assert.match(r.errors.map(x => x.message).join('\n'), /clientId/);
    const stdioMisplaced = parseServers({ s: { command: 'node', workloadIdentity: { clientId: 'ci', tokenEnv: 'T' } } });
    assert.match(stdioMisplaced.warnings?.map(x => x.message).join('\n') ?? stdioMisplaced.errors.map(x => x.message).join('\n'), /workloadIdentity is ignored because the server's type is `stdio`/);
  });
});

describe('config variables: resolveServerNow (what the first settings sync decides with, before anything launches)', () => {
  it('without ${input:} the result is there at once: no promise, nothing read or looked up (envFile, command on PATH)', () => {
    const r = resolveServerNow(raw({ command: 'no-such-program-on-path', args: ['${env:TOKEN}'], envFile: '/no/such/dir/.env', cwd: '${workspaceFolder}' }), ctx());
    assert.ok(!(r instanceof Promise), 'a definition without inputs resolves in the same turn');
    const d = stdio(r);
    assert.equal(d.command, 'no-such-program-on-path', 'the command is looked up on PATH at launch, not here');
    assert.equal(d.envFile, '/no/such/dir/.env', 'the envFile is read at launch (where a missing one is the error), not here');
    assert.deepEqual(d.args, ['t0k']);
  });

  it('errors still name the server, the setting and the fix, at once', () => {
    const r = resolveServerNow(raw({ command: 'x', args: ['${workspaceFolder:nope}'] }), ctx());
    assert.ok(!(r instanceof Promise));
    assert.equal(r.error?.path, 'mcpHost.servers.srv.args[0]');
    assert.match(r.error!.message, /Server "srv".*no open workspace folder is named "nope".*"web"/);
  });

  it('with ${input:} it is a promise (the value is asked for), and gives what resolveServer gives; a bystander without inputs stays immediate', async () => {
    const inputs: InputDefinition[] = [{ id: 'pw', type: 'promptString', password: true }];
    let asked = 0;
    const c = ctx({ inputs, resolveInput: async () => { asked++; return 'secret-pw'; } });
    const pending = resolveServerNow(raw({ command: 'x', args: ['--pw=${input:pw}'] }), c);
    assert.ok(pending instanceof Promise);
    const d = stdio(await pending);
    assert.deepEqual(d.args, ['--pw=secret-pw']);
    assert.equal(asked, 1);
    assert.deepEqual(stdio(await resolveServer(raw({ command: 'x', args: ['--pw=${input:pw}'] }), ctx({ inputs, resolveInput: async () => 'secret-pw' }))), d);
    const bystander = resolveServerNow(raw({ command: 'y' }, 'other'), c);
    assert.ok(!(bystander instanceof Promise));
    assert.equal(stdio(bystander).command, 'y');
  });
});
