/**
 * The MCP Registry (v0.1 API) and `server.json`: installing from real documents (npm → npx, PyPI → uvx, OCI → docker
 * run, remotes → http) with required env and headers as `${input:}` prompts, refusing bad ones, against a local
 * registry fixture on 127.0.0.1 (test/fixtures/registry). No real registry is ever contacted.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fromServerJson, serverNameOf } from '../../src/mcp/registry/serverJson';
import { MAX_REGISTRY_BODY_BYTES, searchRegistry } from '../../src/mcp/registry/client';
import { parseServers } from '../../src/mcp/config';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/registry/servers.json');

describe('MCP Registry: server.json and the v0.1 API', function () {
  this.timeout(20_000);
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  let mode: 'ok' | 'huge' | 'redirect' | 'garbage' = 'ok';

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      if (mode === 'redirect') { res.writeHead(302, { location: 'https://elsewhere.example/v0.1/servers' }); res.end(); return; }
      if (mode === 'garbage') { res.end('<html>'); return; }
      if (mode === 'huge') { res.write('{"servers":["'); res.end('x'.repeat(MAX_REGISTRY_BODY_BYTES + 10)); return; }
      res.setHeader('content-type', 'application/json');
      res.end(fs.readFileSync(FIXTURE));
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => { server.close(); });
  beforeEach(() => { mode = 'ok'; seen.length = 0; });

  it('searches one page: every server.json, the next cursor, entries that are not servers counted', async () => {
    const page = await searchRegistry(base, 'file sys', 'c1');
    assert.equal(page.servers.length, 4);
    assert.equal(page.skipped, 2);
    assert.equal(page.nextCursor, 'page-2');
    assert.match(seen[0], /^\/v0\.1\/servers\?limit=50&search=file\+sys&cursor=c1$/);
  });

  it('installs npm with npx, PyPI with uvx, OCI with docker run, remotes as http; required env and headers become ${input:} prompts', async () => {
    const [fsDoc, fetchDoc, gh] = (await searchRegistry(base)).servers.map(fromServerJson);
    assert.deepEqual(fsDoc.errors, []);
    assert.deepEqual(fsDoc.options.map(o => o.server), [{ type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem@2026.8.31', '/data'] }]);
    assert.equal(fsDoc.options[0].name, 'server-filesystem');
    assert.deepEqual(fetchDoc.options[0].server, { type: 'stdio', command: 'uvx', args: ['mcp-server-fetch==2025.4.7', '--user-agent', 'mcp-host'] });
    assert.deepEqual(gh.options.map(o => o.server), [
      { type: 'stdio', command: 'docker', args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server:0.13.0'], env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${input:github-mcp-server-GITHUB_PERSONAL_ACCESS_TOKEN}' } },
      { type: 'http', url: 'https://api.githubcopilot.example/mcp/', headers: { Authorization: '${input:github-mcp-server-Authorization}' } },
    ]);
    assert.deepEqual(gh.options[0].inputs, [{ id: 'github-mcp-server-GITHUB_PERSONAL_ACCESS_TOKEN', type: 'promptString', description: 'Your GitHub token', password: true }]);
    // What is installed passes the settings' own validation.
    for (const o of [...fsDoc.options, ...fetchDoc.options, ...gh.options]) assert.deepEqual(parseServers({ [o.name]: o.server }, { settingPrefix: 'servers' }).errors, []);
  });

  it('refuses bad documents readably: a flag as identifier, plain http remote, unpinned versions, no name, nothing to install', async () => {
    const sneaky = fromServerJson((await searchRegistry(base)).servers[3]);
    assert.deepEqual(sneaky.options, []);
    assert.equal(sneaky.errors.length, 2);
    assert.match(sneaky.errors[0], /package 1: the identifier .* is not a package name/);
    assert.match(sneaky.errors[1], /remote 1: the URL "http:\/\/example.com\/mcp" is not an https URL/);
    assert.match(fromServerJson({ name: 'a/b', packages: [{ registryType: 'npm', identifier: 'x', version: 'latest' }] }).errors[0], /not a pinned version/);
    assert.match(fromServerJson({ name: 'a/b', packages: [{ registryType: 'cargo', identifier: 'x', version: '1.0.0' }] }).errors[0], /registry type "cargo" is not supported/);
    assert.match(fromServerJson({ name: 'a/b', packages: [{ registryType: 'npm', identifier: 'x', version: '1', environmentVariables: [{ name: 'A=B' }] }] }).errors[0], /environment variable name is not valid/);
    assert.match(fromServerJson({ name: 'no-namespace' }).errors[0], /not of the form "namespace\/name"/);
    assert.match(fromServerJson({ name: 'a/b' }).errors[0], /no package and no remote/);
    assert.match(fromServerJson([]).errors[0], /not a JSON object/);
    assert.equal(serverNameOf('io.github.x/../../etc'), 'etc');
  });

  it('a registry that redirects, answers garbage or too much is an error naming it; only https (or loopback http) is asked', async () => {
    mode = 'redirect';
    await assert.rejects(searchRegistry(base), /answered 302 \(a redirect, not followed\)/);
    mode = 'garbage';
    await assert.rejects(searchRegistry(base), /not JSON/);
    mode = 'huge';
    await assert.rejects(searchRegistry(base), /more than 4194304 bytes/);
    await assert.rejects(searchRegistry('http://registry.example'), /not an https URL/);
  });
});
