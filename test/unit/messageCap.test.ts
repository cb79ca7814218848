/**
 * Issue 39: the message-size cap has one source (`DEFAULT_LIMITS.maxMessageBytes`, src/mcp/limits.ts). H621: no test
 * writes its value again: not as limit messages show it (`formatBytes` of it) and not as a byte count
 * where a test speaks of the cap (`maxMessageBytes`, `maxBufferSize`, `limitMessage`); tests read it through
 * test/support/messageCap.ts. The one exception is the unit test of `formatBytes` itself (display.test.ts), which
 * checks binary units, not the cap.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_LIMITS } from '../../src/mcp/limits';
import { formatBytes } from '../../src/mcp/logging/humanText';
import { MESSAGE_CAP_TEXT } from '../support/messageCap';

const ROOT = path.resolve(__dirname, '../../..');
/** Tests of formatting that use the same number for another reason. */
const NOT_THE_CAP = new Set(['test/unit/display.test.ts']);

function testFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) { if (e.name !== 'node_modules') testFiles(rel, out); } else if (/\.(ts|mts|mjs|js)$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe('The message-size cap is written once (issue 39)', () => {
  it('H621: no file under test/ repeats the cap\'s value; they read it from DEFAULT_LIMITS', () => {
    const cap = DEFAULT_LIMITS.maxMessageBytes;
    assert.equal(MESSAGE_CAP_TEXT, formatBytes(cap), 'the support module reads the source');
    const mib = cap / (1024 * 1024);
    const asShown = new RegExp(`(^|[^\\d.])${formatBytes(cap).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    const asBytes = new RegExp(`\\b(${cap}|${mib}\\s*\\*\\s*1024\\s*\\*\\s*1024|${mib}\\s*\\*\\s*MiB)\\b`);
    const aboutTheCap = /maxMessageBytes|maxBufferSize|limitMessage|message cap/;
    const found: string[] = [];
    const files = testFiles('test');
    assert.ok(files.length > 100, `read the test tree (${files.length} files)`);
    for (const f of files) {
      if (NOT_THE_CAP.has(f)) continue;
      fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').forEach((line, i) => {
        if (asShown.test(line) || (asBytes.test(line) && aboutTheCap.test(line))) found.push(`${f}:${i + 1}: ${line.trim().slice(0, 160)}`);
      });
    }
    assert.deepEqual(found, [], 'import MESSAGE_CAP_TEXT / MESSAGE_CAP / MESSAGE_CAP_HINT from test/support/messageCap.ts, or DEFAULT_LIMITS.maxMessageBytes');
  });

  it('H621: the check finds a repeated cap (a bystander file that reads the source passes)', () => {
    const shown = formatBytes(DEFAULT_LIMITS.maxMessageBytes);
    const asShown = new RegExp(`(^|[^\\d.])${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
    assert.ok(asShown.test(`assert.match(m, /over the limit of ${shown}/)`), 'a copied literal is found');
    assert.ok(!asShown.test('assert.match(m, new RegExp(MESSAGE_CAP_HINT))'), 'reading it from the source is fine');
  });
});
