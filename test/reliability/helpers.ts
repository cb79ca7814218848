/**
 * Helpers for the reliability suite: a host with a well-behaved bystander server next to the one under
 * test, and a process-table check that finds every process this suite started (orphans included) by a
 * marker in its environment. Server definitions and waits come from the unit-test helpers.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { McpHost, type HostOptions } from '../../src/mcp/host';
import type { Connection } from '../../src/mcp/server/connection';
import type { LogEntry, ServerDefinition, StdioServerDefinition } from '../../src/mcp/types';
import { FAST_STOP, nodeFixture } from '../support/connection';

export { FAST_STOP, collectLogs, fixture, freePort, http, nodeFixture, stdio, tmpDir, tmpDirPerTest, waitForState } from '../support/connection';
export { textOf, until } from '../support/wait';

/** Every stdio server of this run carries this in its environment, and its children inherit it. */
export const MARK_NAME = 'MCP_RELIABILITY_RUN';
export const MARK = randomUUID();

/** A fixture server definition carrying the process marker. */
export function marked(name: string, fixtureName: string, args: string[] = [], extra: Partial<StdioServerDefinition> = {}): StdioServerDefinition {
  const def = nodeFixture(name, fixtureName, args, extra);
  return { ...def, env: { ...def.env, [MARK_NAME]: MARK } };
}

/**
 * The process table: pids of live (not zombie) processes whose environment carries the marker, read
 * from /proc (Linux); `[]` elsewhere, where the pid checks of each test still apply.
 */
export function markedProcesses(): number[] {
  if (process.platform !== 'linux') return [];
  const needle = `${MARK_NAME}=${MARK}`;
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle)) found.push(pid);
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Waits (bounded) until no marked process is left; fails naming the survivors. */
export async function assertNoMarkedProcesses(what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  let left = markedProcesses();
  while (left.length && Date.now() < end) {
    await new Promise(r => setTimeout(r, 50));
    left = markedProcesses();
  }
  if (left.length) {
    const cmdlines = left.map(p => { try { return `${p}: ${fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')}`; } catch { return String(p); } });
    // Leave nothing behind even when failing.
    for (const p of left) { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }
    assert.fail(`${what}: processes left in the process table:\n${cmdlines.join('\n')}`);
  }
}

/** A host for one test, with `bystander` (echo.mjs) configured next to the servers under test. */
export interface TestHost {
  host: McpHost;
  logs: LogEntry[];
  get(name: string): Connection;
  /** The bystander still runs in the same process and answers, and no state change or error line reached it. */
  assertBystanderUndisturbed(): Promise<void>;
  /** Shuts the host down and checks the process table. */
  close(): Promise<void>;
}

export const BYSTANDER = 'bystander';

export async function startHost(defs: ServerDefinition[], options: HostOptions = {}): Promise<TestHost> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP, ...options });
  const logs: LogEntry[] = [];
  host.onLog(e => logs.push(e));
  const bystanderStates: string[] = [];
  host.onDidChangeState(e => { if (e.server === BYSTANDER) bystanderStates.push(e.state.kind); });
  await host.reconcile([marked(BYSTANDER, 'echo'), ...defs]);
  const get = (name: string) => {
    const c = host.get(name);
    assert.ok(c, `server ${name} is registered`);
    return c;
  };
  const bystander = get(BYSTANDER);
  assert.equal(bystander.state.kind, 'running', `the bystander runs: ${JSON.stringify(bystander.state)}`);
  const pid = bystander.pid;
  const statesAtStart = bystanderStates.length;
  let closed = false;
  return {
    host, logs, get,
    async assertBystanderUndisturbed() {
      const b = get(BYSTANDER);
      assert.equal(b, bystander, 'the bystander connection was not replaced');
      assert.equal(b.state.kind, 'running');
      assert.equal(b.pid, pid, 'the bystander kept its process');
      const r = await b.callTool('echo', { text: 'still here' });
      assert.match(JSON.stringify(r.content), /still here/);
      assert.deepEqual(bystanderStates.slice(statesAtStart), [], 'the bystander changed state');
      assert.deepEqual(logs.filter(l => l.server === BYSTANDER && (l.level === 'error' || l.level === 'warning')).map(l => l.message), []);
    },
    async close() {
      if (closed) return;
      closed = true;
      await host.shutdown();
      await assertNoMarkedProcesses('after host shutdown');
    },
  };
}

