/**
 * Servers the host writes into settings (import, registry, Add Server) ask launch consent on their first start in
 * either scope (issue 34, src/extension/trust/addedServers.ts): the record (definition keys in global state, bounded) and
 * the rule. The bystander: a user-scope server the user wrote by hand needs no consent.
 */
import * as assert from 'node:assert/strict';
import { ADDED_SERVERS_KEY, AddedServers, MAX_ADDED, needsLaunchConsent } from '../../src/extension/trust/addedServers';
import { ephemeralKeyer } from '../../src/mcp';
import { memento, raw } from '../support/settingsState';

const imported = {
  'gh-remote': { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${input:github-token}' } },
  memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
};

describe('servers the host added ask launch consent in either scope (H360, H361)', () => {
  it('H360: a recorded server needs consent in user scope too; a user-scope server written by hand needs none', async () => {
    const state = memento();
    const added = new AddedServers(state, ephemeralKeyer());
    await added.record({ ...imported });
    for (const name of Object.keys(imported)) {
      assert.equal(added.has(raw(imported, name)), true, `${name} recorded`);
      assert.equal(needsLaunchConsent('user', added.has(raw(imported, name))), true, `${name} asks in user scope`);
      assert.equal(needsLaunchConsent('workspace', added.has(raw(imported, name))), true);
    }
    // The bystander: the user's own user-scope server (not written by the host).
    const mine = { mine: { type: 'http', url: 'https://mine.example.com/mcp' } };
    assert.equal(added.has(raw(mine, 'mine')), false);
    assert.equal(needsLaunchConsent('user', added.has(raw(mine, 'mine'))), false, 'a hand-written user server needs no consent');
    // Every workspace server asks, whatever its type (http without headers or inputs included).
    assert.equal(needsLaunchConsent('workspace', false), true);
    // Only hashes are stored: no URL, no command, no name.
    const stored = state.data.get(ADDED_SERVERS_KEY) as string[];
    assert.equal(stored.length, 2);
    assert.ok(stored.every(k => /^[0-9a-f]{64}$/.test(k)), JSON.stringify(stored));
    assert.ok(!JSON.stringify(stored).includes('example.com'));
  });

  it('H360: the key is the definition key of the entry as written: key order does not count, an edit does, and an allowed server is forgotten', async () => {
    const state = memento();
    const added = new AddedServers(state, ephemeralKeyer());
    await added.record({ memory: imported.memory });
    // The same entry as the settings give it back, keys in another order: the same server.
    assert.equal(added.has(raw({ memory: { args: ['-y', '@modelcontextprotocol/server-memory'], command: 'npx' } }, 'memory')), true);
    // Tuning is not identity: a timeout added by hand keeps the record.
    assert.equal(added.has(raw({ memory: { ...imported.memory, timeout: { request: 5000 } } }, 'memory')), true);
    // The user edited what runs: that is the user's own definition now.
    assert.equal(added.has(raw({ memory: { command: 'npx', args: ['-y', 'other'] } }, 'memory')), false);
    // Allowed once: the usual rules from then on.
    await added.forget(raw(imported, 'memory'));
    assert.equal(added.has(raw(imported, 'memory')), false);
    assert.equal(needsLaunchConsent('user', added.has(raw(imported, 'memory'))), false);
    assert.deepEqual(state.data.get(ADDED_SERVERS_KEY), []);
  });

  it('H361: the record is bounded (oldest forgotten first) and ignores what is not a key', async () => {
    const state = memento();
    state.data.set(ADDED_SERVERS_KEY, ['not-a-key', 42, 'f'.repeat(64)]);
    const added = new AddedServers(state, ephemeralKeyer());
    const many: Record<string, unknown> = {};
    for (let i = 0; i < MAX_ADDED + 20; i++) many[`s${i}`] = { command: 'node', args: [`s${i}.js`] };
    await added.record(many);
    const stored = state.data.get(ADDED_SERVERS_KEY) as string[];
    assert.equal(stored.length, MAX_ADDED);
    assert.ok(stored.every(k => typeof k === 'string' && /^[0-9a-f]{64}$/.test(k)));
    assert.equal(added.has(raw(many, 's0')), false, 'the oldest is forgotten');
    assert.equal(added.has(raw(many, `s${MAX_ADDED + 19}`)), true, 'the newest is kept');
    // A server recorded again moves to the newest end instead of being kept twice.
    await added.record({ s100: many.s100 });
    const again = state.data.get(ADDED_SERVERS_KEY) as string[];
    assert.equal(again.length, MAX_ADDED);
    assert.equal(new Set(again).size, again.length);
    assert.equal(again[again.length - 1], added.keyOf(raw(many, 's100')));
  });
});
