/**
 * The merge rule of `mcpHost.configSources` (issue 40, src/mcp/config/configSources.ts): mcpHost.servers and the
 * portable files (`.mcp.json`, `~/.copilot/mcp-config.json`) merge by name, the most specific source winning
 * (workspace settings > .mcp.json > user settings > ~/.copilot); the setting is on unless a key is `false`. The
 * bystander in each case: a server only one source defines, which is kept untouched.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { configSourcesSetting, mergeSources, portableFile, type SourceLayer } from '../../src/mcp/config/configSources';
import { READ_CAPS, readBoundedText } from '../../src/mcp/boundedRead';
import { importConfig } from '../../src/mcp/config/import';
import { needsLaunchConsent } from '../../src/extension/trust/addedServers';

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

describe('config sources: a file that cannot be used (H468)', () => {
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-sources-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Reads `file` as the editor does (the one bounded reader, the config-file cap) and makes it a portable file. */
  async function load(file: string, label: string) {
    let read: { text: string } | { error: unknown };
    try { read = { text: await readBoundedText(file, { maxBytes: READ_CAPS.configFile, what: 'configFile' }) }; } catch (error) { read = { error }; }
    return portableFile(read, label, 'mcpJson');
  }
  const bystanderFile = () => {
    const f = path.join(dir, 'bystander.json');
    fs.writeFileSync(f, JSON.stringify({ mcpServers: { bystander: { command: 'node', args: ['bystander.mjs'] } } }));
    return f;
  };

  const cases: [string, () => string, RegExp][] = [
    ['invalid JSON', () => { const f = path.join(dir, 'bad.json'); fs.writeFileSync(f, '{ "mcpServers": { "x": { "command": "node", } '); return f; },
      /^\.mcp\.json:1:\d+: JSON syntax error \(.*\); fix the text there \(MCP servers of \.mcp\.json\), or set "mcpJson": false in mcpHost\.configSources \(user settings\) to stop reading it\.$/],
    ['a FIFO', () => { const f = path.join(dir, 'fifo.json'); execFileSync('mkfifo', [f]); return f; },
      /^\.mcp\.json cannot be read for MCP servers: it is a FIFO \(named pipe\), not a regular file; replace it with a JSON file of at most 16 MiB, or set "mcpJson": false in mcpHost\.configSources/],
    ['20 MB', () => { const f = path.join(dir, 'big.json'); fs.writeFileSync(f, ''); fs.truncateSync(f, 20 * 1024 * 1024); return f; },
      /^\.mcp\.json cannot be read for MCP servers: it is 20(\.0)? MiB, more than the 16 MiB a configuration file may hold; replace it/],
  ];
  for (const [what, make, message] of cases) {
    it(`H468: ${what} is one problem naming the file and the fix, within a second; the bystander file's server is kept`, async () => {
      const began = Date.now();
      const bad = await load(make(), '.mcp.json');
      assert.ok(Date.now() - began < 1000, `took ${Date.now() - began} ms`);
      assert.ok(bad && !bad.ok);
      assert.equal(bad.errors.length, 1, JSON.stringify(bad.errors));
      assert.match(bad.errors[0].message, message);
      const good = await load(bystanderFile(), 'app/.mcp.json');
      assert.ok(good?.ok);
      assert.deepEqual(Object.keys(mergeSources([{ source: 'mcpJson', label: 'app/.mcp.json', servers: good.servers }]).servers), ['bystander']);
    });
  }

  it('H468: a missing file is no problem (nothing to read)', async () => {
    assert.equal(await load(path.join(dir, 'none.json'), '.mcp.json'), undefined);
  });
});
