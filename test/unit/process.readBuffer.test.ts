import * as assert from 'node:assert/strict';
import { ReadBuffer } from '@modelcontextprotocol/client';
import { LineReadBuffer } from '../../src/mcp/process/readBuffer';
import { connectFixture } from '../fixtures/servers/harness';
import { DEFAULT_LIMITS } from '../../src/mcp/limits';

/** Feed `bytes` in the given chunk sizes; collect messages and errors as the SDK transport would. */
function drain(buf: { append(b: Buffer): void; readMessage(): unknown }, bytes: Buffer, sizes: number[]): { messages: unknown[]; errors: number } {
  const messages: unknown[] = [];
  let errors = 0;
  let o = 0;
  let i = 0;
  while (o < bytes.length) {
    const n = Math.max(1, sizes[i++ % sizes.length]);
    buf.append(bytes.subarray(o, o + n));
    o += n;
    for (;;) {
      try {
        const m = buf.readMessage();
        if (m === null) break;
        messages.push(m);
      } catch {
        errors++;
      }
    }
  }
  return { messages, errors };
}

describe('process: LineReadBuffer (linear stdio framing)', () => {
  const stream = Buffer.concat([
    Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n'),
    Buffer.from('not json\n'),
    Buffer.from([0xff, 0xfe, 0x0a]),
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"h\u00e9llo \u{1F600}"}}\r\n'),
    Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"big":"' + 'y'.repeat(20_000) + '"}}\n'),
    Buffer.from('{"jsonrpc":"2.0","id":3,"res'), // incomplete tail
  ]);

  for (const sizes of [[1], [3, 7, 1], [64 * 1024], [stream.length], [5, 20_000, 2]]) {
    it(`H10: yields exactly what the SDK's ReadBuffer yields (chunks of ${sizes.join('/')})`, () => {
      const ours = drain(new LineReadBuffer(), stream, sizes);
      const sdk = drain(new ReadBuffer(), stream, sizes);
      assert.deepEqual(ours, sdk);
      assert.equal(ours.messages.length, 3);
      assert.equal(ours.errors, 0, 'as SDK v2: lines that are not JSON are skipped');
    });
  }

  it('H513: a key written with an escape is the key RFC 8259 gives, also where the JSON.parse of Node 24 gets it wrong', () => {
    // After an object with the keys h513-read and \ (a backslash), the next object with h513-read and an escaped key is the one Node 24 gets wrong.
    JSON.parse('{"h513-read":0,"\\\\":0}');
    const b = new LineReadBuffer();
    b.append(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"h513-read":1,"\\n":2}}\n{"jsonrpc":"2.0","id":2,"result":{"plain":true}}\n'));
    assert.equal(JSON.stringify(b.readMessage()), '{"jsonrpc":"2.0","id":1,"result":{"h513-read":1,"\\n":2}}');
    assert.deepEqual(b.readMessage(), { jsonrpc: '2.0', id: 2, result: { plain: true } });
  });

  it('keeps an incomplete line until its newline arrives, across many chunks', () => {
    const b = new LineReadBuffer();
    b.append(Buffer.from('{"jsonrpc":"2.0",'));
    assert.equal(b.readMessage(), null);
    b.append(Buffer.from('"id":7,'));
    assert.equal(b.readMessage(), null);
    b.append(Buffer.from('"result":{}}\n{"jsonrpc"'));
    assert.deepEqual(b.readMessage(), { jsonrpc: '2.0', id: 7, result: {} });
    assert.equal(b.readMessage(), null);
    assert.equal(b.length, '{"jsonrpc"'.length);
  });

  it('enforces maxBufferSize like the SDK (clears and throws)', () => {
    const b = new LineReadBuffer({ maxBufferSize: 10 });
    b.append(Buffer.from('12345'));
    assert.throws(() => b.append(Buffer.from('678901')), /exceeded maximum size of 10 bytes/);
    assert.equal(b.length, 0);
  });

  it('H10: carries a 20 MB message from big.mjs through the SDK client when installed', async function () {
    this.timeout(60_000);
    const c = await connectFixture('big.mjs', ['--size', '20'], { maxBufferSize: DEFAULT_LIMITS.maxMessageBytes, linearReadBuffer: true });
    try {
      const result = await c.client.callTool({ name: 'big', arguments: {} });
      const text = (result.content as Array<{ text: string }>)[0].text;
      assert.equal(text.length, 20 * 1024 * 1024);
      assert.ok(text.endsWith('END'));
    } finally {
      await c.close();
    }
  });
});
