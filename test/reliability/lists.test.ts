/**
 * Reliability: long and churning tools lists never hold the host (issue 27, H146–H148). A tools list is checked as it
 * arrives and each tool's schemas are compiled on its first call; a burst of `tools/list_changed` is one refresh that
 * lands the newest list, and a server flooding them for 10 s gets a bounded number of refreshes while it and the
 * bystander keep answering; a list of 10,000 invalid schemas is a bounded number of log lines and clear call errors.
 * Each case runs next to the bystander (echo.mjs), which must keep working. Fixture: test/fixtures/servers/block.mjs.
 */
import * as assert from 'node:assert/strict';
import type { Connection } from '../../src/mcp/server/connection';
import { marked, startHost, textOf, until, type TestHost } from './helpers';

const FILE = 'block';

interface Stats { lists: number; version: number; flooding: boolean }

async function stats(c: Connection): Promise<Stats> {
  return (await c.callTool('stats', {})).structuredContent as unknown as Stats;
}

/** The version of the list the host holds (from its generated tools' names `gen-<version>-<i>`). */
function heldVersion(c: Connection): number {
  const name = c.catalogue.tools.find(t => t.name.startsWith('gen-'))?.name;
  return name ? Number(name.split('-')[1]) : -1;
}

describe('Reliability: long and churning tools lists (issue 27)', function () {
  this.timeout(180_000);
  let t: TestHost | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('H147: a burst of 300 tools/list_changed is one refresh, which lands the newest list', async () => {
    t = await startHost([marked('churn', FILE, ['--tools', '50', '--props', '5'])]);
    const c = t.get('churn');
    const before = await stats(c);
    const r = await c.callTool('churn', { n: 300 });
    const version = (r.structuredContent as { version: number }).version;
    await until(() => heldVersion(c) === version, `list version ${version} lands`, 30_000);
    // Quiet for a while after the burst: no further refresh comes.
    await new Promise(resolve => setTimeout(resolve, 500));
    const after = await stats(c);
    assert.equal(after.lists - before.lists, 1, 'exactly one tools/list for the burst');
    assert.equal(heldVersion(c), version);
    assert.equal(textOf(await c.callTool('ping', {})), 'pong');
    await t.assertBystanderUndisturbed();
  });

  it('H147: a server flooding tools/list_changed (1,000/s for 10 s) gets a bounded number of refreshes; it and the bystander keep answering; the newest list lands', async () => {
    t = await startHost([marked('flooder', FILE, ['--tools', '200', '--props', '10'])]);
    const c = t.get('flooder');
    const bystander = t.get('bystander');
    const before = await stats(c);
    await c.callTool('flood', { seconds: 10, rate: 1000 });
    let answered = 0;
    for (;;) {
      // Calls on both servers answer all through the flood.
      assert.equal(textOf(await c.callTool('ping', {}, { timeout: 10_000 })), 'pong');
      assert.match(textOf(await bystander.callTool('echo', { text: 'during the flood' }, { timeout: 10_000 })), /during the flood/);
      answered++;
      const s = await stats(c);
      if (!s.flooding) break;
      await new Promise(resolve => setTimeout(resolve, 250));
    }
    const end = await stats(c);
    assert.ok(end.version - before.version >= 5000, `the flood sent ${end.version - before.version} notifications`);
    await until(() => heldVersion(c) === end.version, `the newest list (version ${end.version}) lands`, 30_000);
    const refreshes = (await stats(c)).lists - before.lists - 0;
    // At most about one refresh per second of flood (ListChangedPacing.maxWaitMs), one in flight: never one per notification.
    assert.ok(refreshes >= 2 && refreshes <= 25, `${refreshes} tools/list for 10 s of flood`);
    assert.ok(answered >= 5, `calls answered during the flood: ${answered}`);
    await t.assertBystanderUndisturbed();
  });

  it('H148: 10,000 tools with invalid schemas: a bounded log, each call refused naming server, tool and problem; the valid tools work', async () => {
    t = await startHost([marked('invalid', FILE, ['--tools', '10000', '--props', '3', '--invalid', '--page', '1000'])]);
    const c = t.get('invalid');
    assert.equal(c.catalogue.tools.filter(x => x.name.startsWith('gen-')).length, 10_000, 'every invalid tool stays listed');
    const lines = t.logs.filter(l => l.server === 'invalid' && l.level === 'warning');
    const problems = lines.filter(l => /has an invalid inputSchema/.test(l.message));
    assert.equal(problems.length, 20, `tool problems said per list: ${problems.length}`);
    assert.match(problems[0].message, /^tool `gen-0-0` has an invalid inputSchema: schema is invalid: .*type/);
    assert.ok(lines.some(l => /9,980 more problems with tools of this list are not logged here \(each is said when its tool is called\)/.test(l.message)), lines.map(l => l.message).join('\n'));
    assert.ok(lines.length <= 25, `${lines.length} warning lines`);
    assert.equal(c.invalidTools.size, 10_000);
    await assert.rejects(c.callTool('gen-0-9999', { field_0: 'a' }), /^McpHostError: server `invalid` cannot call tool `gen-0-9999` has an invalid inputSchema: schema is invalid: .*type/);
    assert.equal(textOf(await c.callTool('ping', {})), 'pong');
    await t.assertBystanderUndisturbed();
  });

  it('H146: a tool whose schema is costly to compile (150 levels deep, a long pattern, an unknown format) is compiled on its first call, not when listed', async () => {
    t = await startHost([marked('deep', FILE, ['--tools', '100', '--props', '5', '--deep'])]);
    const c = t.get('deep');
    assert.ok(c.catalogue.tools.some(x => x.name === 'deep'));
    const unknownFormat = () => t!.logs.filter(l => l.server === 'deep' && /tool `deep` inputSchema: unknown format "mcp-host-no-such-format"/.test(l.message));
    // ajv warns about the unknown format while compiling: nothing yet, nor after other tools' calls.
    assert.equal(unknownFormat().length, 0, 'the deep schema is not compiled when listed');
    assert.equal(textOf(await c.callTool('ping', {})), 'pong');
    assert.equal(unknownFormat().length, 0);
    assert.equal(c.invalidTools.has('deep'), false);
    // Its first call compiles it: the arguments are checked against it (the innermost pattern), and ajv's warning comes once.
    let bad: Record<string, unknown> = { x: 'nope' };
    for (let d = 0; d < 150; d++) bad = { x: bad };
    await assert.rejects(c.callTool('deep', bad), /invalid arguments for tool `deep` on server `deep`: `arguments(\.x)+` must match pattern/);
    assert.equal(unknownFormat().length, 1);
    await assert.rejects(c.callTool('deep', bad), /must match pattern/);
    assert.equal(unknownFormat().length, 1, 'compiled once');
    // Another generated tool compiles on its call too and checks its arguments.
    await assert.rejects(c.callTool('gen-0-3', {}), /invalid arguments for tool `gen-0-3` on server `deep`: `arguments\.field_0` is required/);
    await t.assertBystanderUndisturbed();
  });
});
