import * as assert from 'node:assert/strict';
import { LineFramer, OVERFLOW_TAIL_BYTES, utf8Boundary, utf8Head } from '../../src/mcp/process/lineFramer';
import { describeInvalid, idAtEnd, readHead, shapeReason } from '../../src/mcp/process/jsonrpcShape';
import { cutLine, trimTail } from '../../src/mcp/process/stderrLines';
import { spawnCommand } from '../../src/mcp/process/windowsCommand';
import { StdioTransport } from '../../src/mcp/process/stdioTransport';
import { StdioMessageError } from '../../src/mcp/process/stdoutReader';
import { isAlive, LAUNCH_MARKER_ENV } from '../../src/mcp/process/processTree';
import { HOST_REJECTED } from '../../src/mcp/errors';
import { rng } from '../support/rng';
import { until } from '../support/wait';

interface Seen { lines: string[]; overflows: string[]; ends: { total: number; head: string; tail: string }[]; maxBuffered: number }

/** Feed `bytes` in chunks of the given sizes through a framer; record everything it reports. */
function frame(bytes: Buffer, sizes: number[], maxLineBytes: number, headBytes = 16): Seen {
  const seen: Seen = { lines: [], overflows: [], ends: [], maxBuffered: 0 };
  const f = new LineFramer({ maxLineBytes, headBytes }, {
    line: b => seen.lines.push(b.toString('utf8')),
    overflow: h => seen.overflows.push(h.toString('utf8')),
    overflowEnd: (total, head, tail) => seen.ends.push({ total, head: head.toString('utf8'), tail: tail.toString('utf8') }),
  });
  for (let o = 0, i = 0; o < bytes.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]);
    f.push(bytes.subarray(o, o + n));
    seen.maxBuffered = Math.max(seen.maxBuffered, f.buffered);
    o += n;
  }
  return seen;
}

