/**
 * The sandbox's policy and settings (issue 24; H90–H92, H95): VS Code's `sandboxEnabled` + `sandbox` paste and
 * resolve (variables, `~`, relative paths), changing them restarts the server, and the policy a launch gets:
 * the roots and temporary folder as the write boundary, the secrets denied for reading (extendable), `.env`
 * files outside the roots denied and inside them left alone, the registry of an `npx`/`uvx` launch allowed.
 * Plain Node, no sandbox needed (the enforcing is tested in test/reliability/sandbox.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseServers } from '../../src/mcp/config/validate';
import { resolveServer } from '../../src/mcp/config/variables';
import { definitionKeyer } from '../../src/mcp/config/definitionKey';

const fingerprint = definitionKeyer('ef'.repeat(32));
import {
  DEFAULT_DENY_READ, describeWall, envFilesOutside, isSandboxed, registryOf, sandboxBaseEnv, sandboxPolicy, type ProtectedNames,
} from '../../src/mcp/launch/sandboxPolicy';
import { sandboxProtectedNames, sandboxUnavailable } from '../../src/mcp/launch/sandboxRuntime';
import type { StdioServerDefinition } from '../../src/mcp/types';
import { tmpDir } from '../support/connection';

describe('sandbox settings and policy (issue 24)', () => {
  let base: string;
  let home: string;
  let root: string;
  let names: ProtectedNames;
  before(async () => {
    names = await sandboxProtectedNames();
    base = tmpDir('mcp-sandbox-unit-');
    home = path.join(base, 'home');
    root = path.join(home, 'work', 'app');
    fs.mkdirSync(root, { recursive: true });
    fs.mkdirSync(path.join(home, 'other'), { recursive: true });
    fs.writeFileSync(path.join(home, '.env'), 'A=1');
    fs.writeFileSync(path.join(home, 'other', '.env.local'), 'B=2');
    fs.writeFileSync(path.join(home, 'work', '.env'), 'C=3');
    fs.writeFileSync(path.join(root, '.env'), 'D=4');
  });
  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it('H95: a VS Code mcp.json server with sandboxEnabled and sandbox validates and resolves (variables, ~, relative paths)', async () => {
    const raw = {
      files: {
        type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${workspaceFolder}'],
        sandboxEnabled: true,
        sandbox: {
          filesystem: { allowWrite: ['${workspaceFolder}/out', '~/.cache/x', 'rel'], denyRead: ['~/private'], denyWrite: ['${workspaceFolder}/.git'] },
          network: { allowedDomains: ['api.github.com', '*.example.com'], deniedDomains: ['bad.example.com'] },
        },
      },
    };
    const parsed = parseServers(raw);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.warnings, []);
    const r = await resolveServer(parsed.servers[0], { env: {}, userHome: home, workspaceFolders: [{ name: 'app', path: root }] });
    const def = r.definition as StdioServerDefinition;
    assert.equal(def.sandboxEnabled, true);
    assert.deepEqual(def.sandbox, {
      filesystem: {
        allowWrite: [path.join(root, 'out'), path.join(home, '.cache/x'), path.join(root, 'rel')],
        denyRead: [path.join(home, 'private')], denyWrite: [path.join(root, '.git')],
      },
      network: { allowedDomains: ['api.github.com', '*.example.com'], deniedDomains: ['bad.example.com'] },
    });
  });

  it('H95: unknown keys under sandbox are errors naming the setting; sandbox on an http server is a warning', () => {
    const bad = parseServers({ s: { command: 'x', sandbox: { filesystem: { allowwrite: ['/x'] } } } });
    assert.equal(bad.servers.length, 0);
    assert.match(bad.errors[0].message, /allowwrite/);
    const http = parseServers({ h: { url: 'https://example.com/mcp', sandboxEnabled: true } });
    assert.match(http.warnings.map(w => w.message).join('\n'), /sandboxEnabled is ignored because the server's type is `http`/);
  });

  it('H90: turning the sandbox on or changing it is a new process (fingerprint); a definition without it keeps its old fingerprint', () => {
    const plain: StdioServerDefinition = { name: 's', type: 'stdio', command: 'node', args: ['x'], env: {} };
    const same = fingerprint(plain);
    assert.equal(fingerprint({ ...plain }), same);
    const on = fingerprint({ ...plain, sandboxEnabled: true });
    assert.notEqual(on, same);
    assert.notEqual(fingerprint({ ...plain, sandboxEnabled: true, sandbox: { network: { allowedDomains: ['a.com'] } } }), on);
  });

  it('H90 H91: the write boundary is the roots, the temporary folder, allowWrite (and the npm cache for npx); nothing else', () => {
    const p = sandboxPolicy({ command: 'npx', cwd: root, sandbox: { filesystem: { allowWrite: ['/opt/extra'] } } }, [root], { home }, '/tmp/t1', names);
    assert.deepEqual(p.allowWrite, [root, '/tmp/t1', '/opt/extra', path.join(home, '.npm')]);
    assert.deepEqual(p.roots, [root]);
    assert.deepEqual(sandboxPolicy({ command: '/usr/bin/node' }, [], { home }, '/tmp/t2', names).allowWrite, ['/tmp/t2']);
  });

  it('H92: secrets, settings additions, the editor storage and .env files outside the roots are denied for reading; a .env inside a root is not', () => {
    const p = sandboxPolicy({ command: 'node', cwd: root }, [root], { home, denyRead: ['~/.config/mine'], privatePaths: ['/data/editor/User'] }, '/tmp/t', names);
    for (const d of DEFAULT_DENY_READ) assert.ok(p.denyRead.includes(path.join(home, d.slice(2))), d);
    assert.ok(p.denyRead.includes(path.join(home, '.ssh')) && p.denyRead.includes(path.join(home, '.docker/config.json')));
    assert.ok(p.denyRead.includes(path.join(home, '.config/mine')));
    assert.ok(p.denyRead.includes('/data/editor/User'));
    for (const f of [path.join(home, '.env'), path.join(home, 'other', '.env.local'), path.join(home, 'work', '.env')]) assert.ok(p.denyRead.includes(f), f);
    assert.ok(!p.denyRead.includes(path.join(root, '.env')), 'the root\'s own .env stays readable');
    assert.deepEqual(envFilesOutside([home], home, undefined), [], 'a root that holds them all leaves none outside');
  });

  it('H92: the network is nothing but allowedDomains, plus the registry of an npx/uvx launch', () => {
    assert.deepEqual(sandboxPolicy({ command: 'node' }, [], { home }, '/t', names).allowedDomains, []);
    assert.deepEqual(sandboxPolicy({ command: 'node', sandbox: { network: { allowedDomains: ['127.0.0.1:8080'] } } }, [], { home }, '/t', names).allowedDomains, ['127.0.0.1:8080']);
    assert.deepEqual(sandboxPolicy({ command: '/usr/local/bin/npx' }, [], { home }, '/t', names).allowedDomains, ['registry.npmjs.org']);
    assert.deepEqual(sandboxPolicy({ command: 'uvx' }, [], { home }, '/t', names).allowedDomains, ['pypi.org', 'files.pythonhosted.org']);
    assert.equal(registryOf('C:\\tools\\npx.cmd'), 'npm');
    assert.equal(registryOf('python3'), undefined);
  });

  it('H96: --sandbox (force) sandboxes every stdio server, never an http one', () => {
    assert.equal(isSandboxed({ type: 'stdio' }, undefined), false);
    assert.equal(isSandboxed({ type: 'stdio', sandboxEnabled: true }, undefined), true);
    assert.equal(isSandboxed({ type: 'stdio' }, { force: true }), true);
    assert.equal(isSandboxed({ type: 'http', sandboxEnabled: true }, { force: true }), false);
  });

  it('H170: the protected paths come from every root, the cwd and every writable folder (nested repositories to the runtime\'s depth), never from this process\'s cwd', () => {
    const r1 = path.join(base, 'r1');
    const r2 = path.join(base, 'r2');
    const cwd = path.join(base, 'cwd');
    for (const d of [path.join(r1, '.git', 'hooks'), path.join(r1, 'a', 'b', '.git', 'hooks'), path.join(r1, 'node_modules', 'x', '.git'), path.join(r2, 'sub', '.vscode'), cwd]) fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(r2, 'sub', '.mcp.json'), '{}');
    const p = sandboxPolicy({ command: 'node', cwd }, [r1, r2], { home }, '/tmp/t', names);
    const want = [
      path.join(r1, '.git', 'config'), path.join(r1, '.git', 'hooks'), path.join(r1, '.vscode'), path.join(r1, '.mcp.json'), path.join(r1, '.bashrc'),
      path.join(r1, 'a', 'b', '.git', 'config'), path.join(r1, 'a', 'b', '.git', 'hooks'),
      path.join(r2, '.mcp.json'), path.join(r2, 'sub', '.vscode'), path.join(r2, 'sub', '.mcp.json'),
    ];
    for (const w of want) assert.ok(p.protected.includes(w) && p.denyWrite.includes(w), w);
    assert.ok(!p.protected.some(x => x.includes('node_modules')), 'node_modules is not searched (as the runtime does)');
    assert.ok(!p.protected.some(x => x.startsWith(process.cwd() + path.sep)), 'nothing of the host process\'s cwd');
    assert.ok(!p.protected.some(x => x.startsWith(cwd)), 'the cwd is not writable: nothing to protect in it');
    for (const f of names.files) assert.ok(p.protected.includes(path.join(r2, f)), `the runtime's own name ${f}`);
  });

  it('H170 H174: a definition\'s allowWrite ["~"] leaves the home\'s startup files and autostart read-only, and the dialog text (describeWall) names every writable folder and domain of the same policy', () => {
    const p = sandboxPolicy({ command: 'node', cwd: root, sandbox: { filesystem: { allowWrite: ['~'] }, network: { allowedDomains: ['api.example.com'] } } }, [root], { home }, '/tmp/t', names);
    for (const f of ['.profile', '.bashrc', '.config/autostart', '.local/bin', '.gitconfig']) assert.ok(p.denyWrite.includes(path.join(home, f)), f);
    const text = describeWall(p, home).join('\n');
    for (const w of p.allowWrite) assert.ok(w === p.tempDir || text.includes(w), w);
    assert.match(text, new RegExp(`ALSO lets it write OUTSIDE its roots, in: ${home.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(your whole home folder\\)`));
    assert.match(text, /network: only api\.example\.com/);
    assert.match(text, new RegExp(`read-only inside those: ${p.protected.length} protected paths`));
    const narrow = describeWall(sandboxPolicy({ command: 'node', cwd: root }, [root], { home }, '/tmp/t', names), home).join('\n');
    assert.doesNotMatch(narrow, /OUTSIDE/, 'a server within its roots has no widening line');
    assert.match(narrow, /network: none/);
  });

  it('H172 H175: the environment allow-list, and the read-deny defaults cover histories, token stores and the editor\'s Backups', () => {
    const env = sandboxBaseEnv({ PATH: '/bin', HOME: '/real', LANG: 'C', LC_ALL: 'C', TERM: 'xterm', GITHUB_TOKEN: 't', SSH_AUTH_SOCK: '/s', VSCODE_IPC_HOOK_CLI: '/x', AWS_SECRET_ACCESS_KEY: 'k' }, { home });
    assert.deepEqual(env, { PATH: '/bin', HOME: home, LANG: 'C', LC_ALL: 'C', TERM: 'xterm' });
    for (const d of ['~/.bash_history', '~/.zsh_history', '~/.config/hub', '~/.config/Code/Backups', '~/.local/share/keyrings']) assert.ok(DEFAULT_DENY_READ.includes(d), d);
  });

  it('H171: a dependency WARNING of the runtime (no seccomp helper) makes the sandbox unavailable, naming the helper and the fix', async function () {
    if (process.platform !== 'linux') this.skip();
    const why = await sandboxUnavailable({ checkDependencies: () => ({ errors: [], warnings: ['seccomp not available - unix socket access not restricted'] }) });
    assert.match(String(why), /the seccomp helper \(apply-seccomp\) for \w+ is missing.*reinstall/);
    const real = await sandboxUnavailable();
    if (real === undefined) assert.equal(await sandboxUnavailable({ checkDependencies: () => ({ errors: [], warnings: [] }) }), undefined, 'bystander: a complete machine can sandbox');
  });
});
