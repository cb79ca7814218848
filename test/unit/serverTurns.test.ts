/**
 * A server's own questions (sampling approvals, elicitation) through the consent governor once per turn (issue 35,
 * H381): the real Governor, ServerTurns and the per-server KeyedQueue, composed as the sampling and elicitation
 * handlers compose them (src/extension/sampling/clientFeatures.ts, src/extension/elicitation/elicitation.ts: queue per server, then
 * `turns.ask` with the request's dialog). A hostile server sends 1,000 sampling requests (and 1,000 elicitation
 * requests) at once while its first dialog is open; a well-behaved bystander sends one. The dialogs are the
 * governor's own shower, answered by the test as a user would.
 */
import * as assert from 'node:assert/strict';
import { Governor, type Dialog } from '../../src/extension/trust/governor';
import { KeyedQueue } from '../../src/extension/trust/grants';
import { ServerTurns, type ServerQuestion } from '../../src/extension/trust/serverTurns';
import { until } from '../support/wait';

interface Shown { dialog: Dialog; answer(a: string | undefined): void; done: boolean }

/** Waits until `cond` holds, checked on every turn of the event loop (no fixed sleep). */
const turns = (cond: () => boolean, what: string) => until(cond, what, { every: 0 });

/** The world of one test: the governor with a user who answers the dialogs, the servers' turns and queue. */
function world() {
  const shown: Shown[] = [];
  let maxOpen = 0;
  const governor = new Governor(() => d => new Promise(resolve => {
    const s: Shown = { dialog: d, done: false, answer: a => { s.done = true; resolve(a); } };
    shown.push(s);
    maxOpen = Math.max(maxOpen, shown.filter(x => !x.done).length);
  }));
  const turns = new ServerTurns(q => governor.ask(q));
  const queue = new KeyedQueue();
  const open = () => shown.filter(s => !s.done);
  /** One request of `server`, as the handler runs it: queued per server, then asked in the server's turn. */
  const request = (server: string, kind: ServerQuestion, yes: string, signal?: AbortSignal) =>
    queue.run(`${kind}:${server}`, () => turns.ask(server, kind, {
      show: closed => governor.ask({ key: `dialog:${kind}:${server}`, closed, dialog: { severity: 'warning', message: `${kind} of ${server}`, buttons: [{ title: yes }, { title: 'No', isCloseAffordance: true }] } })
        .then(o => (o.kind === 'refused' ? undefined : o.answer)),
      says: a => (a === yes ? 'yes' : 'no'),
      signal,
    }));
  return { shown, open, turns, request, maxOpen: () => maxOpen };
}