describe('process: LineFramer (bounded stdio framing)', () => {
  it('splits lines across any chunking, keeps \\r for the caller, holds an incomplete last line', () => {
    const text = 'one\ntwo\r\n\nthree with ünïcödé 😀\nfour-incomplete';
    const r = rng(7);
    for (let round = 0; round < 50; round++) {
      const sizes = Array.from({ length: 5 }, () => 1 + Math.floor(r() * 12));
      const seen = frame(Buffer.from(text), sizes, 1000);
      assert.deepEqual(seen.lines, ['one', 'two\r', '', 'three with ünïcödé 😀'], `chunks ${sizes.join('/')}`);
    }
  });

  it('H143: a line of at least bigLineBytes goes to bigLine as its pieces (not joined), in order with the lines around it', () => {
    const got: string[] = [];
    const f = new LineFramer({ maxLineBytes: 1000, headBytes: 10, bigLineBytes: 20 }, {
      line: b => got.push(`line:${b.toString()}`),
      bigLine: (parts, size) => {
        assert.ok(parts.length > 1);
        assert.equal(parts.reduce((n, p) => n + p.length, 0), size);
        got.push(`big:${Buffer.concat(parts).toString()}`);
      },
    });
    const text = `small\n${'b'.repeat(30)}\n${'c'.repeat(19)}\nend\n`;
    for (let i = 0; i < text.length; i += 4) f.push(Buffer.from(text.slice(i, i + 4)));
    assert.deepEqual(got, ['line:small', `big:${'b'.repeat(30)}`, `line:${'c'.repeat(19)}`, 'line:end']);
  });

  it('a line of exactly the cap is delivered; one byte more is cut: overflow once with the head, then its total and tail; the next line is whole', () => {
    const cap = 100;
    const exact = 'a'.repeat(cap);
    const over = `{"id":7,${'b'.repeat(500)}END}`;
    for (const sizes of [[1], [7], [64], [10_000]]) {
      const seen = frame(Buffer.from(`${exact}\n${over}\nafter\n`), sizes, cap, 16);
      assert.deepEqual(seen.lines, [exact, 'after']);
      assert.deepEqual(seen.overflows, [over.slice(0, 16)]);
      assert.equal(seen.ends.length, 1);
      assert.equal(seen.ends[0].total, over.length);
      assert.equal(seen.ends[0].head, over.slice(0, 16));
      assert.ok(over.endsWith(seen.ends[0].tail) && seen.ends[0].tail.length <= OVERFLOW_TAIL_BYTES);
      assert.ok(seen.ends[0].tail.endsWith('END}'));
    }
  });

  it('never holds more than the cap plus one chunk for a line, however long it is', () => {
    const cap = 64 * 1024;
    const chunk = 16 * 1024;
    const big = Buffer.alloc(10 * 1024 * 1024, 0x78);
    const seen = frame(Buffer.concat([big, Buffer.from('\nok\n')]), [chunk], cap, 4096);
    assert.ok(seen.maxBuffered <= cap + chunk, `held ${seen.maxBuffered} bytes`);
    assert.equal(seen.ends[0].total, big.length);
    assert.deepEqual(seen.lines, ['ok']);
  });

  it('end(true) delivers a last line without newline (stderr); end(false) drops it (stdout)', () => {
    const lines: string[] = [];
    const f = new LineFramer({ maxLineBytes: 100, headBytes: 10 }, { line: b => lines.push(b.toString()) });
    f.push(Buffer.from('a\npartial'));
    f.end(true);
    f.push(Buffer.from('x\nnever-ended'));
    f.end(false);
    assert.deepEqual(lines, ['a', 'partial', 'x']);
  });

  it('utf8Boundary never splits a character, also when the buffer itself was cut inside one', () => {
    const s = Buffer.from('aé😀b');
    assert.equal(utf8Head(s, 2), 'a');
    assert.equal(utf8Head(s, 3), 'aé');
    assert.equal(utf8Head(s, 6), 'aé');
    assert.equal(utf8Head(s, 7), 'aé😀');
    assert.equal(utf8Boundary(s.subarray(0, 5)), 3);
    assert.equal(utf8Boundary(s.subarray(0, 7)), 7);
  });
});

describe('process: what an invalid JSON-RPC line still tells', () => {
  it('readHead finds the top-level id and method, skipping nested ids, tolerating a cut anywhere', () => {
    assert.deepEqual(readHead('{"jsonrpc":"2.0","id":12,"result":{"content":[{"text":"xx'), { id: 12, method: false });
    assert.deepEqual(readHead('{"result":{"id":99,"tools":[{"id":"nested"}]},"id":"abc","jsonrpc":"2.0"}'), { id: 'abc', method: false });
    assert.deepEqual(readHead('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"xxx'), { method: true });
    assert.deepEqual(readHead('{"jsonrpc":"2.0","result":{"text":"cut here'), { method: false });
    assert.deepEqual(readHead('{"jsonrpc":"2.0","id":"with \\"quote'), { method: false });
    assert.deepEqual(readHead('not json'), { method: false });
  });

  it('idAtEnd reads an id that closes the message', () => {
    assert.equal(idAtEnd('xxxx"}]},"id":5}'), 5);
    assert.equal(idAtEnd('xxxx"}]},"id":"r-1","jsonrpc":"2.0"}\r'), 'r-1');
    assert.equal(idAtEnd('xxxx"id":5,"more":1}'), undefined);
  });

  it('describeInvalid names the problem and the request a response answers', () => {
    // the facts, and the clause shapeReason makes of them (English without a bundle)
    const describe = (value: unknown, detail?: string) => {
      const { problem, answers } = describeInvalid(value, detail);
      return { reason: shapeReason(problem), ...(answers !== undefined ? { answers } : {}) };
    };
    assert.deepEqual(describeInvalid([1]), { problem: { kind: 'batch' } });
    assert.deepEqual(describe({ jsonrpc: '2.0', id: 3, result: {}, error: { code: 1, message: 'x' } }),
      { reason: 'a response with both result and error, which JSON-RPC forbids', answers: 3 });
    assert.deepEqual(describe({ id: 'a', result: {} }), { reason: 'no "jsonrpc": "2.0"', answers: 'a' });
    assert.deepEqual(describe({ jsonrpc: '2.0', id: 4 }), { reason: 'a response with neither result nor error', answers: 4 });
    assert.equal(describe({ jsonrpc: '2.0', id: 4, result: 5 }, 'result: expected object').reason, 'a malformed response (result: expected object)');
    assert.deepEqual(describe({ jsonrpc: '2.0', method: 7 }), { reason: 'a method that is not a string' });
    assert.deepEqual(describe([1]), { reason: 'a JSON array (batches are not part of MCP)' });
    assert.deepEqual(describe(null), { reason: 'a JSON null, not an object' });
    assert.equal(describe({ jsonrpc: '2.0', id: 1, method: 'x', result: {} }).answers, undefined, 'a request is never taken for a response');
  });
});

