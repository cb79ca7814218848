// For the App view flood benchmark (bench/apps.ts) only: loaded only when MCP_HOST_BENCH_APPS_OUT names a file.
// In the real extension host (this test runs there, as the extension's host code does), the fixture App `stream`
// (test/fixtures/servers/apps-hostile.mjs) sends its largest allowed messages (just under 4 MiB of JSON text) as
// fast as it can for a few seconds, while server-basic-vanillajs's view (the bystander) calls its tool every
// 250 ms. `perf_hooks.monitorEventLoopDelay` measures this thread's event-loop delay during the flood (from the
// view's initialization; also from the call that opens it, and for 2 s before it, idle, for comparison); the figures, the view's counts and the bystander's calls go to that file.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session } from 'inspector';
import { PerformanceObserver, monitorEventLoopDelay, type PerformanceEntry } from 'perf_hooks';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { ROOT, until, testSupport, activateAllowing } from './helpers';

const app = (name: string) => path.join(ROOT, `node_modules/@modelcontextprotocol/${name}/dist/index.js`);
const sleep = (ms: number) => new Promise(r => setTimeout(r, ms));
const ms = (ns: number) => Math.round(ns / 1e4) / 100;

describe('Apps flood benchmark (real extension host)', () => {
  it('H139: records the event-loop delay while an App view sends its largest allowed messages at full rate', async function () {
    const out = process.env.MCP_HOST_BENCH_APPS_OUT;
    if (!out) this.skip();
    this.timeout(240_000);
    const streamMs = Number(process.env.MCP_HOST_BENCH_APPS_MS) || 5000;
    const api = await activateAllowing<McpHostExtensionApi>();
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    const record = (r: Record<string, unknown>) => fs.writeFileSync(out!, JSON.stringify({ ...r, streamMs, vscode: vscode.version, time: new Date().toISOString() }));
    try {
      await vscode.workspace.getConfiguration('mcpHost').update('servers', {
        fx: { type: 'stdio', command: process.execPath, args: [path.join(ROOT, 'test/fixtures/servers/apps-hostile.mjs')], env: { APPS_FX_STREAM_MS: String(streamMs) } },
        basic: { type: 'stdio', command: process.execPath, args: [app('server-basic-vanillajs'), '--stdio'], timeout: { startup: 110000 } },
      }, vscode.ConfigurationTarget.Workspace);
      await until(() => ['basic', 'fx'].every(s => (api.host.get(s)?.catalogue.tools.length ?? 0) > 0), 'the app servers running with their tools', 120000);
      await vscode.commands.executeCommand('mcpHost.callTool', 'basic', 'get-time', {});
      await until(() => !!api.apps.get('basic', 'get-time')?.initialized, 'the bystander view initialized', 60000);
      const basic = api.apps.get('basic', 'get-time')!;

      // Idle, for comparison.
      await sleep(1000);
      const idle = monitorEventLoopDelay({ resolution: 5 });
      idle.enable();
      await sleep(2000);
      idle.disable();

      // MCP_HOST_BENCH_APPS_PROFILE names a file: a CPU profile of this thread from the flood's start to its end
      // (.cpuprofile, for finding where the longest blocks come from; the profiler's own cost is in the figures).
      const profileTo = process.env.MCP_HOST_BENCH_APPS_PROFILE;
      const session = profileTo ? new Session() : undefined;
      const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session!.post(method, params ?? {}, (err, r) => err ? reject(err) : resolve(r)));
      if (session) { session.connect(); await post('Profiler.enable'); await post('Profiler.setSamplingInterval', { interval: 200 }); await post('Profiler.start'); }
      // MCP_HOST_BENCH_APPS_TRACE_GC=1: V8 traces every collection from here on (--trace-gc-nvp: its pause, what it
      // copied and promoted) to the extension host's stdout, which code-server writes to its log (the run folder:
      // EXTTEST_KEEP_RUN=1). Process-wide and not undone: for finding what a long collection was, not for figures.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      if (process.env.MCP_HOST_BENCH_APPS_TRACE_GC) (require('v8') as typeof import('v8')).setFlagsFromString('--trace-gc-nvp');
      const h = monitorEventLoopDelay({ resolution: 5 });
      h.enable();
      // The garbage collector's pauses of this thread (the whole extension host's heap, every extension's), so a longest
      // block that is a collection says so.
      const pauses: PerformanceEntry[] = [];
      const gcObserver = new PerformanceObserver(list => { pauses.push(...list.getEntries()); });
      gcObserver.observe({ entryTypes: ['gc'] });
      // Where the longest blocks fell (ms after the flood's start, and what was going on), for the log.
      let phase = 'opening the view';
      const t0 = performance.now();
      const gaps: { at: number; ms: number; phase: string }[] = [];
      let last = performance.now();
      const ticker = setInterval(() => {
        const t = performance.now();
        if (t - last > 40) gaps.push({ at: Math.round(last - t0), ms: Math.round(t - last - 5), phase });
        last = t;
      }, 5);
      const bystander = { ok: 0, failed: 0, errors: [] as string[] };
      let flooding = true;
      const calls = (async () => {
        while (flooding) {
          const r = await basic.asView('tools/call', { name: 'get-time', arguments: {} }) as { result?: { structuredContent?: { time?: string } }; error?: { message: string } };
          if (/^\d{4}-/.test(String(r.result?.structuredContent?.time))) bystander.ok++;
          else { bystander.failed++; if (bystander.errors.length < 5) bystander.errors.push(JSON.stringify(r).slice(0, 300)); }
          await sleep(250);
        }
      })();
      await vscode.commands.executeCommand('mcpHost.callTool', 'fx', 'stream', {});
      const view = () => api.apps.get('fx', 'stream');
      phase = 'view loading';
      await until(() => !!view()?.initialized, 'the stream view initialized', 60000);
      phase = 'flooding';
      // The flood alone (the view's first messages follow its initialization at once), apart from opening the view.
      const hf = monitorEventLoopDelay({ resolution: 5 });
      hf.enable();
      await until(() => /^streamed/.test(view()?.modelContext ?? ''), 'the stream view said it is done', streamMs + 60000);
      h.disable();
      hf.disable();
      gcObserver.disconnect();
      clearInterval(ticker);
      flooding = false;
      if (session) {
        const { profile } = await post('Profiler.stop') as { profile: unknown };
        fs.writeFileSync(profileTo!, JSON.stringify({ ...profile as object, t0: performance.timeOrigin + t0 }));
        session.disconnect();
      }
      await calls;
      const counts = view()!.counts;
      record({
        maxMs: ms(hf.max), p99Ms: ms(hf.percentile(99)), meanMs: ms(hf.mean), withOpeningMaxMs: ms(h.max), withOpeningP99Ms: ms(h.percentile(99)), idleMaxMs: ms(idle.max), idleP99Ms: ms(idle.percentile(99)),
        said: view()!.modelContext, counts, bystander,
        // Each longest block with the collector's pause time that fell inside it.
        gaps: gaps.sort((a, b) => b.ms - a.ms).slice(0, 12).map(g => ({
          ...g, gcMs: Math.round(pauses.filter(e => e.startTime - t0 >= g.at - 5 && e.startTime - t0 <= g.at + g.ms + 5).reduce((n, e) => n + e.duration, 0)),
        })),
        gc: {
          count: pauses.length, totalMs: Math.round(pauses.reduce((n, e) => n + e.duration, 0)), maxMs: Math.round(Math.max(0, ...pauses.map(e => e.duration))),
          // The longest pause's kind and flags (perf_hooks constants: kind 4 = major; flags 16 = all available garbage, 4 = forced).
          longest: (e => e && { at: Math.round(e.startTime - t0), ms: Math.round(e.duration), detail: (e as PerformanceEntry & { detail?: unknown }).detail })([...pauses].sort((a, b) => b.duration - a.duration)[0]),
        },
      });
      assert.ok(bystander.ok > 0, `the bystander view kept working: ${JSON.stringify(bystander)}`);
    } finally {
      for (const v of api.apps.all) v.dispose();
      testSupport(api).setChatUi(undefined);
      await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    }
  });
});
