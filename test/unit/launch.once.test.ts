/**
 * H413 (issue 38): a launcher that fails during the `server/discover` probe (npx of a package that does not exist)
 * is launched once, not again for the legacy `initialize` handshake, and its reason is npm's 404 line; beside it a
 * legacy server that ends the connection on the probe (test/fixtures/servers/closes-on-probe.mjs) is still launched
 * again and runs. Launches are counted by the fixtures themselves.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Connection } from '../../src/mcp/server/connection';
import { FAST_STOP, nodeFixture, tmpDir } from '../support/connection';
import { launcherFailed } from '../../src/mcp/process/startReason';

const launches = (file: string) => fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;

describe('A failed launch is not repeated by the protocol probe (H413)', function () {
  this.timeout(60_000);
  const dir = tmpDir('launch-once-');
  const conns: Connection[] = [];
  after(async () => { await Promise.all(conns.map(c => c.dispose())); fs.rmSync(dir, { recursive: true, force: true }); });

  it('npx of a missing package: one launch, the reason is npm\'s 404 line', async () => {
    const count = path.join(dir, 'fails.count');
    const c = new Connection(nodeFixture('missing', 'launch-fails', [], { env: { LAUNCH_COUNT_FILE: count } }), { pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { enabled: false } });
    conns.push(c);
    await c.start().catch(() => undefined);
    assert.equal(c.state.kind, 'error');
    assert.equal(launches(count), 1, 'launched once');
    if (c.state.kind === 'error') assert.match(c.state.message, /npm error 404 Not Found - GET .*no-such-mcp-server-xyz/);
  });

  it('bystander: a legacy server that closes on the probe is launched again and answers', async () => {
    const count = path.join(dir, 'legacy.count');
    const c = new Connection(nodeFixture('legacy', 'closes-on-probe', [], { env: { LAUNCH_COUNT_FILE: count } }), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    conns.push(c);
    await c.start();
    assert.equal(c.state.kind, 'running');
    assert.equal(launches(count), 2, 'the probe launch, then the legacy handshake');
    const r = await c.callTool('echo', { text: 'still here' });
    assert.equal((r.content[0] as { text: string }).text, 'still here');
  });

  it('the launcher failures it knows, and tails that are no launcher failure', () => {
    for (const tail of [
      ['npm error code E404', 'npm error 404 Not Found - GET …'],
      ['npm ERR! code ENOENT', 'npm ERR! enoent spawn x ENOENT'],
      ['sh: 1: mcp-server-nope: command not found'],
      ["Error: Cannot find module '/srv/missing.js'", '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)', 'Node.js v20.20.2'],
      ['Traceback (most recent call last):', "ModuleNotFoundError: No module named 'mcp_server_nope'"],
      ["Unable to find image 'nope:latest' locally"],
    ]) assert.equal(launcherFailed(tail), true, tail.join(' | '));
    for (const tail of [[], ['first message was server/discover, not initialize: closing'], ['Secure MCP Filesystem Server running on stdio'], ['Error: the server only speaks initialize']]) {
      assert.equal(launcherFailed(tail), false, tail.join(' | '));
    }
  });
});
