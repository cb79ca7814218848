/**
 * H152 (issue 34): every read of a file the host does not own is bounded (src/mcp/boundedRead.ts). A path that
 * is not a regular file (a FIFO, a character device such as /dev/zero, a directory, a symbolic link to one) is
 * refused without blocking; a file over the cap is refused before it is read, and one without a size (/proc) stops
 * at the cap. The errors say what the path is and the cap, never the file's content. Next to each hostile path a
 * well-behaved bystander file is read whole. No timings are asserted: a read that blocked would end the test by
 * its timeout.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BoundedReadError, readBounded, readBoundedSync, readBoundedText } from '../../src/mcp/boundedRead';
import { loadEnvironment } from '../../src/mcp/config/envFile';
import { loadConfigFile } from '../../src/mcp/config/import';
import { resolveServers } from '../../src/mcp/config/variables';
import { parseServers } from '../../src/mcp/config/validate';

const unix = process.platform !== 'win32';

describe('bounded reads of files the host does not own (H152)', function () {
  this.timeout(30_000);
  let dir: string;
  let bystander: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bounded-'));
    bystander = path.join(dir, 'ok.env');
    fs.writeFileSync(bystander, 'GREETING=hello\n');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const both = async (file: string, maxBytes: number): Promise<BoundedReadError[]> => {
    const errors: BoundedReadError[] = [];
    await readBounded(file, { maxBytes, what: 'envFile' }).then(() => assert.fail('async read succeeded'), (e: unknown) => { assert.ok(e instanceof BoundedReadError, String(e)); errors.push(e); });
    try {
      readBoundedSync(file, { maxBytes, what: 'envFile' });
      assert.fail('sync read succeeded');
    } catch (e) {
      assert.ok(e instanceof BoundedReadError, String(e));
      errors.push(e);
    }
    assert.equal(await readBoundedText(bystander, { maxBytes: 1024 }), 'GREETING=hello\n');
    return errors;
  };

  it('reads a regular file within the cap, async and sync; an empty file is empty', async () => {
    assert.equal((await readBounded(bystander, { maxBytes: 15 })).toString(), 'GREETING=hello\n');
    assert.equal(readBoundedSync(bystander, { maxBytes: 15 }).toString(), 'GREETING=hello\n');
    const empty = path.join(dir, 'empty');
    fs.writeFileSync(empty, '');
    assert.equal((await readBounded(empty, { maxBytes: 10 })).length, 0);
  });

  it('a file one byte over the cap is refused, naming the cap and never the content', async () => {
    for (const e of await both(bystander, 14)) {
      assert.equal(e.kind, 'too-large');
      assert.match(e.message, /15 B, more than the 14 B an envFile may hold/);
      assert.doesNotMatch(e.message, /hello/);
    }
  });

  it('a 1 GiB sparse file is refused before it is read', async () => {
    const big = path.join(dir, 'big.env');
    const fd = fs.openSync(big, 'w');
    fs.ftruncateSync(fd, 1024 * 1024 * 1024);
    fs.closeSync(fd);
    for (const e of await both(big, 4 * 1024 * 1024)) {
      assert.equal(e.kind, 'too-large');
      assert.match(e.message, /1 GiB, more than the 4 MiB an envFile may hold/);
    }
  });

  it('a directory is refused', async () => {
    for (const e of await both(dir, 1024)) assert.equal(e.kind, 'directory');
  });

  it('a missing file says so', async () => {
    for (const e of await both(path.join(dir, 'nope'), 1024)) assert.equal(e.kind, 'missing');
  });

  (unix ? it : it.skip)('/dev/zero and a symbolic link to it are refused as character devices, without reading', async () => {
    const link = path.join(dir, 'zero.env');
    fs.symlinkSync('/dev/zero', link);
    for (const f of ['/dev/zero', link]) {
      for (const e of await both(f, 4 * 1024 * 1024)) {
        assert.equal(e.kind, 'not-file');
        assert.match(e.message, /character device/);
      }
    }
  });

  (unix ? it : it.skip)('a FIFO with no writer is refused without blocking on its open', async () => {
    const fifo = path.join(dir, 'fifo.env');
    execFileSync('mkfifo', [fifo]);
    for (const e of await both(fifo, 1024)) {
      assert.equal(e.kind, 'not-file');
      assert.match(e.message, /FIFO \(named pipe\), not a regular file/);
    }
  });

  (process.platform === 'linux' ? it : it.skip)('a file that reports no size (/proc) stops at the cap', async () => {
    const self = await readBounded('/proc/self/status', { maxBytes: 1024 * 1024 });
    assert.match(self.toString(), /^Name:/);
    await assert.rejects(readBounded('/proc/self/status', { maxBytes: 8 }), (e: unknown) => e instanceof BoundedReadError && e.kind === 'too-large');
  });

  (unix ? it : it.skip)('envFile: /dev/zero, a FIFO and a 1 GiB file are errors naming the server and the setting; the bystander loads', async () => {
    const fifo = path.join(dir, 'fifo2.env');
    execFileSync('mkfifo', [fifo]);
    const big = path.join(dir, 'big2.env');
    fs.closeSync(fs.openSync(big, 'w'));
    fs.truncateSync(big, 1024 * 1024 * 1024);
    for (const [file, why] of [['/dev/zero', /character device/], [fifo, /FIFO/], [big, /1 GiB, more than the 4 MiB an envFile may hold/]] as const) {
      const r = await loadEnvironment({ name: 'hostile', type: 'stdio', command: 'node', args: [], env: {}, envFile: file }, {});
      assert.ok(r.error, `${file} loaded`);
      assert.match(r.error.message, /^Server "hostile": mcpHost\.servers\.hostile\.envFile is "/);
      assert.match(r.error.message, why);
      assert.match(r.error.message, /point it at a dotenv file/);
    }
    const ok = await loadEnvironment({ name: 'bystander', type: 'stdio', command: 'node', args: [], env: {}, envFile: bystander }, {});
    assert.equal(ok.env?.GREETING, 'hello');
  });

  (unix ? it : it.skip)('resolving a definition whose envFile is /dev/zero or a FIFO returns at once (the launch reports it)', async () => {
    const fifo = path.join(dir, 'fifo3.env');
    execFileSync('mkfifo', [fifo]);
    const parsed = parseServers({
      zero: { command: 'node', envFile: '/dev/zero' },
      fifo: { command: 'node', envFile: fifo },
      bystander: { command: 'node', envFile: bystander },
    });
    const r = await resolveServers(parsed.servers, { workspaceFolders: [], userHome: os.homedir(), env: {} });
    assert.deepEqual(r.definitions.map(d => d.name).sort(), ['bystander', 'fifo', 'zero']);
  });

  (unix ? it : it.skip)('a configuration file that is a FIFO or /dev/zero is a config error, not a hang', async () => {
    const fifo = path.join(dir, 'mcp.json');
    execFileSync('mkfifo', [fifo]);
    for (const f of [fifo, '/dev/zero']) {
      const r = await loadConfigFile(f);
      assert.match(r.errors[0]?.message ?? '', /cannot be used: it is a (FIFO|character device)/);
    }
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ servers: { a: { command: 'node' } } }));
    assert.deepEqual(Object.keys((await loadConfigFile(good)).servers), ['a']);
  });
});
