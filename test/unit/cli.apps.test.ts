/**
 * `mcp-host` and MCP Apps, on the production dist/cli.js: `inspect` lists the tools that come with a view (and
 * app-only tools), `call` of such a tool prints the result as usual on stdout and names the view's ui:// URI on
 * stderr. Real MCP App servers: server-basic-vanillajs and server-system-monitor.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { useShippedCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const entry = (pkg: string) => path.join(ROOT, `node_modules/@modelcontextprotocol/${pkg}/dist/index.js`);

describe('mcp-host and MCP Apps (dist/cli.js)', function () {
  this.timeout(60_000);
  const ws = useShippedCli('mcp-host-cli-apps-', ({ serverCwd }) => ({
    basic: { type: 'stdio', command: process.execPath, args: [entry('server-basic-vanillajs'), '--stdio'], cwd: serverCwd },
    sysmon: { type: 'stdio', command: process.execPath, args: [entry('server-system-monitor'), '--stdio'], cwd: serverCwd },
  }));
  const cli = (args: string[]) => ws.run(args);

  it('inspect lists the tools with a view and the app-only ones', async () => {
    const r = await cli(['inspect', 'sysmon']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).apps, [
      { tool: 'get-system-info', resourceUri: 'ui://system-monitor/mcp-app.html', visibility: ['model', 'app'] },
      { tool: 'poll-system-stats', visibility: ['app'] },
    ]);
  });

  it('call prints the result on stdout and the ui:// URI of the view on stderr', async () => {
    const r = await cli(['call', 'basic', 'get-time']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^\d{4}-\d{2}-\d{2}T/);
    assert.match(r.stderr, /^ui: ui:\/\/get-time\/mcp-app\.html \(an MCP App view; the editor renders it, mcp-host read basic ui:\/\/get-time\/mcp-app\.html prints its HTML\)$/m);
  });
});
