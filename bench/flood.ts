/**
 * Log flood: a server writes 50 MB to stderr in 5 s (stderr-flood.mjs) while the host consumes it. A
 * listener on `host.onLog` batches with the core's LogBatcher, as the extension's ServerLogs does (src/extension/ui/logs.ts):
 * queue every entry, flush every 50 ms, one multi-line append per run of same-server same-level entries. Measured in
 * this process: event-loop delay (perf_hooks.monitorEventLoopDelay), memory growth, and appends.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { nodeFixture } from '../test/support/connection';
import { LOG_BATCH_CHARS, LogBatcher, type LogEntry } from '../src/mcp';
import { gc, memorySampler, round, startHost, type Bench } from './lib';

const MB = 50;
const SECONDS = 5;
const FLUSH_MS = 50; // LOG_FLUSH_MS in src/extension/ui/logs.ts

/** The extension's batching (the core's LogBatcher, as src/extension/ui/logs.ts uses it) with appends counted and dropped. */
class BatchedSink {
  appends = 0;
  lines = 0;
  chars = 0;
  private readonly batcher = new LogBatcher((_server, _level, entries) => {
    const text = entries.map(e => (e.source === 'stderr' ? `[stderr] ${e.message}` : e.message)).join('\n');
    this.appends++;
    this.lines += entries.length;
    this.chars += text.length;
  }, FLUSH_MS);

  enqueue(e: LogEntry): void { this.batcher.enqueue(e); }
  flush(): void { this.batcher.flush(); }
}

export const flood: Bench = {
  id: 'flood',
  title: `log flood: ${MB} MB of stderr in ${SECONDS} s (stderr-flood.mjs)`,
  async run(log) {
    const host = await startHost([nodeFixture('flood', 'stderr-flood.mjs')]);
    const sink = new BatchedSink();
    const sub = host.host.onLog(e => sink.enqueue(e));
    try {
      gc();
      await new Promise(r => setTimeout(r, 100));
      const lag = monitorEventLoopDelay({ resolution: 1 });
      const mem = memorySampler(20);
      lag.enable();
      const t0 = performance.now();
      const result = await host.conn().callTool('flood', { mb: MB, seconds: SECONDS }, { timeout: 120_000 });
      // The last lines may still be in the pipe / readline: wait until they are in.
      const server = result.structuredContent as { lines: number; bytes: number; ms: number };
      const until = Date.now() + 10_000;
      while (sink.lines + 1 < server.lines && Date.now() < until) { sink.flush(); await new Promise(r => setTimeout(r, 20)); }
      sink.flush();
      const elapsed = performance.now() - t0;
      // The last flush's turn is recorded when a timer next runs (see bench/block.ts measure()).
      await new Promise(r => setTimeout(r, 5));
      lag.disable();
      const m = mem.stop();
      const p99 = lag.percentile(99) / 1e6;
      const max = lag.max / 1e6;
      const mean = lag.mean / 1e6;
      const appendsPerS = sink.appends / (elapsed / 1000);
      log(`server wrote ${(server.bytes / 1048576).toFixed(1)} MB in ${server.lines} lines over ${server.ms} ms; host took ${elapsed.toFixed(0)} ms`);
      log(`event-loop delay p99 ${p99.toFixed(1)} ms, max ${max.toFixed(1)} ms, mean ${mean.toFixed(1)} ms; rss peak +${m.rssPeakMb.toFixed(1)} MB, heap peak +${m.heapPeakMb.toFixed(1)} MB`);
      log(`${sink.lines} lines in ${sink.appends} appends (${appendsPerS.toFixed(1)}/s, ${(sink.lines / Math.max(1, sink.appends)).toFixed(0)} lines each)`);
      // Batched: at most two appends per flush interval (a run of another level may split one), plus one per 64 KiB.
      const batched = sink.appends <= Math.ceil(elapsed / FLUSH_MS) * 2 + Math.ceil(sink.chars / LOG_BATCH_CHARS) + 10;
      return [
        {
          name: `log flood: event-loop delay p99 (${MB} MB stderr in ${SECONDS} s)`, value: round(p99, 2), unit: 'ms',
          ratio: null, target: 'p99 ≤ 50 ms', met: p99 <= 50,
          note: `sampled every 1 ms (the figure includes that interval); max ${round(max, 1)} ms, mean ${round(mean, 2)} ms; server wrote ${server.lines} lines in ${server.ms} ms, host had them all after ${round(elapsed, 0)} ms`,
        },
        {
          name: 'log flood: memory growth (rss peak above start)', value: round(m.rssPeakMb, 1), unit: 'MB',
          ratio: null, target: 'memory growth ≤ 50 MB', met: m.rssPeakMb <= 50, note: `heapUsed peak +${round(m.heapPeakMb, 1)} MB`,
        },
        {
          name: 'log flood: output appends', value: sink.appends, unit: 'appends',
          ratio: null, target: 'output appends batched', met: batched && sink.lines + 1 >= server.lines,
          note: `${sink.lines} lines, ${round(appendsPerS, 1)} appends/s (flush every ${FLUSH_MS} ms or ${LOG_BATCH_CHARS / 1024} KiB of messages)`,
        },
      ];
    } finally {
      sub.dispose();
      await host.close();
    }
  },
};
