/**
 * The bundles loaded on first use (esbuild.mjs, LAZY: the gateway's MCP server, the RE2 engine, ajv, the SDK's default
 * JSON Schema validator, ext-tasks, jose, the MCP Apps bridge), on the shipped artefact: each one dist/extension.js or
 * dist/cli.js loads is inside the VSIX; the CLI runs a server whose schemas need none of them without them, and
 * loads RE2 from next to itself for the first pattern (a pattern RE2 refuses is still refused, a well-behaved tool
 * on the same server still works). dist/ext-tasks.js runs on the SDK and zod handed to it (src/mcp/server/sdkHandover.ts):
 * no second copy of either inside it, and its errors are the host's `ProtocolError`. (The bridge: apps.bridge.test.ts.)
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI_LAZY_BUNDLES, copyShippedCli, shippedCliPath } from '../support/shipped';
import { assertNoProcessesIn, runCli, type CliRun } from '../support/cli';
import { fixtureServer } from '../fixtures/servers/harness';
import * as sdk from '@modelcontextprotocol/client';
import { EXT_TASKS_ZOD, SDK_HANDOVER, extTasksZod } from '../../src/mcp/server/sdkHandover';

const ROOT = path.resolve(__dirname, '../../..');

/**
 * The `./x.js` files a bundle requires or imports at run time (esbuild leaves them as written), and the worker
 * bundles it starts from next to itself (esbuild.mjs WORKERS: a `"<name>-worker.js"` file name).
 */
