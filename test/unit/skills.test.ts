/**
 * Skills (SEP-2640, H119–H121) through the product's Connection, against the fixture skills server
 * (test/fixtures/servers/skills.mjs): the list (names and descriptions) with nothing of a skill read before it is
 * loaded, a loaded skill verified by the SDK's SkillsClient, and the hostile variant (wrong digest, oversize, bad
 * frontmatter, a 20 MiB skill, a huge list) refused with messages naming server, skill and file, next to good
 * skills on the same server and a well-behaved server that keep working.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection } from '../../src/mcp/server/connection';
import { SkillError } from '../../src/mcp/skills/skills';
import type { LogEntry } from '../../src/mcp/types';
import { FAST_STOP, nodeFixture } from '../support/connection';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-skills-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function lines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

describe('Skills (SEP-2640, H119–H121)', function () {
  this.timeout(30_000);
  const goodRecord = path.join(tmp, 'good.log');
  const hostileRecord = path.join(tmp, 'hostile.log');
  let good: Connection;
  let hostile: Connection;
  const logs: LogEntry[] = [];
  before(async () => {
    good = new Connection(nodeFixture('docs', 'skills', ['--record', goodRecord]), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    hostile = new Connection(nodeFixture('evil', 'skills', ['--hostile', '--many', '3000', '--page-size', '500', '--record', hostileRecord]), {
      pingIntervalMs: 0, stopGrace: FAST_STOP, limits: { maxCatalogueItems: 1000 },
    });
    hostile.onLog(e => logs.push(e));
    await Promise.all([good.start(), hostile.start()]);
  });
  after(async () => { await Promise.all([good?.dispose(), hostile?.dispose()]); });

  it('lists each skill by name and description, and reads none of their files before one is used (H119)', () => {
    assert.deepEqual(good.skills.map(s => [s.name, s.description]), [
      ['pdf-forms', 'Fill in PDF forms from structured data'],
      ['release-notes', 'Write release notes from a list of commits'],
    ]);
    assert.equal(good.skills[0].files, 2);
    const seen = lines(goodRecord);
    assert.ok(seen.includes('skills/list'), seen.join(', '));
    assert.deepEqual(seen.filter(l => l.startsWith('resources/read')), []);
  });

  it('loads a skill on use: SKILL.md verified (digest, size, frontmatter), and a file of it', async () => {
    const md = await good.loadSkill('pdf-forms');
    assert.equal(md.verified, true);
    assert.equal(md.skill, 'pdf-forms');
    assert.match(md.text, /^---\nname: pdf-forms\n/);
    assert.equal(md.body, '# PDF forms\n\nUse the fields in references/FIELDS.md.\n');
    const ref = await good.loadSkill('pdf-forms', 'references/FIELDS.md');
    assert.equal(ref.text, '# Fields\n\nname, date, signature\n');
    assert.deepEqual(lines(goodRecord).filter(l => l.startsWith('resources/read')),
      ['resources/read skill://pdf-forms/SKILL.md', 'resources/read skill://pdf-forms/references/FIELDS.md']);
  });

  it('refuses a file that fails verification, naming server, skill and file (H120)', async () => {
    const cases: [string, string, RegExp][] = [
      ['wrong-digest', 'digest', /digest does not match/],
      ['oversize', 'size', /size does not match/],
      ['bad-frontmatter', 'frontmatter', /frontmatter does not match the skill entry \(description/],
    ];
    for (const [skill, reason, why] of cases) {
      await assert.rejects(hostile.loadSkill(skill), (err: unknown) => {
        assert.ok(err instanceof SkillError, String(err));
        assert.equal(err.reason, reason);
        assert.match(err.message, new RegExp(`^server \`evil\`, skill \`${skill}\`, file \`SKILL\\.md\`: refused, `));
        assert.match(err.message, why);
        assert.match(err.message, /the skill was not loaded/);
        return true;
      });
    }
  });

  it('refuses a skill over the spec\'s limits before reading any of it', async () => {
    await assert.rejects(hostile.loadSkill('too-big'), /^SkillError: server `evil`, skill `too-big`, file `SKILL\.md`: refused, the skill lists 2 files of \d+ bytes/);
    assert.ok(!lines(hostileRecord).includes('resources/read skill://too-big/SKILL.md'));
  });

  it('keeps a huge skill list to the catalogue limit, with a warning naming the setting', () => {
    assert.equal(hostile.skills.length, 1000);
    assert.ok(logs.some(e => /maxCatalogueItems/.test(e.message) && /skills/.test(e.message)), logs.map(e => e.message).join('\n'));
  });

  it('keeps a hostile description as data, and the good skills of the same server load', async () => {
    const shouty = hostile.skills.find(s => s.name === 'shouty');
    assert.ok(shouty);
    assert.match(shouty.description, /command:workbench\.action\.quit/);
    const md = await hostile.loadSkill('shouty');
    assert.equal(md.verified, true);
    assert.equal((await hostile.loadSkill('release-notes')).skill, 'release-notes');
    assert.equal((await good.loadSkill('release-notes')).verified, true);
  });

  it('says so for a skill the server does not list, and for a server without skills', async () => {
    await assert.rejects(good.loadSkill('nope'), /server `docs` lists no skill `nope`/);
    const plain = new Connection(nodeFixture('plain', 'echo'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await plain.start();
      assert.deepEqual(plain.skills, []);
      await assert.rejects(plain.loadSkill('pdf-forms'), /server `plain` offers no skills/);
    } finally {
      await plain.dispose();
    }
  });
});
