/**
 * The helpers every suite shares (issue 39): `until`, the one readiness wait (unit, reliability and, through
 * test/editor/helpers.ts, the editor tests), and `textOf`, the text of a tool result. No `vscode` here: the unit suite
 * loads this file.
 */

/** What `until` resolves with: the check's value, once it is truthy. */
export type Truthy<T> = Exclude<Awaited<T>, false | null | undefined | 0 | ''>;

export interface UntilOptions {
  /** Give up after this long (default 10 s). */
  ms?: number;
  /** Check again this often (default 25 ms); 0 checks again on every turn of the event loop (setImmediate). */
  every?: number;
  /** Events that make it check at once (each subscribes a listener and returns what unsubscribes it). */
  wakeOn?: readonly ((listener: () => void) => { dispose(): void })[];
}

/**
 * Waits until `check` returns a truthy value (a readiness wait, never a timing assertion) and resolves with it; after
 * `ms` (a number, or `options.ms`) it rejects with "timed out waiting for <what>". A check that throws rejects at once.
 */
export function until<T>(check: () => T, what: string, options: number | UntilOptions = {}): Promise<Truthy<T>> {
  const o: UntilOptions = typeof options === 'number' ? { ms: options } : options;
  const every = o.every ?? 25;
  const deadline = Date.now() + (o.ms ?? 10_000);
  return new Promise<Truthy<T>>((resolve, reject) => {
    let settled = false;
    let busy = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const subs = (o.wakeOn ?? []).map(on => on(() => { void test(); }));
    const finish = (err: Error | undefined, value?: Truthy<T>) => {
      settled = true;
      if (timer) clearTimeout(timer);
      for (const s of subs) s.dispose();
      if (err) reject(err); else resolve(value as Truthy<T>);
    };
    const next = () => {
      if (settled) return;
      if (every === 0) setImmediate(() => { void test(); });
      else timer = setTimeout(() => { void test(); }, every);
    };
    async function test(): Promise<void> {
      if (settled) return;
      if (busy) { again = true; return; }
      busy = true;
      try {
        const v = await check();
        if (v) return finish(undefined, v as Truthy<T>);
      } catch (e) {
        return finish(e instanceof Error ? e : new Error(String(e)));
      } finally {
        busy = false;
      }
      if (Date.now() > deadline) return finish(new Error(`timed out waiting for ${what}`));
      if (again) { again = false; return void test(); }
      if (timer) clearTimeout(timer);
      next();
    }
    void test();
  });
}

/**
 * The text of a tool result: its text blocks (`{ type: 'text', text }` of an MCP result, or the `LanguageModelTextPart`s,
 * `{ value: string }`, of a language-model tool result) joined with `separator`; other blocks are left out.
 */
export function textOf(result: { content?: readonly unknown[] | unknown } | undefined, separator = ''): string {
  const content = result?.content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const c of content as unknown[]) {
    const b = (c ?? {}) as { text?: unknown; value?: unknown };
    if (typeof b.text === 'string') texts.push(b.text);
    else if (typeof b.value === 'string') texts.push(b.value);
  }
  return texts.join(separator);
}
