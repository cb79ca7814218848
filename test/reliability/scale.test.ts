/**
 * Reliability at scale: 50 configured servers, 100 sampling requests at once from one server (one
 * queue, one dialog at a time, the rate limit holds), and a storm of roots changes.
 */
import * as assert from 'node:assert/strict';
import type { CreateMessageResult } from '@modelcontextprotocol/client';
import { pathToFileURL } from 'node:url';
import { KeyedQueue } from '../../src/extension/trust/grants';
import { RATE_LIMITED, USER_REJECTED } from '../../src/mcp/features/sampling';
import type { ClientFeatures, ModelDescriptor, SamplingContext } from '../../src/mcp/types';
import { BYSTANDER, markedProcesses, marked, startHost, textOf, until, type TestHost } from './helpers';

interface SampleOutcome { ok: number; errors: Record<string, number>; messages: Record<string, string> }

/**
 * The extension's shape of sampling, without the editor: one queue per server in front of a dialog
 * (here a function that answers after a tick), then a fake model that records every call.
 */
function fakeSampling(answer: (ctx: SamplingContext) => 'allow' | 'deny') {
  const queue = new KeyedQueue();
  const stats = { dialogs: 0, open: 0, maxOpen: 0, modelCalls: [] as string[] };
  const models: ModelDescriptor[] = [{ id: 'fake-1', name: 'Fake Model 1' }];
  const features: ClientFeatures = {
    listModels: async () => models,
    sample: ctx => queue.run(ctx.server, async () => {
      stats.dialogs++;
      stats.open++;
      stats.maxOpen = Math.max(stats.maxOpen, stats.open);
      await new Promise(r => setTimeout(r, 5));
      stats.open--;
      if (answer(ctx) === 'deny') throw new Error('The user rejected the sampling request');
      stats.modelCalls.push(ctx.server);
      return { role: 'assistant', content: { type: 'text', text: 'fake answer' }, model: ctx.model.id } as CreateMessageResult;
    }, ctx.signal),
  };
  return { features, stats };
}

