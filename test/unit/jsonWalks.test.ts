/**
 * The JSON walks (src/mcp/jsonWalks.ts): each written once and run by two drivers, in one go and in slices. These
 * force a pause at every stride (a slice of 0 ms), so a walk stops and goes on in the middle of a long list and of an
 * object with thousands of keys, and check the answers against sizes worked out by hand and against the one-go run.
 */
import * as assert from 'node:assert/strict';
import { approxJsonSize, approxJsonSizeSliced, nestsDeeperThan, nestsDeeperThanSliced } from '../../src/mcp/jsonWalks';

/** Runs `work` while counting the event loop's turns (setImmediate callbacks) until it settles. */
async function withTurns<T>(work: () => Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => { if (!done) { turns++; setImmediate(tick); } };
  setImmediate(tick);
  try { return { value: await work(), turns }; } finally { done = true; }
}

describe('JSON walks: one walk per purpose, run in one go or in slices (H550)', () => {
  it('H550: the size walk paused in the middle of a long list and of a wide object gives the size worked out by hand', async () => {
    const list = Array.from({ length: 10_000 }, (_, i) => i);
    // "[" "]" plus, per number, 8 and a separator.
    const listSize = 2 + 10_000 * 9;
    const wide: Record<string, string> = {};
    let wideSize = 2;
    for (let i = 0; i < 5_000; i++) { wide[`k${i}`] = 'v'; wideSize += `k${i}`.length + 4 + 3; }
    for (const [v, size] of [[list, listSize], [wide, wideSize], [{ list, wide }, 2 + 4 + 4 + listSize + 4 + 4 + wideSize]] as const) {
      assert.equal(approxJsonSize(v), size);
      const sliced = await withTurns(() => approxJsonSizeSliced(v, Number.MAX_SAFE_INTEGER, 0));
      assert.equal(sliced.value, size);
      assert.ok(sliced.turns >= 2, `yielded ${sliced.turns} times`);
    }
    // Own keys only, also when the walk goes on after a pause in the middle of the object.
    const child = Object.create({ inherited: 'x'.repeat(100) }) as Record<string, string>;
    Object.assign(child, wide);
    assert.equal(await approxJsonSizeSliced(child, Number.MAX_SAFE_INTEGER, 0), wideSize);
    assert.equal(approxJsonSize(child), wideSize);
    // The caller's bound ends both runs at the same place.
    assert.equal(await approxJsonSizeSliced({ list, wide }, 1000, 0), approxJsonSize({ list, wide }, 1000));
  });

  it('H550: the nesting walk paused at every stride finds a deep value behind 10,000 shallow ones, and none where there is none', async () => {
    const shallow = Array.from({ length: 10_000 }, (_, i) => ({ id: i, tags: [i] }));
    let deep: unknown = 1;
    for (let i = 0; i < 10; i++) deep = [deep];
    const wide: Record<string, unknown> = {};
    for (let i = 0; i < 5_000; i++) wide[`k${i}`] = { i };
    for (const [v, max, answer] of [[shallow, 3, false], [[deep, ...shallow], 10, true], [[...shallow, deep], 10, true], [{ ...wide, z: deep }, 11, false], [{ ...wide, z: deep }, 10, true]] as const) {
      assert.equal(nestsDeeperThan(v, max), answer);
      const sliced = await withTurns(() => nestsDeeperThanSliced(v, max, 0));
      assert.equal(sliced.value, answer);
      assert.ok(sliced.turns >= 2, `yielded ${sliced.turns} times`);
    }
  });
});
