/**
 * The shipped CLI (production dist/cli.js) against a 2026-07-28 server (test/fixtures/servers/modern.mjs, on the
 * SDK v2 server package) over stdio and Streamable HTTP: doctor and inspect report the modern era and its protocol
 * version; every page of every list; call, read, prompt; roots through an input_required round; the x-mcp-header
 * header. Every server runs with its cwd in this test's folder: nothing may be left running there.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { useShippedCli, type CliRun } from '../support/cli';
import { fixtureServer, startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';

type Kind = 'stdio' | 'http';

for (const kind of ['stdio', 'http'] as Kind[]) {
  describe(`mcp-host CLI against a 2026-07-28 server (modern.mjs, ${kind}; production dist/cli.js)`, function () {
    this.timeout(120_000);
    let fixture: HttpFixture | undefined;
    const ws = useShippedCli('mcp-host-cli-modern-', async ({ serverCwd }) => {
      if (kind === 'http') {
        fixture = await startHttpFixture(['--http'], 'modern.mjs');
        return { modern: { type: 'http', url: fixture.url } };
      }
      return { modern: { type: 'stdio', command: process.execPath, args: [fixtureServer('modern.mjs')], cwd: serverCwd } };
    }, { env: { MCP_HOST_SIGN_IN: 'never' } });
    after(async () => { await fixture?.stop(); });

    const cli = (args: string[]): Promise<CliRun> => ws.run(args);
    const ok = (r: CliRun) => assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);

    it('H38/H42/H83: doctor reports the server with protocol 2026-07-28, no era name (exit 0)', async () => {
      const r = await cli(['doctor']);
      ok(r);
      assert.match(r.stdout, new RegExp(`✓ modern \\(${kind}\\)`));
      assert.match(r.stdout, /server fixture-modern 2\.0\.0, MCP 2026-07-28\n/);
      assert.doesNotMatch(r.stdout, /\b(legacy|modern) era\b/);
      assert.match(r.stdout, /19 tools, 8 prompts, 8 resources, 8 templates/);
      assert.match(r.stdout, /1 of 1 servers? OK/);
    });

    it('H20/H38: inspect prints the era, protocol version and every page of every list as JSON', async () => {
      const r = await cli(['inspect', 'modern']);
      ok(r);
      const j = JSON.parse(r.stdout);
      assert.equal(j.era, 'modern');
      assert.equal(j.protocolVersion, '2026-07-28');
      assert.equal(j.serverInfo.name, 'fixture-modern');
      assert.equal(j.tools.length, 19);
      assert.equal(j.prompts.length, 8);
      assert.equal(j.resources.length, 8);
      assert.equal(j.resourceTemplates.length, 8);
    });

    it('H24/H22/H23: call, read and prompt work', async () => {
      const c = await cli(['call', 'modern', 'echo', '--args', '{"text":"hello from the cli"}']);
      ok(c);
      assert.match(c.stdout, /hello from the cli/);
      const rd = await cli(['read', 'modern', 'modern://items/9', '--json']);
      ok(rd);
      assert.equal(JSON.parse(rd.stdout).contents[0].text, '{"id":"9"}');
      const p = await cli(['prompt', 'modern', 'greet', '--arg', 'name=Ada']);
      ok(p);
      assert.match(p.stdout, /\[user\][\s\S]*Hello Ada/);
    });

    it('H39/H16: a roots input_required round is answered with the --root folder', async () => {
      const r = await cli(['call', 'modern', 'ask_roots', '--root', ws.serverCwd, '--json']);
      ok(r);
      assert.deepEqual(JSON.parse(r.stdout).structuredContent, { roots: [pathToFileURL(fs.realpathSync(ws.serverCwd)).href] });
    });

    it(`H38: the x-mcp-header parameter ${kind === 'http' ? 'arrives as Mcp-Param-Region' : 'needs no header over stdio'}`, async () => {
      const r = await cli(['call', 'modern', 'header_echo', '--args', '{"region":"ap-south"}', '--json']);
      ok(r);
      const got = JSON.parse(r.stdout).structuredContent;
      assert.equal(got.region, 'ap-south');
      if (kind === 'http') assert.equal(got.headers.region, 'ap-south');
      else assert.equal(got.headers, null);
    });
  });
}