describe('Reliability: scale', function () {
  this.timeout(180_000);
  let t: TestHost | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('50 configured servers (5 of them broken): 45 run and answer at once, the broken ones say why; removing half stops exactly those', async () => {
    const defs = Array.from({ length: 50 }, (_, i) => i % 10 === 9
      ? marked(`s${i}`, 'crash-at-start', ['--message', `fatal: server ${i} is misconfigured`])
      : marked(`s${i}`, 'hostile'));
    t = await startHost(defs);
    const names = defs.map(d => d.name);
    const kinds = names.map(n => t!.get(n).state.kind);
    assert.equal(kinds.filter(k => k === 'running').length, 45, JSON.stringify(kinds));
    for (const n of names.filter((_, i) => i % 10 === 9)) {
      const s = t.get(n).state;
      assert.ok(s.kind === 'error' && s.message.includes(`server \`${n}\``) && s.message.includes('is misconfigured'), JSON.stringify(s));
    }
    const running = names.filter((_, i) => i % 10 !== 9);
    const answers = await Promise.all(running.map(n => t!.get(n).callTool('echo', { text: n })));
    assert.deepEqual(answers.map(r => textOf(r)), running);
    assert.equal(new Set(running.map(n => t!.get(n).pid)).size, 45, 'one process each');
    assert.equal(markedProcesses().length, 46, 'the process table holds the 45 servers and the bystander');

    const keep = defs.filter((_, i) => i < 25);
    await t.host.reconcile([marked(BYSTANDER, 'echo'), ...keep]);
    assert.deepEqual(t.host.servers.map(s => s.name).sort(), [BYSTANDER, ...keep.map(d => d.name)].sort());
    await until(() => markedProcesses().length === 1 + keep.filter((_, i) => i % 10 !== 9).length, 'removed servers gone from the process table', 15_000);
    await t.assertBystanderUndisturbed();
  });

  it('100 sampling requests at once from one server: one dialog at a time, the rate limit (25/min) holds, the rest are refused with a clear error', async () => {
    const { features, stats } = fakeSampling(() => 'allow');
    // The pending-request bound (16 by default, schema.test.ts) is raised here so the rate limit is what decides.
    t = await startHost([marked('sampler', 'hostile', [], { sampling: { maxRequestsPerMinute: 25 } })], { features, limits: { maxPendingServerRequests: 1000 } });
    const out = JSON.parse(textOf(await t.get('sampler').callTool('sample', { n: 100 }))) as SampleOutcome;
    assert.equal(out.ok, 25);
    assert.deepEqual(out.errors, { [RATE_LIMITED]: 75 });
    assert.match(out.messages[RATE_LIMITED], /Sampling rate limit exceeded: server "sampler" may make 25 sampling requests per minute$/);
    assert.equal(stats.dialogs, 25, 'only requests within the limit reach the dialog');
    assert.equal(stats.maxOpen, 1, 'never more than one dialog open');
    assert.equal(stats.modelCalls.length, 25);
    // The limit is per server: another server still gets its own.
    await t.host.reconcile([marked(BYSTANDER, 'echo'), marked('sampler', 'hostile', [], { sampling: { maxRequestsPerMinute: 25 } }), marked('other', 'hostile')]);
    const other = JSON.parse(textOf(await t.get('other').callTool('sample', { n: 3 }))) as SampleOutcome;
    assert.equal(other.ok, 3);
    await t.assertBystanderUndisturbed();
  });

  it('100 sampling requests denied by the user: the model is never called, the server hears a rejection for each', async () => {
    const { features, stats } = fakeSampling(() => 'deny');
    t = await startHost([marked('denied', 'hostile', [], { sampling: { maxRequestsPerMinute: 100 } })], { features, limits: { maxPendingServerRequests: 1000 } });
    const out = JSON.parse(textOf(await t.get('denied').callTool('sample', { n: 100 }))) as SampleOutcome;
    assert.equal(out.ok, 0);
    assert.deepEqual(out.errors, { [USER_REJECTED]: 100 });
    assert.match(out.messages[USER_REJECTED], /rejected the sampling request/);
    assert.equal(stats.modelCalls.length, 0, 'the fake model was called');
    assert.equal(stats.maxOpen, 1);
    await t.assertBystanderUndisturbed();
  });

  it('a storm of 300 roots changes: a bounded number of roots/list_changed, and the server ends up seeing the last state', async () => {
    t = await startHost([marked('rooted', 'hostile'), marked('rooted2', 'hostile')], { rootsDebounceMs: 50 });
    const folder = (i: number) => ({ uri: pathToFileURL(`/work/folder-${i}`).href, name: `folder-${i}` });
    let last: Array<{ uri: string; name: string }> = [];
    for (let i = 0; i < 300; i++) {
      // Folders added and removed quickly: a sliding window of 1–4 folders.
      last = Array.from({ length: 1 + (i % 4) }, (_, k) => folder(i + k));
      t.host.setRoots(last);
      if (i % 25 === 0) await new Promise(r => setTimeout(r, 5));
    }
    for (const name of ['rooted', 'rooted2']) {
      await until(async () => {
        const seen = JSON.parse(textOf(await t!.get(name).callTool('roots_seen', {}))) as { last: unknown };
        return JSON.stringify(seen.last) === JSON.stringify(last);
      }, `${name} sees the last roots`, 15_000);
      await new Promise(r => setTimeout(r, 200));
      const seen = JSON.parse(textOf(await t.get(name).callTool('roots_seen', {}))) as { listChanged: number; rootsCalls: number; last: unknown };
      assert.ok(seen.listChanged >= 1 && seen.listChanged <= 5, `${name}: ${seen.listChanged} notifications for 300 changes`);
      assert.deepEqual(seen.last, last, 'the last state wins');
    }
    await t.assertBystanderUndisturbed();
  });
});