describe('a server\'s sampling and elicitation questions: once per turn through the governor (issue 35)', () => {
  for (const [kind, yes, no] of [['sampling', 'Allow Once', 'Deny'], ['elicitation', 'Respond…', 'Decline']] as const) {
    it(`H381: 1,000 ${kind} requests while one dialog is open: one dialog; after "${no}" the rest are refused without one; a bystander's request asks once and gets its answer`, async () => {
      const w = world();
      const hostile = Array.from({ length: 1000 }, () => w.request('hostile', kind, yes));
      await turns(() => w.shown.length >= 1, 'the first dialog');
      const bystander = w.request('bystander', kind, yes);
      await turns(() => w.shown.length >= 2, 'the bystander\'s dialog');
      assert.equal(w.shown.filter(s => s.dialog.message === `${kind} of hostile`).length, 1, 'one dialog for the hostile server while it is open');
      // The user answers the bystander: its one request gets that answer.
      w.shown.find(s => s.dialog.message === `${kind} of bystander`)!.answer(yes);
      assert.deepEqual(await bystander, { kind: 'answered', value: yes });
      // The user says no to the hostile server: its other 999 requests are refused, no dialog opens.
      w.shown.find(s => s.dialog.message === `${kind} of hostile`)!.answer(no);
      const results = await Promise.all(hostile);
      assert.deepEqual(results[0], { kind: 'answered', value: no }, 'the request that asked gets the answer');
      assert.ok(results.slice(1).every(r => r.kind === 'refused' && r.why === 'denied'), 'the rest: refused (denied), without a dialog');
      assert.equal(w.shown.length, 2, 'two dialogs in all: one per server');
      assert.ok(w.maxOpen() <= 2, 'at most one dialog open per server');
      assert.equal(w.turns.denied('hostile', kind), true);
      // Later in the session: still refused without a dialog; the bystander still asks (its own turn).
      assert.deepEqual(await w.request('hostile', kind, yes), { kind: 'refused', why: 'denied' });
      const again = w.request('bystander', kind, yes);
      await turns(() => w.shown.length === 3, 'the bystander\'s next dialog');
      w.shown[2].answer(yes);
      assert.deepEqual(await again, { kind: 'answered', value: yes });
      // The user resets the grants: the hostile server may ask again (once).
      w.turns.reset();
      const after = w.request('hostile', kind, yes);
      await turns(() => w.shown.length === 4, 'a dialog after the reset');
      w.shown[3].answer(no);
      assert.deepEqual(await after, { kind: 'answered', value: no });
    });
  }

  it('H381: a yes is acted on by the request that asked, once: the next request asks again only after the answer; dialogs never outnumber the user\'s answers', async () => {
    const w = world();
    const n = 50;
    const requests = Array.from({ length: n }, () => w.request('server', 'sampling', 'Allow Once'));
    let answers = 0;
    for (let i = 0; i < 5; i++) {
      await turns(() => w.open().length === 1, `dialog ${i + 1}`);
      assert.equal(w.shown.length, answers + 1, 'a new dialog only after the user answered the last one');
      w.open()[0].answer('Allow Once');
      answers++;
    }
    await turns(() => w.open().length === 1, 'dialog 6');
    w.open()[0].answer(undefined); // Escape: a no
    const results = await Promise.all(requests);
    assert.equal(results.filter(r => r.kind === 'answered' && r.value === 'Allow Once').length, 5, 'each Allow Once acted on by exactly one request');
    assert.equal(results.filter(r => r.kind === 'refused').length, n - 6);
    assert.equal(w.shown.length, 6, 'dialogs = user answers');
    assert.equal(w.maxOpen(), 1);
  });

  it('H381: concurrent questions of one server without the queue join the open dialog and do not act on its answer; a cancelled request asks nothing', async () => {
    const w = world();
    let shows = 0;
    let release!: (v: string) => void;
    const gate = new Promise<string>(r => { release = r; });
    const ask = () => w.turns.ask('s', 'elicitation', { show: async () => { shows++; return gate; }, says: a => (a === 'ok' ? 'yes' : 'no') });
    const all = Array.from({ length: 100 }, ask);
    await turns(() => shows === 1, 'the one dialog');
    release('ok');
    const results = await Promise.all(all);
    assert.equal(shows, 1, 'one dialog for 100 concurrent questions');
    assert.deepEqual(results[0], { kind: 'answered', value: 'ok' });
    assert.ok(results.slice(1).every(r => r.kind === 'refused'), 'the joiners do not act on the asker\'s yes');
    const ac = new AbortController();
    ac.abort();
    assert.deepEqual(await w.turns.ask('s', 'elicitation', { show: async () => { shows++; return 'ok'; }, says: () => 'yes', signal: ac.signal }), { kind: 'refused', why: 'cancelled' });
    assert.equal(shows, 1);
  });

  it('H384: the user\'s own Start or Restart of a server (forget) lets its denied questions ask again; another server\'s denial stays', async () => {
    const w = world();
    for (const server of ['restarted', 'bystander']) {
      const first = w.request(server, 'sampling', 'Allow Once');
      await turns(() => w.open().length === 1, `${server}'s dialog`);
      w.open()[0].answer('No');
      assert.deepEqual(await first, { kind: 'answered', value: 'No' }, 'the request that asked gets the no');
    }
    assert.deepEqual(await w.request('restarted', 'sampling', 'Allow Once'), { kind: 'refused', why: 'denied' }, 'denied for the session');
    const before = w.shown.length;
    w.turns.forget('restarted');
    const again = w.request('restarted', 'sampling', 'Allow Once');
    await turns(() => w.shown.length === before + 1, 'a dialog after the Start');
    w.open()[0].answer('Allow Once');
    assert.deepEqual(await again, { kind: 'answered', value: 'Allow Once' });
    assert.deepEqual(await w.request('bystander', 'sampling', 'Allow Once'), { kind: 'refused', why: 'denied' }, 'the other server stays denied');
    assert.equal(w.shown.length, before + 1);
  });
});
