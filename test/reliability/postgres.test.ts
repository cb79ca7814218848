/**
 * A real third-party server on a real service (issue 37): `@modelcontextprotocol/server-postgres` 0.6.2 (a pinned
 * devDependency) against a PostgreSQL cluster this test makes with Debian's binaries (/usr/lib/postgresql/<v>/bin) in
 * a temporary folder, listening on 127.0.0.1 only (its unix socket in that folder), run by the production CLI
 * (dist/cli.js, test/support/shipped.ts). initdb and postgres refuse to run as root: as root they run as `nobody`
 * (setpriv, so the pid is postgres itself). The cluster's whole process tree is stopped in after().
 * - H402: `call query` prints a row with prose that looks like a credential ("the basic built-in router",
 *   "Bearer-like words") and a credential-shaped value exactly as the database holds them, with and without --raw:
 *   redaction is for the host's own lines, never for data the user asked to see.
 * - H190: server-postgres declares resources but answers resources/templates/list with -32601: `inspect` shows the
 *   table's schema resource, an empty template list, and one warning saying so.
 * Skipped, with the reason, only where the PostgreSQL binaries are not installed (.ci/run installs them).
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { shippedCliCopy } from '../support/shipped';
import { runCli, type CliRun } from '../support/cli';
import { bin, freePort } from '../support/connection';

/** The newest installed PostgreSQL's bin folder, or undefined. */
function postgresBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  let versions: string[];
  try { versions = fs.readdirSync(base); } catch { return undefined; }
  const found = versions.filter(v => fs.existsSync(path.join(base, v, 'bin', 'initdb')) && fs.existsSync(path.join(base, v, 'bin', 'postgres')));
  found.sort((a, b) => Number(b) - Number(a));
  return found.length ? path.join(base, found[0], 'bin') : undefined;
}

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** `cmd args…` as the cluster's owner: `nobody` when this runs as root (initdb and postgres refuse root), else as is. */
function asOwner(cmd: string, args: string[]): [string, string[]] {
  return asRoot ? ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', cmd, ...args]] : [cmd, args];
}

const ROWS = ['use the basic built-in router', 'Bearer-like words', 'Authorization: Bearer t0ken-Shaped9.value'];

describe('PostgreSQL through server-postgres and the production CLI (issue 37)', function () {
  this.timeout(180_000);
  const pgBin = postgresBin();
  let dir = '';
  let postgres: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let cli: ReturnType<typeof shippedCliCopy> | undefined;
  let config = '';

  before(async function () {
    if (!pgBin) this.skip(); // the reason is in the test title below: no /usr/lib/postgresql/*/bin/initdb
    cli = shippedCliCopy('mcp-host-pg-');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-pg-'));
    if (asRoot) fs.chownSync(dir, NOBODY, NOBODY);
    const data = path.join(dir, 'data');
    const [initCmd, initArgs] = asOwner(path.join(pgBin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const init = spawnSync(initCmd, initArgs, { cwd: dir, encoding: 'utf8' });
    assert.equal(init.status, 0, `initdb failed: ${init.stdout}\n${init.stderr}`);
    const port = await freePort();
    const [pgCmd, pgArgs] = asOwner(path.join(pgBin, 'postgres'), ['-D', data, '-h', '127.0.0.1', '-p', String(port), '-k', dir, '-F', '-c', 'logging_collector=off']);
    const child = postgres = spawn(pgCmd, pgArgs, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    exited = new Promise(resolve => child.once('exit', () => resolve()));
    // Ready when it says so (no fixed wait); a failed start ends the process and says why.
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const onData = (d: Buffer) => {
        log += d;
        if (/ready to accept connections/.test(log)) { child.stderr?.off('data', onData); child.stderr?.resume(); resolve(); }
      };
      child.stderr?.on('data', onData);
      child.once('exit', code => reject(new Error(`postgres exited (${code}) before it was ready:\n${log}`)));
    });
    const sql = `CREATE TABLE notes (id int PRIMARY KEY, body text); INSERT INTO notes VALUES ${ROWS.map((r, i) => `(${i + 1}, '${r}')`).join(', ')};`;
    const psql = spawnSync(path.join(pgBin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
    assert.equal(psql.status, 0, `psql failed: ${psql.stdout}\n${psql.stderr}`);
    config = path.join(cli.dir, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({
      servers: {
        pg: { command: bin('mcp-server-postgres'), args: [`postgresql://postgres@127.0.0.1:${port}/postgres`] },
      },
    }));
  });

  after(async () => {
    // Fast shutdown (SIGINT): the postmaster ends its whole tree (checkpointer, walwriter, …) and then itself.
    if (postgres && postgres.exitCode === null && postgres.signalCode === null) {
      postgres.kill('SIGINT');
      const timer = setTimeout(() => postgres?.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    cli?.dispose();
  });

  const run = (args: string[]): Promise<CliRun> => runCli(cli!.cli, [...args, '--config', config, '--timeout', '60000'], { cwd: cli!.dir, timeoutMs: 120_000 });

  it(`H402: call query prints the rows exactly as stored, with and without --raw${pgBin ? '' : ' (skipped: no PostgreSQL binaries in /usr/lib/postgresql/*/bin)'}`, async () => {
    const args = ['call', 'pg', 'query', '--args', JSON.stringify({ sql: 'SELECT body FROM notes ORDER BY id' })];
    for (const extra of [[], ['--raw']]) {
      const r = await run([...args, ...extra]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const rows = JSON.parse(r.stdout) as { body: string }[];
      assert.deepEqual(rows.map(x => x.body), ROWS, `${extra.join(' ') || 'plain'}: ${r.stdout}`);
      assert.doesNotMatch(r.stdout, /\*\*\*/);
    }
  });

  it(`H190: inspect shows the table's schema resource and no templates (resources/templates/list is -32601), with one warning${pgBin ? '' : ' (skipped: no PostgreSQL binaries)'}`, async () => {
    const r = await run(['inspect', 'pg']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as { tools: { name: string }[]; resources: { uri: string }[]; resourceTemplates: unknown[] };
    assert.deepEqual(report.tools.map(t => t.name), ['query']);
    assert.ok(report.resources.some(x => /\/notes\/schema$/.test(x.uri)), r.stdout);
    assert.deepEqual(report.resourceTemplates, []);
    const warnings = r.stderr.split('\n').filter(l => /-32601/.test(l));
    assert.equal(warnings.length, 1, r.stderr);
    assert.match(warnings[0], /declares resources but does not implement resources\/templates\/list/);
  });
});
