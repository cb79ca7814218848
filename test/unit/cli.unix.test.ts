/**
 * The shipped CLI (a private copy of the production dist/cli.js, test/support/shipped.ts) as a Unix tool and
 * as an output of the one redaction path: no secret in any line of its own (doctor, errors, logs), while a tool
 * result or listing is shown as the server sent it (H402, docs/REDACTION.md); control
 * characters from servers escaped in its own lines; a closed stdout or stderr and SIGTERM end it quietly with
 * its servers stopped; launch errors name the setting; envFile problems, a server named `__proto__` and a
 * name written twice are reported. Every server runs with its cwd in a fresh folder, and no process may be
 * left with its cwd there.
 */
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyShippedCli } from '../support/shipped';
import { assertNoProcessesIn, finishCli, processesIn, startCli } from '../support/cli';
import { until } from '../support/wait';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'test/fixtures/servers');
let CLI = '';

function start(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return startCli(CLI, args, { cwd, env });
}

const finish = finishCli;


const INPUT = 'in-"S3cr3t"\\val';
const ENVFILE = 'ef-T0kenAbcdef';
const ENVARG = 'env-ArgSecret77';
const QUERY = 'qry-K3yZzz9';
const NEEDLES = ['S3cr3t', 'T0kenAbc', 'ArgSecret', 'K3yZzz'];

