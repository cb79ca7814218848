/**
 * `chat.mcp.access: registry` for real (issue 40, H500–H502): the record of registry installs (the host's global state,
 * src/extension/trust/registryInstalls.ts) and the decision (src/mcp/policy/provenance.ts) the policy check asks on every
 * sync. VS Code's own description of the `chat.mcp.access` value `registry` (its nls messages, 1.11x): "Allows access to
 * MCP servers listed in the registry that VS Code is connected to"; the registry it is connected to is
 * `chat.mcp.gallery.serviceUrl` (policy `McpGalleryServiceUrl`) when an organisation sets one. Each blocked server sits
 * next to a registry-installed bystander that keeps running.
 */
import * as assert from 'node:assert/strict';
import { REGISTRY_INSTALLS_KEY, RegistryInstalls } from '../../src/extension/trust/registryInstalls';
import { ephemeralKeyer, type ServerDefinition } from '../../src/mcp';
import type { RawServer } from '../../src/mcp/config/validate';
import { memento, raw } from '../support/settingsState';
import { applyPolicy } from '../../src/mcp/policy/orgPolicy';
import { registryKey, registryProvenance } from '../../src/mcp/policy/provenance';

const REGISTRY = 'http://127.0.0.1:4567/';
const weather = { type: 'stdio', command: 'npx', args: ['--quiet', '-y', '@example/weather-mcp@1.2.3'], env: { WEATHER_API_KEY: '${input:weather-WEATHER_API_KEY}' } };
const remote = { type: 'http', url: 'https://mcp.example.com/mcp' };

