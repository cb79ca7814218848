/** The request history (the protocol timeline): bounded, results kept only while small and recent, errors kept. */
import * as assert from 'node:assert/strict';
import { KEEP_RESULTS, MAX_HISTORY, MAX_RESULT_CHARS, RequestHistory } from '../../src/mcp/server/history';
import { Redactor } from '../../src/mcp/logging/redact';

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

  it('H81: what is kept across reloads went through the redaction path, leaves out large results, and comes back bounded', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const h = new RequestHistory(() => 'fx');
    await h.track('tools/call', `echo-${secret}`, { message: `token ${secret}`, apiKey: 'plain-key-value' }, 'user', async () => ({ content: [{ type: 'text', text: `Echo: ${secret}` }] }));
    await h.track('resources/read', 'big://x', undefined, 'view', async () => ({ contents: [{ uri: 'x', text: 'y'.repeat(MAX_RESULT_CHARS * 4) }] }));
    await assert.rejects(h.track('prompts/get', 'p', {}, 'model', async () => { throw new Error(`failed with ${secret}`); }));
    const stored = h.toStored(new Redactor([secret]));
    const text = JSON.stringify(stored);
    assert.ok(!text.includes(secret), text.slice(0, 500));
    assert.ok(!text.includes('plain-key-value'), 'a value under a secret-looking key is masked');
    assert.equal(stored.entries.length, 3);
    assert.match(stored.entries[0].result ?? '', /Echo: \*\*\*/);
    assert.equal(stored.entries[1].result, undefined, 'a result over the cap is not kept');
    assert.ok((stored.entries[1].size ?? 0) > MAX_RESULT_CHARS * 4, 'its size is');
    assert.equal(stored.entries[2].error, 'failed with ***');
    // A new window: the kept entries come first, then what happens now; malformed input is ignored.
    const again = new RequestHistory(() => 'fx');
    await again.track('tools/call', 'now', {}, 'user', async () => ({ content: [] }));
    again.restore({ version: 1, entries: [...JSON.parse(text).entries, { method: 'rm -rf', target: 1 }, null] });
    again.restore({ version: 2, entries: [] });
    again.restore('nonsense');
    assert.deepEqual(again.entries.map(e => e.target), ['echo-***', 'big://x', 'p', 'now']);
    assert.match(again.entries[0].result ?? '', /Echo: \*\*\*/);
    assert.equal(again.entries[2].status, 'error');
    const many = new RequestHistory(() => 'fx');
    many.restore({ version: 1, entries: Array.from({ length: MAX_HISTORY * 2 }, (_, i) => ({ method: 'tools/call', target: `t${i}`, by: 'user', at: i, status: 'ok', result: 'r' })) });
    assert.equal(many.entries.length, MAX_HISTORY);
    assert.equal(many.entries.filter(e => e.result === 'r').length, KEEP_RESULTS);
  });
});
