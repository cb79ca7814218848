/** The tool budget's plain parts: the policy of `mcpHost.disabledTools`, flipping switches, the token estimate. */
import * as assert from 'node:assert/strict';
import { estimateToolTokens, formatTokens, mergeToolPolicies, parseToolPolicy, serverToolsEnabled, toolEnabled, withToolEnabled } from '../../src/mcp/catalogue/toolPolicy';
import { mergeToolBudgets, parseToolBudget } from '../../src/mcp/catalogue/modelTools';

describe('Tool budget: which tools go to models', () => {
  it('reads "*" and lists of names per server, ignoring anything else; a server named like a prototype key is data', () => {
    const p = parseToolPolicy({ files: ['delete_file', 5], noisy: '*', odd: true, __proto__: ['x'] });
    assert.deepEqual(p, { files: ['delete_file'], noisy: '*' });
    assert.equal(toolEnabled(p, 'files', 'read_file'), true);
    assert.equal(toolEnabled(p, 'files', 'delete_file'), false);
    assert.equal(toolEnabled(p, 'noisy', 'anything'), false);
    assert.equal(toolEnabled(p, 'other', 'anything'), true);
    assert.equal(toolEnabled(p, 'constructor', 'x'), true);
    assert.equal(serverToolsEnabled(p, 'noisy'), false);
    assert.equal(serverToolsEnabled(p, 'files'), true);
    assert.deepEqual(parseToolPolicy(['files']), {});
  });

  it('flips one switch: a tool, a whole server, and a tool of a server that is off (only that tool comes on)', () => {
    assert.deepEqual(withToolEnabled({}, 'files', 'delete_file', false), { files: ['delete_file'] });
    assert.deepEqual(withToolEnabled({ files: ['delete_file'] }, 'files', 'delete_file', true), {});
    assert.deepEqual(withToolEnabled({ files: ['a'] }, 'files', undefined, false), { files: '*' });
    assert.deepEqual(withToolEnabled({ files: '*' }, 'files', undefined, true), {});
    assert.deepEqual(withToolEnabled({ files: '*' }, 'files', 'b', true, ['a', 'b', 'c']), { files: ['a', 'c'] });
    assert.deepEqual(withToolEnabled({ files: '*' }, 'files', 'b', false, ['a', 'b', 'c']), { files: '*' });
    const before = { files: ['a'] as string[] };
    withToolEnabled(before, 'files', 'b', false);
    assert.deepEqual(before, { files: ['a'] }, 'the given policy is not changed');
  });

  it('estimates the tokens of tool definitions (characters of name, description and input schema / 4)', () => {
    const tool = { name: 'echo', description: 'x'.repeat(400), inputSchema: { type: 'object' as const } };
    const one = estimateToolTokens([tool]);
    assert.equal(one, Math.ceil(JSON.stringify({ name: 'echo', description: 'x'.repeat(400), inputSchema: { type: 'object' } }).length / 4));
    assert.equal(estimateToolTokens([tool, tool]), Math.ceil(2 * JSON.stringify({ name: 'echo', description: 'x'.repeat(400), inputSchema: { type: 'object' } }).length / 4));
    assert.equal(estimateToolTokens([]), 0);
    assert.equal(formatTokens(950), 'about 950 tokens');
    assert.equal(formatTokens(12_340), 'about 12.3k tokens');
  });
});

describe('a workspace can only turn tools off, and only lower the budget (H236)', () => {
  it('hostile: a workspace entry for a server never turns back on what the user turned off; its own offs add', () => {
    const user = parseToolPolicy({ files: ['delete_file'], noisy: '*' });
    const workspace = parseToolPolicy({ files: [], noisy: ['one'], other: ['x'] });
    const merged = mergeToolPolicies(user, workspace);
    assert.equal(toolEnabled(merged, 'files', 'delete_file'), false);
    assert.equal(serverToolsEnabled(merged, 'noisy'), false);
    assert.equal(toolEnabled(merged, 'noisy', 'two'), false);
    assert.equal(toolEnabled(merged, 'other', 'x'), false, 'the workspace may turn a tool off');
    // The bystander: what neither scope turns off stays on.
    assert.equal(toolEnabled(merged, 'files', 'read_file'), true);
    assert.equal(toolEnabled(merged, 'bystander', 'echo'), true);
    assert.deepEqual(mergeToolPolicies(parseToolPolicy({ a: ['x'] }), parseToolPolicy({ a: ['y', 'x'] })), { a: ['x', 'y'] });
    assert.deepEqual(mergeToolPolicies({}, parseToolPolicy({ a: '*' })), { a: '*' });
  });

  it('hostile: a workspace budget never raises the user\'s; it may lower it or set one the user did not', () => {
    assert.deepEqual(mergeToolBudgets(parseToolBudget({ tools: 10, tokens: 4000 }), parseToolBudget({ tools: 1000, tokens: 100 })), { tools: 10, tokens: 100 });
    assert.deepEqual(mergeToolBudgets(parseToolBudget({ tools: 10 }), parseToolBudget({})), { tools: 10 });
    assert.deepEqual(mergeToolBudgets(parseToolBudget({}), parseToolBudget({ tokens: 500 })), { tokens: 500 });
    assert.deepEqual(mergeToolBudgets({}, {}), {});
  });
});
