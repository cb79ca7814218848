/**
 * The MCP Apps bridge's transport in the extension host (src/extension/apps/transport.ts), on its own: a view's
 * messages arrive as the page relays them, in parts with at most VIEW_LIMITS.maxViewCharsInFlight unacknowledged.
 * Every part is charged to the view's budgets and acknowledged; parts become one message in order, never beyond the
 * 4 MiB cap; a view sending at 1,000 times its budget gets no more than the budget through, one log line naming the
 * view, its server and the limit, while another view (the bystander) keeps working. The clock is the test's.
 */
import * as assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { MAX_VIEW_MESSAGE_CHARS, ViewTransport } from '../../src/extension/apps/transport';
import { logPreview, VIEW_LIMITS } from '../../src/mcp';

const PART = VIEW_LIMITS.viewPartChars;
const turn = () => new Promise(r => setImmediate(r));
/** A message of several parts is put together, parsed and handled in turns of its own: wait for them. */
const settle = async () => { for (let i = 0; i < 50; i++) await turn(); };

/** A view's transport with a fake clock; what it posts to the page, logs and hands to the bridge. */
function view(who = 'the view of tool "stream" (MCP server "fx")') {
  let t = 0;
  const posted: Record<string, unknown>[] = [];
  const logs: string[] = [];
  const got: JSONRPCMessage[] = [];
  const tr = new ViewTransport({ postMessage: async m => { posted.push(m as Record<string, unknown>); return true; } }, l => logs.push(l), who, () => t);
  tr.onmessage = m => got.push(m);
  let id = 0;
  /** The page's relay of one message: its parts, in order. */
  const send = (message: unknown) => {
    const slices = partsOf(message);
    const n = ++id;
    slices.forEach((text, i) => tr.receivePart({ type: 'app', id: n, part: i, parts: slices.length, text }));
  };
  const acked = () => posted.filter(p => p.type === 'ack').reduce((n, p) => n + (p.chars as number), 0);
  return { tr, posted, logs, got, send, acked, tick: (ms: number) => { t += ms; } };
}

/** A message's text in the page's parts (kept per message object: the flood sends the same one again and again). */
const sliced = new WeakMap<object, string[]>();
function partsOf(message: unknown): string[] {
  const known = sliced.get(message as object);
  if (known) return known;
  const text = JSON.stringify(message);
  const out = Array.from({ length: Math.max(1, Math.ceil(text.length / PART)) }, (_, i) => text.slice(i * PART, (i + 1) * PART));
  sliced.set(message as object, out);
  return out;
}

const big = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: 'x'.repeat(n) } });

