/**
 * `mcp-host run` (issue 42, code mode; H448–H449) on the production dist/cli.js (a private copy with its vendor/
 * folder, where the QuickJS WebAssembly file ships), against the fixture echo server (test/fixtures/servers/echo.mjs):
 * a program granted `--allow echo/echo` calls the tool through the same path as `call` and prints its value; without
 * the grant (no terminal) the call is refused with the flag to pass; an endless loop is stopped with an error naming
 * the setting and the servers are stopped; usage mistakes exit 2.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useShippedCli, type CliRun } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');

describe('mcp-host run: code mode on the command line (dist/cli.js, echo.mjs)', function () {
  this.timeout(120_000);
  const ws = useShippedCli('mcp-host-cli-run-', ({ serverCwd }) => ({ echo: { type: 'stdio', command: process.execPath, args: [ECHO], cwd: serverCwd } }), { setupMs: 300_000 });
  const program = (name: string, source: string): string => {
    const file = path.join(ws.dir, name);
    fs.writeFileSync(file, source);
    return file;
  };
  const cli = (args: string[]): Promise<CliRun> => ws.run(args);

  const good = () => program('good.js', 'const a = await mcp.echo.echo({ text: "hi" }); const b = await mcp.echo.echo({ text: a + "!" }); console.log("got", b); return { a, b };');

  it('H448: a program granted --allow echo/echo calls the tool and prints its value; console lines go to stderr', async () => {
    const r = await cli(['run', 'echo', good(), '--allow', 'echo/echo']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { a: 'hi', b: 'hi!' });
    assert.match(r.stderr, /^got hi!$/m);
    const j = await cli(['run', good(), '--allow', 'echo/*', '--json']);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(JSON.parse(j.stdout), { value: { a: 'hi', b: 'hi!' }, console: ['got hi!'], calls: [{ server: 'echo', tool: 'echo', ok: true }, { server: 'echo', tool: 'echo', ok: true }] });
  });

  it('H448: without --allow and without a terminal a tool call is refused with the flag to pass; the granted run works', async () => {
    const r = await cli(['run', 'echo', good()]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /tool "echo" on server "echo" is not allowed for this program; grant it with --allow echo\/echo/);
    const other = await cli(['run', 'echo', good(), '--allow', 'echo/other']);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /--allow echo\/echo/);
    const ok = await cli(['run', 'echo', good(), '--allow', 'echo/echo']);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('H449: an endless loop and an escape attempt are stopped with a clear error and the servers stop; the bystander works', async () => {
    const loop = await cli(['run', 'echo', program('loop.js', 'await mcp.echo.echo({ text: "x" }); for (;;) {}'), '--allow', 'echo/echo']);
    assert.equal(loop.code, 1);
    assert.match(loop.stderr, /loop\.js stopped: The program ran 50 ms without awaiting and was stopped \(setting mcpHost\.codeModeLimits\.sliceMs\)/);
    const escape = await cli(['run', 'echo', program('escape.js', 'return [typeof require, typeof process, (function(){}).constructor("return typeof process")()];'), '--allow', 'echo/echo']);
    assert.equal(escape.code, 0, escape.stderr);
    assert.deepEqual(JSON.parse(escape.stdout), ['undefined', 'undefined', 'undefined']);
    const ok = await cli(['run', 'echo', good(), '--allow', 'echo/echo']);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('H449: usage mistakes exit 2 naming the fix: no program, an unreadable file, a malformed --allow, an unknown server', async () => {
    const none = await cli(['run']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /run needs a program: mcp-host run \[<server>…\] <file\.js>/);
    const missing = await cli(['run', path.join(ws.dir, 'nope.js')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read the program .*nope\.js/);
    const bad = await cli(['run', good(), '--allow', 'echo']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--allow echo: give a server and a tool as server\/tool/);
    const unknown = await cli(['run', 'ghost', good()]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no server named "ghost"/);
  });
});
