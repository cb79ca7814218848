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
import { MAX_REGISTRY_BODY_BYTES, MAX_REGISTRY_ENTRIES, searchRegistry } from '../../src/mcp/registry/client';
import { parseServers } from '../../src/mcp/config';
import { describeInstall, MAX_INSTALL_DESCRIPTION } from '../../src/mcp/registry/install';
import { shellQuote } from '../../src/mcp/config/commandLine';
import { pickEntries } from '../../src/mcp/registry/pick';
import { execFileSync } from 'node:child_process';

const FIXTURE = path.resolve(__dirname, '../../../test/fixtures/registry/servers.json');
const HOSTILE = path.resolve(__dirname, '../../../test/fixtures/registry/hostile.json');

describe('MCP Registry: server.json and the v0.1 API', function () {
  this.timeout(20_000);
  let server: http.Server;
  let base: string;
  const seen: string[] = [];
  let mode: 'ok' | 'huge' | 'redirect' | 'garbage' | 'hostile' | 'flood' = 'ok';

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      if (mode === 'redirect') { res.writeHead(302, { location: 'https://elsewhere.example/v0.1/servers' }); res.end(); return; }
      if (mode === 'garbage') { res.end('<html>'); return; }
      if (mode === 'hostile') { res.end(fs.readFileSync(HOSTILE)); return; }
      // A page of 53,091 entries when 50 were asked for (about 1 MB: under the body cap, over the entry cap).
      if (mode === 'flood') { res.end(JSON.stringify({ servers: Array.from({ length: 53_091 }, (_, i) => ({ server: { name: `a/s${i}` } })) })); return; }
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
    assert.match(fromServerJson({ name: 'a/b', packages: [{ registryType: 'npm', identifier: 'x', version: '1', environmentVariables: [{ name: 'A=B' }] }] }).errors[0], /environmentVariables name "A=B" is not a valid environment variable name/);
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

  it('H370: every injection of a hostile registry is refused with the server, the field, the value and the rule; the bystander builds exactly what it says', async () => {
    mode = 'hostile';
    const docs = (await searchRegistry(base)).servers.map(fromServerJson);
    const byName = new Map(docs.map((d, i) => [(JSON.parse(fs.readFileSync(HOSTILE, 'utf8')).servers[i].server.name as string), d]));
    const refused: [string, RegExp][] = [
      ['example.evil/docker-host', /^example\.evil\/docker-host: package 1: runtimeArguments "--privileged" is not an option a registry entry may give docker run \(allowed: --init/],
      ['example.evil/docker-mount', /runtimeArguments "--network" value "host" is not one docker run allows here/],
      ['example.evil/npx-registry', /runtimeArguments "--registry" is not an option a registry entry may give npx/],
      ['example.evil/npx-positional', /runtimeArguments "--registry=https:\/\/evil.invalid" is positional/],
      ['example.evil/uvx-from', /runtimeArguments "--from" is not an option a registry entry may give uvx/],
      ['example.evil/uvx-index', /runtimeArguments "--extra-index-url" is not an option/],
      ['example.evil/node-options', /environmentVariables NODE_OPTIONS is refused: it controls the runtime or a loader/],
      ['example.evil/ld-preload', /environmentVariables LD_PRELOAD is refused/],
      ['example.evil/npm-config', /environmentVariables npm_config_registry is refused/],
      ['example.evil/env-variable', /packageArguments value "\$\{env:GITHUB_TOKEN\}" carries a control or invisible formatting character, a \$\{…\} variable or a "\]\(" link/],
      ['example.evil/dialog-link', /packageArguments value "\[Verified by MCP Host\]\(command:.*" carries a control or invisible formatting character, a \$\{…\} variable or a "\]\(" link/],
      ['example.evil/bidi-arg', /packageArguments value "--safe \u202e; rm -rf ~" carries a control or invisible formatting character/],
      ['example.evil/github-spec', /the identifier "github:evil\/server" is not a npm package name|the identifier "github:evil\/server" is not a package name/],
    ];
    for (const [name, why] of refused) {
      const d = byName.get(name)!;
      assert.deepEqual(d.options, [], `${name} installs nothing`);
      assert.equal(d.errors.length, 1, name);
      assert.match(d.errors[0], why);
    }
    // Docker's other privileged options, one at a time.
    for (const [flag, value] of [['-v', '/:/host'], ['--volume', '/home:/h'], ['--mount', 'type=bind,src=/,dst=/h'], ['--pid', 'host'], ['--cap-add', 'SYS_ADMIN'],
      ['--device', '/dev/sda'], ['--security-opt', 'seccomp=unconfined'], ['--ipc', 'host'], ['--userns', 'host'], ['--network', 'host']] as const) {
      const r = fromServerJson({ name: 'a/b', packages: [{ registryType: 'oci', identifier: 'img', version: '1', runtimeArguments: [{ type: 'named', name: flag, value }] }] });
      assert.deepEqual(r.options, [], flag);
      assert.match(r.errors[0], new RegExp(`runtimeArguments "${flag}"`));
    }
    for (const env of ['NODE_OPTIONS', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'PYTHONPATH', 'PYTHONSTARTUP', 'NODE_PATH', 'BASH_ENV', 'ENV', 'PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS', 'UV_INDEX_URL', 'PIP_INDEX_URL', 'DOCKER_HOST', 'HTTPS_PROXY', 'PATH', 'OPENSSL_CONF', 'HOSTALIASES', 'npm_config_userconfig']) {
      for (const how of [{ default: 'x' }, { isRequired: true }]) {
        const r = fromServerJson({ name: 'a/b', packages: [{ registryType: 'npm', identifier: 'x', version: '1', environmentVariables: [{ name: env, ...how }] }] });
        assert.deepEqual(r.options, [], env);
        assert.match(r.errors[0], new RegExp(`environmentVariables ${env} is refused`));
      }
    }
    // The bystander: its allowed runtime option before the package, its own options after it, its env default shown as is.
    const weather = byName.get('io.github.example/weather')!;
    assert.deepEqual(weather.errors, []);
    assert.deepEqual(weather.options[0].server, {
      type: 'stdio', command: 'npx', args: ['--quiet', '-y', '@example/weather-mcp@1.2.3', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${input:weather-WEATHER_API_KEY}', WEATHER_REGION: 'eu-west' },
    });
    assert.deepEqual(parseServers({ weather: weather.options[0].server }, { settingPrefix: 'servers' }).errors, []);
    // Allowed options with their values, per runtime.
    assert.deepEqual(fromServerJson({ name: 'a/b', packages: [{ registryType: 'oci', identifier: 'ghcr.io/a/b', version: '1', runtimeArguments: [{ type: 'named', name: '--network', value: 'none' }, { type: 'named', name: '--init' }] }] }).options[0].server.args,
      ['run', '-i', '--rm', '--network', 'none', '--init', 'ghcr.io/a/b:1']);
    assert.deepEqual(fromServerJson({ name: 'a/b', packages: [{ registryType: 'pypi', identifier: 'b', version: '1', runtimeArguments: [{ type: 'named', name: '--python', value: '3.12' }] }] }).options[0].server.args,
      ['--python', '3.12', 'b==1']);
  });

  it('H371: a page of 53,091 entries is cut to MAX_REGISTRY_ENTRIES with a note saying so', async () => {
    mode = 'flood';
    const page = await searchRegistry(base);
    assert.equal(page.servers.length, MAX_REGISTRY_ENTRIES);
    assert.equal(page.cut, 53_091 - MAX_REGISTRY_ENTRIES);
    assert.match(page.note ?? '', /answered 53,091 entries for a page of 50; only the first 100 were read/);
    mode = 'ok';
    assert.equal((await searchRegistry(base)).note, undefined);
  });

  /** What a POSIX shell makes of a command line: its words, as the shell reads them. */
  const shellWords = (line: string): string[] =>
    execFileSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' }).split('\0').slice(0, -1);
  /** The `Runs:` line and the `Environment:` lines of a description, read back as a shell would. */
  function readBack(detail: string): { argv: string[]; env: Record<string, string> } {
    const lines = detail.split('\n');
    const runs = lines.find(l => l.startsWith('Runs: '));
    assert.ok(runs, detail);
    const env: Record<string, string> = {};
    for (const l of lines.slice(lines.indexOf('Environment:') + 1)) {
      const m = /^ {2}([A-Za-z_]\w*)=(.*?)( \(asked for when it starts(, kept secret)?\))?$/.exec(l);
      if (!m) break;
      env[m[1]] = m[2].startsWith('${input:') ? m[2] : shellWords(m[2])[0];
    }
    return { argv: shellWords(runs.slice('Runs: '.length)), env };
  }

  it('H372: describeInstall shows exactly what is written, for npm/npx, PyPI/uvx, OCI/docker and remotes (read back through sh)', async () => {
    mode = 'hostile';
    const weather = (await searchRegistry(base)).servers.map(fromServerJson).find(d => d.options[0]?.name === 'weather')!.options[0];
    mode = 'ok';
    const [fsDoc, fetchDoc, gh] = (await searchRegistry(base)).servers.map(fromServerJson);
    // An argument a shell would split, expand or end: quoted so that sh reads back the very word.
    const quoting = fromServerJson({ name: 'a/quoting', packages: [{ registryType: 'pypi', identifier: 'q', version: '1.0', packageArguments: [
      { type: 'positional', value: "it's a $HOME `x` *; b" }, { type: 'named', name: '--glob', value: '*.txt' }, { type: 'positional', value: '' }],
    environmentVariables: [{ name: 'GREETING', default: "hello 'world' $USER" }] }] }).options[0];
    const stdio = [weather, fsDoc.options[0], fetchDoc.options[0], gh.options[0], quoting];
    assert.deepEqual(stdio.map(o => o.server.command), ['npx', 'npx', 'uvx', 'docker', 'uvx']);
    for (const o of stdio) {
      const shown = readBack(describeInstall(o));
      assert.deepEqual(shown.argv, [o.server.command, ...(o.server.args as string[])], o.name);
      assert.deepEqual(shown.env, o.server.env ?? {}, o.name);
    }
    assert.equal(describeInstall(weather), [
      'Name in settings: weather',
      'Runs: npx --quiet -y @example/weather-mcp@1.2.3 --units metric',
      'Environment:',
      '  WEATHER_API_KEY=${input:weather-WEATHER_API_KEY} (asked for when it starts, kept secret)',
      '  WEATHER_REGION=eu-west',
    ].join('\n'));
    assert.match(describeInstall(quoting), /^Runs: uvx q==1\.0 'it'\\''s a \$HOME `x` \*; b' --glob '\*\.txt' ''$/m);
    assert.match(describeInstall(fsDoc.options[0]), /\nEnvironment: nothing added$/);
    assert.match(describeInstall(gh.options[0]), /^Runs: docker run -i --rm -e GITHUB_PERSONAL_ACCESS_TOKEN ghcr\.io\/github\/github-mcp-server:0\.13\.0$/m);
    // Remotes: the URL and the header names (never a value), the transport.
    const remote = gh.options[1];
    assert.equal(describeInstall(remote), [
      'Name in settings: github-mcp-server',
      `Connects to: ${String(remote.server.url)} (Streamable HTTP)`,
      'Headers sent: Authorization (asked for when it connects, kept secret)',
    ].join('\n'));
    const sse = fromServerJson({ name: 'a/events', remotes: [{ type: 'sse', url: 'https://events.example/sse' }] }).options[0];
    assert.deepEqual(sse.server, { type: 'sse', url: 'https://events.example/sse' });
    assert.equal(describeInstall(sse), 'Name in settings: events\nConnects to: https://events.example/sse (SSE)\nHeaders sent: none');
    assert.equal(shellQuote('a/b@1.0'), 'a/b@1.0');
    // An entry whose description would not fit a dialog whole is refused, not cut.
    const long = fromServerJson({ name: 'a/long', packages: [{ registryType: 'npm', identifier: 'x', version: '1', packageArguments: Array.from({ length: 40 }, () => ({ type: 'positional', value: 'y'.repeat(200) })) }] });
    assert.deepEqual(long.options, []);
    assert.match(long.errors[0], new RegExp(`^a/long: npm x@1: its command line and environment are longer than ${MAX_INSTALL_DESCRIPTION} characters`));
    // A remote URL that would be a dialog link or carries white space is refused.
    assert.match(fromServerJson({ name: 'a/u', remotes: [{ type: 'streamable-http', url: 'https://x.example/[a](command:y)' }] }).errors[0], /remote 1: the URL .* is not an https URL/);
  });

  it('H373: the registry pick: no $(icon) from the registry, refused entries with their reason, a note when the page cap cut entries', async () => {
    mode = 'hostile';
    const hostile = pickEntries(await searchRegistry(base));
    assert.deepEqual(hostile.installable.map(e => [e.registryName, e.label, e.description]), [['io.github.example/weather', '\\$(check) Verified Weather', 'io.github.example/weather']]);
    assert.equal(hostile.refused.length, 13);
    for (const e of hostile.refused) {
      assert.deepEqual(e.result.options, [], e.registryName);
      assert.equal(e.description, 'cannot be installed');
      assert.ok(e.refused && e.detail.startsWith(`Refused: ${e.registryName}: package 1: `), e.detail);
      assert.doesNotMatch(`${e.label} ${e.detail}`, /(^|[^\\])\$\(/, 'no icon syntax of the registry');
    }
    assert.match(hostile.refused.find(e => e.registryName === 'example.evil/docker-host')!.detail, /runtimeArguments "--privileged" is not an option/);
    assert.match(hostile.refused.find(e => e.registryName === 'example.evil/bidi-arg')!.detail, /^Refused: .*"--safe ; rm -rf ~"/, 'the bidi override is not in the pick');
    assert.equal(hostile.note, undefined);
    mode = 'ok';
    const ok = pickEntries(await searchRegistry(base));
    assert.equal(ok.installable.length, 3);
    assert.equal(ok.refused.length, 1);
    assert.match(ok.note ?? '', /^2 entries were not a server description and left out\.$/);
    mode = 'flood';
    const flood = pickEntries(await searchRegistry(base));
    assert.equal(flood.installable.length + flood.refused.length, MAX_REGISTRY_ENTRIES);
    assert.match(flood.note ?? '', /answered 53,091 entries for a page of 50; only the first 100 were read/);
  });
});