describe('MCP Apps transport: a view\'s messages in parts, acknowledged, within its budgets (H136)', () => {
  it('a message of nearly 4 MiB arrives in parts, becomes one message, and every part is acknowledged', async () => {
    const v = view();
    v.send(big(MAX_VIEW_MESSAGE_CHARS - 200));
    assert.equal(v.got.length, 0, 'not in the turn its last part came in');
    // A whole message sent after it is handled after it.
    v.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
    await settle();
    assert.equal(v.got.length, 2);
    assert.equal((v.got[1] as unknown as { params: { data: string } }).params.data, 'after');
    assert.equal(((v.got[0] as unknown as { params: { data: string } }).params.data).length, MAX_VIEW_MESSAGE_CHARS - 200);
    const acks = v.posted.filter(p => p.type === 'ack');
    assert.equal(acks.length, 1, 'one acknowledgement a turn, however many parts');
    assert.equal(v.acked(), JSON.stringify(big(MAX_VIEW_MESSAGE_CHARS - 200)).length + JSON.stringify(v.got[1]).length);
    assert.deepEqual(v.logs, []);
  });

  it('H136: a view sending max-size messages at 1,000 times its budget gets its budget through (bursts of two), the rest dropped with one log line naming view, server and limit; every part is acknowledged; the bystander view keeps working', async () => {
    const v = view();
    const bystander = view('the view of tool "get-time" (MCP server "basic")');
    const size = MAX_VIEW_MESSAGE_CHARS - 200;
    // 1,000 × the budget of one second, each ms of the test clock: 4 messages of 4 MiB per ms, for 1 s of the clock.
    let sent = 0;
    const flood = big(size);
    for (let ms = 0; ms < 1000; ms += 1) {
      for (let i = 0; i < 4; i++) { v.send(flood); sent++; }
      v.tick(1);
      if (ms % 100 === 0) { bystander.send({ jsonrpc: '2.0', id: ms, method: 'tools/call', params: { name: 'get-time', arguments: {} } }); bystander.tick(100); }
    }
    await settle();
    // One second at the budget's rate plus its burst: at most 3 of 4,000 messages of ~4 MiB.
    const passed = v.got.length;
    assert.ok(passed >= 2 && passed <= 3, `passed ${passed} of ${sent}`);
    assert.ok(v.tr.counts.receivedChars <= VIEW_LIMITS.maxViewCharsPerSecond * 3, JSON.stringify(v.tr.counts));
    assert.equal(v.tr.counts.dropped, sent - passed);
    assert.equal(v.logs.length, 1, v.logs.join('\n'));
    assert.match(v.logs[0], /^the view of tool "stream" \(MCP server "fx"\) sent messages too fast: over the limit of 4 MiB per second for an MCP App view \(maxViewCharsPerSecond\); dropping its messages until it slows down$/);
    await turn();
    // The page's parts in flight are all released: it never stalls waiting for an acknowledgement.
    assert.equal(v.acked(), sent * JSON.stringify(flood).length);
    // The bystander: every call reached its bridge, nothing logged.
    assert.equal(bystander.got.length, 10);
    assert.deepEqual(bystander.logs, []);
    // After a quiet second the flooding view is heard again.
    v.tick(1000);
    v.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'calm' } });
    await settle();
    assert.equal(v.got.length, passed + 1);
  });

  it('parts out of order, malformed, over the part size or more than a 4 MiB message needs end their message (dropped, logged); the next message passes', async () => {
    const v = view();
    const text = JSON.stringify(big(3 * PART));
    const parts = Math.ceil(text.length / PART);
    const part = (id: number, i: number, n = parts, t = text.slice(i * PART, (i + 1) * PART)) => v.tr.receivePart({ type: 'app', id, part: i, parts: n, text: t });
    part(1, 0); part(1, 2); // a part skipped
    part(2, 1); // a message that begins in its middle
    v.tr.receivePart({ type: 'app', id: 3, part: 0, parts: 2, text: 'y'.repeat(PART + 1) }); // a part over the part size
    v.tr.receivePart({ type: 'app', id: 4, part: 0, parts: 1000, text: '{' }); // more parts than 4 MiB needs
    v.tr.receivePart({ type: 'app', id: 5, part: 0, parts: 2, text: 5 }); // not text
    assert.equal(v.got.length, 0);
    assert.equal(v.logs.length, 5, v.logs.join('\n'));
    for (let i = 0; i < parts; i++) part(6, i);
    await settle();
    assert.equal(v.got.length, 1);
  });
});

