/**
 * Issue 39: a suite's start-up is written once. H622: `tmpDirPerTest` (test/support/connection.ts) gives each test a
 * new folder and, after it, runs the suite's cleanup and removes the folder. H623: no suite writes a shared start-up
 * again by hand: the shipped CLI's (`useShippedCli`, test/support/cli.ts), the per-test host and folder of the
 * reliability suites (`tmpDirPerTest`). H624: no UI test writes its frame again (test/e2e/lib/run.mjs: the packaged VSIX,
 * the timed log, the page waits and the end of a run).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tmpDirPerTest } from '../support/connection';

const ROOT = path.resolve(__dirname, '../../..');

function files(dir: string, ends: RegExp): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap(e => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'test/fixtures' ? [] : files(rel, ends);
    return ends.test(e.name) ? [rel] : [];
  });
}

/** The files among `list` whose text matches `re`. */
const writing = (list: string[], re: RegExp) => list.filter(f => re.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));

describe('Shared suite start-ups (issue 39)', () => {
  describe('H622: tmpDirPerTest', () => {
    const cleaned: string[] = [];
    const scratch = tmpDirPerTest('mcp-host-startups-', () => { cleaned.push(scratch.dir); });
    let first = '';

    it('H622: a test has a folder of its own while it runs', () => {
      first = scratch.dir;
      assert.ok(fs.statSync(first).isDirectory());
      fs.writeFileSync(path.join(first, 'left.txt'), 'x');
    });

    it('H622: after a test its cleanup ran with the folder still there, then the folder was removed; the next test has a new one', () => {
      assert.deepEqual(cleaned, [first], 'the cleanup ran once, for the first test');
      assert.equal(fs.existsSync(first), false, 'the first test\'s folder is gone');
      assert.notEqual(scratch.dir, first);
      assert.ok(fs.statSync(scratch.dir).isDirectory());
    });
  });

  it('H623: no CLI suite writes the shipped-CLI start-up by hand (useShippedCli)', () => {
    const ts = files('test', /\.ts$/).filter(f => !f.startsWith('test/support/'));
    assert.deepEqual(writing(ts, /shippedCliWorkspace\(|after\(\(\) => copy\.dispose\(\)\)/), []);
  });

  it('H623: no reliability suite writes its per-test host and folder by hand (tmpDirPerTest)', () => {
    const ts = files('test', /\.ts$/).filter(f => !f.startsWith('test/support/'));
    assert.deepEqual(writing(ts, /beforeEach\(\(\) => \{ dir = tmpDir\(/), []);
  });

  it('H624: no UI test writes its frame again (test/e2e/lib/run.mjs); the bystander: the lib itself does', () => {
    const e2e = files('test/e2e', /\.mjs$/).filter(f => f !== 'test/e2e/lib/run.mjs');
    assert.ok(e2e.length >= 6, `read the UI tests (${e2e.length})`);
    const own = /is missing: run npm run package|async function (frameWith|waitFor)\b|const folded = |const t0 = Date\.now\(\);\s*\n\s*const log =|^finish\(failed/m;
    assert.deepEqual(writing(e2e, own), []);
    assert.deepEqual(writing(['test/e2e/lib/run.mjs'], own), ['test/e2e/lib/run.mjs'], 'the check would find a copy');
  });
});
