/** The helpers every suite shares (test/support/wait.ts, issue 39): the readiness wait and the text of a tool result. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { textOf, until } from '../support/wait';

const ROOT = path.resolve(__dirname, '../../..');

function testFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap(e => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'test/fixtures' ? [] : testFiles(rel);
    return e.name.endsWith('.ts') ? [rel] : [];
  });
}

describe('Shared test helpers (issue 39)', () => {
  it('H522: until resolves with the value once the check holds, names what it waited for when it does not, and is woken by an event', async () => {
    let n = 0;
    assert.equal(await until(() => ++n >= 3 && n, 'the third check'), 3);
    await assert.rejects(until(() => false, 'something that never happens', 60), /timed out waiting for something that never happens/);
    let fire: (() => void) | undefined;
    let ready = false;
    const woken = until(() => ready, 'the event', { ms: 5_000, every: 60_000, wakeOn: [l => { fire = l; return { dispose: () => { fire = undefined; } }; }] });
    ready = true;
    fire!();
    assert.equal(await woken, true);
    assert.equal(fire, undefined, 'the listener is disposed');
  });

  it('H522: textOf joins the text blocks of an MCP result and of a language-model tool result, and leaves out the rest', () => {
    assert.equal(textOf({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x' }, { type: 'text', text: 'b' }] }), 'ab');
    assert.equal(textOf({ content: [{ value: 'one' }, { value: { tsx: true } }, { value: 'two' }] }, '\n'), 'one\ntwo');
    assert.equal(textOf(undefined), '');
  });

  it('H522: no suite defines its own until or textOf', () => {
    const own = testFiles('test').filter(f => f !== 'test/support/wait.ts')
      .filter(f => /^(?:export )?(?:async )?function (?:until|textOf)\b|^const (?:until|textOf) = /m.test(fs.readFileSync(path.join(ROOT, f), 'utf8')));
    assert.deepEqual(own, ['test/editor/helpers.ts'], 'only the editor\'s wrapper (the same wait, woken by host events)');
  });
});
