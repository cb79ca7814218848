/**
 * Issue 41: the first settings sync decides what starts without waiting for the installation key (SecretStorage). The
 * one rule of a sync (src/extension/servers/reasons.ts startGate) holds back, unasked, every server whose start needs
 * keyed state while the key is not read; the definition key asked before then throws instead of guessing
 * (src/extension/trust/definitionKeys.ts pendingKey); a start issued before then waits for the key before its
 * era-verdict lookup (src/mcp/server/launcher.ts). The editor half (a real activation) is test/editor/key-order.test.ts.
 */
import * as assert from 'node:assert/strict';
import { CONSENT_STATE, DENIED, RESTRICTED, WAITING, startGate, type StartFacts } from '../../src/extension/servers/reasons';
import { pendingKey } from '../../src/extension/trust/definitionKeys';
import { AddedServers, needsLaunchConsent } from '../../src/extension/trust/addedServers';
import { Connection } from '../../src/mcp/server/connection';
import { EraVerdicts, type EraVerdict } from '../../src/mcp/server/eraVerdicts';
import { definitionKeyer, type DefinitionKey } from '../../src/mcp/config/definitionKey';
import { FAST_STOP, nodeFixture } from '../support/connection';
import { until } from '../support/wait';
import { memento } from '../support/settingsState';

const facts = (f: Partial<StartFacts>): StartFacts => ({ origin: 'user', trusted: true, missing: [], wantsStart: true, needsConsent: false, ...f });
const consent = (answer: 'allowed' | 'denied' | 'none') => () => answer;

describe('deciding what starts before the installation key is read (issue 41)', function () {
  this.timeout(60_000);

  it('H641: before the key, a workspace server is held back unasked (its consent is keyed); with the key and no consent it is asked; a user server starts either way', () => {
    // The hostile case: a workspace server nobody allowed, eager.
    const workspace = facts({ origin: 'workspace', needsConsent: needsLaunchConsent('workspace', false) });
    assert.deepEqual(startGate(workspace), { reason: CONSENT_STATE, ask: false });
    assert.deepEqual(startGate({ ...workspace, consent: consent('none') }), { reason: WAITING, ask: true });
    assert.deepEqual(startGate({ ...workspace, consent: consent('denied') }), { reason: DENIED, ask: false });
    assert.deepEqual(startGate({ ...workspace, consent: consent('allowed') }), { ask: false });
    // Lazy (it waits for its first use): held back, never asked by the sync.
    assert.deepEqual(startGate({ ...workspace, wantsStart: false, consent: consent('none') }), { reason: WAITING, ask: false });
    // Restricted Mode and missing inputs come first, key or not (unchanged).
    assert.deepEqual(startGate({ ...workspace, trusted: false }), { reason: RESTRICTED, ask: false });
    assert.deepEqual(startGate({ ...workspace, missing: ['pin'] }), { reason: 'needs input ${input:pin}', ask: false });
    // A user server whose consent rule is known without the key: not held back.
    assert.deepEqual(startGate(facts({})), { ask: false });
    // A user server while MCP Host's record of servers it added is not empty: only the keyed record could tell.
    assert.deepEqual(startGate(facts({ needsConsent: undefined })), { reason: CONSENT_STATE, ask: false });
  });

  it('H642: the definition key throws until the installation key is read, then answers; the record of added servers says when it is empty without a key', async () => {
    let resolve!: (k: DefinitionKey) => void;
    const pending = pendingKey(new Promise<DefinitionKey>(r => { resolve = r; }));
    const def = nodeFixture('a', 'echo');
    assert.equal(pending.has(), false);
    assert.throws(() => pending.key(def), /before the installation key was read/);
    const keyer = definitionKeyer('cd'.repeat(32));
    resolve(keyer);
    await pending.ready;
    assert.equal(pending.has(), true);
    assert.equal(pending.key(def), keyer(def));
    // Empty record: no key needed to know no server is in it. A recorded one makes it non-empty (the bystander).
    const state = memento();
    const added = new AddedServers(state, pending.key);
    assert.equal(added.isEmpty(), true);
    await added.record({ imported: { command: 'npx', args: ['-y', 'some-server'] } });
    assert.equal(added.isEmpty(), false);
  });

  it('H643: a start issued before the key is read waits for it, then looks up and keeps its era verdict under it; a start with the key does not wait', async () => {
    let resolve!: (k: DefinitionKey) => void;
    const pending = pendingKey(new Promise<DefinitionKey>(r => { resolve = r; }));
    const saved: (Record<string, EraVerdict> | undefined)[] = [];
    const verdicts = new EraVerdicts(undefined, d => saved.push(d));
    const def = nodeFixture('old', 'skills');
    const c = new Connection(def, { pingIntervalMs: 0, stopGrace: FAST_STOP, probeTimeoutMs: 30_000, definitionKey: pending.key, keyReady: pending.ready, eraVerdicts: verdicts });
    try {
      const started = c.start();
      await until(() => c.state.kind === 'starting', 'the start to begin');
      assert.equal(saved.length, 0);
      const keyer = definitionKeyer('ef'.repeat(32));
      resolve(keyer);
      await started;
      assert.equal(c.state.kind, 'running');
      assert.deepEqual(Object.keys(saved.at(-1) ?? {}), [keyer(def)]);
      // The bystander: the next start, key in hand, uses the verdict (no probe) and waits for nothing.
      await c.stop();
      await c.start();
      assert.equal(c.state.kind, 'running');
      assert.equal(c.era, 'legacy');
    } finally {
      await c.dispose();
    }
  });
});