describe('process: stderr bounds', () => {
  it('cutLine cuts at the byte cap on a character boundary and counts what was cut', () => {
    assert.deepEqual(cutLine('short', 10), { text: 'short', cut: false });
    assert.deepEqual(cutLine('abcdefghijkl', 10), { text: 'abcdefghij (2 more bytes)', cut: true });
    assert.deepEqual(cutLine('ééééé', 5), { text: 'éé (6 more bytes)', cut: true });
    assert.deepEqual(cutLine('abc', 10, 100), { text: 'abc (100 more bytes)', cut: true });
  });

  it('trimTail keeps the newest lines within the line count and the byte budget', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `${i}`.repeat(10));
    trimTail(lines, 8, 35);
    assert.deepEqual(lines, ['7777777777', '8888888888', '9999999999']);
    const one = ['x'.repeat(100)];
    trimTail(one, 8, 20);
    assert.match(one[0], /^x{20} \(80 more bytes\)$/);
  });
});

describe('process: spawning batch files on Windows', () => {
  it('runs .cmd through cmd.exe with metacharacters escaped; anything else as is', () => {
    assert.deepEqual(spawnCommand('/usr/bin/node', ['a b'], 'linux'), { file: '/usr/bin/node', args: ['a b'] });
    assert.deepEqual(spawnCommand('C:\\node\\node.exe', ['x'], 'win32'), { file: 'C:\\node\\node.exe', args: ['x'] });
    const r = spawnCommand('C:\\Program Files\\nodejs\\npx.cmd', ['-y', 'a&b', 'say "hi"'], 'win32', 'C:\\Windows\\system32\\cmd.exe');
    assert.equal(r.file, 'C:\\Windows\\system32\\cmd.exe');
    assert.equal(r.windowsVerbatimArguments, true);
    assert.deepEqual(r.args.slice(0, 3), ['/d', '/s', '/c']);
    assert.equal(r.args[3], '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-y^" ^"a^&b^" ^"say^ \\^"hi\\^"^""');
  });
});

