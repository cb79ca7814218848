/** The `@mcp` participant's editor-free parts: argument parsing, prompt targets, tool names (H23, H24). */
import * as assert from 'node:assert/strict';
import { bindArguments, mangleToolName, parseInvocation, resolveTarget, tokenize, uniqueToolNames } from '../../src/extension/chat/parse';

describe('chat: parsing @mcp invocations', () => {
  it('tokenizes with double and single quotes and escapes', () => {
    assert.deepEqual(tokenize(`a "b c" 'd "e"' "f \\"g\\""`), ['a', 'b c', 'd "e"', 'f "g"']);
    assert.deepEqual(tokenize('  '), []);
    assert.deepEqual(tokenize('""'), ['']);
  });

  it('H23: parses /server.prompt with key=value, quoted values and positional values', () => {
    const inv = parseInvocation('/everything.args-prompt city="New York" state=NY extra "two words"');
    assert.equal(inv.target, 'everything.args-prompt');
    assert.deepEqual(inv.named, { city: 'New York', state: 'NY' });
    assert.deepEqual(inv.positional, ['extra', 'two words']);
  });

  it('keeps a value containing = and a quoted key=value as one value', () => {
    const inv = parseInvocation(`/s.p q="a=b" "k=v"`);
    assert.deepEqual(inv.named, { q: 'a=b' });
    assert.deepEqual(inv.positional, ['k=v']);
  });

  it('has no target without a leading slash', () => {
    const inv = parseInvocation('hello there');
    assert.equal(inv.target, undefined);
    assert.deepEqual(inv.positional, ['hello', 'there']);
  });

  it('resolves a target against running servers, dots in names included, longest server first', () => {
    const servers = [
      { name: 'a', prompts: ['b.c'] },
      { name: 'a.b', prompts: ['c'] },
      { name: 'everything', prompts: ['simple-prompt'] },
    ];
    assert.deepEqual(resolveTarget('a.b.c', servers), { server: 'a.b', prompt: 'c' });
    assert.deepEqual(resolveTarget('everything.simple-prompt', servers), { server: 'everything', prompt: 'simple-prompt' });
    assert.equal(resolveTarget('everything.nope', servers), undefined);
    assert.equal(resolveTarget('nope.simple-prompt', servers), undefined);
  });

  it('H23: binds positional values in declaration order and reports missing required arguments', () => {
    const declared = [{ name: 'department', required: true }, { name: 'name', required: true }, { name: 'note' }];
    assert.deepEqual(bindArguments({ named: { name: 'Alice' }, positional: ['Engineering'] }, declared),
      { args: { name: 'Alice', department: 'Engineering' }, missing: [], unknown: [] });
    assert.deepEqual(bindArguments({ named: { bogus: 'x' }, positional: [] }, declared),
      { args: {}, missing: ['department', 'name'], unknown: ['bogus'] });
  });
});

describe('chat: language-model tool names', () => {
  it('H24: mangles <server>_<tool> to [a-zA-Z0-9_-] within 64 characters', () => {
    assert.equal(mangleToolName('my server', 'get.sum'), 'my_server_get_sum');
    const long = mangleToolName('s'.repeat(40), 't'.repeat(40));
    assert.equal(long.length, 64);
    assert.match(long, /^[a-zA-Z0-9_-]+$/);
  });

  it('H24: makes names unique across servers when sanitizing collides', () => {
    const names = uniqueToolNames([
      { server: 'a.b', tool: 'c' }, { server: 'a_b', tool: 'c' }, { server: 'a b', tool: 'c' },
      { server: 'x'.repeat(70), tool: 'y' }, { server: 'x'.repeat(70), tool: 'z' },
    ]);
    const keys = [...names.keys()];
    assert.equal(new Set(keys).size, 5);
    assert.deepEqual(keys.slice(0, 3), ['a_b_c', 'a_b_c_2', 'a_b_c_3']);
    for (const k of keys) { assert.ok(k.length <= 64, k); assert.match(k, /^[a-zA-Z0-9_-]+$/); }
    assert.deepEqual(names.get('a_b_c_2'), { server: 'a_b', tool: 'c' });
  });
});
