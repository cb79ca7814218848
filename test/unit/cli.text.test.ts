/**
 * Server text in the terminal (threat model: "server text is data in every renderer"): the production `dist/cli.js`
 * against `hostile.mjs --hostile-text`, whose tool, prompt and resource carry ESC[2J, OSC 0 (window title), OSC 52
 * (clipboard write) and C1 characters, next to the plain `echo` tool and `plain` prompt of the same server, whose
 * output must stay byte for byte as it was. `--raw` gives the bytes as sent; `--json` and `inspect` carry no raw
 * control character; ajv's warning about an unknown `format` is attributed to the server and tool, escaped, and only
 * commands that use the tool's schema compile it (doctor and `call formats`, not inspect or another tool's call).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { runCli, useShippedCli, type CliRun } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile.mjs');
/** What the fixture sends (hostile.mjs ANSI_TEXT). */
const ANSI_TEXT = 'before \x1b[2J\x1b[H cleared \x1b]0;pwned-title\x07 titled \x1b]52;c;ZXZpbA==\x07 clipboard \u009b31m c1-red \u0085 nel end';
/** How the CLI shows it by default. */
const ANSI_SHOWN = 'before \\x1b[2J\\x1b[H cleared \\x1b]0;pwned-title\\x07 titled \\x1b]52;c;ZXZpbA==\\x07 clipboard \\x9b31m c1-red \\x85 nel end';
/** Any C0 control but newline and tab, ESC, DEL, any C1 control, U+2028/9. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/;

describe('mcp-host CLI: server text in the terminal (dist/cli.js, hostile.mjs --hostile-text)', function () {
  this.timeout(120_000);
  const ws = useShippedCli('mcp-host-cli-text-', ({ serverCwd }) => ({
    hostile: { type: 'stdio', command: process.execPath, args: [HOSTILE, '--hostile-text'], cwd: serverCwd },
  }), { setupMs: 300_000 });
  const cli = (args: string[]): Promise<CliRun> => ws.run(args);

  it('call: ESC, OSC title and clipboard writes and C1 characters in a tool result are shown escaped; the plain tool is unchanged', async () => {
    const r = await cli(['call', 'hostile', 'ansi']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${ANSI_SHOWN}\n`);
    assert.ok(!RAW_CONTROL.test(r.stdout + r.stderr), JSON.stringify(r.stdout + r.stderr));
    const plain = await cli(['call', 'hostile', 'echo', '--args', '{"text":"plain text\\twith a tab\\nand a second line"}']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, 'plain text\twith a tab\nand a second line\n');
  });

  it('call --raw prints the bytes as the server sent them', async () => {
    const r = await cli(['call', 'hostile', 'ansi', '--raw']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${ANSI_TEXT}\n`);
  });

  it('read and prompt escape resource and prompt content the same way (and --raw gives the bytes)', async () => {
    const read = await cli(['read', 'hostile', 'hostile://ansi']);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, `${ANSI_SHOWN}\n`);
    const raw = await cli(['read', 'hostile', 'hostile://ansi', '--raw']);
    assert.equal(raw.stdout, `${ANSI_TEXT}\n`);
    const prompt = await cli(['prompt', 'hostile', 'ansi']);
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.ok(prompt.stdout.includes(ANSI_SHOWN), prompt.stdout);
    assert.ok(!RAW_CONTROL.test(prompt.stdout), JSON.stringify(prompt.stdout));
    const plain = await cli(['prompt', 'hostile', 'plain']);
    assert.equal(plain.stdout, '# a prompt\n[user]\n  This is the plain prompt.\n');
  });

  it('--json and inspect carry no raw control character (C1 and U+2028/9 as \\u escapes) and parse to the same data', async () => {
    const r = await cli(['call', 'hostile', 'ansi', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!RAW_CONTROL.test(r.stdout), JSON.stringify(r.stdout));
    assert.ok(r.stdout.includes('\\u009b31m'), r.stdout);
    assert.equal(JSON.parse(r.stdout).content[0].text, ANSI_TEXT);
    const inspect = await cli(['inspect', 'hostile']);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.ok(!RAW_CONTROL.test(inspect.stdout), JSON.stringify(inspect.stdout.match(RAW_CONTROL)));
    assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(inspect.stdout), 'bidi overrides are \\u escapes in JSON');
    assert.ok(inspect.stdout.includes('evil\\"\\u202e\\n\\n[run it]'), 'the hostile tool name, escaped');
    const report = JSON.parse(inspect.stdout) as { tools: { name: string }[]; prompts: { name: string }[] };
    assert.ok(report.tools.some(t => t.name.startsWith('evil"\u202e\n\n[run it]')), 'the hostile tool name parses back as sent');
    assert.ok(report.tools.some(t => t.name === 'echo'));
  });

  it('ajv\'s warning about an unknown format names the server and the tool, escaped, and only once per tool', async () => {
    const r = await cli(['call', 'hostile', 'formats', '--args', '{"a":"x"}']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'formats ok\n');
    assert.ok(!RAW_CONTROL.test(r.stderr), JSON.stringify(r.stderr));
    const lines = r.stderr.split('\n').filter(l => l.includes('unknown format'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^mcp-host: warning: server "hostile": tool `formats` inputSchema: unknown format "no-such\\x1b\[2J-format" ignored in schema at path "#\/properties\/a"$/);
  });

  it('only the schemas a command uses are compiled: inspect and a call of another tool say nothing about `formats`; doctor still does', async () => {
    const inspect = await cli(['inspect', 'hostile']);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.ok((JSON.parse(inspect.stdout) as { tools: { name: string }[] }).tools.some(t => t.name === 'formats'), 'formats is listed');
    assert.doesNotMatch(inspect.stderr, /unknown format/);
    const echo = await cli(['call', 'hostile', 'echo', '--args', '{"text":"bystander"}']);
    assert.equal(echo.code, 0, echo.stderr);
    assert.equal(echo.stdout, 'bystander\n');
    assert.doesNotMatch(echo.stderr, /unknown format/);
    const doctor = await cli(['doctor']);
    assert.equal(doctor.code, 0, doctor.stderr);
    assert.match(doctor.stderr, /mcp-host: warning: server "hostile": tool `formats` inputSchema: unknown format/);
  });

  it('mcp-host call --help documents --raw', async () => {
    const r = await runCli(ws.cli, ['call', '--help'], { cwd: ws.dir });
    assert.match(r.stdout, /--raw {11}print the server's text as sent/);
  });
});