describe('process: StdioTransport (a real child)', function () {
  this.timeout(20_000);
  /** A child that answers every request line with `reply(message)` written raw, and echoes stderr on demand. */
  const child = (reply: string) => new StdioTransport({
    server: 'unit', command: process.execPath, env: { ...process.env as Record<string, string> },
    args: ['-e', `
      process.stderr.write('launch=' + process.env.${LAUNCH_MARKER_ENV} + '\\n');
      process.stderr.write('y'.repeat(50000) + '\\n');
      require('readline').createInterface({ input: process.stdin }).on('line', l => {
        const m = JSON.parse(l);
        if (m.id !== undefined) process.stdout.write((${reply})(m) + '\\n');
      });`],
    limits: { maxMessageBytes: 1024, maxStderrLineBytes: 100 },
    stopGrace: { eofGraceMs: 500, termGraceMs: 500 },
  });

  async function run(reply: string, send: object[]) {
    const t = child(reply);
    const messages: unknown[] = [];
    const errors: Error[] = [];
    const stderr: [string, number][] = [];
    t.onmessage = m => messages.push(m);
    t.onerror = e => errors.push(e);
    t.onstderr = (l, more) => stderr.push([l, more]);
    let closed = 0;
    t.onclose = () => closed++;
    await t.start();
    for (const m of send) await t.send(m as never);
    return { t, messages, errors, stderr, closed: () => closed };
  }

  it('carries the launch marker, cuts stderr lines, frames answers, and stop() ends the child (onclose once)', async () => {
    const r = await run(`m => JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { ok: true } })`, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    await until(() => r.messages.length === 1 && r.stderr.length === 2, 'answer and stderr', 10_000);
    assert.deepEqual(r.messages, [{ jsonrpc: '2.0', id: 1, result: { ok: true } }]);
    assert.equal(r.stderr[0][0], `launch=${r.t.marker.value}`);
    assert.equal(r.stderr[1][0].length + r.stderr[1][1], 50_000);
    const pid = r.t.pid!;
    const result = await r.t.stop();
    assert.equal(result?.phase, 'eof');
    await r.t.close();
    assert.equal(isAlive(pid), false);
    assert.equal(r.closed(), 1);
    await assert.rejects(r.t.send({ jsonrpc: '2.0', id: 2, method: 'ping' }), /Not connected/);
  });

  it('fails a waiting request at once for an oversized or two-faced answer; never invents an answer for an id nobody waits for', async () => {
    const r = await run(`m => m.id === 1 ? JSON.stringify({ jsonrpc: '2.0', id: 1, result: { big: 'z'.repeat(5000) } })
        : m.id === 2 ? JSON.stringify({ jsonrpc: '2.0', id: 2, result: {}, error: { code: 1, message: 'x' } })
        : m.id === 3 ? JSON.stringify({ jsonrpc: '2.0', id: 'stranger', result: {}, error: { code: 1, message: 'x' } })
        : JSON.stringify({ jsonrpc: '2.0', id: 999, result: {} })`,
    [{ jsonrpc: '2.0', id: 1, method: 'a' }, { jsonrpc: '2.0', id: 2, method: 'b' }, { jsonrpc: '2.0', id: 3, method: 'c' }, { jsonrpc: '2.0', id: 4, method: 'd' }]);
    await until(() => r.errors.length >= 4, 'four reports', 10_000);
    const failed = r.messages as { id: number; error: { message: string; data: unknown } }[];
    assert.deepEqual(failed.map(m => m.id), [1, 2]);
    assert.match(failed[0].error.message, /^server `unit` answered request 1 with a message that is too large: over the limit of 1 KiB \(raise it with the setting `mcpHost\.limits\.maxMessageBytes`\)$/);
    assert.equal(failed[1].error.message, 'server `unit` answered request 2 with a response with both result and error, which JSON-RPC forbids');
    assert.ok(failed.every(m => m.error.data === HOST_REJECTED));
    assert.ok(r.errors.every(e => e instanceof StdioMessageError));
    assert.ok(r.errors.some(e => /for request "stranger", which is not waiting/.test(e.message)));
    assert.ok(r.errors.some(e => e.message === 'ignored a response with an unknown message ID 999: no request of ours is waiting for it'), 'a stray response is said and not delivered');
    await r.t.close();
  });

  it('a command that cannot be spawned rejects start() naming the server', async () => {
    const t = new StdioTransport({ server: 'gone', command: '/nonexistent/server', env: {}, limits: { maxMessageBytes: 1024, maxStderrLineBytes: 100 } });
    await assert.rejects(t.start(), /^McpHostError: server `gone` could not be started \(\/nonexistent\/server\): .*ENOENT/);
    await t.close();
  });
});
