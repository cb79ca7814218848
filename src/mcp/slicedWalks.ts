/**
 * Walks over a whole server answer that yield to the event loop (issue 27): a result of 500,000 objects takes a
 * walk as long as its parse, and two of them run on every tool result (the nesting bound, calls.ts; the size
 * the History shows, history.ts). These give the same answers as their one-go versions (`nestsDeeperThan` in
 * limits.ts, `approxJsonSize` in catalogue/catalogue.ts, the same traversal), working until a time budget is
 * spent and then awaiting a `setImmediate`. A small answer is walked at once, with no macrotask in between.
 * Unlike the one-go versions they keep no set of the objects seen: an answer is parsed JSON, a tree, and a set of
 * 500,000 objects grew by rehashes that each held the thread (and fed the collector) longer than a slice. A value
 * that is not a tree still ends: a cycle is deeper than any bound, and no walk visits more than MAX_NODES nodes
 * (more than a message within the size cap can hold). Shared objects are counted each time they occur, as
 * serialising them would.
 */
import { MAX_NESTING_DEPTH } from './limits';

/** The longest a walk holds the thread before it yields (ms). */
export const WALK_SLICE_MS = 8;
/** More nodes than a message of the largest allowed size (64 MiB and over) can hold: a walk stops there. */
export const MAX_NODES = 256 * 1024 * 1024;
/** Nodes visited between two looks at the clock. */
const STRIDE = 2048;

const yieldTurn = () => new Promise<void>(resolve => setImmediate(resolve));

/** `nestsDeeperThan(v, max)`, in slices. */
export async function nestsDeeperThanSliced(v: unknown, max = MAX_NESTING_DEPTH): Promise<boolean> {
  if (!v || typeof v !== 'object') return false;
  const values: object[] = [v];
  const depths: number[] = [1];
  let deadline = performance.now() + WALK_SLICE_MS;
  let count = 0;
  while (values.length) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max || count > MAX_NODES) return true;
    const children = Array.isArray(value) ? value as unknown[] : Object.values(value);
    // Pushed in the order nestsDeeperThan pushes them; a long list (500,000 items) counts towards the clock as it
    // is pushed, and the walk may yield in the middle of it (nothing else touches the stack meanwhile).
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child && typeof child === 'object') { values.push(child as object); depths.push(depth + 1); }
      if (++count % STRIDE === 0 && performance.now() >= deadline) {
        await yieldTurn();
        deadline = performance.now() + WALK_SLICE_MS;
      }
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
  let deadline = performance.now() + WALK_SLICE_MS;
  let count = 0;
  while (stack.length && count <= MAX_NODES) {
    const x = stack.pop();
    switch (typeof x) {
      case 'string': n += x.length + 2; break;
      case 'number': n += 8; break;
      case 'boolean': n += 5; break;
      case 'object': {
        if (x === null) { n += 4; break; }
        n += 2;
        const keys = Array.isArray(x) ? undefined : Object.keys(x);
        const len = keys ? keys.length : (x as unknown[]).length;
        for (let i = 0; i < len; i++) {
          if (keys) { n += keys[i].length + 4; stack.push((x as Record<string, unknown>)[keys[i]]); } else { stack.push((x as unknown[])[i]); n += 1; }
          if (++count % STRIDE === 0 && performance.now() >= deadline) {
            await yieldTurn();
            deadline = performance.now() + WALK_SLICE_MS;
          }
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
