/**
 * A server's own questions to the user — a sampling approval, an elicitation — through the consent governor
 * (governor.ts), once per turn. The requester is the server; its turn for a kind of question (`sampling`,
 * `elicitation`) lasts until the user says yes to one request (that request acts on it; the next one asks again) or
 * no (a Deny, a Decline, a dismissed dialog): then the turn ends denied and every later request of that kind from that
 * server is refused without a dialog for the rest of the window session, until the user's own Start or Restart of that
 * server (`forget`), or until the grants are reset (`reset`).
 * The governor's own rules apply on top: one dialog per key open (a request that arrives while it is open joins it
 * and does not act on its answer, which belongs to the request that asked). No `vscode` import: unit-tested in
 * plain mocha against the real Governor and KeyedQueue (test/unit/serverTurns.test.ts).
 *
 *   const turns = new ServerTurns(q => governor.ask(q));
 *   const r = await turns.ask(server, 'sampling', { show: closed => ui.approve(...), says: a => a.grant === 'deny' ? 'no' : 'yes' });
 *   if (r.kind === 'refused') throw new Error(...);   // r.why: 'denied' earlier, 'shared' (joined another's dialog), 'cancelled'
 */
import { Turn, type Outcome, type Question } from './governor';

/** The kinds of question a server asks on its own. */
export type ServerQuestion = 'sampling' | 'elicitation';

/** What a server's question came to: the answer of this request's own dialog, or refused without one. */
export type ServerAnswer<T> =
  | { kind: 'answered'; value: T }
  /** denied: the user said no to this server's questions of this kind in this session; shared: the request joined
   * another request's open dialog (that answer is not this request's); cancelled: the request went away. */
  | { kind: 'refused'; why: 'denied' | 'shared' | 'cancelled' };

/** One request's question: how to ask it (the dialog or form), and whether an answer is a yes or a no. */
export interface ServerAsk<T> {
  show(closed: AbortSignal): Promise<T>;
  says(answer: T): 'yes' | 'no';
  /** The request's cancellation (the server cancelled it, or the connection closed). */
  signal?: AbortSignal;
}

const YES = 'yes';

/** The servers' turns, one per server and kind of question. */
export class ServerTurns {
  private readonly turns = new Map<string, Turn>();

  constructor(private readonly govern: (q: Question) => Promise<Outcome>) {}

  /** Asks one request's question through the governor, in the server's turn for `kind`. */
  async ask<T>(server: string, kind: ServerQuestion, a: ServerAsk<T>): Promise<ServerAnswer<T>> {
    const key = `${kind}:${server}`;
    let turn = this.turns.get(key);
    if (!turn || turn.ended === 'done' || turn.ended === 'cancelled') this.turns.set(key, turn = new Turn(`${kind} requests of MCP server "${server}"`));
    let mine: { value: T } | undefined;
    const out = await this.govern({
      key, turn, closed: a.signal,
      show: async closed => {
        const value = await a.show(closed);
        mine = { value };
        return a.says(value) === 'yes' ? YES : undefined;
      },
      // A no (or a dismissed dialog) ends the server's turn: nothing more of this kind is asked this session.
      denies: answer => answer !== YES,
    });
    if (out.kind === 'refused') return { kind: 'refused', why: out.reason === 'denied' ? 'denied' : 'cancelled' };
    if (out.kind !== 'answered' || !mine) return { kind: 'refused', why: out.answer === YES ? 'shared' : 'denied' };
    // A yes is acted on once, by the request that asked; the server's next request asks again.
    if (out.answer === YES) turn.end('done');
    return { kind: 'answered', value: mine.value };
  }

  /** Whether `server`'s questions of `kind` are refused without a dialog now (the user said no this session). */
  denied(server: string, kind: ServerQuestion): boolean {
    return this.turns.get(`${kind}:${server}`)?.ended === 'denied';
  }

  /** Forgets `server`'s denials (the user's own Start or Restart of it): it may ask again, once per turn as before. */
  forget(server: string): void {
    for (const kind of ['sampling', 'elicitation'] as const) {
      const key = `${kind}:${server}`;
      this.turns.get(key)?.end('done');
      this.turns.delete(key);
    }
  }

  /** Forgets the denials (the user reset the grants): every server may ask again. */
  reset(): void {
    for (const t of this.turns.values()) t.end('done');
    this.turns.clear();
  }
}