describe('mcp-host CLI as a Unix tool (production build)', function () {
  this.timeout(120_000);
  let work: string;
  let serverCwd: string;

  before(function () {
    this.timeout(180_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-unix-'));
    CLI = path.join(work, 'cli.js');
    copyShippedCli(CLI); // the production bundle, as in the VSIX (test/support/shipped.ts)
    serverCwd = path.join(work, 'servers');
    fs.mkdirSync(serverCwd);
  });

  afterEach(async () => {
    await assertNoProcessesIn(serverCwd);
  });
  after(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

  function config(name: string, servers: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
    const file = path.join(work, name);
    fs.writeFileSync(file, JSON.stringify({ ...extra, servers }, null, 2));
    return file;
  }

  function secretsConfig(): string {
    const envFile = path.join(work, 'secrets.env');
    fs.writeFileSync(envFile, `API_TOKEN=${ENVFILE}\n`);
    return config('secrets.json', {
      leaky: {
        command: process.execPath,
        args: [path.join(FIXTURES, 'leaky.mjs'), '--secret-env', 'API_TOKEN,GREETING', '${input:pw}', '${env:MY_ARG}'],
        env: { GREETING: '${input:pw}' }, envFile, cwd: serverCwd,
      },
      remote: { type: 'http', url: `http://127.0.0.1:9/mcp?key=${QUERY}&v=1` },
    }, { inputs: [{ id: 'pw', type: 'promptString', password: true }] });
  }
  const secretEnv = { MCP_HOST_INPUT_PW: INPUT, MY_ARG: ENVARG };

  function assertNoSecret(what: string, text: string): void {
    for (const n of NEEDLES) assert.ok(!text.includes(n), `${what} shows ${n}: …${text.slice(Math.max(0, text.indexOf(n) - 100), text.indexOf(n) + 40)}…`);
  }

  it('H402: doctor, errors and --verbose logs show no secret; inspect and call results are shown as sent; control characters in its own lines escaped', async () => {
    const cfg = secretsConfig();
    const doctor = await finish(start(['doctor', '--config', cfg, '--verbose', '--timeout', '10000'], work, secretEnv));
    assert.equal(doctor.code, 1, doctor.stdout + doctor.stderr);
    assert.match(doctor.stdout, /✓ leaky \(stdio\)/);
    assert.match(doctor.stdout, /✗ remote \(http\) http:\/\/127\.0\.0\.1:9\/mcp\?key=\*\*\*&v=\*\*\*/);
    assert.match(doctor.stdout, /server leaky\\x1b\[31m-red\\x1b\[0m/, 'serverInfo control characters escaped');
    assert.ok(!/\x1b/.test(doctor.stdout + doctor.stderr), 'no raw ESC in its own lines');
    assert.match(doctor.stderr, /leaky: \\x1b\[2Jcleared/, 'stderr lines escaped in --verbose');
    assert.match(doctor.stderr, /OVERWRITTEN \\x07 bell/);
    assertNoSecret('doctor', doctor.stdout + doctor.stderr);

    // H402: what the user asked to see is what the server said (it was given these values and chose to send them
    // back); the host's own lines around it show none of them.
    const inspect = await finish(start(['inspect', 'leaky', '--config', cfg], work, secretEnv));
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /"description": "returns [^*]/);
    assert.ok(inspect.stdout.includes('ArgSecret77'), 'the listing as the server sent it');
    assertNoSecret('inspect (its own lines)', inspect.stderr);

    const leak = await finish(start(['call', 'leaky', 'leak', '--config', cfg], work, secretEnv));
    assert.equal(leak.code, 0, leak.stderr);
    assert.match(leak.stdout, /leaked: [^*]/);
    assert.ok(leak.stdout.includes('ArgSecret77'), 'the tool result as the server sent it');
    assertNoSecret('call leak (its own lines)', leak.stderr);

    const fail = await finish(start(['call', 'leaky', 'fail', '--config', cfg], work, secretEnv));
    assert.equal(fail.code, 1);
    assert.match(fail.stderr, /bad credentials \*\*\*/);
    assertNoSecret('call fail', fail.stdout + fail.stderr);
  });

  it('a closed stdout (| head) ends it quietly with exit 141 and its servers stopped', async () => {
    const cfg = secretsConfig();
    const child = start(['call', 'leaky', 'long', '--config', cfg], work, secretEnv);
    child.stdout?.destroy();
    const r = await finish(child);
    assert.equal(r.code, 141, r.stderr);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, 'no stack trace');
  });

  it('a closed stderr during a flood of --verbose lines ends it, with its servers stopped', async () => {
    const cfg = config('flood.json', { flood: { command: process.execPath, args: ['-e', "setInterval(() => console.error('x'.repeat(100)), 1)"], cwd: serverCwd } });
    const child = start(['doctor', '--verbose', '--config', cfg, '--timeout', '60000'], work);
    await new Promise<void>(resolve => child.stderr?.once('data', () => resolve()));
    child.stderr?.destroy();
    const r = await finish(child, 30_000);
    assert.equal(r.code, 141);
  });

  it('SIGTERM while a server starts ends it (143) and stops the server', async () => {
    const cfg = config('hang.json', { hang: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'], cwd: serverCwd } });
    const child = start(['doctor', '--config', cfg, '--timeout', '60000'], work);
    const done = finish(child, 30_000);
    await until(() => processesIn(serverCwd).length > 0, 'the server process', 20_000);
    child.kill('SIGTERM');
    const r = await done;
    assert.equal(r.code, 143, r.stderr);
    assert.match(r.stderr, /SIGTERM, stopping servers/);
  });

  it('launch errors name the setting; envFile problems are reported and later lines kept; __proto__ and duplicate names are data', async () => {
    const dir = path.join(work, 'a-directory');
    fs.mkdirSync(dir, { recursive: true });
    const plain = path.join(work, 'not-executable.txt');
    fs.writeFileSync(plain, 'hello');
    const envFile = path.join(work, 'bad.env');
    fs.writeFileSync(envFile, 'A="never closed\nLATER=kept-after-bad-line\n');
    const show = (v: string) => ({ command: process.execPath, args: ['-e', `process.stderr.write('seen ' + process.env.${v}); process.exit(3)`], cwd: serverCwd });
    const file = path.join(work, 'bad.json');
    fs.writeFileSync(file, `{
      "servers": {
        "__proto__": ${JSON.stringify(show('PATH'))},
        "nocwd": { "command": ${JSON.stringify(process.execPath)}, "cwd": ${JSON.stringify(path.join(work, 'missing'))} },
        "dir": { "command": ${JSON.stringify(dir)}, "cwd": ${JSON.stringify(serverCwd)} },
        "noexec": { "command": ${JSON.stringify(plain)}, "cwd": ${JSON.stringify(serverCwd)} },
        "nul": { "command": ${JSON.stringify(process.execPath)}, "env": { "A": "x\\u0000y" }, "cwd": ${JSON.stringify(serverCwd)} },
        "big": { "command": ${JSON.stringify(process.execPath)}, "env": { "BIG": "${'b'.repeat(200 * 1024)}" }, "cwd": ${JSON.stringify(serverCwd)} },
        "envfile": ${JSON.stringify({ ...show('LATER'), envFile })},
        "twice": ${JSON.stringify(show('PATH'))},
        "twice": ${JSON.stringify(show('HOME'))}
      }
    }`);
    const r = await finish(start(['doctor', '--config', file, '--timeout', '10000'], work));
    const out = r.stdout + r.stderr;
    assert.equal(r.code, 1, out);
    assert.match(out, /"servers\.twice" is written twice/);
    assert.match(out, /✗ __proto__ \(stdio\)/);
    assert.match(out, /`cwd` is "[^"]*missing", which does not exist/);
    assert.match(out, /a-directory is a directory, not a program; set `command`/);
    assert.match(out, /not-executable\.txt exists but is not executable/);
    assert.match(out, /the value of `env\.A` contains a NUL byte/);
    assert.match(out, /the value of `env\.BIG` is \d+(\.\d)? KiB, over the 128 KiB/);
    assert.match(out, /line 1: the value of A opens a double quote that is never closed/);
    assert.match(out, /seen kept-after-bad-line/);
    assert.match(out, /0 of 8 servers OK/);
  });
});
