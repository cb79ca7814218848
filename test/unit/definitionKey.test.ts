/** The one definition key (src/mcp/config/definitionKey.ts): stable, a hash, sensitive to every field but autoStart (H48). */
import assert from 'node:assert/strict';
import { definitionKey, isDefinitionKey } from '../../src/mcp/config/definitionKey';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition } from '../../src/mcp/types';

describe('definition key (H48)', () => {
  const SECRET = 'sk-live-DefinitionKey0042';
  const base: StdioServerDefinition = { name: 'a', type: 'stdio', command: 'node', args: ['s.js'], env: { A: '1', B: SECRET }, cwd: '/w', secrets: [SECRET] };

  it('is a sha256 hash, stable whatever the key order, and ignores autoStart', () => {
    assert.match(definitionKey(base), /^[0-9a-f]{64}$/);
    assert.ok(isDefinitionKey(definitionKey(base)));
    assert.equal(definitionKey(base), definitionKey({ ...base }));
    assert.equal(definitionKey(base), definitionKey({ ...base, env: { B: SECRET, A: '1' } }));
    assert.equal(definitionKey(base), definitionKey({ ...base, autoStart: false }));
    assert.equal(definitionKey(base), definitionKey({ ...base, autoStart: true }));
    const h: HttpServerDefinition = { name: 'h', type: 'http', url: 'https://x', headers: { A: '1', B: '2' } };
    assert.equal(definitionKey(h), definitionKey({ ...h, headers: { B: '2', A: '1' } }));
    assert.ok(!definitionKey(base).includes(SECRET));
  });

  it('changes with everything else in the resolved definition (launch, name, options, secrets)', () => {
    const variants: ServerDefinition[] = [
      { ...base, command: 'nodejs' },
      { ...base, args: ['s.js', '--x'] },
      { ...base, args: ['s.js x'] },
      { ...base, args: ['s.js', ''] },
      { ...base, cwd: '/w2' },
      { ...base, cwd: undefined },
      { ...base, env: { A: '1', B: 'other' } },
      { ...base, env: { A: '1', C: SECRET } },
      { ...base, env: { A: '1', B: null } },
      { ...base, envFile: '/w/.env' },
      { ...base, name: 'renamed' },
      { ...base, timeout: { request: 5000 } },
      { ...base, roots: [] },
      { ...base, disabled: true },
      { ...base, sampling: { maxTokens: 5 } },
      { name: 'a', type: 'http', url: 'https://x', headers: {} },
      { name: 'a', type: 'sse', url: 'https://x', headers: {} },
      { name: 'a', type: 'http', url: 'https://y', headers: {} },
      { name: 'a', type: 'http', url: 'https://x', headers: { A: '1' } },
    ];
    const keys = new Set([definitionKey(base), ...variants.map(definitionKey)]);
    assert.equal(keys.size, variants.length + 1);
  });

  it('tells stored keys from anything else', () => {
    for (const bad of ['', 'x'.repeat(64), JSON.stringify(base), 42, undefined, definitionKey(base).toUpperCase()]) assert.ok(!isDefinitionKey(bad), String(bad));
  });
});
