/**
 * Reliability: HTTP servers that misbehave (http-fixture.mjs on 127.0.0.1, the real host): 500s, a
 * dropped SSE stream, an expired session, nothing listening. A stdio bystander must stay undisturbed.
 */
import * as assert from 'node:assert/strict';
import { startHttpFixture, type HttpFixture } from '../fixtures/servers/harness';
import { freePort, http, startHost, textOf, until, type TestHost } from './helpers';

describe('Reliability: HTTP servers that misbehave', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const fixtures: HttpFixture[] = [];
  const fixtureWith = async (args: string[]) => {
    const f = await startHttpFixture(args);
    fixtures.push(f);
    return f;
  };
  afterEach(async () => {
    await t?.close();
    t = undefined;
    for (const f of fixtures.splice(0)) await f.stop();
  });

  it('answers 500: an error state naming the server and the status; Restart then works', async () => {
    const f = await fixtureWith(['--fail-500', '1']);
    t = await startHost([http('flaky', f.url)]);
    const s = t.get('flaky').state;
    assert.ok(s.kind === 'error' && /server `flaky`/.test(s.message) && /HTTP 500/.test(s.message), JSON.stringify(s));
    assert.equal((await f.stats()).failed500, 1);
    await t.get('flaky').restart();
    assert.equal(t.get('flaky').state.kind, 'running');
    assert.equal(textOf(await t.get('flaky').callTool('echo', { text: 'after the 500' })), 'after the 500');
    await t.assertBystanderUndisturbed();
  });

  it('drops the SSE (GET) stream: it is reopened and later server notifications still arrive', async () => {
    const f = await fixtureWith(['--drop-get-stream-after', '200', '--drop-get-streams', '2']);
    t = await startHost([http('dropper', f.url)], {
      reconnection: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 50 },
    });
    await until(async () => ((await f.stats()).droppedStreams as number) >= 2, 'two streams dropped', 15_000);
    await until(async () => ((await f.stats()).gets as number) >= 3, 'stream reopened', 15_000);
    await t.get('dropper').callTool('notify_later', { ms: 100 });
    await until(() => t!.logs.some(l => l.server === 'dropper' && l.source === 'server' && /notify_later fired/.test(l.message)), 'a notification after the reconnect', 15_000);
    assert.equal(t.get('dropper').state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('expires the session (404): re-initializes without the user noticing; every call answers once', async () => {
    const f = await fixtureWith(['--expire-after', '3']);
    t = await startHost([http('forgetful', f.url)]);
    for (let i = 0; i < 10; i++) assert.equal(textOf(await t.get('forgetful').callTool('echo', { text: `n${i}` })), `n${i}`);
    const stats = await f.stats();
    assert.ok((stats.expired as number) >= 2 && (stats.initializes as number) >= 3, JSON.stringify(stats));
    assert.ok(t.logs.some(l => l.server === 'forgetful' && /re-initializing/.test(l.message)));
    assert.equal(t.get('forgetful').state.kind, 'running');
    await t.assertBystanderUndisturbed();
  });

  it('is not there (connection refused): an error state naming the server and the cause, not a hang', async () => {
    const port = await freePort();
    t = await startHost([http('nowhere', `http://127.0.0.1:${port}/mcp`)]);
    const s = t.get('nowhere').state;
    assert.ok(s.kind === 'error' && /cannot reach server `nowhere`: connection refused/.test(s.message), JSON.stringify(s));
    await assert.rejects(t.get('nowhere').callTool('echo', {}), /server `nowhere` is not running/);
    await t.assertBystanderUndisturbed();
  });
});
