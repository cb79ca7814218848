/**
 * Thread block (issue 27): the longest time the thread that runs the host's core is held while a server sends
 * large or many messages. The core runs in this process, compiled from src/ (out/, the same code the extension
 * host bundles into dist/extension.js), exactly as the extension host runs it: in-process, on the one thread.
 * Measured with perf_hooks.monitorEventLoopDelay (resolution 2 ms, so a figure includes up to 2 ms of sampling
 * interval) over each case, from the request to its answer (and, for the catalogue cases, to the catalogue
 * settling) and one timer turn after it (so the turn that delivered the answer counts), reporting the **max**
 * delay. A bare SDK v2 `Client` on the same fixture is measured the same way in
 * the same run where it can do the same work (the peer). Fixture: test/fixtures/servers/block.mjs.
 *   (a) a 50 MB text tool result, and a result of 500,000 small objects (~31 MB of JSON)
 *   (b) a message just over the 64 MiB cap (refused, with bounded memory)
 *   (c) a 10,000-tool list with large schemas (a catalogue refresh)
 *   (d) 300 tools/list_changed in a row, each a new list (200 tools with large schemas)
 *   (e) 1,000 log notifications per second for 3 s, batched into the output the way the extension does
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { nodeFixture } from '../test/support/connection';
import { LogBatcher } from '../src/mcp';
import { DEFAULT_LIMITS } from '../src/mcp/limits';
import { bareSdkLinear } from './linearStdio';
import { bareSdk, gc, memorySampler, round, startHost, type Bench, type BenchResult } from './lib';

const FILE = 'block.mjs';
const TARGET_MS = 50;
/** Runs of each case per side; the max over all of them is the figure. */
const RUNS = 3;
/** BLOCK_CASES=a,c (env) runs only those cases (a: big results, b: over the cap, c: 10,000 tools, d: list_changed, e: logs). */
const CASES = process.env.BLOCK_CASES?.split(',') ?? ['a', 'b', 'c', 'd', 'e'];

interface Delay { maxMs: number; p99Ms: number; ms: number; rssPeakMb: number }

/** Max event-loop delay (and p99, duration, rss peak) while `fn` runs, after a GC. */
async function measure(fn: () => Promise<unknown>): Promise<Delay> {
  gc();
  await new Promise(r => setTimeout(r, 50));
  const h = monitorEventLoopDelay({ resolution: 2 });
  const mem = memorySampler(10);
  h.enable();
  const t0 = performance.now();
  let ms: number;
  try {
    await fn();
  } finally {
    ms = performance.now() - t0;
    // The histogram records a turn's delay when its timer next runs: the turn that delivered the answer (a one-go
    // parse of the whole message, on a side that does one) ends with `fn` resolving, before any timer has run. Wait
    // for one, so that turn is counted too (without this wait the bare SDK's 0.5 s parse of the 31 MB answer went
    // unseen and its max read 12-18 ms).
    await new Promise(r => setTimeout(r, 10));
    h.disable();
  }
  const m = mem.stop();
  return { maxMs: h.max / 1e6, p99Ms: h.percentile(99) / 1e6, ms, rssPeakMb: m.rssPeakMb };
}

/** The worst of RUNS measurements of `fn`. */
async function worst(fn: () => Promise<unknown>, runs = RUNS): Promise<Delay> {
  const all: Delay[] = [];
  for (let i = 0; i < runs; i++) all.push(await measure(fn));
  return {
    maxMs: Math.max(...all.map(d => d.maxMs)), p99Ms: Math.max(...all.map(d => d.p99Ms)),
    ms: all.map(d => d.ms).sort((a, b) => a - b)[Math.floor(all.length / 2)], rssPeakMb: Math.max(...all.map(d => d.rssPeakMb)),
  };
}

function row(what: string, host: Delay, peer: Delay | undefined, peerName: string | undefined, note: string): BenchResult {
  return {
    name: `block: ${what}`, value: round(host.maxMs, 1), unit: 'ms max delay',
    ratio: peer ? round(host.maxMs / peer.maxMs) : null,
    target: `max ≤ ${TARGET_MS} ms`, met: host.maxMs <= TARGET_MS,
    ...(peerName ? { baseline: peerName } : {}),
    note: `host: p99 ${round(host.p99Ms, 1)} ms, ${round(host.ms, 0)} ms to the answer (median of ${RUNS}), rss peak +${round(host.rssPeakMb, 0)} MB` +
      (peer ? `; peer: max ${round(peer.maxMs, 1)} ms, p99 ${round(peer.p99Ms, 1)} ms, ${round(peer.ms, 0)} ms, rss peak +${round(peer.rssPeakMb, 0)} MB` : '') +
      (note ? `; ${note}` : ''),
  };
}

