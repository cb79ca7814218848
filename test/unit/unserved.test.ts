/**
 * H400: a capability the server declares but answers with -32601 Method not found (completions, logging,
 * resources.subscribe, resources/templates/list) is off for that server with one log line, as a declared list it does
 * not implement is empty (H190); the rest of it works. The fixture (test/fixtures/servers/unserved.mjs, written from
 * the spec's capability negotiation and its -32601 code) runs beside its well-behaved twin, the bystander.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpHost } from '../../src/mcp/host';
import type { LogEntry } from '../../src/mcp/types';
import { FAST_STOP, nodeFixture, tmpDir } from '../support/connection';

describe('Declared but not served (H400)', function () {
  this.timeout(60_000);

  it('H400: completions, logging/setLevel, resources/subscribe and templates answered with -32601 are off with one log line each; the rest works, and the bystander serves them all', async () => {
    const dir = tmpDir('unserved-');
    const record = path.join(dir, 'requests.txt');
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP });
    const logs: LogEntry[] = [];
    host.onLog(e => logs.push(e));
    try {
      await host.reconcile([nodeFixture('unserved', 'unserved', ['--record', record]), nodeFixture('served', 'unserved', ['--serve-all'])]);
      const bad = host.get('unserved')!;
      const good = host.get('served')!;
      assert.equal(bad.state.kind, 'running');
      assert.equal(good.state.kind, 'running');

      // Twice each: the second time the host does not ask again and says nothing more.
      for (let i = 0; i < 2; i++) {
        assert.deepEqual((await bad.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'A' })).values, []);
        await bad.setLogLevel('debug');
        await assert.rejects(bad.subscribe('unserved://note'), (e: Error) => /server `unserved` does not support resource subscriptions \(it declares resources.subscribe but answered resources\/subscribe with -32601\)/.test(e.message));
        await bad.unsubscribe('unserved://note');
      }
      const mine = logs.filter(l => l.server === 'unserved' && /-32601/.test(l.message)).map(l => l.message);
      assert.deepEqual(mine.sort(), [
        'server `unserved` declares completions but does not implement completion/complete (-32601): argument completions are off for it',
        'server `unserved` declares logging but does not implement logging/setLevel (-32601): its log level is not set for it',
        'server `unserved` declares resources but does not implement resources/templates/list (-32601): its resourceTemplates list is empty',
        'server `unserved` declares resources.subscribe but does not implement resources/subscribe (-32601): resource subscriptions are off for it',
      ]);
      const asked = fs.readFileSync(record, 'utf8').trim().split('\n');
      for (const m of ['completion/complete', 'logging/setLevel', 'resources/subscribe']) assert.equal(asked.filter(x => x === m).length, 1, `${m} asked once: ${asked.join(', ')}`);
      assert.ok(!asked.includes('resources/unsubscribe'), 'no unsubscribe after subscriptions were found off');

      // The rest of the server works.
      assert.equal(bad.state.kind, 'running');
      const cat = bad.catalogue;
      assert.deepEqual([cat.tools.length, cat.prompts.length, cat.resources.length, cat.resourceTemplates.length], [1, 1, 1, 0]);
      const r = await bad.callTool('echo', { text: 'still here' });
      assert.deepEqual(r.content, [{ type: 'text', text: 'echo: still here' }]);

      // The bystander serves every one of them, with no such log line.
      assert.deepEqual((await good.complete({ type: 'ref/prompt', name: 'greet' }, { name: 'who', value: 'A' })).values, ['Ada', 'Alan']);
      await good.setLogLevel('debug');
      await good.subscribe('unserved://note');
      await good.unsubscribe('unserved://note');
      assert.equal(good.catalogue.resourceTemplates.length, 1);
      assert.deepEqual(logs.filter(l => l.server === 'served' && /-32601/.test(l.message)), []);
    } finally {
      await host.shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
