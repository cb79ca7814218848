/**
 * The bundles loaded on first use (esbuild.mjs, LAZY: the gateway's MCP server, the RE2 engine, the SDK's default
 * JSON Schema validator), on the shipped artefact: each one dist/extension.js or dist/cli.js requires is inside the
 * VSIX; the CLI runs a server whose schemas need none of them without them, and loads RE2 from next to itself for
 * the first pattern (a pattern RE2 refuses is still refused, a well-behaved tool on the same server still works).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI_LAZY_BUNDLES, copyShippedCli, shippedCliPath } from '../support/shipped';
import { assertNoProcessesIn, runCli, type CliRun } from '../support/cli';
import { fixtureServer } from '../fixtures/servers/harness';

const ROOT = path.resolve(__dirname, '../../..');

/** The `./x.js` files a bundle requires at run time (esbuild leaves them as written). */
function lazyRequires(bundle: string): string[] {
  return [...new Set([...fs.readFileSync(bundle, 'utf8').matchAll(/require\("\.\/([\w-]+\.js)"\)/g)].map(m => m[1]))].sort();
}

describe('bundles loaded on first use (production dist/, as in the VSIX)', function () {
  this.timeout(120_000);
  let work: string;
  let serverCwd: string;
  let cfg: string;
  const cli = (args: string[]): Promise<CliRun> => runCli(path.join(work, 'cli.js'), [...args, '--config', cfg], { cwd: work });
  const ok = (r: CliRun) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);

  before(() => {
    shippedCliPath(); // rebuilds the VSIX when stale
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-lazy-'));
    serverCwd = path.join(work, 'servers');
    fs.mkdirSync(serverCwd);
    cfg = path.join(work, 'mcp.json');
    fs.writeFileSync(cfg, JSON.stringify({ servers: {
      echo: { type: 'stdio', command: process.execPath, args: [fixtureServer('echo.mjs')], cwd: serverCwd },
      schemas: { type: 'stdio', command: process.execPath, args: [fixtureServer('hostile-schema.mjs')], cwd: serverCwd },
    } }));
  });
  afterEach(async () => { await assertNoProcessesIn(serverCwd); });
  after(() => { fs.rmSync(work, { recursive: true, force: true }); });

  it('every bundle extension.js and cli.js load on first use is in the VSIX, next to them', () => {
    const unpacked = path.join(process.env.VSCODE_TEST_DIR ? path.resolve(process.env.VSCODE_TEST_DIR) : path.join(ROOT, '.vscode-test'), 'shipped/extension/dist');
    const ext = lazyRequires(path.join(unpacked, 'extension.js'));
    const cliLazy = lazyRequires(path.join(unpacked, 'cli.js'));
    assert.deepEqual(ext, ['gateway-server.js', 're2.js', 'sdk-ajv.js']);
    assert.deepEqual(cliLazy, [...CLI_LAZY_BUNDLES].sort());
    for (const f of [...ext, ...cliLazy]) {
      assert.ok(fs.existsSync(path.join(unpacked, f)), `dist/${f} is not in the VSIX`);
      assert.ok(fs.readFileSync(path.join(unpacked, f)).equals(fs.readFileSync(path.join(ROOT, 'dist', f))), `dist/${f} differs from the VSIX's`);
    }
  });

  it('the CLI inspects and calls a server whose schemas have no pattern without any of them (they load on first use only)', async () => {
    fs.copyFileSync(shippedCliPath(), path.join(work, 'cli.js'));
    for (const f of CLI_LAZY_BUNDLES) fs.rmSync(path.join(work, f), { force: true });
    const i = await cli(['inspect', 'echo']);
    ok(i);
    assert.ok(JSON.parse(i.stdout).tools.length > 0);
    const c = await cli(['call', 'echo', 'echo', '--args', '{"text":"no engine needed"}']);
    ok(c);
    assert.match(c.stdout, /no engine needed/);
  });

  it('with RE2 next to it, the CLI validates patterns on RE2 and still refuses a backreference; echo on the same server works', async () => {
    copyShippedCli(path.join(work, 'cli.js'));
    const good = await cli(['call', 'schemas', 'redos', '--args', '{"x":"aaaa"}']);
    ok(good);
    // The redos pattern on a backtracking engine would hang here; on RE2 the mismatch is immediate.
    const bad = await cli(['call', 'schemas', 'redos', '--args', `{"x":"${'a'.repeat(40)}!"}`]);
    assert.equal(bad.code, 2, `${bad.stdout}\n${bad.stderr}`);
    assert.match(bad.stderr, /`arguments\.x` must match pattern "\^\(a\+\)\+\$"/);
    const backref = await cli(['call', 'schemas', 'backref', '--args', '{"word":"a a"}']);
    assert.notEqual(backref.code, 0);
    assert.match(backref.stdout + backref.stderr, /backreference/);
    const echo = await cli(['call', 'schemas', 'echo', '--args', '{"text":"bystander"}']);
    ok(echo);
    assert.match(echo.stdout, /bystander/);
  });
});
