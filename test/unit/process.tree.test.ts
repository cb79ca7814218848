import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive, listDescendants, stopProcessTree } from '../../src/mcp/process/processTree';
import { fixtureServer } from '../fixtures/servers/harness';
import { until } from '../support/wait';

const posix = process.platform !== 'win32';


/** Wait until the child has written `pattern` to stderr; returns the match. */
function waitStderr(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (c: Buffer) => {
      text += c.toString('utf8');
      const m = pattern.exec(text);
      if (m) { child.stderr!.off('data', onData); resolve(m); }
    };
    child.stderr!.on('data', onData);
    child.once('exit', code => reject(new Error(`exited (${code}) before ${pattern}: ${text}`)));
  });
}

describe('process: process tree and H11 shutdown', function () {
  if (!posix) return;
  /** Every pid a test saw; after each test none may be alive (and only these are ever signalled). */
  const recorded = new Set<number>();
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tree-')); });
  afterEach(() => {
    const leftovers = [...recorded].filter(isAlive);
    for (const p of leftovers) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    recorded.clear();
    fs.rmSync(tmp, { recursive: true, force: true });
    assert.deepEqual(leftovers, [], 'processes survived the test');
  });

  function start(command: string, args: string[]): ChildProcess {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    recorded.add(child.pid!);
    child.stdout!.resume();
    return child;
  }

  it('H11: lists a shell wrapper\'s child, and stopProcessTree leaves no descendant alive', async () => {
    const child = start('sh', ['-c', `"${process.execPath}" -e "setInterval(()=>{},1e3)" & wait`]);
    const kids = await until(async () => { const d = await listDescendants(child.pid!); return d.length > 0 && d; }, 'the node child');
    kids.forEach(p => recorded.add(p));
    assert.ok(kids.every(isAlive));
    const result = await stopProcessTree(child.pid!, () => child.stdin!.end(), { eofGraceMs: 300, termGraceMs: 2000 });
    assert.equal(result.phase, 'term', 'sh ignores stdin EOF, so SIGTERM was needed');
    for (const p of [child.pid!, ...kids]) {
      assert.ok(result.pids.includes(p), `pid ${p} was part of the tree`);
      assert.equal(isAlive(p), false, `pid ${p} is gone`);
    }
  });

  it('H11: a server that exits on stdin EOF stops at phase eof', async () => {
    const child = start(process.execPath, [fixtureServer('echo.mjs')]);
    const result = await stopProcessTree(child.pid!, () => child.stdin!.end(), { eofGraceMs: 10_000 });
    assert.equal(result.phase, 'eof');
    assert.equal(isAlive(child.pid!), false);
  });

  it('H11: a server that ignores EOF and SIGTERM needs SIGKILL, and is gone after it', async () => {
    const child = start(process.execPath, [fixtureServer('ignore-signals.mjs')]);
    await waitStderr(child, /READY \d+/);
    const result = await stopProcessTree(child.pid!, () => child.stdin!.end(), { eofGraceMs: 200, termGraceMs: 300 });
    assert.equal(result.phase, 'kill');
    assert.equal(isAlive(child.pid!), false);
  });

  it('H11: kills a grandchild that was re-parented after its parent exited (snapshot kept)', async () => {
    // sh -> node grandchild.mjs -> node -e (ignores SIGTERM). On EOF the server exits, sh exits, and
    // the grandchild is orphaned: only the snapshot taken before closing stdin still knows it.
    const pidFile = path.join(tmp, 'grandchild.pid');
    const child = start('sh', [fixtureServer('grandchild-wrapper.sh'), '--grandchild-ignore-term', '--pid-file', pidFile]);
    const m = await waitStderr(child, /GRANDCHILD (\d+)/);
    const grandchild = Number(m[1]);
    recorded.add(grandchild);
    assert.equal(Number(fs.readFileSync(pidFile, 'utf8')), grandchild);
    const before = await until(async () => { const d = await listDescendants(child.pid!); return d.includes(grandchild) && d; }, 'tree listing');
    before.forEach(p => recorded.add(p));
    const result = await stopProcessTree(child.pid!, () => child.stdin!.end(), { eofGraceMs: 1000, termGraceMs: 300 });
    assert.equal(result.phase, 'kill');
    assert.ok(result.pids.includes(grandchild));
    assert.equal(isAlive(grandchild), false, 'no orphan');
    for (const p of before) assert.equal(isAlive(p), false, `pid ${p} is gone`);
  });

  it('H11: a tree that is already gone resolves at once with phase eof', async () => {
    const child = start(process.execPath, ['-e', '']);
    await new Promise(r => child.once('exit', r));
    let closed = false;
    const result = await stopProcessTree(child.pid!, () => { closed = true; });
    assert.equal(result.phase, 'eof');
    assert.ok(closed);
  });

  it('isAlive is true for a live process and false once it has exited', async () => {
    assert.equal(isAlive(process.pid), true);
    const child = start(process.execPath, ['-e', 'setTimeout(()=>{},100)']);
    assert.equal(isAlive(child.pid!), true);
    await new Promise(r => child.once('exit', r));
    assert.equal(isAlive(child.pid!), false);
  });
});
