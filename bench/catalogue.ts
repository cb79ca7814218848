/**
 * The catalogue: 10,000 resources over 100 pages (paged.mjs). (1) A full fetch through the host's
 * catalogue session (the path a list_changed refresh takes: every page, then one catalogue event) vs. a
 * bare SDK v2 client, interleaved, two ways: its own `listResources()` (walks every page; `listMaxPages`
 * raised from its default 64, which a 100-page catalogue exceeds) and a hand-written cursor loop of
 * `resources/list` requests; the faster of the two is the baseline. (2) From a cold start: when the first page
 * reaches the UI model (the Resources view asks `listResourcesPage` when the server turns running) vs.
 * when the full catalogue is there.
 */
import { nodeFixture } from '../test/support/connection';
import { McpHost } from '../src/mcp';
import { BENCH_STOP, bareSdk, median, round, startHost, timed, type Bench } from './lib';

const ARGS = ['--resources', '10000', '--page', '100', '--tools', '0', '--prompts', '0', '--templates', '0'];
const ROUNDS = 30;
const WARMUP = 15;

export const catalogue: Bench = {
  id: 'catalogue',
  title: 'catalogue: 10,000 resources over 100 pages (paged.mjs)',
  async run(log) {
    const host = await startHost([nodeFixture('paged', 'paged.mjs', ARGS)]);
    const sdk = await bareSdk('paged.mjs', ARGS, { clientOptions: { listMaxPages: 0 } });
    const hostTimes: number[] = [], sdkTimes: number[] = [], loopTimes: number[] = [];
    try {
      const c = host.conn();
      if (c.catalogue.resources.length !== 10_000) throw new Error(`host catalogue holds ${c.catalogue.resources.length} resources`);
      // The refresh path a list_changed takes (every page, then one catalogue event), through the public API.
      const hostFetch = async () => {
        await c.refreshCatalogue('resources');
        if (c.catalogue.resources.length !== 10_000) throw new Error('host refresh lost resources');
      };
      const sdkFetch = async () => {
        const { resources } = await sdk.client.listResources();
        if (resources.length !== 10_000) throw new Error(`bare listResources got ${resources.length}`);
      };
      const loopFetch = async () => {
        let cursor: string | undefined;
        let n = 0;
        do {
          const page = await sdk.client.request({ method: 'resources/list', params: cursor === undefined ? {} : { cursor } });
          n += page.resources.length;
          cursor = page.nextCursor;
        } while (cursor);
        if (n !== 10_000) throw new Error(`bare loop got ${n}`);
      };
      // Warm-up: in the first ~15 rounds every side ran about twice as slow as later (the two fixture servers and
      // both clients still being optimised, the young generation still growing), which made the paired ratio a
      // figure of warm-up order, not of the host's work; the measured rounds start warm.
      for (let w = 0; w < WARMUP; w++) { await hostFetch(); await sdkFetch(); await loopFetch(); }
      const sides: Array<[() => Promise<void>, number[]]> = [[hostFetch, hostTimes], [sdkFetch, sdkTimes], [loopFetch, loopTimes]];
      for (let r = 0; r < ROUNDS; r++) {
        for (let i = 0; i < sides.length; i++) {
          const [fn, times] = sides[(i + r) % sides.length];
          times.push(await timed(fn));
        }
      }
    } finally {
      await Promise.all([host.close(), sdk.close()]);
    }
    log(`full fetch: host ${hostTimes.map(x => x.toFixed(0)).join('/')} ms, bare SDK listResources() ${sdkTimes.map(x => x.toFixed(0)).join('/')} ms, bare cursor loop ${loopTimes.map(x => x.toFixed(0)).join('/')} ms`);

    // Cold start: first page for the UI vs. the full catalogue.
    const cold = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false } });
    let firstPage = NaN, full = NaN, running = NaN, firstPageCount = 0;
    try {
      const t0 = performance.now();
      let uiPage: Promise<void> | undefined;
      cold.onDidChangeState(({ server, state }) => {
        if (state.kind !== 'running' || uiPage) return;
        running = performance.now() - t0;
        uiPage = cold.get(server)!.listResourcesPage().then(p => { firstPage = performance.now() - t0; firstPageCount = p.resources.length; });
      });
      cold.onDidChangeCatalogue(({ catalogue: cat }) => {
        if (cat.resources.length >= 10_000 && Number.isNaN(full)) full = performance.now() - t0;
      });
      await cold.reconcile([nodeFixture('paged', 'paged.mjs', ARGS)]);
      await uiPage;
    } finally {
      await cold.shutdown();
      cold.dispose();
    }
    log(`cold start: running at ${running.toFixed(0)} ms, first page (${firstPageCount} items) in the UI model at ${firstPage.toFixed(0)} ms, full catalogue at ${full.toFixed(0)} ms`);
    // Paired per round (the three sides ran back to back), against the faster baseline: a slow phase of the
    // shared machine hits every side of a round alike, and the stricter of the two ratios is the one judged.
    const perRound = (base: number[]) => median(hostTimes.map((h, i) => h / base[i]));
    const vsSdk = perRound(sdkTimes), vsLoop = perRound(loopTimes);
    const loopFaster = vsLoop > vsSdk;
    const ratio = Math.max(vsSdk, vsLoop);
    return [
      {
        name: 'catalogue: full fetch of 10,000 resources / 100 pages', value: round(median(hostTimes), 1), unit: 'ms',
        ratio: round(ratio), target: 'full fetch ≤ 1.2× a bare cursor loop', met: ratio <= 1.2,
        baseline: `bare SDK v2 Client, the faster of listResources() and a cursor loop (here: ${loopFaster ? 'the cursor loop' : 'listResources()'}), paired per round`,
        note: `bare SDK v2 listResources() ${round(median(sdkTimes), 1)} ms, cursor loop ${round(median(loopTimes), 1)} ms (medians of ${ROUNDS} rounds after ${WARMUP} of warm-up, sides rotated each round); ratio = median of per-round host ÷ baseline, the larger of host ÷ listResources() (${round(vsSdk)}) and host ÷ cursor loop (${round(vsLoop)})`,
      },
      {
        name: 'catalogue: first page in the UI model (cold start)', value: round(firstPage, 1), unit: 'ms after start',
        ratio: round(firstPage / full), target: 'first page to the UI model before the rest', met: firstPage < full && firstPageCount > 0,
        baseline: 'full catalogue loaded (ms after start)', note: `full catalogue at ${round(full, 1)} ms; server running at ${round(running, 1)} ms`,
      },
    ];
  },
};
