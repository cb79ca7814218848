/**
 * package.json's engines.node is what the installed dependencies declare (issue 38 item 11), and the Node every
 * suite runs on is picked by one script, scripts/node.sh. Ranges are read with semver, the library npm itself checks
 * engines with (its EBADENGINE warning); it is installed here through @vscode/vsce and @vscode/test-electron.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const semver = createRequire(path.join(ROOT, 'package.json'))('semver') as {
  satisfies(version: string, range: string): boolean;
  minVersion(range: string): { version: string } | null;
};
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;

/** engines.node of every package `npm ci` installs (package-lock.json's packages that are on disk). */
function installedEngines(): Array<{ where: string; range: string }> {
  const lock = readJson(path.join(ROOT, 'package-lock.json')) as { packages: Record<string, unknown> };
  const out: Array<{ where: string; range: string }> = [];
  for (const where of Object.keys(lock.packages)) {
    if (!where) continue;
    const file = path.join(ROOT, where, 'package.json');
    if (!fs.existsSync(file)) continue; // an optional package of another platform
    const range = (readJson(file).engines as { node?: unknown } | undefined)?.node;
    if (typeof range === 'string') out.push({ where, range });
  }
  return out;
}

describe('engines: Node ≥ 22.19, as the dependencies need (issue 38)', () => {
  const wanted = (readJson(path.join(ROOT, 'package.json')).engines as { node: string }).node;
  const floor = semver.minVersion(wanted)?.version as string;

  it('H511: engines.node is the lowest Node every installed package accepts, and one of them needs it; README and docs say the same', () => {
    assert.match(wanted, /^>=\d+\.\d+$/, 'engines.node is a plain floor (scripts/node.sh reads ">=X.Y[.Z]")');
    const engines = installedEngines();
    assert.ok(engines.length > 100, `${engines.length} packages declare engines.node`);
    const refuse = engines.filter(e => !semver.satisfies(floor, e.range));
    assert.deepEqual(refuse, [], `packages that refuse Node ${floor}`);
    const [major, minor] = floor.split('.').map(Number);
    const below = minor > 0 ? `${major}.${minor - 1}.999` : `${major - 1}.999.999`;
    const needIt = engines.filter(e => !semver.satisfies(below, e.range));
    assert.ok(needIt.length > 0, `no installed package refuses Node ${below}: engines.node could be lower`);
    // Node 24 (the one scripts/node.sh installs) suits every package too.
    assert.deepEqual(engines.filter(e => !semver.satisfies('24.0.0', e.range)), [], 'packages that refuse Node 24');
    const said = `Node ≥ ${major}.${minor}`;
    for (const doc of ['README.md', 'docs/DEVELOPMENT.md']) {
      const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
      assert.ok(text.includes(said), `${doc} says ${said}`);
      assert.doesNotMatch(text, /Node (≥|>=) ?20\.19/, `${doc} no longer says Node 20.19`);
    }
  });

  it('H512: scripts/node.sh picks a Node that satisfies engines.node: the system one when new enough, else Node 24 in .vscode-test/node24', function () {
    this.timeout(60_000);
    const pick = (env: NodeJS.ProcessEnv) => spawnSync('bash', [path.join(ROOT, 'scripts/node.sh'), 'pick'], { cwd: ROOT, encoding: 'utf8', env });
    // Whatever runs this suite: the folder printed holds a Node of the right version.
    const here = pick(process.env);
    assert.equal(here.status, 0, here.stderr);
    const picked = spawnSync(path.join(here.stdout.trim(), 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    assert.ok(semver.satisfies(picked, wanted), `picked Node ${picked} satisfies ${wanted}`);

    // A system Node older than the floor (a real Node that reports 20.18.0): the Node 24 under VSCODE_TEST_DIR is
    // picked (here a link to the Node running this suite, so nothing is installed).
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-engines-'));
    try {
      const old = path.join(work, 'old-bin');
      fs.mkdirSync(old);
      fs.writeFileSync(path.join(work, 'old.cjs'), "Object.defineProperty(process.versions, 'node', { value: '20.18.0' });\n");
      fs.writeFileSync(path.join(old, 'node'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --require ${JSON.stringify(path.join(work, 'old.cjs'))} "$@"\n`, { mode: 0o755 });
      const harness = path.join(work, 'harness');
      const bin = path.join(harness, 'node24/node_modules/node/bin');
      fs.mkdirSync(bin, { recursive: true });
      fs.symlinkSync(process.execPath, path.join(bin, 'node'));
      const r = pick({ ...process.env, PATH: `${old}:/usr/bin:/bin`, VSCODE_TEST_DIR: harness });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.trim(), bin);
      assert.match(r.stderr, /the system Node \(.*v20\.18\.0\) is older than package\.json's engines\.node \(>=\d+\.\d+\): using Node 24/);
      // The bystander: the same old Node is kept when engines.node would accept it (a system Node that is new enough).
      fs.writeFileSync(path.join(work, 'old.cjs'), `Object.defineProperty(process.versions, 'node', { value: '${semver.minVersion(wanted)?.version}' });\n`);
      const ok = pick({ ...process.env, PATH: `${old}:/usr/bin:/bin`, VSCODE_TEST_DIR: harness });
      assert.equal(ok.status, 0, ok.stderr);
      assert.equal(ok.stdout.trim(), old);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
