/**
 * Shutdown: 20 servers through one host — well-behaved ones, ones that ignore stdin EOF and SIGTERM
 * (ignore-signals.mjs --serve), ones with a grandchild that ignores SIGTERM (grandchild.mjs), and shell
 * wrappers (sh → node → node) — then `host.shutdown()`. Every pid of every tree is collected first and
 * must be gone when shutdown resolves, within the configured grace periods (EOF grace + TERM grace +
 * the SIGKILL sweep).
 */
import { fixture, nodeFixture, stdio } from '../test/support/connection';
import { McpHost } from '../src/mcp';
import { isAlive, listDescendants } from '../src/mcp/process/processTree';
import type { ServerDefinition } from '../src/mcp/types';
import { round, timed, type Bench } from './lib';

const GRACE = { eofGraceMs: 1000, termGraceMs: 1500 };
/** Time allowed for the SIGKILL sweep and reaping after the TERM grace. */
const KILL_MARGIN_MS = 500;

export const shutdown: Bench = {
  id: 'shutdown',
  title: 'shutdown: 20 servers, some ignoring EOF and SIGTERM, some with grandchildren',
  async run(log) {
    const defs: ServerDefinition[] = [
      ...Array.from({ length: 6 }, (_, i) => nodeFixture(`echo-${i}`, 'echo')),
      ...Array.from({ length: 5 }, (_, i) => nodeFixture(`stubborn-${i}`, 'ignore-signals', ['--serve'])),
      ...Array.from({ length: 5 }, (_, i) => nodeFixture(`grandchild-${i}`, 'grandchild', ['--grandchild-ignore-term'])),
      ...Array.from({ length: 4 }, (_, i) => stdio(`wrapper-${i}`, 'sh', [fixture('grandchild-wrapper.sh')])),
    ];
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: GRACE, restart: { enabled: false } });
    const pids = new Set<number>();
    try {
      await host.reconcile(defs);
      const down = defs.filter(d => host.get(d.name)?.state.kind !== 'running');
      if (down.length) throw new Error(`not running: ${down.map(d => d.name).join(', ')}`);
      // Let the grandchildren spawn, then snapshot every tree.
      await new Promise(r => setTimeout(r, 300));
      for (const d of defs) {
        const pid = host.get(d.name)!.pid!;
        pids.add(pid);
        for (const p of await listDescendants(pid)) pids.add(p);
      }
      const ms = await timed(() => host.shutdown());
      const left = [...pids].filter(isAlive);
      const bound = GRACE.eofGraceMs + GRACE.termGraceMs + KILL_MARGIN_MS;
      log(`${defs.length} servers, ${pids.size} processes; shutdown took ${ms.toFixed(0)} ms (bound ${bound} ms); left alive: ${left.length ? left.join(', ') : 'none'}`);
      return [{
        name: `shutdown: ${defs.length} servers / ${pids.size} processes, all trees gone`, value: round(ms, 0), unit: 'ms',
        ratio: round(ms / bound), target: 'all gone (process trees too) within the configured grace periods', met: left.length === 0 && ms <= bound,
        baseline: `EOF grace ${GRACE.eofGraceMs} + TERM grace ${GRACE.termGraceMs} + ${KILL_MARGIN_MS} ms kill sweep`,
        note: `${left.length} process(es) left alive`,
      }];
    } finally {
      host.dispose();
      // Never leave anything of ours behind, even if the bench failed half-way.
      for (const p of pids) if (isAlive(p)) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    }
  },
};