const fmtD = (d: Delay) => `max ${d.maxMs.toFixed(1)} ms, p99 ${d.p99Ms.toFixed(1)} ms, ${d.ms.toFixed(0)} ms, rss +${d.rssPeakMb.toFixed(0)} MB`;
const LINEAR = 'bare SDK v2 Client, linear read buffer (bench/linearStdio.ts), same fixture, same run';
const STOCK = 'bare SDK v2 Client (its StdioClientTransport, maxBufferSize = the host\'s cap), same fixture, same run';

export const block: Bench = {
  id: 'block',
  title: 'thread block: max event-loop delay while a server sends big or many messages (block.mjs)',
  async run(log) {
    const rows: BenchResult[] = [];
    const cap = DEFAULT_LIMITS.maxMessageBytes;

    // (a) and (b): big results, and one just over the cap.
    if (CASES.includes('a') || CASES.includes('b')) {
      const host = await startHost([nodeFixture('block', FILE)]);
      const peer = await bareSdkLinear(FILE, [], { maxBufferSize: cap, timeoutMs: 30_000 });
      try {
        const c = host.conn();
        const cases: Array<[string, string, Record<string, unknown>, (r: unknown) => void, boolean]> = [
          ['50 MB text tool result', 'text', { mb: 50 }, r => {
            const t = (r as { content: { text: string }[] }).content[0].text;
            if (t.length < 50 * 1048576 - 10) throw new Error(`got ${t.length} characters`);
          }, false],
          ['500,000-object tool result (~31 MB)', 'objects', { n: 500_000 }, r => {
            const n = (r as { structuredContent: { items: unknown[] } }).structuredContent.items.length;
            if (n !== 500_000) throw new Error(`got ${n} objects`);
          }, false],
          [`message just over the ${cap / 1048576} MiB cap (refused)`, 'over', { mb: cap / 1048576 + 0.01 }, () => undefined, true],
        ];
        for (const [what, tool, args, check, refused] of cases) {
          if (!CASES.includes(refused ? 'b' : 'a')) continue;
          const hostSide = () => c.callTool(tool, args, { timeout: 120_000 }).then(
            r => { if (refused) throw new Error('the host took a message over its cap'); check(r); },
            err => { if (!refused) throw err; });
          // The peer never fails the request its refused message answered: it waits for its timeout (5 s here).
          const peerSide = () => peer.client.callTool({ name: tool, arguments: args }, { timeout: refused ? 5_000 : 120_000 }).then(
            r => { if (!refused) check(r); },
            err => { if (!refused) throw err; });
          await hostSide(); await peerSide();
          const h = await worst(hostSide);
          const p = await worst(peerSide);
          log(`${what}: host ${fmtD(h)}; peer ${fmtD(p)}`);
          rows.push(row(what, h, p, LINEAR, refused ? 'the host fails the request as soon as the line passes the cap; the peer drops the line in its read buffer (maxBufferSize = the cap) and its request waits for its timeout (5 s here), so only the delays compare, not the times' : ''));
        }
      } finally {
        await Promise.all([host.close(), peer.close()]);
      }
    }

    // (c) 10,000 tools with large schemas: a refresh of the tool list. Once as one ~20 MB message (its parse included),
    // once in pages of 200 tools (~400 KB each): the host's own work on the list without one big parse (H149).
    for (const page of CASES.includes('c') ? [0, 200] : []) {
      const args = ['--tools', '10000', '--props', '12', ...(page ? ['--page', String(page)] : [])];
      const host = await startHost([nodeFixture('block', FILE, args)]);
      const peer = await bareSdk(FILE, args, { maxBufferSize: cap, timeoutMs: 60_000 });
      try {
        const c = host.conn();
        const hostSide = async () => {
          await c.refreshCatalogue('tools');
          if (c.catalogue.tools.length < 10_000) throw new Error(`host catalogue holds ${c.catalogue.tools.length} tools`);
        };
        const peerSide = async () => {
          let n = 0;
          let cursor: string | undefined;
          do {
            const r = await peer.client.listTools(cursor === undefined ? undefined : { cursor });
            n += r.tools.length;
            cursor = r.nextCursor;
          } while (cursor);
          if (n < 10_000) throw new Error(`peer got ${n} tools`);
        };
        await hostSide(); await peerSide();
        const h = await worst(hostSide);
        const p = await worst(peerSide);
        const what = page ? `10,000-tool list in pages of ${page}, large schemas (refresh)` : '10,000-tool list, large schemas (refresh)';
        log(`${what}: host ${fmtD(h)}; peer ${fmtD(p)}`);
        rows.push(row(what, h, p, STOCK, page
          ? `the same list in ${Math.ceil(10_000 / page)} pages of ~400 KB (no big parse: the host's own work on the list); the peer: the SDK's listTools() page by page`
          : '12 string properties (description, pattern, maxLength) per input schema and an output schema per tool: ~20 MB, under the 32 MiB catalogue cap'));
      } finally {
        await Promise.all([host.close(), peer.close()]);
      }
    }

    // (d) 300 list_changed in a row, each a new list of 200 tools.
    if (CASES.includes('d')) {
      const args = ['--tools', '200', '--props', '20'];
      const host = await startHost([nodeFixture('block', FILE, args)]);
      let peerVersion = '';
      let peerWake: (() => void) | undefined;
      const peer = await bareSdk(FILE, args, {
        maxBufferSize: cap, timeoutMs: 60_000,
        clientOptions: {
          listChanged: {
            tools: { onChanged: (_err, tools) => { peerVersion = tools?.find(t => t.name.startsWith('gen-'))?.name.split('-')[1] ?? ''; peerWake?.(); } },
          },
        },
      });
      try {
        const c = host.conn();
        const settled = (version: string, current: () => string, wait: (wake: () => void) => () => void) => new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => { stop(); reject(new Error(`list version ${version} never arrived (at ${current()})`)); }, 60_000);
          const check = () => { if (current() === version) { clearTimeout(timer); stop(); resolve(); } };
          const stop = wait(check);
          check();
        });
        const hostVersion = () => c.catalogue.tools.find(t => t.name.startsWith('gen-'))?.name.split('-')[1] ?? '';
        const hostSide = async () => {
          const r = await c.callTool('churn', { n: 300 }, { timeout: 60_000 });
          const v = String((r.structuredContent as { version: number }).version);
          await settled(v, hostVersion, wake => { const d = host.host.onDidChangeCatalogue(wake); return () => d.dispose(); });
        };
        const peerSide = async () => {
          const r = await peer.client.callTool({ name: 'churn', arguments: { n: 300 } }, { timeout: 60_000 });
          const v = String((r.structuredContent as { version: number }).version);
          await settled(v, () => peerVersion, wake => { peerWake = wake; return () => { peerWake = undefined; }; });
        };
        await hostSide(); await peerSide();
        const h = await worst(hostSide);
        const p = await worst(peerSide);
        log(`300 list_changed: host ${fmtD(h)}; peer ${fmtD(p)}`);
        rows.push(row('300 tools/list_changed in a row (200 tools each)', h, p, `${STOCK}, its listChanged option (debounced refresh)`, 'measured until the newest list is in the catalogue'));
      } finally {
        await Promise.all([host.close(), peer.close()]);
      }
    }

    // (e) 1,000 log notifications per second for 3 s, into the extension's batching (LogBatcher, 50 ms).
    if (CASES.includes('e')) {
      const host = await startHost([nodeFixture('block', FILE)]);
      const peer = await bareSdk(FILE, [], { maxBufferSize: cap, timeoutMs: 60_000 });
      let hostLines = 0, peerLines = 0, appends = 0;
      const batcher = new LogBatcher((_s, _l, entries) => { appends++; hostLines += entries.map(e => e.message).join('\n').split('\n').length; }, 50);
      const sub = host.host.onLog(e => { if (e.source !== 'stderr') batcher.enqueue(e); });
      peer.client.setNotificationHandler('notifications/message', () => { peerLines++; });
      try {
        const c = host.conn();
        const hostSide = async () => { await c.callTool('logs', { rate: 1000, seconds: 3 }, { timeout: 60_000 }); batcher.flush(); };
        const peerSide = () => peer.client.callTool({ name: 'logs', arguments: { rate: 1000, seconds: 3 } }, { timeout: 60_000 });
        const h = await worst(hostSide, 2);
        const p = await worst(peerSide, 2);
        log(`1,000 logs/s: host ${fmtD(h)} (${hostLines} lines in ${appends} appends); peer ${fmtD(p)} (${peerLines} notifications)`);
        rows.push(row('1,000 log notifications/s for 3 s', h, p, `${STOCK}, a notifications/message handler that counts`, `host lines into the extension's batching (LogBatcher, 50 ms): ${hostLines} lines in ${appends} appends`));
      } finally {
        sub.dispose();
        batcher.flush();
        await Promise.all([host.close(), peer.close()]);
      }
    }
    return rows;
  },
};
