/** LogBatcher: floods reach the output as a few batched appends, not one per line. */
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

  it('flushes by itself after flushMs: 10,000 lines arrive in one append', async () => {
    const sizes: number[] = [];
    const b = new LogBatcher((_s, _l, entries) => sizes.push(entries.length), 20);
    for (let i = 0; i < 10_000; i++) b.enqueue(entry('flood', 'warning', `line ${i}`));
    await new Promise(r => setTimeout(r, 100));
    assert.deepEqual(sizes, [10_000]);
  });

  it('leaves host-wide entries (no server) to their own channel', () => {
    const writes: unknown[] = [];
    const b = new LogBatcher((...a) => writes.push(a), 10_000);
    b.enqueue(entry('', 'info', 'host line'));
    b.flush();
    assert.deepEqual(writes, []);
  });
});
