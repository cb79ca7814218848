/**
 * The consent governor: the one place that decides whether a modal question may open. Every modal question of the
 * extension (launch consent, tool and sampling approvals, URL opens, App permissions and downloads, elicitation)
 * reaches it through `ask` in src/extension/ui/dialogs.ts, which is the only code allowed to show a modal
 * (eslint.config.mjs refuses `modal: true` anywhere else). No `vscode` import: unit-tested in plain mocha.
 *
 * A question has a key (what is asked, e.g. `tool:<server>/<tool>`) and, optionally, the requester's turn: one user
 * act (a chat request, an App view's act, a lazy start), with the act's cancellation. The governor refuses:
 * - a question on a turn that ended: denied (a "no" answer ends the requester's turn), cancelled (its
 *   CancellationToken / AbortSignal fired) or done; the requester gets `refused` and no dialog opens;
 * - a second dialog for a key already answered in the turn: the requester gets the earlier answer as `remembered`
 *   (the caller decides what a remembered "allow once" means: for tools, not run again, so an Allow is acted on
 *   exactly once);
 * - a second dialog for a key whose dialog is open: the requester joins it (`joined`, the same answer; a joined
 *   "allow once" is not acted on by the joiner).
 * When a turn is cancelled its pending questions resolve `refused` at once and the dialog's `closed` signal aborts
 * (a form or a closable dialog closes; a modal the editor cannot close is ignored when answered).
 */

import { setMaxListeners } from 'node:events';

/** One button of a dialog. */
export interface DialogButton {
  title: string;
  /** The button that Escape and the close box stand for (VS Code then adds no "Cancel" of its own). */
  isCloseAffordance?: boolean;
}

/** A modal question, as shown. */
export interface Dialog {
  severity: 'info' | 'warning';
  /** The first line: what is asked, naming the server (and tool). */
  message: string;
  detail?: string;
  buttons: readonly DialogButton[];
}

/** Why a turn ended. */
export type TurnEnd = 'denied' | 'cancelled' | 'done';

/**
 * One requester's turn, started by one user act: what was answered in it, whether it ended. A chat request is one
 * turn (ended by a denial, its cancellation, or its end); so is an App view's act or a lazy start.
 */
export class Turn {
  private readonly ac = (() => { const ac = new AbortController(); setMaxListeners(0, ac.signal); return ac; })();
  private why: TurnEnd | undefined;
  /** Answers given in this turn, by question key (undefined: dismissed). */
  readonly answers = new Map<string, string | undefined>();

  constructor(readonly label: string, cancelled?: AbortSignal) {
    if (cancelled?.aborted) this.end('cancelled');
    else cancelled?.addEventListener('abort', () => this.end('cancelled'), { once: true });
  }

  /** Aborts when the turn ends (for any reason). */
  get signal(): AbortSignal { return this.ac.signal; }
  get ended(): TurnEnd | undefined { return this.why; }

  /** Ends the turn (the first reason stays); pending questions of the turn resolve `refused`. */
  end(why: TurnEnd): void {
    if (this.why) return;
    this.why = why;
    this.ac.abort(new Error(`The turn ended (${why})`));
  }
}

/** What a question came to. */
export type Outcome =
  /** A dialog opened for this requester; `answer` is the chosen button's title, undefined when dismissed. */
  | { kind: 'answered'; answer: string | undefined }
  /** The same key's dialog was open: this requester shares its answer (and must not act on a one-time Allow). */
  | { kind: 'joined'; answer: string | undefined }
  /** The key was answered earlier in this turn: no dialog, the earlier answer. */
  | { kind: 'remembered'; answer: string | undefined }
  /** No dialog: the turn ended (denied, cancelled, done). */
  | { kind: 'refused'; reason: TurnEnd };

/** Shows a dialog; `closed` aborts when nobody waits for the answer any more. */
export type DialogShower = (dialog: Dialog, closed: AbortSignal) => Promise<string | undefined>;

/** One question for the governor. */
export interface Question {
  /** What is asked: the same key is the same question (e.g. `tool:<server>/<tool>`, `consent:<definition key>`). */
  key: string;
  /** The modal to show; or `show`, the requester's own way to ask (a form, a replaceable test UI), still governed. */
  dialog?: Dialog;
  show?: (closed: AbortSignal) => Promise<string | undefined>;
  /** The requester's turn; without one (a question from no user act's requester) only joining applies. */
  turn?: Turn;
  /** Answers that are a "no": they end the turn (the default: a dismissed dialog). */
  denies?: (answer: string | undefined) => boolean;
  /** Aborts when the one asking went away (an App view closed): like the turn's cancellation, for this question. */
  closed?: AbortSignal;
}

interface Open {
  answer: Promise<string | undefined>;
  closer: AbortController;
  waiting: number;
}

/** The governor: at most one dialog per key open, none for an ended turn, none twice per key in a turn. */
export class Governor {
  private readonly open = new Map<string, Open>();
  /** Dialogs shown so far (tests and the log). */
  shown = 0;

  constructor(private readonly show: () => DialogShower) {}

  /** Keys with a dialog open now. */
  get openKeys(): string[] { return [...this.open.keys()]; }

  async ask(q: Question): Promise<Outcome> {
    const turn = q.turn;
    if (turn?.ended) return { kind: 'refused', reason: turn.ended };
    if (q.closed?.aborted) return { kind: 'refused', reason: 'cancelled' };
    if (turn?.answers.has(q.key)) return { kind: 'remembered', answer: turn.answers.get(q.key) };
    let o = this.open.get(q.key);
    const joined = !!o;
    if (!o) {
      const closer = new AbortController();
      this.shown++;
      const opened: Open = { answer: Promise.resolve(undefined), closer, waiting: 0 };
      const shown = Promise.resolve().then(() => (q.show ? q.show(closer.signal) : q.dialog ? this.show()(q.dialog, closer.signal) : undefined));
      opened.answer = shown.catch(() => undefined)
        .finally(() => { if (this.open.get(q.key) === opened) this.open.delete(q.key); });
      this.open.set(q.key, opened);
      o = opened;
    }
    const mine = o;
    mine.waiting++;
    const gone = [turn?.signal, q.closed].filter((s): s is AbortSignal => !!s);
    let off = () => undefined as void;
    const left = new Promise<'left'>(resolve => {
      const onGone = () => resolve('left');
      gone.forEach(s => s.addEventListener('abort', onGone, { once: true }));
      off = () => gone.forEach(s => s.removeEventListener('abort', onGone));
    });
    const r = await Promise.race([mine.answer.then(a => ({ a })), left]);
    off();
    mine.waiting--;
    if (r === 'left') {
      // Nobody waits for this dialog any more: it closes (a modal the editor cannot close is ignored when answered).
      if (mine.waiting === 0) { mine.closer.abort(); if (this.open.get(q.key) === mine) this.open.delete(q.key); }
      return { kind: 'refused', reason: turn?.ended ?? 'cancelled' };
    }
    if (turn) {
      turn.answers.set(q.key, r.a);
      if ((q.denies ?? (a => a === undefined))(r.a)) turn.end('denied');
    }
    return joined ? { kind: 'joined', answer: r.a } : { kind: 'answered', answer: r.a };
  }
}
