// For the side-by-side benchmark (bench/vsBuiltin.ts) only: loaded only when MCP_HOST_BENCH_VSBUILTIN_OUT names a file.
// The same servers (server-everything, server-filesystem, test/fixtures/servers/side-by-side.mjs as a small-tool server,
// as a ~31 MB result and as a 1,000-tool server) are configured twice in this one window: in the folder's
// `.vscode/mcp.json` (VS Code's own MCP host, names `vsb-*`) and in `mcpHost.servers` (MCP Host, names `mhb-*`, reaching
// `vscode.lm.tools` through its gateway). Both sides are measured in turns (which side goes first alternates), and
// what was measured is written to that file as JSON; bench/vsBuiltin.ts turns it into rows of MCP Host ÷ VS Code.
// VS Code's servers are started with its own command `workbench.mcp.startServer` ('*', { autoTrustChanges: true }):
// the only way to start them without a chat request (an internal command; MCP Host's own test gateway.test.ts uses it too).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { Session } from 'inspector';
import { monitorEventLoopDelay } from 'perf_hooks';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { EVERYTHING, FILESYSTEM, ROOT, textOf, testSupport, activateAllowing } from './helpers';

const FIXTURE = path.join(ROOT, 'test/fixtures/servers/side-by-side.mjs');
type Side = 'vs' | 'mh';
const SIDES: Side[] = ['vs', 'mh'];
const PREFIX: Record<Side, string> = { vs: 'vsb-', mh: 'mhb-' };
/** Start/list rounds, crash rounds and big-result rounds per side (medians are judged). */
const ROUNDS = 3;
/** Calls of the small tool per side: blocks of CALL_BLOCK, the side going first alternating. */
const CALLS = 100;
const CALL_BLOCK = 20;
const BIG_MB = 31;

/** Waits (bounded) for a condition no event announces; re-checked every `every` ms. */
async function poll(what: string | (() => string), check: () => boolean | Promise<boolean>, ms = 120_000, every = 10): Promise<void> {
  const end = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise(r => setTimeout(r, every));
  }
}


/** The processes below `root` whose command line contains one of `marks`. */
function pidsOf(root: number, marks: string[]): number[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch { /* gone */ }
  }
  const below = (pid: number) => { for (let p = parent.get(pid); p && p > 1; p = parent.get(p)) if (p === root) return true; return false; };
  return [...cmd].filter(([pid, c]) => below(pid) && marks.some(m => c.includes(m))).map(([pid]) => pid);
}

/** RSS (bytes) of every process below `root` whose command line contains one of `marks`, summed, with the count. */
function rssOf(root: number, marks: string[]): { bytes: number; count: number } {
  let bytes = 0;
  let count = 0;
  for (const pid of pidsOf(root, marks)) {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
      bytes += kb * 1024;
      count++;
    } catch { /* gone */ }
  }
  return { bytes, count };
}

