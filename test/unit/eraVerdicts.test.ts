/**
 * The protocol-era verdict cache (H123, H124) through the product's Connection, against the fixture skills server
 * (test/fixtures/servers/skills.mjs) in its 2025 form that stays silent on `server/discover` (a fixture recording every
 * request it gets): the first start probes and remembers the verdict under the definition key; the next start sends no
 * probe; an edited definition probes afresh; a remembered verdict that fails (the server now speaks only 2026-07-28)
 * is dropped and the server is probed again in the same start. A server started without the cache keeps probing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Connection, type ConnectionOptions } from '../../src/mcp/server/connection';
import { EraVerdicts, ERA_VERDICT_MAX_AGE_MS, ERA_VERDICT_REPROBE_MS, type EraVerdict } from '../../src/mcp/server/eraVerdicts';
import { definitionKeyer, keyMigration, legacyDefinitionKey } from '../../src/mcp/config/definitionKey';

/** The owner's key (an installation's HMAC): what verdicts are kept under. */
const definitionKey = definitionKeyer('ab'.repeat(32));
import type { LogEntry, StdioServerDefinition } from '../../src/mcp/types';
import { FAST_STOP, nodeFixture } from '../support/connection';
import { until } from '../support/wait';
import { processesIn } from '../support/cli';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-era-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

function probes(file: string): number {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(l => l === 'server/discover').length : 0;
}

async function startOnce(def: StdioServerDefinition, opts: ConnectionOptions, logs: LogEntry[] = []): Promise<{ era?: string }> {
  // A server that answers the probe (refuses it) is never waited on for the whole time, so the time is long: a loaded
  // machine's slow process start must not turn an answer into a timeout. The silent-probe test sets a short one.
  const c = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, probeTimeoutMs: 30_000, definitionKey, ...opts });
  c.onLog(e => logs.push(e));
  try {
    await c.start();
    return { era: c.era };
  } finally {
    await c.dispose();
  }
}

