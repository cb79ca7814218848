/**
 * The walks over a parsed JSON value, one per purpose (issue 39), each written once as a sliced walk with two
 * drivers: `runWhole` runs it at once (a catalogue item, a skill, a tool call's arguments, any answer before it is
 * formatted), `runSliced` runs it a few milliseconds at a time and awaits a `setImmediate` in between (a whole tool
 * result: 500,000 objects take a walk as long as their parse, issue 27). Both drivers give the same answer, since
 * they run the same steps. A walk is an object that keeps its stack between runs, looks at the clock every STRIDE
 * nodes (also in the middle of a long list) and stops there once past its deadline; the one-go driver gives it none,
 * so a small value is walked at once either way. (A generator was measured first: 1.5 to 5 times slower per node.)
 *
 * - `nestsDeeperThan`: the nesting bound (MAX_NESTING_DEPTH, limits.ts), checked where an answer arrives
 *   (server/calls.ts) before anything recursive walks it.
 * - `approxJsonSize`: about the length of the value as JSON, without serialising it (the catalogue's bytes cap in
 *   catalogue/paging.ts, the skills' cap, the History's sizes).
 * - `jsonEqual`: whether two values are the same JSON (key order aside), without serialising either (a refreshed
 *   tools list keeps an unchanged tool's checks and validators, catalogue/toolSchemas.ts). Comparing the texts made
 *   two ~20 MB sets of strings per refresh of 10,000 tools that lived past a collection or two: the scavenges that
 *   copied them were the longest turns of a refresh, and beside two busy loops they held the thread for 50 ms
 *   (issue 41).
 *
 * They keep no set of the objects seen: what they walk is parsed JSON, a tree, and a set of 500,000 objects grew by
 * rehashes that each held the thread (and fed the collector) longer than a slice. A shared object is counted each
 * time it occurs, as serialising it would. A value that is not a tree still ends: a cycle is deeper than any bound,
 * the size walk ends once over its caller's bound, and no walk visits more than MAX_NODES nodes (more than a message
 * within the size cap can hold).
 */
import { MAX_NESTING_DEPTH } from './limits';

/** The longest a sliced walk holds the thread before it yields (ms). */
export const WALK_SLICE_MS = 8;
/** More nodes than a message of the largest allowed size (64 MiB and over) can hold: a walk stops there. */
export const MAX_NODES = 256 * 1024 * 1024;
/** Nodes visited between two looks at the clock. */
const STRIDE = 2048;

/**
 * A walk: `run(deadline)` walks until it has its answer (true) or, at a stride, the clock (`performance.now()`) is
 * past `deadline` (false: call again to go on). What it walked so far is kept in the object, also in the middle of
 * a long list (500,000 items count towards a slice as they are pushed; nothing else touches the stack meanwhile).
 */
interface Walk<T> {
  run(deadline: number): boolean;
  readonly answer: T;
}

