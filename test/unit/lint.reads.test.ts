/**
 * H152 (issue 34): the lint rule that keeps raw reads of files the host does not own out of src/ is itself under
 * test, so it cannot quietly go away: readFile/readFileSync/createReadStream (called or imported) are errors in every
 * room, and allowed only in the bounded reader and the host-owned files eslint.config.mjs lists.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../../..');

const PROBE = `import * as fs from 'node:fs';
import { readFileSync } from 'node:fs';
export const a = fs.readFileSync('x');
export const b = fs.promises.readFile('x');
export const c = fs.createReadStream('x');
export const d = readFileSync('y');
export const e = fs.statSync('x');
`;

describe('lint: no raw reads in src/ (H152)', function () {
  this.timeout(60_000);
  for (const dir of ['src/mcp/config', 'src/extension', 'src/cli', 'src/views']) {
    it(`${dir}: raw readFile/readFileSync/createReadStream are errors; stat is not`, async () => {
      const eslint = new ESLint({ cwd: ROOT });
      const [result] = await eslint.lintText(PROBE, { filePath: path.join(ROOT, dir, 'probe.ts') });
      const lines = result.messages.filter(m => m.ruleId === 'no-restricted-syntax' && /bounded/.test(m.message)).map(m => m.line);
      assert.deepEqual([...new Set(lines)].sort(), [2, 3, 4, 5, 6], JSON.stringify(result.messages, null, 1));
    });
  }
  it('the bounded reader and a listed host-owned file may read raw', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    for (const f of ['src/mcp/boundedRead.ts', 'src/cli/eraCache.ts', 'src/extension/state/historyStore.ts']) {
      const [result] = await eslint.lintText(PROBE, { filePath: path.join(ROOT, f) });
      assert.deepEqual(result.messages.filter(m => /bounded/.test(m.message)), [], f);
    }
  });
});