describe('Protocol era verdict cache (H123, H124)', function () {
  this.timeout(60_000);

  it('remembers that a server refused server/discover and answered initialize: the next start sends no server/discover (H123)', async () => {
    const rec = path.join(tmp, 'refused.log');
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts(undefined, d => saved.push(d));
    const def = nodeFixture('old', 'skills', ['--record', rec]);
    assert.equal((await startOnce(def, { eraVerdicts: verdicts })).era, 'legacy');
    assert.equal(probes(rec), 1);
    assert.deepEqual(Object.keys(saved.at(-1) ?? {}), [definitionKey(def)]);
    const logs: LogEntry[] = [];
    assert.equal((await startOnce(def, { eraVerdicts: verdicts }, logs)).era, 'legacy');
    assert.equal(probes(rec), 1, 'the second start sent server/discover');
    assert.ok(logs.some(e => /without the server\/discover probe/.test(e.message)));
    // Loaded again from what was saved (a new window, a new CLI run): still no probe.
    assert.equal((await startOnce(def, { eraVerdicts: new EraVerdicts(saved.at(-1)) })).era, 'legacy');
    assert.equal(probes(rec), 1);
    // Without the cache, every start probes (the bystander behaviour, unchanged).
    await startOnce(def, {});
    assert.equal(probes(rec), 2);
  });

  it('a probe that ran out of time is no verdict (H194): a silent-on-probe server is probed again on every start', async () => {
    const rec = path.join(tmp, 'silent.log');
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts(undefined, d => saved.push(d));
    const def = nodeFixture('slow', 'skills', ['--silent-probe', '--record', rec]);
    const logs: LogEntry[] = [];
    assert.equal((await startOnce(def, { eraVerdicts: verdicts, probeTimeoutMs: 400 }, logs)).era, 'legacy');
    assert.deepEqual(saved, [], 'a timeout was cached as a verdict');
    assert.ok(logs.some(e => /no era verdict is remembered/.test(e.message)));
    assert.equal((await startOnce(def, { eraVerdicts: verdicts, probeTimeoutMs: 400 })).era, 'legacy');
    assert.equal(probes(rec), 2, 'the second start did not probe again');
  });

  it('probes an edited definition afresh, and a verdict past its age', async () => {
    const rec = path.join(tmp, 'edited.log');
    const verdicts = new EraVerdicts(undefined);
    const def = nodeFixture('old', 'skills', ['--record', rec]);
    await startOnce(def, { eraVerdicts: verdicts });
    await startOnce({ ...def, env: { EDITED: '1' } }, { eraVerdicts: verdicts });
    assert.equal(probes(rec), 2);
    const old = new EraVerdicts({ [definitionKey(def)]: { era: 'legacy', at: Date.now() - ERA_VERDICT_MAX_AGE_MS - 1 } });
    await startOnce(def, { eraVerdicts: old });
    assert.equal(probes(rec), 3);
  });

  it('drops a verdict that fails (the server now speaks only 2026-07-28) and probes again in the same start (H124)', async () => {
    const rec = path.join(tmp, 'upgraded.log');
    const def = nodeFixture('upgraded', 'skills', ['--modern', '--record', rec]);
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts({ [definitionKey(def)]: { era: 'legacy', at: Date.now() } }, d => saved.push(d));
    const logs: LogEntry[] = [];
    // A probe that waits long enough for a loaded machine to start the process: the server answers it.
    assert.equal((await startOnce(def, { eraVerdicts: verdicts, probeTimeoutMs: 10_000 }, logs)).era, 'modern');
    assert.deepEqual(fs.readFileSync(rec, 'utf8').split('\n').slice(0, 2), ['initialize', 'server/discover']);
    assert.equal(verdicts.get(definitionKey(def)), undefined);
    assert.deepEqual(saved, [undefined]);
    assert.ok(logs.some(e => /probing the protocol era again/.test(e.message)), logs.map(e => e.message).join('\n'));
  });

  it('drops a verdict whose start timed out (the server now ignores initialize): the next start probes and runs (H124)', async () => {
    const rec = path.join(tmp, 'ignores.log');
    const def = nodeFixture('ignores', 'skills', ['--modern', '--silent-initialize', '--record', rec], { timeout: { startup: 8000 } });
    const verdicts = new EraVerdicts({ [definitionKey(def)]: { era: 'legacy', at: Date.now() } });
    await assert.rejects(startOnce(def, { eraVerdicts: verdicts }), /did not answer initialize within/);
    assert.equal(verdicts.get(definitionKey(def)), undefined);
    // The same definition (the same key): probed this time, so it runs.
    assert.equal((await startOnce(def, { eraVerdicts: verdicts, probeTimeoutMs: 7000 })).era, 'modern');
  });

  it('H401: a verdict younger than a day is used with no probe at all; an older one is used for the start and a background probe renews it', async () => {
    const DAY = ERA_VERDICT_REPROBE_MS;
    let now = 1_000 * DAY;
    const clock = () => now;
    const rec = path.join(tmp, 'reprobe.log');
    const def = nodeFixture('aging', 'skills', ['--record', rec]);
    const key = definitionKey(def);
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts({ [key]: { era: 'legacy', at: now - DAY + 60_000 } }, d => saved.push(d), clock);
    // Younger than a day: no probe, in the start or after it.
    const logs: LogEntry[] = [];
    const young = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, definitionKey, eraVerdicts: verdicts });
    young.onLog(e => logs.push(e));
    try {
      await young.start();
      assert.equal(young.era, 'legacy');
    } finally {
      await young.dispose();
    }
    assert.equal(probes(rec), 0);
    assert.deepEqual(saved, []);
    assert.ok(!logs.some(e => /background/.test(e.message)), logs.map(e => e.message).join('\n'));

    // Over a day old (the clock moved on): this start still sends no probe, a background launch probes and renews.
    now += 2 * 60_000;
    const old = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, definitionKey, eraVerdicts: verdicts, probeTimeoutMs: 10_000 });
    old.onLog(e => logs.push(e));
    try {
      await old.start();
      assert.equal(old.era, 'legacy', 'the old verdict served this start');
      await until(() => saved.length > 0, 'the background probe renewed the verdict', 20_000);
      assert.deepEqual(saved.at(-1), { [key]: { era: 'legacy', at: now } });
      assert.equal(probes(rec), 1, 'one server/discover: the background probe');
      assert.equal(old.state.kind, 'running', 'the running session is untouched');
      assert.ok(logs.some(e => /probed again in the background/.test(e.message)));
      assert.ok(logs.some(e => /found the initialize era again: the era verdict is renewed/.test(e.message)));
    } finally {
      await old.dispose();
    }
    assert.equal(verdicts.stale(key), false, 'renewed: not stale any more');
  });

  it('H401: a background probe that finds 2026-07-28 drops the day-old verdict (the next start negotiates it)', async () => {
    const DAY = ERA_VERDICT_REPROBE_MS;
    const now = 2_000 * DAY;
    const def = nodeFixture('dual', 'modern', ['--stdio']);
    const key = definitionKey(def);
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts({ [key]: { era: 'legacy', at: now - DAY - 1 } }, d => saved.push(d), () => now);
    const c = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, definitionKey, eraVerdicts: verdicts, probeTimeoutMs: 10_000 });
    try {
      await c.start();
      assert.equal(c.era, 'legacy', 'the day-old verdict served this start');
      await until(() => saved.length > 0, 'the background probe dropped the verdict', 20_000);
      assert.deepEqual(saved, [undefined]);
    } finally {
      await c.dispose();
    }
    const next = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, definitionKey, eraVerdicts: verdicts, probeTimeoutMs: 10_000 });
    try {
      await next.start();
      assert.equal(next.era, 'modern');
    } finally {
      await next.dispose();
    }
  });

  it('H401: a stop during the background probe ends the probe\'s process too, and the verdict stays', async () => {
    const DAY = ERA_VERDICT_REPROBE_MS;
    const now = 3_000 * DAY;
    const cwd = fs.mkdtempSync(path.join(tmp, 'probe-cwd-'));
    // Silent on server/discover: the background probe waits out its whole probe time, long enough to be stopped in.
    const def = nodeFixture('quiet', 'skills', ['--silent-probe'], { cwd });
    const key = definitionKey(def);
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts({ [key]: { era: 'legacy', at: now - DAY - 1 } }, d => saved.push(d), () => now);
    const c = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, definitionKey, eraVerdicts: verdicts, probeTimeoutMs: 30_000 });
    try {
      await c.start();
      await until(() => processesIn(cwd).length === 2, 'the probe\'s process beside the running one', 20_000);
    } finally {
      await c.dispose();
    }
    assert.deepEqual(processesIn(cwd), [], 'a process of the launch or of the probe is left');
    assert.deepEqual(saved, []);
    assert.equal(verdicts.get(key)?.at, now - DAY - 1);
  });

  it('keeps only well-formed entries (hash keys, legacy verdicts) from what was stored', () => {
    const key = 'a'.repeat(64);
    const v = new EraVerdicts({ [key]: { era: 'legacy', at: Date.now() }, 'not-a-key': { era: 'legacy', at: 1 }, ['b'.repeat(64)]: { era: 'modern', at: 1 } });
    assert.deepEqual(Object.keys(v.toJSON()), [key]);
  });

  it('H235: re-keys once: a verdict under the unsalted key of a current definition moves to its keyed one; the rest is dropped', () => {
    const def = nodeFixture('kept', 'skills', []);
    const gone = nodeFixture('gone', 'skills', ['--other']);
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const at = Date.now();
    const v = new EraVerdicts({ [legacyDefinitionKey(def)]: { era: 'legacy', at }, [legacyDefinitionKey(gone)]: { era: 'legacy', at } }, d => saved.push(d));
    v.rekey(keyMigration([def], definitionKey));
    assert.deepEqual(saved.at(-1), { [definitionKey(def)]: { era: 'legacy', at } });
    assert.equal(v.get(legacyDefinitionKey(def)), undefined);
    assert.equal(v.get(definitionKey(def))?.era, 'legacy');
  });
});
