/**
 * Walks over a whole server answer that yield to the event loop (issue 27): a result of 500,000 objects takes a
 * walk as long as its parse, and two of them run on every tool result (the nesting bound, calls.ts; the size
 * the History shows, history.ts). These give the same answers as their one-go versions (`nestsDeeperThan` in
 * limits.ts, `approxJsonSize` in catalogue/catalogue.ts, the same traversal), working until a time budget is
 * spent and then awaiting a `setImmediate`. A small answer is walked at once, with no macrotask in between.
 */
import { MAX_NESTING_DEPTH } from './limits';

/** The longest a walk holds the thread before it yields (ms). */
export const WALK_SLICE_MS = 8;
/** Nodes visited between two looks at the clock. */
const STRIDE = 2048;

const yieldTurn = () => new Promise<void>(resolve => setImmediate(resolve));

/** `nestsDeeperThan(v, max)`, in slices. */
export async function nestsDeeperThanSliced(v: unknown, max = MAX_NESTING_DEPTH): Promise<boolean> {
  if (!v || typeof v !== 'object') return false;
  const values: object[] = [v];
  const depths: number[] = [1];
  const seen = new Set<object>();
  let deadline = performance.now() + WALK_SLICE_MS;
  let count = 0;
  while (values.length) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max) return true;
    if (seen.has(value)) continue;
    seen.add(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (child && typeof child === 'object') { values.push(child as object); depths.push(depth + 1); }
    }
    if (++count % STRIDE === 0 && performance.now() >= deadline) {
      await yieldTurn();
      deadline = performance.now() + WALK_SLICE_MS;
    }
  }
  return false;
}

/** `approxJsonSize(v)` (a JSON size estimate, without serialising), in slices. */
export async function approxJsonSizeSliced(v: unknown): Promise<number> {
  let n = 0;
  const stack: unknown[] = [v];
  const seen = new Set<object>();
  let deadline = performance.now() + WALK_SLICE_MS;
  let count = 0;
  while (stack.length) {
    const x = stack.pop();
    switch (typeof x) {
      case 'string': n += x.length + 2; break;
      case 'number': n += 8; break;
      case 'boolean': n += 5; break;
      case 'object': {
        if (x === null) { n += 4; break; }
        if (seen.has(x)) break;
        seen.add(x);
        n += 2;
        if (Array.isArray(x)) {
          for (const item of x) { stack.push(item); n += 1; }
        } else {
          for (const k of Object.keys(x)) { n += k.length + 4; stack.push((x as Record<string, unknown>)[k]); }
        }
        break;
      }
      default: break;
    }
    if (++count % STRIDE === 0 && performance.now() >= deadline) {
      await yieldTurn();
      deadline = performance.now() + WALK_SLICE_MS;
    }
  }
  return n;
}
