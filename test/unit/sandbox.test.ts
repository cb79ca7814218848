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
import { definitionKey as fingerprint } from '../../src/mcp/config/definitionKey';
import {
  DEFAULT_DENY_READ, envFilesOutside, isSandboxed, registryOf, sandboxPolicy, sandboxProtectedNames, type ProtectedNames,
} from '../../src/mcp/launch/sandbox';
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
});
