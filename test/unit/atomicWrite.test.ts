/**
 * The one atomic write (src/mcp/atomicWrite.ts, issue 39): the token, key, era-cache, History and icon files are all
 * written through it, so its outcomes are the ones every owner relies on.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic, writeFileAtomicSync } from '../../src/mcp/atomicWrite';

describe('atomic write (issue 39)', () => {
  let dir = '';
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-atomic-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('H519: writes the whole file in a new 0700 folder with the mode asked for, and leaves no temporary file', async () => {
    const file = path.join(dir, 'a', 'b', 'tokens.json');
    writeFileAtomicSync(file, '{"x":1}', { mode: 0o600, dirMode: 0o700 });
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":1}');
    if (process.platform !== 'win32') {
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    }
    assert.equal(await writeFileAtomic(file, Buffer.from('{"x":2}')), true);
    assert.equal(fs.readFileSync(file, 'utf8'), '{"x":2}');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['tokens.json']);
  });

  it('H519: a write that fails, or that a later one overtook, leaves the old file and no temporary file', async () => {
    const file = path.join(dir, 'history.json');
    writeFileAtomicSync(file, 'old');
    const blocked = path.join(dir, 'blocked');
    fs.mkdirSync(path.join(blocked, 'inside'), { recursive: true });
    assert.throws(() => writeFileAtomicSync(blocked, 'new'));
    await assert.rejects(writeFileAtomic(blocked, 'new'));
    assert.equal(await writeFileAtomic(file, 'overtaken', { stillWanted: () => false }), false);
    assert.equal(fs.readFileSync(file, 'utf8'), 'old', 'the bystander file is untouched');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['blocked', 'history.json']);
  });
});