describe('VS Code built-in MCP side-by-side benchmark (real extension host)', () => {
  it('records MCP Host and VS Code\'s own MCP host side by side', async function () {
    const out = process.env.MCP_HOST_BENCH_VSBUILTIN_OUT;
    if (!out) this.skip();
    this.timeout(1_500_000);
    const record: Record<string, unknown> = { vscode: vscode.version, time: new Date().toISOString() };
    const progress: string[] = [];
    const note = (line: string) => { progress.push(`${new Date().toISOString().slice(11, 19)} ${line}`); fs.writeFileSync(out!, JSON.stringify({ ...record, progress }, null, 1)); };
    const api = await activateAllowing<McpHostExtensionApi>();
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const servers: Record<string, (side: Side) => string[]> = {
      echo: side => [FIXTURE, '--label', `${PREFIX[side]}echo`],
      big: side => [FIXTURE, '--label', `${PREFIX[side]}big`, '--size', String(BIG_MB)],
      many: side => [FIXTURE, '--label', `${PREFIX[side]}many`, '--tools', '1000'],
      every: () => [EVERYTHING, 'stdio'],
      files: () => [FILESYSTEM, folder],
    };
    const keys = Object.keys(servers);
    // `--title` names each process (so its RSS can be told apart: same binaries on both sides).
    const defs = (side: Side, only = keys) => Object.fromEntries(only.map(k => [PREFIX[side] + k,
      { type: 'stdio', command: process.execPath, args: [`--title=sbs-${side}-${k}`, ...servers[k](side)] }]));
    const mcpJson = path.join(folder, '.vscode', 'mcp.json');
    const configure: Record<Side, (on: boolean) => Promise<void>> = {
      vs: async on => { fs.writeFileSync(mcpJson, JSON.stringify({ servers: on ? defs('vs') : {} }, null, 2)); },
      mh: async on => { await vscode.workspace.getConfiguration('mcpHost').update('servers', on ? defs('mh') : {}, vscode.ConfigurationTarget.Workspace); },
    };
    // The tools of one server as VS Code lists them. VS Code's own: `mcp_<the server's serverInfo name, cut to 13>_<tool>`
    // (the fixture is told its name: mcp_vsb-echo_echo; server-everything's and server-filesystem's are found below);
    // the gateway's: `mcp_<gateway>_<server>_<tool>` (mcp_mcp-host-gate_mhb-echo_echo).
    const vsPrefix: Record<string, string | undefined> = { echo: 'mcp_vsb-echo_', big: 'mcp_vsb-big_', many: 'mcp_vsb-many_' };
    const isTool = (side: Side, key: string, name: string) => side === 'mh' ? name.includes(`${PREFIX.mh}${key}_`) : !!vsPrefix[key] && name.startsWith(vsPrefix[key]!);
    const toolsOf = (side: Side, key: string) => vscode.lm.tools.filter(t => isTool(side, key, t.name));
    const toolName = (side: Side, key: string, tool: string) => toolsOf(side, key).find(t => t.name.endsWith(`_${tool}`))?.name;
    /** VS Code's prefix of a server whose serverInfo name the bench does not set: the prefix most of MCP Host's copy's tools carry. */
    const findVsPrefix = (key: string) => {
      const names = api.host.get(`${PREFIX.mh}${key}`)?.catalogue.tools.map(t => t.name) ?? [];
      const found = new Map<string, number>();
      for (const t of vscode.lm.tools) {
        if (!t.name.startsWith('mcp_') || t.name.includes(PREFIX.mh) || t.name.startsWith('mcp_vsb-')) continue;
        for (const n of names) if (t.name.endsWith(`_${n}`)) { const p = t.name.slice(0, -n.length); found.set(p, (found.get(p) ?? 0) + 1); }
      }
      const best = [...found].sort((a, b) => b[1] - a[1])[0];
      if (best && best[1] >= names.length / 2) vsPrefix[key] = best[0];
    };
    /** Tools listed per server of `side`, in one pass over vscode.lm.tools. */
    const counts = (side: Side) => {
      const c: Record<string, number> = Object.fromEntries(keys.map(k => [k, 0]));
      for (const t of vscode.lm.tools) for (const k of keys) if (isTool(side, k, t.name)) c[k]++;
      return c;
    };
    const invoke = async (name: string, input: object, ms = 120_000) => {
      const cts = new vscode.CancellationTokenSource();
      const timer = setTimeout(() => cts.cancel(), ms);
      try {
        return await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cts.token);
      } finally {
        clearTimeout(timer);
        cts.dispose();
      }
    };
    const startVs = () => vscode.commands.executeCommand('workbench.mcp.startServer', '*', { autoTrustChanges: true }).then(undefined, () => undefined);

    try {
      // Warm-up: both sides on, every server's full list known (the targets of the timed rounds).
      // MCP Host's first: its catalogues tell which of VS Code's tools are server-everything's and server-filesystem's.
      await configure.mh(true);
      const expected: Record<Side, Record<string, number>> = { vs: {}, mh: {} };
      for (const side of ['mh', 'vs'] as const) {
        if (side === 'vs') await configure.vs(true);
        let last = '';
        let stableSince = Date.now();
        await poll(() => `every ${side} server's tools in vscode.lm.tools (${JSON.stringify(counts(side))}; MCP tools listed: ${vscode.lm.tools.filter(t => t.tags.includes('mcp') && !/_t\d{4}$/.test(t.name)).slice(0, 60).map(t => t.name).join(', ')})`, () => {
          if (side === 'vs') { void startVs(); for (const k of ['every', 'files']) if (!vsPrefix[k]) findVsPrefix(k); }
          const c = JSON.stringify(counts(side));
          if (c !== last) { last = c; stableSince = Date.now(); }
          return keys.every(k => JSON.parse(c)[k] > 0) && Date.now() - stableSince > 3000;
        }, 180_000, 250);
        expected[side] = counts(side);
      }
      record.expected = expected;
      record.vsPrefixes = vsPrefix;
      note(`warm: ${JSON.stringify(expected)}`);
      // MCP Host asks before a model's tool call; the tools called below are allowed "always" (then its gateway marks
      // them read-only for VS Code, which runs them without its own modal, as it does the fixture's read-only tools).
      testSupport(api).setChatUi({ approveTool: async () => 'always' });
      try {
        for (const key of ['echo', 'big']) {
          for (const tool of api.host.get(`mhb-${key}`)!.catalogue.tools.filter(t => ['echo', 'big', 'crash'].includes(t.name))) {
            assert.strictEqual(await api.chat.chat.approveCall(`mhb-${key}`, tool, {}), true);
          }
        }
      } finally {
        testSupport(api).setChatUi(undefined);
      }
      assert.ok(api.chat.chat.alwaysAllowed('mhb-echo', 'echo'), 'the grant did not stand');

      // 1. Server start → every server's tools listed in vscode.lm.tools (the 1,000-tool server among them), with the
      // longest block of this thread meanwhile. VS Code's cached lists are dropped first (MCP: Reset Cached Tools).
      const starts: Record<Side, { allMs: number; perServer: Record<string, number>; maxBlockMs: number }[]> = { vs: [], mh: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? [...SIDES].reverse() : SIDES) {
          await configure[side](false);
          await poll(`${side} servers gone from vscode.lm.tools`, () => Object.values(counts(side)).every(n => n === 0), 60_000, 50);
          if (side === 'vs') await vscode.commands.executeCommand('workbench.mcp.resetCachedTools');
          await new Promise(r => setTimeout(r, 1000)); // settle: the removal's own work is not this round's
          const eld = monitorEventLoopDelay({ resolution: 5 });
          const t0 = performance.now();
          eld.enable();
          await configure[side](true);
          const perServer: Record<string, number> = {};
          let lastStart = 0;
          await poll(`${side} servers listed again`, () => {
            const now = performance.now();
            if (side === 'vs' && now - lastStart > 200) { lastStart = now; void startVs(); }
            const c = counts(side);
            for (const k of keys) if (perServer[k] === undefined && c[k] >= expected[side][k]) perServer[k] = now - t0;
            return keys.every(k => perServer[k] !== undefined);
          }, 180_000, 20);
          eld.disable();
          starts[side].push({ allMs: Math.max(...Object.values(perServer)), perServer, maxBlockMs: eld.max / 1e6 });
          note(`start ${side} round ${round + 1}: ${JSON.stringify(starts[side].at(-1))}`);
        }
      }
      record.starts = starts;

      // 2. Memory of the processes each host adds for 3 servers (echo, everything, filesystem; MCP Host's gateway is served
      // in the extension host since issue 41, so it adds no process), now and after the calls below.
      const memMarks: Record<Side, string[]> = {
        vs: ['sbs-vs-echo', 'sbs-vs-every', 'sbs-vs-files'],
        mh: ['sbs-mh-echo', 'sbs-mh-every', 'sbs-mh-files'],
      };
      const memory = () => Object.fromEntries(SIDES.map(s => [s, rssOf(process.pid, memMarks[s])]));
      record.memoryStart = memory();
      note(`memory: ${JSON.stringify(record.memoryStart)}`);

      // 3. vscode.lm.invokeTool latency of the same small tool.
      const echo: Record<Side, string> = { vs: toolName('vs', 'echo', 'echo')!, mh: toolName('mh', 'echo', 'echo')! };
      assert.ok(echo.vs && echo.mh, `echo tools: ${JSON.stringify(echo)}`);
      const call = async (side: Side, i: number) => {
        const r = await invoke(echo[side], { text: `ping ${i}` }, 30_000);
        if (textOf(r) !== `ping ${i}`) throw new Error(`${side} echo answered ${textOf(r).slice(0, 200)}`);
      };
      for (const side of SIDES) for (let i = 0; i < 20; i++) await call(side, i);
      const lat: Record<Side, number[]> = { vs: [], mh: [] };
      for (let b = 0; b * CALL_BLOCK < CALLS; b++) {
        for (const side of b % 2 ? [...SIDES].reverse() : SIDES) {
          for (let i = 0; i < CALL_BLOCK; i++) {
            const t0 = performance.now();
            await call(side, i);
            lat[side].push(performance.now() - t0);
          }
        }
      }
      record.latency = lat;
      record.memoryAfterCalls = memory();
      note(`memory after ${CALLS} calls: ${JSON.stringify(record.memoryAfterCalls)}`);
      // Where the time of a call goes on this thread: a CPU profile (the inspector, this extension host) of 50 more
      // calls per side, summed by function (self time), the heaviest first.
      const session = new Session();
      session.connect();
      const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params ?? {}, (err, res) => err ? reject(err) : resolve(res)));
      const profiles: Record<string, { fn: string; ms: number }[]> = {};
      try {
        await post('Profiler.enable');
        await post('Profiler.setSamplingInterval', { interval: 100 });
        for (const side of SIDES) {
          await post('Profiler.start');
          for (let i = 0; i < 50; i++) await call(side, i);
          const { profile } = await post('Profiler.stop') as { profile: { nodes: { id: number; hitCount?: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] } };
          const self = new Map<string, number>();
          const byId = new Map(profile.nodes.map(n => [n.id, n]));
          profile.samples.forEach((id, i) => {
            const f = byId.get(id)!.callFrame;
            const fn = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
            self.set(fn, (self.get(fn) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
          });
          profiles[side] = [...self].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([fn, ms]) => ({ fn, ms: Math.round(ms * 10) / 10 }));
        }
      } finally {
        session.disconnect();
      }
      record.profiles = profiles;

      // 4. The ~31 MB result: time to the result and the longest block of this thread meanwhile.
      const bigTool: Record<Side, string> = { vs: toolName('vs', 'big', 'big')!, mh: toolName('mh', 'big', 'big')! };
      // `wall`: epoch ms at its start and end, for the workbench page's long tasks the runner records (bench/vsBuiltin.ts).
      const big: Record<Side, { ms: number; maxBlockMs: number; chars: number; wall: [number, number]; error?: string }[]> = { vs: [], mh: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? [...SIDES].reverse() : SIDES) {
          await new Promise(r => setTimeout(r, 1000)); // the previous result's collection is not this one's
          const eld = monitorEventLoopDelay({ resolution: 5 });
          eld.enable();
          const t0 = performance.now();
          const wall0 = Date.now();
          let chars = 0;
          let error: string | undefined;
          try { chars = textOf(await invoke(bigTool[side], {}, 180_000)).length; } catch (e) { error = e instanceof Error ? e.message : String(e); }
          const ms = performance.now() - t0;
          eld.disable();
          big[side].push({ ms, maxBlockMs: eld.max / 1e6, chars, wall: [wall0, Date.now()], error });
          note(`big ${side} round ${round + 1}: ${JSON.stringify(big[side].at(-1))}`);
        }
      }
      record.big = big;

      // 5. A crash of one server (its `crash` tool exits the process): time until its echo answers again.
      const crashTool: Record<Side, string> = { vs: toolName('vs', 'echo', 'crash')!, mh: toolName('mh', 'echo', 'crash')! };
      // `failed`: each failed call (ms after the process was gone, how long it took, what it said, whether the tool was
      // listed then, MCP Host's state of the server); `states`: MCP Host's states of the server meanwhile.
      const crash: Record<Side, { ms: number; failedCalls: number; failed?: { at: number; ms: number; error: string; listed: boolean; state?: string }[]; states?: string[] }[]> = { vs: [], mh: [] };
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? [...SIDES].reverse() : SIDES) {
          await call(side, 0);
          const pids = pidsOf(process.pid, [`sbs-${side}-echo`]);
          assert.strictEqual(pids.length, 1, `${side} echo processes: ${pids.join(', ')}`);
          await invoke(crashTool[side], {}, 30_000).then(undefined, () => undefined);
          // From the moment the process is gone (it exits 20 ms after answering).
          await poll(`${side} echo process ${pids[0]} gone`, () => !fs.existsSync(`/proc/${pids[0]}`), 30_000, 2);
          const t0 = performance.now();
          let failedCalls = 0;
          const failed: { at: number; ms: number; error: string; listed: boolean; state?: string }[] = [];
          const states: string[] = [];
          const sub = api.host.onDidChangeState(() => {
            const st = api.host.get('mhb-echo')?.state;
            if (side === 'mh') states.push(`${Math.round(performance.now() - t0)} ms ${st?.kind}`);
          });
          try {
            await poll(`${side} echo answering after the crash`, async () => {
              const c0 = performance.now();
              try { await call(side, 1); return true; } catch (e) {
                failedCalls++;
                failed.push({ at: Math.round(c0 - t0), ms: Math.round(performance.now() - c0), error: (e instanceof Error ? e.message : String(e)).slice(0, 160),
                  listed: !!toolName(side, 'echo', 'echo'), state: side === 'mh' ? api.host.get('mhb-echo')?.state.kind : undefined });
                return false;
              }
            }, 120_000, 50);
          } finally {
            sub.dispose();
          }
          crash[side].push({ ms: performance.now() - t0, failedCalls, failed, states });
          note(`crash ${side} round ${round + 1}: ${JSON.stringify(crash[side].at(-1))}`);
        }
      }
      record.crash = crash;
      record.done = true;
      note('done');
    } catch (e) {
      record.error = e instanceof Error ? `${e.message}\n${e.stack}` : String(e);
      note(`failed: ${String(record.error).slice(0, 300)}`);
    } finally {
      await configure.vs(false);
      await configure.mh(false);
      await poll('no servers left', () => api.host.servers.length === 0, 30_000, 100).catch(() => undefined);
    }
  });
});