describe('MCP Apps transport: a big view message is put together and parsed in slices (H150)', () => {
  /** A JSON text of about `mib` MiB that `JSON.stringify` could not write: duplicate keys, `__proto__`, numbers, escapes, characters of 2 to 4 bytes. */
  function hostileText(mib: number): string {
    const unit = '"k":1,"k":{"__proto__":{"polluted":true},"n":[1e308,-0,0.1,123456789012345678901234567890,-1.5e-7]},'
      + '"s":"é€😀 \\\\ \\" \\ud800 \\udfff \\u0000 \\n 😀😀😀",';
    const items: string[] = [];
    let n = 0;
    for (let i = 0; n < mib * 1024 * 1024; i++) { const item = `{"i":${i},${unit}"tail":"${'😀é'.repeat(i % 7)}"}`; items.push(item); n += item.length; }
    // A long string of emoji: a surrogate pair falls across part boundaries.
    const head = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"echo","arguments":{"items":[${items.join(',')}],"long":"`;
    // The page's parts begin at multiples of PART (even): the pairs begin at an odd offset, so a boundary cuts one.
    const pad = head.length % 2 === 0 ? 'a' : '';
    return `${head}${pad}${'😀'.repeat(300_000)}x"}}}`;
  }
  const parts = (text: string) => Array.from({ length: Math.ceil(text.length / PART) }, (_, i) => text.slice(i * PART, (i + 1) * PART));
  const until = async (cond: () => boolean) => { for (let i = 0; i < 5000 && !cond(); i++) await turn(); };

  it('H150: a message of over 2.5 million characters (its parts cutting surrogate pairs) is delivered whole, equal to JSON.parse of its text, before the small one sent after it; no single JSON.parse takes 1 MiB of it; a bystander view keeps working', async () => {
    const v = view();
    const bystander = view('the view of tool "get-time" (MCP server "basic")');
    const text = hostileText(2);
    assert.ok(text.length >= 1024 * 1024 && text.length <= MAX_VIEW_MESSAGE_CHARS, `${text.length}`);
    const slices = parts(text);
    assert.ok(slices.some(s => { const c = s.charCodeAt(s.length - 1); return c >= 0xd800 && c <= 0xdbff; }), 'a part ends inside a surrogate pair');
    const expected = JSON.parse(text) as JSONRPCMessage;
    const parse = JSON.parse;
    let largest = 0;
    JSON.parse = ((t: string, r?: never) => { largest = Math.max(largest, String(t).length); return parse(t, r); }) as typeof JSON.parse;
    try {
      slices.forEach((t, i) => v.tr.receivePart({ type: 'app', id: 1, part: i, parts: slices.length, text: t }));
      v.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
      bystander.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-time', arguments: {} } });
      await until(() => v.got.length === 2 && bystander.got.length === 1);
    } finally {
      JSON.parse = parse;
    }
    assert.ok(largest < 1024 * 1024, `one JSON.parse took ${largest} characters`);
    assert.equal(v.got.length, 2);
    assert.deepStrictEqual(v.got[0], expected);
    assert.equal(Object.getPrototypeOf((v.got[0] as unknown as { params: { arguments: { items: { k: object }[] } } }).params.arguments.items[0].k), Object.prototype);
    assert.equal((v.got[1] as unknown as { params: { data: string } }).params.data, 'after');
    assert.deepEqual(v.logs, []);
    assert.equal(v.tr.counts.receivedChars, text.length + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } }).length);
    assert.equal(v.acked(), v.tr.counts.receivedChars);
    assert.equal(bystander.got.length, 1);
    assert.deepEqual(bystander.logs, []);
  });

  it('H150: a big message that is not JSON, or not JSON-RPC, is dropped with one log line; the message after it passes', async () => {
    const v = view();
    const bad = hostileText(1).replace('"tail"', '"tail":');
    const notRpc = JSON.stringify({ hello: 'x'.repeat(2 * PART) });
    for (const [id, text] of [[1, bad], [2, notRpc]] as const) parts(text).forEach((t, i, all) => v.tr.receivePart({ type: 'app', id, part: i, parts: all.length, text: t }));
    v.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
    await until(() => v.got.length === 1);
    assert.equal(v.got.length, 1);
    assert.equal((v.got[0] as unknown as { params: { data: string } }).params.data, 'after');
    assert.equal(v.logs.length, 2, v.logs.join('\n'));
    for (const l of v.logs) assert.match(l, /^the view of tool "stream" \(MCP server "fx"\) sent a message that is not JSON-RPC \(.+\); dropped$/s);
    assert.equal(v.tr.counts.received, 3);
  });

  it('H150: a view\'s log data is shown as the start of its JSON without serialising it whole: equal to JSON.stringify up to the cut, for small and for 4 MiB data', () => {
    const small = JSON.parse(hostileText(0.01)) as unknown;
    const json = JSON.stringify(small);
    assert.equal(logPreview(small, json.length), json);
    assert.equal(logPreview(small, 4096), json.slice(0, 4096));
    for (const v of ['é😀\u2028', 1e308, -0, null, true, [], {}, [1, 'a', { b: [null] }]]) assert.equal(logPreview(v, 4096), JSON.stringify(v));
    const huge = { items: Array.from({ length: 200_000 }, (_, i) => ({ i, s: 'x'.repeat(10) })), text: 'y'.repeat(4 * 1024 * 1024) };
    // Only the elements the cut shows are read (JSON.stringify would read all 200,000).
    let reads = 0;
    const counted = { items: new Proxy(huge.items, { get: (t, k, r) => { if (typeof k === 'string' && /^\d+$/.test(k)) reads++; return Reflect.get(t, k, r); } }), text: huge.text };
    assert.equal(logPreview(counted, 4096), JSON.stringify(huge).slice(0, 4096));
    assert.ok(reads < 1000, `${reads} elements read`);
    const deep = JSON.parse('['.repeat(100) + ']'.repeat(100)) as unknown;
    assert.equal(logPreview(deep, 4096), '['.repeat(64) + '…' + ']'.repeat(64));
  });
});
