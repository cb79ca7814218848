/**
 * H152 and H153 (issue 34) through the shipped CLI (a private copy of the production dist/cli.js): an envFile that is
 * /dev/zero, a FIFO or a 1 GiB sparse file ends `doctor` and a launch (`call`) with a clear error naming the server
 * and the setting `mcpHost.servers.<name>.envFile`, while a well-behaved bystander server with its own envFile runs;
 * and `doctor` reports an envFile's bad lines (line number, what is wrong) in its report, never the values.
 * No timing is asserted: a read that blocked would end in the test's (generous) timeout.
 *
 * The dotenv text follows the format the host documents (README, envFile): "KEY=VALUE lines, optional `export `,
 * `#` comments, single/double/back quotes".
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyShippedCli } from '../support/shipped';
import { finishCli, startCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const ECHO = path.join(ROOT, 'test/fixtures/servers/echo.mjs');
const SECRET = 'Sup3rS3cretValue';

(process.platform === 'win32' ? describe.skip : describe)('mcp-host CLI: bounded envFile reads (production build, H152, H153)', function () {
  this.timeout(120_000);
  let work: string;
  let cli: string;
  let fifo: string;
  let big: string;
  let good: string;

  before(function () {
    this.timeout(180_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-reads-'));
    cli = path.join(work, 'cli.js');
    copyShippedCli(cli);
    fifo = path.join(work, 'fifo.env');
    execFileSync('mkfifo', [fifo]);
    big = path.join(work, 'big.env');
    const fd = fs.openSync(big, 'w');
    fs.ftruncateSync(fd, 1024 * 1024 * 1024);
    fs.closeSync(fd);
    good = path.join(work, 'good.env');
    fs.writeFileSync(good, 'GREETING=hello\n');
  });
  after(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

  const server = (envFile: string) => ({ command: process.execPath, args: [ECHO], envFile, cwd: work });

  it('doctor: /dev/zero, a FIFO and a 1 GiB envFile are errors naming the setting; the bystander is OK', async () => {
    const file = path.join(work, 'hostile.json');
    fs.writeFileSync(file, JSON.stringify({ servers: { zero: server('/dev/zero'), fifo: server(fifo), big: server(big), bystander: server(good) } }));
    const r = await finishCli(startCli(cli, ['doctor', '--config', file, '--timeout', '20000'], { cwd: work }), 100_000);
    const out = r.stdout + r.stderr;
    assert.equal(r.code, 1, out);
    assert.match(out, /mcpHost\.servers\.zero\.envFile is "\/dev\/zero", which is a character device \(such as \/dev\/zero\), not a regular file; point it at a dotenv file/);
    assert.match(out, /mcpHost\.servers\.fifo\.envFile is "[^"]*fifo\.env", which is a FIFO \(named pipe\), not a regular file; point it at a dotenv file/);
    assert.match(out, /mcpHost\.servers\.big\.envFile is "[^"]*big\.env", which is 1 GiB, more than the 4 MiB an envFile may hold/);
    assert.match(out, /✓ bystander \(stdio\)/);
    assert.match(out, /1 of 4 servers OK/);
  });

  it('a launch (call) with an envFile that is /dev/zero or a FIFO ends with the error; the bystander answers', async () => {
    const file = path.join(work, 'launch.json');
    fs.writeFileSync(file, JSON.stringify({ servers: { zero: server('/dev/zero'), fifo: server(fifo), bystander: server(good) } }));
    for (const name of ['zero', 'fifo']) {
      const r = await finishCli(startCli(cli, ['call', name, 'echo', '--args', '{"text":"hi"}', '--config', file, '--timeout', '20000'], { cwd: work }), 100_000);
      assert.notEqual(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`mcpHost\\.servers\\.${name}\\.envFile is "[^"]*", which is a (character device|FIFO)`), r.stderr);
    }
    const ok = await finishCli(startCli(cli, ['call', 'bystander', 'echo', '--args', '{"text":"hi"}', '--config', file, '--timeout', '20000'], { cwd: work }), 100_000);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /hi/);
  });

  it('doctor reports an envFile\'s bad lines by number and reason in its report, never their values', async () => {
    const bad = path.join(work, 'bad.env');
    fs.writeFileSync(bad, `GOOD=1\nA="${SECRET}\n1BAD=${SECRET}\nno-equals-${SECRET}\nLATER=kept\n`);
    const file = path.join(work, 'lines.json');
    fs.writeFileSync(file, JSON.stringify({ servers: { lines: server(bad), bystander: server(good) } }));
    const r = await finishCli(startCli(cli, ['doctor', '--config', file, '--timeout', '20000'], { cwd: work }), 100_000);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /! Server "lines": mcpHost\.servers\.lines\.envFile \("[^"]*bad\.env"\) line 2: the value of A opens a double quote that is never closed/);
    assert.match(r.stdout, /line 3: the name before `=` is not a valid variable name/);
    assert.match(r.stdout, /line 4 has no `=`; write KEY=value/);
    assert.doesNotMatch(r.stdout + r.stderr, new RegExp(SECRET));
    assert.doesNotMatch(r.stdout, /Server "bystander".*envFile/);
    assert.match(r.stdout, /2 of 2 servers OK/);
  });
});
