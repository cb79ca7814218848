/** LogBatcher: floods reach the output as a few batched appends, not one per line, each of bounded size. */
import * as assert from 'node:assert/strict';
import { LogBatcher, type LogEntry, type LogLevel } from '../../src/mcp';

const entry = (server: string, level: LogLevel, message: string): LogEntry => ({ server, level, source: 'stderr', message, time: 0 });

describe('LogBatcher', () => {
  it('writes one batch per run of consecutive entries of one server and level, in order', () => {
    const writes: string[] = [];
    const b = new LogBatcher((server, level, entries) => writes.push(`${server}/${level}: ${entries.map(e => e.message).join(',')}`), 10_000);
    for (const [s, l, m] of [['a', 'info', '1'], ['a', 'info', '2'], ['a', 'error', '3'], ['b', 'error', '4'], ['a', 'info', '5']] as const) b.enqueue(entry(s, l, m));
    assert.deepEqual(writes, [], 'nothing is written before a flush');
    b.flush();
    assert.deepEqual(writes, ['a/info: 1,2', 'a/error: 3', 'b/error: 4', 'a/info: 5']);
    b.flush();
    assert.equal(writes.length, 4, 'a second flush writes nothing');
  });

  it('flushes by itself after flushMs: 5,000 lines arrive in one append', async () => {
    const sizes: number[] = [];
    const b = new LogBatcher((_s, _l, entries) => sizes.push(entries.length), 20);
    for (let i = 0; i < 5_000; i++) b.enqueue(entry('flood', 'warning', `line ${i}`));
    await new Promise(r => setTimeout(r, 100));
    assert.deepEqual(sizes, [5_000]);
  });

  it('hands a flood on every maxBatchChars (64 KiB), in order, nothing lost; a bystander\'s lines keep their place', async () => {
    const writes: { server: string; messages: string[]; chars: number }[] = [];
    const b = new LogBatcher((server, _l, entries) => writes.push({ server, messages: entries.map(e => e.message), chars: entries.reduce((n, e) => n + e.message.length, 0) }), 10_000);
    const line = (i: number) => `flood line ${String(i).padStart(7, '0')} `.padEnd(100, 'x');
    for (let i = 0; i < 100_000; i++) {
      b.enqueue(entry('flood', 'warning', line(i)));
      if (i % 25_000 === 0) b.enqueue(entry('bystander', 'info', `bystander ${i}`));
    }
    // 10 MB, no timer has run: every batch went on its size.
    assert.ok(writes.length >= 150 && writes.length <= 160, `${writes.length} appends`);
    for (const w of writes) assert.ok(w.chars <= 64 * 1024 + 100, `an append of ${w.chars} characters`);
    b.flush();
    const flood = writes.filter(w => w.server === 'flood').flatMap(w => w.messages);
    assert.equal(flood.length, 100_000);
    assert.ok(flood.every((m, i) => m === line(i)), 'the flood\'s lines in order');
    assert.deepEqual(writes.filter(w => w.server === 'bystander').flatMap(w => w.messages), ['bystander 0', 'bystander 25000', 'bystander 50000', 'bystander 75000']);
    // The bystander's first line sits between the flood's line 0 and line 1.
    const order = writes.flatMap(w => w.messages);
    assert.equal(order.indexOf('bystander 0'), 1);
  });

  it('leaves host-wide entries (no server) to their own channel', () => {
    const writes: unknown[] = [];
    const b = new LogBatcher((...a) => writes.push(a), 10_000);
    b.enqueue(entry('', 'info', 'host line'));
    b.flush();
    assert.deepEqual(writes, []);
  });
});
