/**
 * The fast tool shape check (catalogue/toolShape.ts, H146) against the SDK's spec schema: whatever it accepts, the spec
 * schema accepts too (it is a shortcut, never a loosening), over valid tools and thousands of random mutations of them.
 */
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { plainToolShape } from '../../src/mcp/catalogue/toolShape';
import { specParse } from '../../src/mcp/spec';
import { rng } from '../support/rng';

const VALID = [
  { name: 'a', inputSchema: { type: 'object' } },
  {
    name: 'b', title: 'B', description: 'd',
    inputSchema: { type: 'object', properties: { x: { type: 'string', pattern: '^a$', enum: ['a', null, 1.5, true, [1, { y: 2 }]] } }, required: ['x'], additionalProperties: false },
    outputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' },
    annotations: { title: 'B', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    execution: { taskSupport: 'optional' }, _meta: { k: 1 },
  },
];

const ODD: unknown[] = [
  undefined, null, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '', 'x', 'object', true, false, [], ['x'], [1], {},
  { type: 'object' }, { type: 'string' }, new Date(0), Object.create(null), Object.create({ inherited: 1 }),
  JSON.parse('{"__proto__":{"type":"string"}}'), 'required', 'optional', 'forbidden', 'other', () => 1, Symbol('s'), 10n,
];

const PATHS = [
  [], ['name'], ['title'], ['description'], ['inputSchema'], ['inputSchema', 'type'], ['inputSchema', 'properties'],
  ['inputSchema', 'properties', 'x'], ['inputSchema', 'properties', 'x', 'enum'], ['inputSchema', 'required'],
  ['inputSchema', 'required', '0'], ['outputSchema'], ['outputSchema', '$schema'], ['annotations'], ['annotations', 'title'],
  ['annotations', 'readOnlyHint'], ['annotations', 'other'], ['execution'], ['execution', 'taskSupport'], ['_meta'],
  ['icons'], ['extra'],
];

/** A copy of plain objects and arrays; anything else (functions, dates, odd prototypes) kept as it is. */
function clone(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(clone);
  if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: clone((v as Record<string, unknown>)[k]), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

function mutate(tool: unknown, r: () => number): unknown {
  const copy = (tool && typeof tool === 'object' && !Array.isArray(tool) ? clone(tool) : {}) as Record<string, unknown>;
  const path = PATHS[Math.floor(r() * PATHS.length)];
  const value = ODD[Math.floor(r() * ODD.length)];
  if (!path.length) return value;
  let at: Record<string, unknown> = copy;
  for (const k of path.slice(0, -1)) {
    if (!at[k] || typeof at[k] !== 'object') at[k] = {};
    at = at[k] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (r() < 0.15) delete at[last];
  else at[last] = value;
  return copy;
}

describe('Tool shape: the fast check never accepts what the spec schema refuses (H146)', () => {
  it('valid tools pass both', () => {
    for (const t of VALID) {
      assert.equal(plainToolShape(t), true, JSON.stringify(t));
      assert.equal(specParse('Tool', t).success, true);
    }
  });

  it('5,000 random mutations: fast ⇒ spec', () => {
    const r = rng(27);
    let fast = 0, refused = 0;
    for (let i = 0; i < 5000; i++) {
      let t: unknown = VALID[i % VALID.length];
      for (let m = 1 + Math.floor(r() * 3); m > 0; m--) t = mutate(t, r);
      const spec = specParse('Tool', t).success;
      if (plainToolShape(t)) {
        fast++;
        if (!spec) assert.fail(`the fast check accepted what the spec schema refuses: ${inspect(t, { depth: 6 })}`);
      }
      if (!spec) refused++;
    }
    assert.ok(fast > 500 && refused > 500, `both outcomes exercised: fast ${fast}, refused ${refused}`);
  });
});