function lazyRequires(bundle: string): string[] {
  return [...new Set([...fs.readFileSync(bundle, 'utf8').matchAll(/(?:require|import)\("\.\/([\w-]+\.js)"\)|"([\w-]+-worker\.js)"/g)].map(m => m[1] ?? m[2]))].sort();
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
    assert.deepEqual(ext, ['ajv.js', 'app-bridge.js', 'codemode.js', 'ext-tasks.js', 'gateway-server.js', 'jose.js', 're2.js', 'sdk-ajv.js']);
    assert.deepEqual(cliLazy, [...CLI_LAZY_BUNDLES].sort());
    // Code mode's engine (dist/codemode.js) starts the interpreter's worker from next to itself (issue 41).
    const engine = lazyRequires(path.join(unpacked, 'codemode.js'));
    assert.deepEqual(engine, ['codemode-worker.js']);
    for (const f of [...ext, ...cliLazy, ...engine]) {
      assert.ok(fs.existsSync(path.join(unpacked, f)), `dist/${f} is not in the VSIX`);
      assert.ok(fs.readFileSync(path.join(unpacked, f)).equals(fs.readFileSync(path.join(ROOT, 'dist', f))), `dist/${f} differs from the VSIX's`);
    }
  });

  it('the CLI inspects and calls a server whose schemas have no pattern with only the schema compiler (ajv.js) next to it: the rest load on first use only', async () => {
    fs.copyFileSync(shippedCliPath(), path.join(work, 'cli.js'));
    for (const f of CLI_LAZY_BUNDLES) fs.rmSync(path.join(work, f), { force: true });
    fs.copyFileSync(path.join(path.dirname(shippedCliPath()), 'ajv.js'), path.join(work, 'ajv.js'));
    const i = await cli(['inspect', 'echo']);
    ok(i);
    assert.ok(JSON.parse(i.stdout).tools.length > 0);
    const c = await cli(['call', 'echo', 'echo', '--args', '{"text":"no engine needed"}']);
    ok(c);
    assert.match(c.stdout, /no engine needed/);
  });

  it('H648: without code mode\'s worker next to it, `mcp-host run` fails naming the missing file and the fix; the CLI\'s other commands work', async () => {
    fs.copyFileSync(shippedCliPath(), path.join(work, 'cli.js'));
    for (const f of CLI_LAZY_BUNDLES) fs.rmSync(path.join(work, f), { force: true });
    fs.copyFileSync(path.join(path.dirname(shippedCliPath()), 'ajv.js'), path.join(work, 'ajv.js'));
    fs.writeFileSync(path.join(work, 'p.js'), 'return await mcp.echo.echo({ text: "hi" });');
    const r = await cli(['run', 'echo', path.join(work, 'p.js'), '--allow', 'echo/echo']);
    assert.equal(r.code, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /code mode's engine is missing: .*codemode-worker\.js does not exist \(it ships next to the extension's and the CLI's bundles; reinstall mcp-host\)/);
    const c = await cli(['call', 'echo', 'echo', '--args', '{"text":"bystander"}']);
    ok(c);
    assert.match(c.stdout, /bystander/);
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

describe('dist/ext-tasks.js runs on the host\'s SDK and zod (production build, H151)', function () {
  this.timeout(120_000);
  let dist: string;
  type ExtTasksModule = typeof import('../../src/mcp/server/extTasksModule');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const load = (): ExtTasksModule => require(path.join(dist, 'ext-tasks.js')) as ExtTasksModule;

  before(() => { dist = path.dirname(shippedCliPath()); });

  it('carries no second copy of the SDK (its protocol code is only in extension.js), only the handed-over names', () => {
    const lazy = fs.readFileSync(path.join(dist, 'ext-tasks.js'), 'utf8');
    const main = fs.readFileSync(path.join(dist, 'extension.js'), 'utf8');
    // Strings of the SDK's Protocol/Client code that ext-tasks itself never spells.
    for (const sdkText of ['notifications/cancelled', 'server/discover', 'Connection closed']) {
      assert.ok(main.includes(sdkText), `extension.js should hold the SDK's "${sdkText}"`);
      assert.ok(!lazy.includes(sdkText), `ext-tasks.js holds the SDK's "${sdkText}": a second copy of the SDK`);
    }
    // Nor of zod (its error messages live in zod's core, which only extension.js holds).
    for (const zodText of ['Invalid input: expected', 'Too big: expected']) {
      assert.ok(main.includes(zodText), `extension.js should hold zod's "${zodText}"`);
      assert.ok(!lazy.includes(zodText), `ext-tasks.js holds zod's "${zodText}": a second copy of zod`);
    }
    // ext-tasks is out of extension.js.
    assert.ok(lazy.includes('An ext-tasks adapter is already active for this Client'));
    assert.ok(!main.includes('An ext-tasks adapter is already active for this Client'));
    // esbuild.mjs builds the same names into the bundle's stand-in as sdkHandover.ts checks.
    const esbuildText = fs.readFileSync(path.join(ROOT, 'esbuild.mjs'), 'utf8');
    const handover = esbuildText.slice(esbuildText.indexOf('const SDK_HANDOVER = {'), esbuildText.indexOf('const BRIDGE_HANDOVER = {'));
    assert.ok(handover.includes(`'@modelcontextprotocol/client': [${SDK_HANDOVER.map(n => `'${n}'`).join(', ')}]`), handover);
    assert.ok(handover.includes(`members: { z: [${EXT_TASKS_ZOD.map(n => `'${n}'`).join(', ')}] }`), handover);
  });

  it('ext-tasks calls only the zod functions the host hands over', () => {
    const dir = path.join(ROOT, 'node_modules/@modelcontextprotocol/ext-tasks/dist');
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter(f => f.endsWith('.js')).map(f => fs.readFileSync(path.join(dir, f), 'utf8'));
    const zodFiles = files.filter(t => /from\s*["']zod\/v4["']/.test(t));
    assert.ok(zodFiles.length > 0);
    for (const text of zodFiles) {
      const local = /import\s*\*\s*as\s+([\w$]+)\s+from\s*["']zod\/v4["']/.exec(text)?.[1] ?? /import\s*\{\s*z(?:\s+as\s+([\w$]+))?\s*\}\s*from\s*["']zod\/v4["']/.exec(text)?.[1] ?? 'z';
      const used = new Set([...text.matchAll(new RegExp(`(?<![\\w$.])${local.replace(/\$/g, '\\$')}\\.([\\w$]+)`, 'g'))].map(m => m[1]));
      assert.ok(used.size > 0);
      for (const n of used) assert.ok((EXT_TASKS_ZOD as readonly string[]).includes(n), `ext-tasks calls z.${n}, not in EXT_TASKS_ZOD`);
    }
  });

  it('an error thrown inside it is the host\'s ProtocolError; a Client the host made is the one it adapts', async () => {
    const tasks = await load().loadExtTasks({ Client: sdk.Client, ProtocolError: sdk.ProtocolError, z: extTasksZod() });
    const client = new sdk.Client({ name: 'lazy-test', version: '1.0.0' });
    const port = tasks.createSessionPortFromClient(client as never, 'lazy-test');
    try {
      const handler = client.fallbackRequestHandler as unknown as (r: unknown, c: unknown) => Promise<unknown>;
      const err = await handler({ jsonrpc: '2.0', id: 1, method: 'x/unknown' }, {}).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof sdk.ProtocolError, `not the host's ProtocolError: ${String(err)}`);
      assert.equal(err.code, -32601);
      // Bystander: the adapter still refuses a second adapter on the same Client (its own state, not the SDK's).
      assert.throws(() => tasks.createSessionPortFromClient(client as never, 'again'), /already active for this Client/);
    } finally {
      (port as unknown as Disposable)[Symbol.dispose]();
    }
  });

  it('refuses an SDK handover without the names it needs (nothing runs on undefined)', async () => {
    await assert.rejects(load().loadExtTasks({ Client: sdk.Client, z: extTasksZod() } as never), /the host handed to a lazy bundle has no ProtocolError/);
    await assert.rejects(load().loadExtTasks({ Client: sdk.Client, ProtocolError: sdk.ProtocolError, z: { ...extTasksZod(), strictObject: undefined } } as never),
      /the host handed to a lazy bundle has no z\.strictObject/);
    // Bystander: a proper handover after a refused one still loads.
    const tasks = await load().loadExtTasks({ Client: sdk.Client, ProtocolError: sdk.ProtocolError, z: extTasksZod() });
    assert.equal(typeof tasks.createTaskSessionFromClient, 'function');
  });
});