describe('chat.mcp.access "registry": servers installed from the configured registry (H500–H502)', () => {
  let installs: RegistryInstalls;
  let state: ReturnType<typeof memento>;
  beforeEach(async () => {
    state = memento();
    installs = new RegistryInstalls(state, ephemeralKeyer());
    await installs.record({ registry: REGISTRY, entry: 'io.github.example/weather', version: '1.2.3' }, { weather }, 'user');
    await installs.record({ registry: REGISTRY, entry: 'io.github.example/remote' }, { remote }, 'user');
  });

  it('H500: the installed definition runs (a timeout edit is tuning and keeps it); an edited identity field, or the same name hand-written elsewhere (another scope, another workspace, a portable file), does not, and says to reinstall', async () => {
    assert.equal(installs.provenance(raw({ weather }, 'weather'), 'user', [REGISTRY], 'weather'), true);
    assert.equal(installs.provenance(raw({ weather: { ...weather, timeout: { request: 5000 }, autoStart: false } }, 'weather'), 'user', ['http://127.0.0.1:4567'], 'weather'), true);
    // Identity edits: args, env, command; a remote's URL and headers.
    for (const edited of [{ ...weather, args: [...weather.args, '--verbose'] }, { ...weather, env: { ...weather.env, NODE_OPTIONS: '--require /tmp/x.js' } }, { ...weather, command: 'node' }]) {
      const why = installs.provenance(raw({ weather: edited }, 'weather'), 'user', [REGISTRY], 'weather');
      assert.equal(typeof why, 'string');
      assert.match(String(why), /its definition changed after it was installed from http:\/\/127\.0\.0\.1:4567 \(io\.github\.example\/weather 1\.2\.3\).*reinstall it from the registry with "MCP Host: Browse MCP Servers…"$/);
    }
    assert.notEqual(installs.provenance(raw({ remote: { ...remote, headers: { Authorization: 'Bearer x' } } }, 'remote'), 'user', [REGISTRY], 'remote'), true);
    // The bystander: the other install, unchanged, still counts.
    assert.equal(installs.provenance(raw({ remote }, 'remote'), 'user', [REGISTRY], 'remote'), true);
    // The same definition written into the workspace (it wins the merge there) is not the install.
    assert.match(String(installs.provenance(raw({ weather }, 'weather'), 'workspace', [REGISTRY], 'weather', 'ws-a')), /installed from the registry into user settings, and this definition in this workspace's settings is not that install; reinstall/);
    // An install into one workspace's settings counts there only, not in another workspace with the same definition.
    await installs.record({ registry: REGISTRY, entry: 'io.github.example/local' }, { local: remote }, 'workspace', 'ws-a');
    assert.equal(installs.provenance(raw({ local: remote }, 'local'), 'workspace', [REGISTRY], 'local', 'ws-a'), true);
    assert.match(String(installs.provenance(raw({ local: remote }, 'local'), 'workspace', [REGISTRY], 'local', 'ws-b')), /installed from the registry into another workspace's settings, and this definition in this workspace's settings is not that install/);
    assert.equal(installs.installedFrom(raw({ local: remote }, 'local'), 'workspace', 'ws-a')?.registry, 'http://127.0.0.1:4567');
    assert.equal(installs.installedFrom(raw({ local: remote }, 'local'), 'workspace', 'ws-b'), undefined);
    // Read from a portable file (no install scope): not the install either.
    assert.notEqual(installs.provenance(raw({ weather }, 'weather'), undefined, [REGISTRY], 'weather'), true);
  });

  it('H501: a server no install recorded, a record from another registry than the configured one, and a record forged into settings-like state are all blocked', async () => {
    // Hand-written: no record by that name.
    assert.match(String(installs.provenance(raw({ mine: weather }, 'mine'), 'user', [REGISTRY], 'mine')), /^it was not installed from the registry \(http:\/\/127\.0\.0\.1:4567\); reinstall/);
    // The configured registry changed (another mcpHost.registry.url, or the organisation's private registry): the
    // install from the old one no longer counts, and says which it was.
    assert.match(String(installs.provenance(raw({ weather }, 'weather'), 'user', ['https://registry.corp.example'], 'weather')),
      /^it was installed from http:\/\/127\.0\.0\.1:4567, which is not the configured registry \(https:\/\/registry\.corp\.example\); reinstall/);
    // A malformed or forged stored record (not a definition key) is ignored; the good ones stay.
    await state.update(REGISTRY_INSTALLS_KEY, [...(state.get<unknown[]>(REGISTRY_INSTALLS_KEY) ?? []), { registry: REGISTRY, entry: 'x', name: 'forged', scope: 'user', key: 'anything' }, 'junk']);
    assert.notEqual(installs.provenance(raw({ forged: weather }, 'forged'), 'user', [REGISTRY], 'forged'), true);
    assert.equal(installs.provenance(raw({ weather }, 'weather'), 'user', [REGISTRY], 'weather'), true);
    // Another installation's key: the same record under a different definition key does not match.
    const other = new RegistryInstalls(state, ephemeralKeyer());
    assert.notEqual(other.provenance(raw({ weather }, 'weather'), 'user', [REGISTRY], 'weather'), true);
    // Forgetting an install that wrote nothing: gone; the bystander stays.
    const made = await installs.record({ registry: REGISTRY, entry: 'io.github.example/late' }, { late: remote }, 'workspace', 'ws-a');
    assert.equal(installs.provenance(raw({ late: remote }, 'late'), 'workspace', [REGISTRY], 'late', 'ws-a'), true);
    await installs.forget(made);
    assert.notEqual(installs.provenance(raw({ late: remote }, 'late'), 'workspace', [REGISTRY], 'late', 'ws-a'), true);
    assert.equal(installs.provenance(raw({ remote }, 'remote'), 'user', [REGISTRY], 'remote'), true);
    assert.equal(registryKey('HTTP://Registry.Example.com:443/v0/'), 'http://registry.example.com:443/v0');
    assert.equal(registryProvenance([], 'x', 'user', undefined, []).toString().includes('none configured'), true);
  });

  it('H502: the policy check blocks every server but the unchanged install, with the reason and the fix in its problem; other access values ask nothing', () => {
    const defs = [{ name: 'weather', type: 'stdio', command: 'npx', args: weather.args, env: {} }, { name: 'mine', type: 'stdio', command: 'npx', args: weather.args, env: {} }] as ServerDefinition[];
    const raws: Record<string, RawServer> = { weather: raw({ weather }, 'weather'), mine: raw({ mine: weather }, 'mine') };
    let asked = 0;
    const from = (d: ServerDefinition) => { asked++; return installs.provenance(raws[d.name], 'user', [REGISTRY], d.name); };
    const r = applyPolicy({ denied: [], access: 'registry' }, defs, from);
    assert.deepEqual(r.defs.map(d => d.name), ['weather']);
    assert.equal(r.errors.length, 1);
    assert.match(r.errors[0].message, /^Server "mine" is blocked by your organisation's policy: chat\.mcp\.access is "registry" \(only servers installed from the MCP Registry may run\): it was not installed from the registry .*reinstall it from the registry with "MCP Host: Browse MCP Servers…"\.$/);
    asked = 0;
    assert.deepEqual(applyPolicy({ denied: [], access: 'all' }, defs, from).defs.map(d => d.name), ['weather', 'mine']);
    assert.deepEqual(applyPolicy({ denied: [] }, defs, from).defs.map(d => d.name), ['weather', 'mine']);
    assert.equal(asked, 0, 'provenance is asked only under "registry"');
    // A deny entry still blocks an install from the registry.
    assert.deepEqual(applyPolicy({ denied: [{ serverName: 'weather' }], access: 'registry' }, defs, from).defs.map(d => d.name), []);
  });
});