/** Runs a walk at once. */
function runWhole<T>(walk: Walk<T>): T {
  walk.run(Number.POSITIVE_INFINITY);
  return walk.answer;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Lets the event loop turn once (a slice's end): the one yield of the core's sliced work. */
export const yieldTurn = () => new Promise<void>(resolve => setImmediate(resolve));

/** Runs a walk in slices of `sliceMs`, yielding to the event loop in between. */
async function runSliced<T>(walk: Walk<T>, sliceMs: number): Promise<T> {
  while (!walk.run(performance.now() + sliceMs)) await yieldTurn();
  return walk.answer;
}

/** The nesting walk: true when `v` nests arrays/objects deeper than `max` levels (an explicit stack, no recursion). */
class DepthWalk implements Walk<boolean> {
  answer = false;
  private readonly values: object[] = [];
  private readonly depths: number[] = [];
  private count = 0;
  /** The children being pushed when the walk paused, their depth and the next one to push. */
  private open: unknown[] | undefined;
  private openDepth = 0;
  private at = 0;

  constructor(v: unknown, private readonly max: number) {
    if (v && typeof v === 'object') { this.values.push(v); this.depths.push(1); }
  }

  run(deadline: number): boolean {
    const { values, depths, max } = this;
    let count = this.count;
    for (;;) {
      const open = this.open;
      if (open) {
        const depth = this.openDepth;
        for (let i = this.at; i < open.length;) {
          const child = open[i++];
          if (child && typeof child === 'object') { values.push(child as object); depths.push(depth); }
          if (++count % STRIDE === 0 && performance.now() >= deadline) { this.at = i; this.count = count; return false; }
        }
        this.open = undefined;
        if (++count % STRIDE === 0 && performance.now() >= deadline) { this.count = count; return false; }
      }
      if (!values.length) return true;
      const value = values.pop() as object;
      const depth = depths.pop() as number;
      if (depth > max || count > MAX_NODES) { this.answer = true; return true; }
      this.open = Array.isArray(value) ? value as unknown[] : Object.values(value);
      this.openDepth = depth + 1;
      this.at = 0;
    }
  }
}

/**
 * The size walk: about the length of `v` as JSON (strings' lengths plus quotes, keys, separators; own enumerable
 * keys only), where JSON.stringify of every item cost a quarter of a 10,000-item refresh. It ends as soon as the
 * size is over `stopAbove` (the answer is then some size over it).
 */
class SizeWalk implements Walk<number> {
  answer = 0;
  private readonly stack: unknown[];
  private count = 0;
  /** The object or array whose children were being pushed when the walk paused, its keys and the next index. */
  private open: object | undefined;
  private keys: string[] | undefined;
  private at = 0;

  constructor(v: unknown, private readonly stopAbove: number) { this.stack = [v]; }

  run(deadline: number): boolean {
    const { stack, stopAbove } = this;
    let n = this.answer;
    let count = this.count;
    const open = this.open;
    if (open) {
      // Go on with the children of the container the last run paused in.
      this.open = undefined;
      const keys = this.keys;
      const len = keys ? keys.length : (open as unknown[]).length;
      for (let i = this.at; i < len;) {
        if (keys) { const k = keys[i++]; n += k.length + 4; stack.push((open as Record<string, unknown>)[k]); } else { stack.push((open as unknown[])[i++]); n += 1; }
        if (++count % STRIDE === 0 && performance.now() >= deadline) { this.open = open; this.at = i; this.answer = n; this.count = count; return false; }
      }
    }
    for (;;) {
      if (++count % STRIDE === 0 && performance.now() >= deadline) { this.answer = n; this.count = count; return false; }
      if (!stack.length || n > stopAbove || count > MAX_NODES) { this.answer = n; return true; }
      const x = stack.pop();
      switch (typeof x) {
        case 'string': n += x.length + 2; break;
        case 'number': n += 8; break;
        case 'boolean': n += 5; break;
        case 'object': {
          if (x === null) { n += 4; break; }
          n += 2;
          if (Array.isArray(x)) {
            for (let i = 0; i < x.length;) {
              stack.push(x[i++]);
              n += 1;
              if (++count % STRIDE === 0 && performance.now() >= deadline) {
                this.open = x; this.keys = undefined; this.at = i; this.answer = n; this.count = count;
                return false;
              }
            }
            break;
          }
          // An object's keys by `for…in` (no array of keys made: a third faster on catalogue items); own keys come
          // first and in the order of Object.keys, which a walk paused in the middle goes on with.
          let pushed = 0;
          for (const k in x) {
            if (!hasOwn.call(x, k)) continue;
            n += k.length + 4;
            stack.push((x as Record<string, unknown>)[k]);
            ++pushed;
            if (++count % STRIDE === 0 && performance.now() >= deadline) {
              this.open = x; this.keys = Object.keys(x); this.at = pushed; this.answer = n; this.count = count;
              return false;
            }
          }
          break;
        }
        default: break;
      }
    }
  }
}

/**
 * The equality walk: true when `a` and `b` are the same JSON value (own enumerable keys, in any order; arrays item by
 * item). It stops at the first difference, and visits at most MAX_NODES pairs (then: not equal).
 */
class EqualWalk implements Walk<boolean> {
  answer = true;
  private readonly left: unknown[];
  private readonly right: unknown[];
  private count = 0;

  constructor(a: unknown, b: unknown) { this.left = [a]; this.right = [b]; }

  run(deadline: number): boolean {
    const { left, right } = this;
    let count = this.count;
    for (;;) {
      if (++count % STRIDE === 0 && performance.now() >= deadline) { this.count = count; return false; }
      if (!left.length) return true;
      const a = left.pop();
      const b = right.pop();
      if (a === b) continue;
      if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || count > MAX_NODES) { this.answer = false; return true; }
      if (Array.isArray(a)) {
        if (!Array.isArray(b) || a.length !== b.length) { this.answer = false; return true; }
        for (let i = 0; i < a.length; i++) { left.push(a[i]); right.push(b[i]); }
        count += a.length;
        continue;
      }
      if (Array.isArray(b)) { this.answer = false; return true; }
      let pushed = 0;
      for (const k in a) {
        if (!hasOwn.call(a, k)) continue;
        if (!hasOwn.call(b, k)) { this.answer = false; return true; }
        left.push((a as Record<string, unknown>)[k]);
        right.push((b as Record<string, unknown>)[k]);
        ++pushed;
      }
      // b has every key of a; the same number of keys means no other.
      let keys = pushed;
      for (const k in b) if (hasOwn.call(b, k)) --keys;
      if (keys !== 0) { this.answer = false; return true; }
      count += pushed;
    }
  }
}

/** True when `a` and `b` are the same JSON value, key order aside; walked at once (a tool definition). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return runWhole(new EqualWalk(a, b));
}

/** True when `v` nests arrays/objects deeper than `max` levels; walked at once. */
export function nestsDeeperThan(v: unknown, max = MAX_NESTING_DEPTH): boolean {
  return runWhole(new DepthWalk(v, max));
}

/** `nestsDeeperThan(v, max)`, in slices of `sliceMs` (0: a yield every STRIDE nodes). */
export function nestsDeeperThanSliced(v: unknown, max = MAX_NESTING_DEPTH, sliceMs = WALK_SLICE_MS): Promise<boolean> {
  return runSliced(new DepthWalk(v, max), sliceMs);
}

/**
 * About the length of `v` as JSON, walked at once; stops once over `stopAbove` (every caller in the host passes its
 * bound, so even a value that is not a tree ends soon).
 */
export function approxJsonSize(v: unknown, stopAbove = Number.MAX_SAFE_INTEGER): number {
  return runWhole(new SizeWalk(v, stopAbove));
}

/** `approxJsonSize(v, stopAbove)`, in slices of `sliceMs` (0: a yield every STRIDE nodes). */
export function approxJsonSizeSliced(v: unknown, stopAbove = Number.MAX_SAFE_INTEGER, sliceMs = WALK_SLICE_MS): Promise<number> {
  return runSliced(new SizeWalk(v, stopAbove), sliceMs);
}
