/**
 * Issue 11: the shipped bundle is minified, which renames classes, so an error recognised by
 * `constructor.name` or by `.name === 'SomethingError'` works in development and silently fails in the VSIX.
 * The lint rule that keeps such checks out of src/ is itself under test here, so it cannot quietly go away.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../../..');

const PROBE = `export function probe(e: any): boolean {
  if (e.constructor.name === 'StreamableHTTPError') return true;
  if (e.name === 'UnauthorizedError') return true;
  if ('SseError' === e.name) return true;
  return e.name === 'AbortError';
}
`;

describe('lint: no class-name checks in src/ (issue 11)', function () {
  this.timeout(60_000);
  for (const dir of ['src/mcp', 'src/extension', 'src/cli', 'src/views']) {
    it(`${dir}: constructor.name and '…Error' name comparisons are errors; platform 'AbortError' is allowed`, async () => {
      const eslint = new ESLint({ cwd: ROOT });
      const [result] = await eslint.lintText(PROBE, { filePath: path.join(ROOT, dir, 'probe.ts') });
      const lines = result.messages.filter(m => m.ruleId === 'no-restricted-syntax').map(m => m.line);
      assert.deepEqual([...new Set(lines)].sort(), [2, 3, 4], JSON.stringify(result.messages, null, 1));
    });
  }
});
