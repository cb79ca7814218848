// H641 (issue 41): the first settings sync decides what starts without waiting for the installation key
// (SecretStorage). Runs in the "key-order" pass of scripts/editor/run-editor-tests.mjs only: a window on
// test/editor/workspace/key-order, whose workspace settings define a server nobody allowed, with a user server in the
// pass's user settings, both there before activation (the only time a sync runs without the key).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { activateHost, testSupport, until } from './helpers';

const HOSTILE = 'h641-workspace';
const BYSTANDER = 'h641-user';

describe('Activation before the installation key (key-order window)', function () {
  this.timeout(90_000);

  it('H641: a workspace server nobody allowed is neither started nor asked about before the key is read, then asked exactly once; the user server starts at once', async function () {
    const api = await activateHost();
    await api.firstReconcileMs;
    const support = testSupport(api);
    // The well-behaved bystander: a user server needs no launch consent, so no keyed lookup; decided and started.
    await until(() => api.host.get(BYSTANDER)?.state.kind === 'running', `${BYSTANDER} running`);
    await until(() => support.consentAsked.some(a => a.server === HOSTILE), `the launch-consent question about ${HOSTILE}`);
    const steps = api.activationSteps();
    assert.strictEqual(typeof steps.key, 'number', `no step key: ${JSON.stringify(steps)}`);
    const asks = support.consentAsked.filter(a => a.server === HOSTILE);
    assert.strictEqual(asks.length, 1, `asked ${asks.length} times: ${JSON.stringify(support.consentAsked)}`);
    // Asked only once the key was read (steps are rounded to 0.1 ms).
    const askedAt = asks[0].at - api.activationStart;
    assert.ok(askedAt >= steps.key - 0.1, `asked ${askedAt.toFixed(1)} ms after activation began, before the key (${steps.key} ms): ${JSON.stringify(steps)}`);
    // When the first reconcile decided before the key arrived (the SecretStorage round trip is the slower one), the
    // workspace server was decided in that same sync once the key was there.
    if (steps.decided < steps.key) assert.strictEqual(typeof steps['decided with key'], 'number', `decided before the key, but never with it: ${JSON.stringify(steps)}`);
    // Never started (the real dialog, which no test answers, says no or stays open): stopped, held back by the answer
    // or by the open question (no longer by the key), and no trace of its command.
    assert.strictEqual(api.host.get(HOSTILE)?.state.kind, 'stopped');
    const held = [vscode.l10n.t('waiting for launch consent'), vscode.l10n.t('launch not allowed (start it to be asked again)')];
    assert.ok(held.includes(api.blockedReason(HOSTILE) ?? ''), `${HOSTILE} is held back for: ${api.blockedReason(HOSTILE)}`);
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    assert.ok(folder.endsWith('key-order'), `this window is not the key-order folder: ${folder}`);
    assert.ok(!fs.existsSync(path.join(folder, 'h641-started')), `${HOSTILE} ran its command`);
  });
});
