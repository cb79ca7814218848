/**
 * The consent governor (src/extension/trust/governor.ts), H352: random sequences of user acts (start a request, answer a
 * dialog, cancel a request) and requester events (a request's requester asks a question, over and over, also after a
 * denial and after its cancellation) from a seeded RNG, against the invariants: at most one dialog per turn and key,
 * at most one dialog open per key, a denial ends the turn (nothing more is asked for it), a cancelled turn's pending
 * questions resolve refused and its dialog closes, and every dialog shown was answered by a user act or closed by a
 * cancel. A well-behaved bystander requester (its own key, its own turn) is answered normally throughout.
 */
import * as assert from 'node:assert/strict';
import { Governor, Turn, type Outcome } from '../../src/extension/trust/governor';
import { rng } from '../support/rng';

interface Shown { key: string; answer(a: string | undefined): void; closed: AbortSignal; done: boolean }

const flush = async () => { for (let i = 0; i < 10; i++) await Promise.resolve(); };

describe('consent governor (H352)', () => {
  it('random user acts and requester events: dialogs ≤ user acts, one per key open, denial ends, cancel closes', async () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rand = rng(seed);
      const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
      const shown: Shown[] = [];
      const gov = new Governor(() => (d, closed) => new Promise(resolve => {
        const s: Shown = { key: d.message, closed, done: false, answer: a => { s.done = true; resolve(a); } };
        shown.push(s);
      }));
      const keys = ['tool:a', 'tool:b', 'url:x'];
      const turns: { turn: Turn; ac: AbortController; asked: Map<string, number>; pending: Promise<Outcome>[] }[] = [];
      let answers = 0;
      let cancels = 0;
      const openPerKey = () => {
        const open = shown.filter(s => !s.done && !s.closed.aborted);
        for (const k of keys) assert.ok(open.filter(s => s.key === k).length <= 1, `seed ${seed}: at most one dialog open for ${k}`);
      };
      for (let step = 0; step < 200; step++) {
        const r = rand();
        if (r < 0.15 || !turns.length) {
          const ac = new AbortController();
          turns.push({ turn: new Turn(`request ${turns.length}`, ac.signal), ac, asked: new Map(), pending: [] });
        } else if (r < 0.6) {
          // A requester asks (hostile: also after a denial, after its cancellation, the same key again).
          const t = pick(turns);
          const key = pick(keys);
          const endedBefore = t.turn.ended;
          const before = shown.length;
          const p = gov.ask({ key, turn: t.turn, dialog: { severity: 'warning', message: key, buttons: [] }, denies: a => a === undefined || a === 'deny' });
          t.pending.push(p);
          await flush();
          if (endedBefore) {
            assert.equal(shown.length, before, `seed ${seed}: no dialog for a turn that ended (${endedBefore})`);
            assert.deepEqual(await p, { kind: 'refused', reason: endedBefore });
          }
          if (shown.length > before) t.asked.set(key, (t.asked.get(key) ?? 0) + 1);
          assert.ok((t.asked.get(key) ?? 0) <= 1, `seed ${seed}: one dialog per turn and key`);
        } else if (r < 0.9) {
          const open = shown.filter(s => !s.done);
          if (open.length) { pick(open).answer(pick(['once', 'session', 'deny', undefined])); answers++; }
        } else {
          const t = pick(turns);
          if (!t.turn.ended) cancels++;
          t.ac.abort();
        }
        await flush();
        openPerKey();
      }
      // Every dialog shown was answered by the user or closed because nobody waited for it any more (a cancel).
      const closedByCancel = shown.filter(s => !s.done && s.closed.aborted).length;
      const stillOpen = shown.filter(s => !s.done && !s.closed.aborted).length;
      assert.ok(shown.length <= answers + closedByCancel + stillOpen, `seed ${seed}: dialogs ≤ user acts`);
      assert.ok(closedByCancel <= cancels, `seed ${seed}: only a cancel closes a dialog unanswered`);
      assert.equal(gov.shown, shown.length);
      // Cancel every turn: every pending question resolves, refused or answered, and every open dialog closes.
      for (const t of turns) t.ac.abort();
      await flush();
      for (const t of turns) for (const p of t.pending) assert.ok(['answered', 'joined', 'remembered', 'refused'].includes((await p).kind));
      assert.equal(shown.filter(s => !s.done && !s.closed.aborted).length, 0, `seed ${seed}: cancel closes the pending dialogs`);
      assert.deepEqual(gov.openKeys, []);
    }
  });

  it('a denial ends the turn: the same and other keys are refused without a dialog; a bystander turn is asked normally', async () => {
    let n = 0;
    const gov = new Governor(() => async d => { n++; return d.message === 'bystander' ? 'once' : 'deny'; });
    const turn = new Turn('hostile');
    const q = (key: string, t = turn) => gov.ask({ key, turn: t, dialog: { severity: 'warning', message: key, buttons: [] }, denies: a => a === 'deny' });
    assert.deepEqual(await q('tool:x'), { kind: 'answered', answer: 'deny' });
    for (let i = 0; i < 100; i++) assert.deepEqual(await q(i % 2 ? 'tool:x' : 'tool:y'), { kind: 'refused', reason: 'denied' });
    assert.equal(n, 1);
    const bystander = new Turn('bystander');
    assert.deepEqual(await q('bystander', bystander), { kind: 'answered', answer: 'once' });
    assert.deepEqual(await q('bystander', bystander), { kind: 'remembered', answer: 'once' });
    assert.equal(n, 2);
  });

  it('1,000 concurrent asks of one key in one turn: one dialog; the asker gets "answered", the rest join', async () => {
    let n = 0;
    let answer!: (a: string) => void;
    const gov = new Governor(() => () => { n++; return new Promise(r => { answer = r; }); });
    const turn = new Turn('request');
    const all = Array.from({ length: 1000 }, () => gov.ask({ key: 'tool:echo', turn, dialog: { severity: 'warning', message: 'm', buttons: [] } }));
    await flush();
    answer('once');
    const out = await Promise.all(all);
    assert.equal(n, 1);
    assert.equal(out.filter(o => o.kind === 'answered').length, 1, 'an Allow is acted on by the one who asked');
    assert.equal(out.filter(o => o.kind === 'joined').length, 999);
    assert.deepEqual(await gov.ask({ key: 'tool:echo', turn, dialog: { severity: 'warning', message: 'm', buttons: [] } }), { kind: 'remembered', answer: 'once' });
    assert.equal(n, 1);
  });

  it('cancel: the pending question resolves refused at once, its dialog is told to close, and no dialog opens after it', async () => {
    let closedSeen: AbortSignal | undefined;
    let n = 0;
    const gov = new Governor(() => (_d, closed) => { n++; closedSeen = closed; return new Promise(() => undefined); });
    const ac = new AbortController();
    const turn = new Turn('request', ac.signal);
    const p = gov.ask({ key: 'k', turn, dialog: { severity: 'warning', message: 'm', buttons: [] } });
    await flush();
    ac.abort();
    assert.deepEqual(await p, { kind: 'refused', reason: 'cancelled' });
    assert.equal(closedSeen?.aborted, true);
    for (let i = 0; i < 50; i++) assert.deepEqual(await gov.ask({ key: i % 2 ? 'k' : 'other', turn, dialog: { severity: 'warning', message: 'm', buttons: [] } }), { kind: 'refused', reason: 'cancelled' });
    assert.equal(n, 1);
    assert.deepEqual(gov.openKeys, []);
  });
});
