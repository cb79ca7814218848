/**
 * The merge rule of `mcpHost.configSources` (issue 40, src/mcp/config/configSources.ts): mcpHost.servers and the
 * portable files (`.mcp.json`, `~/.copilot/mcp-config.json`) merge by name, the most specific source winning
 * (workspace settings > .mcp.json > user settings > ~/.copilot); the setting is on unless a key is `false`. The
 * bystander in each case: a server only one source defines, which is kept untouched.
 */
import * as assert from 'node:assert/strict';
import { configSourcesSetting, mergeSources, type SourceLayer } from '../../src/mcp/config/configSources';
import { importConfig } from '../../src/mcp/config/import';
import { needsLaunchConsent } from '../../src/extension/addedServers';

const echo = (arg: string) => ({ type: 'stdio', command: 'node', args: ['echo.mjs', arg] });
const bystander = { type: 'stdio', command: 'node', args: ['bystander.mjs'] };

describe('config sources: the merge rule (H460–H464)', () => {
  it('H460: a name defined in every source runs once, from the most specific one, whatever order the layers come in', () => {
    const layers: SourceLayer[] = [
      { source: 'copilotCli', label: '~/.copilot/mcp-config.json', servers: { twin: echo('copilot'), onlyCopilot: echo('c') } },
      { source: 'userSettings', servers: { twin: echo('user'), bystander } },
      { source: 'mcpJson', label: '.mcp.json', servers: { twin: echo('mcp.json'), onlyMcpJson: echo('m') } },
      { source: 'workspaceSettings', servers: { twin: echo('workspace') } },
    ];
    for (const order of [layers, [...layers].reverse()]) {
      const m = mergeSources(order);
      assert.deepEqual(Object.keys(m.servers).sort(), ['bystander', 'onlyCopilot', 'onlyMcpJson', 'twin']);
      assert.deepEqual(m.servers.twin, echo('workspace'));
      assert.equal(m.from.get('twin')?.source, 'workspaceSettings');
      assert.equal(m.from.get('onlyMcpJson')?.label, '.mcp.json');
      assert.equal(m.from.get('onlyCopilot')?.source, 'copilotCli');
      assert.deepEqual(m.servers.bystander, bystander);
      assert.equal(m.warnings.length, 3, m.warnings.join('\n'));
      assert.match(m.warnings[0], /"twin" is defined in workspace settings and differently in \.mcp\.json; the one in workspace settings runs/);
    }
  });

  it('H461: .mcp.json wins over user settings and user settings over ~/.copilot; the same definition twice is no warning', () => {
    const m = mergeSources([
      { source: 'userSettings', servers: { a: echo('user'), same: echo('x'), bystander } },
      { source: 'mcpJson', label: '.mcp.json', servers: { a: echo('mcp.json') } },
      // The Copilot CLI's shape, converted by the importer: `type: "local"` and `tools: ["*"]` → the same stdio server.
      { source: 'copilotCli', label: '~/.copilot/mcp-config.json', servers: importConfig(JSON.stringify({ mcpServers: { same: { type: 'local', command: 'node', args: ['echo.mjs', 'x'], tools: ['*'] } } })).servers },
    ]);
    assert.deepEqual(m.servers.a, echo('mcp.json'));
    assert.equal(m.from.get('same')?.source, 'userSettings');
    assert.deepEqual(m.warnings.map(w => w.split(';')[0]), ['"a" is defined in .mcp.json and differently in user settings']);
    assert.deepEqual(m.servers.bystander, bystander);
  });

  it('H462: mcpHost.configSources is on by default, each file off only with `false`; junk means the default', () => {
    assert.deepEqual(configSourcesSetting(undefined), { mcpJson: true, copilotCli: true });
    assert.deepEqual(configSourcesSetting({ mcpJson: false }), { mcpJson: false, copilotCli: true });
    assert.deepEqual(configSourcesSetting({ copilotCli: false, mcpJson: true }), { mcpJson: true, copilotCli: false });
    assert.deepEqual(configSourcesSetting(['mcpJson']), { mcpJson: true, copilotCli: true });
  });

  it('H463: a server named __proto__ in a file stays a server (keys are data); the bystander is kept', () => {
    const servers = importConfig('{ "mcpServers": { "__proto__": { "command": "node" }, "bystander": { "command": "node", "args": ["bystander.mjs"] } } }').servers;
    const m = mergeSources([{ source: 'mcpJson', label: '.mcp.json', servers }]);
    assert.deepEqual(Object.keys(m.servers).sort(), ['__proto__', 'bystander']);
    assert.equal(Object.getPrototypeOf(m.servers), Object.prototype);
  });

  it('H464: the one consent rule: a .mcp.json server (workspace) and a ~/.copilot one (written by a tool) ask; a hand-written user server does not', () => {
    assert.equal(needsLaunchConsent('workspace', false), true);
    assert.equal(needsLaunchConsent('user', true), true);
    assert.equal(needsLaunchConsent('user', false), false);
  });
});
