/** The request history (the protocol timeline): bounded, results kept only while small and recent, errors kept. */
import * as assert from 'node:assert/strict';
import { KEEP_RESULTS, MAX_HISTORY, MAX_RESULT_CHARS, RequestHistory } from '../../src/mcp/server/history';

describe('RequestHistory', () => {
  it('keeps the last MAX_HISTORY entries, results of the last KEEP_RESULTS only, errors with their message', async () => {
    const h = new RequestHistory(() => 'fx');
    for (let i = 0; i < MAX_HISTORY + 10; i++) await h.track('tools/call', 'echo', { i }, 'user', async () => ({ content: [{ type: 'text', text: `r${i}` }] }));
    assert.equal(h.entries.length, MAX_HISTORY);
    assert.deepEqual(h.entries[0].args, { i: 10 });
    const last = h.entries.at(-1)!;
    assert.equal(last.status, 'ok');
    assert.match(last.result ?? '', new RegExp(`"r${MAX_HISTORY + 9}"`));
    assert.match(h.entries.at(-1 - KEEP_RESULTS)!.result ?? '', /only the last results are kept/);
    await assert.rejects(h.track('prompts/get', 'p', {}, 'model', async () => { throw new Error('boom'); }), /boom/);
    assert.equal(h.entries.at(-1)!.status, 'error');
    assert.equal(h.entries.at(-1)!.error, 'boom');
    assert.equal(h.entries.at(-1)!.by, 'model');
  });

  it('a large result is measured, never kept or serialised', async () => {
    const h = new RequestHistory(() => 'fx');
    const big = { contents: [{ uri: 'x', text: 'y'.repeat(MAX_RESULT_CHARS * 4) }] };
    await h.track('resources/read', 'x', undefined, 'view', async () => big);
    const e = h.entries[0];
    assert.ok((e.size ?? 0) > MAX_RESULT_CHARS * 4);
    assert.match(e.result ?? '', /is not kept in the history/);
  });
});
