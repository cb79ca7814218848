/**
 * The start-up cache (src/extension/state/catalogueCache.ts) in plain Node, with a fake memento and a fake host: entries are
 * keyed by the definition key (a hash), never by the resolved definition; clear-text entries written before are dropped
 * when the cache is built; a catalogue carrying one of the server's secrets is not kept; a bystander's lists are. The
 * failures already shown are kept as hashes too (H48).
 */
import assert from 'node:assert/strict';
import { CATALOGUE_CACHE_KEY, CatalogueCache } from '../../src/extension/state/catalogueCache';
import { SEEN_FAILURES_KEY, SeenFailures, failureKey } from '../../src/extension/ui/failureNotice';
import { definitionKeyer, keyMigration, legacyDefinitionKey, stableStringify } from '../../src/mcp/config/definitionKey';

/** An installation's definition key (HMAC). */
const definitionKey = definitionKeyer('cd'.repeat(32));
import { Emitter } from '../../src/mcp/events';
import { Redactor } from '../../src/mcp/logging/redact';
import type { Catalogue, HostApi, ServerDefinition, ServerState } from '../../src/mcp';

const SECRET = 'sk-live-CacheSecret7731';
const ENV_SECRET = 'env-value-CacheSecret8842';
const HEADER_SECRET = 'hdr-value-CacheSecret9953';

/** A memento over a Map: what the workspace state would hold, as the JSON it stores. */
class FakeMemento {
  readonly data = new Map<string, unknown>();
  writes = 0;
  get<T>(key: string, fallback?: T): T | undefined { return this.data.has(key) ? JSON.parse(JSON.stringify(this.data.get(key))) as T : fallback; }
  async update(key: string, value: unknown): Promise<void> {
    this.writes++;
    if (value === undefined) this.data.delete(key); else this.data.set(key, JSON.parse(JSON.stringify(value)));
  }
  dump(): string { return JSON.stringify([...this.data]); }
}

interface FakeServer {
  name: string; definition: ServerDefinition; state: ServerState; catalogue: Catalogue; catalogueStale: boolean;
  redactor: Redactor; seeded?: Catalogue; seedCatalogue(c: Catalogue): void;
}

function catalogue(description: string): Catalogue {
  return { tools: [{ name: 'echo', description, inputSchema: { type: 'object' } }], prompts: [], resources: [], resourceTemplates: [] };
}

function fakeHost(defs: ServerDefinition[]) {
  const stateEv = new Emitter<{ server: string; state: ServerState }>();
  const catEv = new Emitter<{ server: string; catalogue: Catalogue }>();
  const servers: FakeServer[] = defs.map((d): FakeServer => ({
    name: d.name, definition: d, state: { kind: 'stopped' }, catalogue: catalogue('empty'), catalogueStale: false,
    redactor: new Redactor(d.secrets ?? []),
    seedCatalogue(c: Catalogue) { this.seeded = c; this.catalogue = c; this.catalogueStale = true; },
  }));
  const host = {
    get servers() { return servers; },
    get: (n: string) => servers.find(s => s.name === n),
    onDidChangeState: stateEv.event,
    onDidChangeCatalogue: catEv.event,
  } as unknown as HostApi;
  const run = (name: string, c: Catalogue) => {
    const s = servers.find(x => x.name === name)!;
    s.catalogue = c;
    s.catalogueStale = false;
    s.state = { kind: 'running', since: Date.now(), protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name, version: '1' } } as unknown as ServerState;
    stateEv.fire({ server: name, state: s.state });
  };
  return { host, servers, run };
}

const secretive: ServerDefinition = {
  name: 'secretive', type: 'stdio', command: 'node', args: ['s.js', `--token=${SECRET}`], env: { API_KEY: ENV_SECRET }, envFile: '/w/.env',
  secrets: [SECRET, ENV_SECRET], autoStart: true,
};
const remote: ServerDefinition = { name: 'remote', type: 'http', url: 'https://example.test/mcp', headers: { Authorization: `Bearer ${HEADER_SECRET}` }, secrets: [HEADER_SECRET] };
const bystander: ServerDefinition = { name: 'bystander', type: 'stdio', command: 'node', args: ['b.js'], env: {} };

describe('start-up cache: nothing secret at rest (H48)', () => {
  it('keys entries by the definition key (a hash): no ${input:}, env or header value is written, and the lists come back for the same definition', async () => {
    const memento = new FakeMemento();
    const { host, servers, run } = fakeHost([secretive, remote, bystander]);
    const cache = new CatalogueCache(memento, host, n => { const d = host.get(n)?.definition; return d && definitionKey(d); });
    run('secretive', catalogue('reads files'));
    run('remote', catalogue('remote tools'));
    run('bystander', catalogue('bystander tools'));
    cache.dispose();
    await new Promise(r => setImmediate(r));
    const stored = memento.get<Record<string, { fp: string }>>(CATALOGUE_CACHE_KEY)!;
    assert.deepEqual(Object.keys(stored).sort(), ['bystander', 'remote', 'secretive']);
    for (const [name, e] of Object.entries(stored)) assert.equal(e.fp, definitionKey(host.get(name)!.definition), name);
    const dump = memento.dump();
    for (const s of [SECRET, ENV_SECRET, HEADER_SECRET, '/w/.env', 'example.test']) assert.ok(!dump.includes(s), `${s} is in the stored cache`);

    // The next activation: same definitions seed their lists; an edited one does not.
    const next = fakeHost([secretive, { ...remote, headers: { Authorization: 'Bearer other-value-000000' } }, bystander]);
    const again = new CatalogueCache(memento, next.host, n => { const d = next.host.get(n)?.definition; return d && definitionKey(d); });
    again.seed();
    assert.equal(next.servers.find(s => s.name === 'secretive')!.seeded?.tools[0].description, 'reads files');
    assert.equal(next.servers.find(s => s.name === 'bystander')!.seeded?.tools[0].description, 'bystander tools');
    assert.equal(next.servers.find(s => s.name === 'remote')!.seeded, undefined, 'an edited definition showed stale lists');
    again.dispose();
    assert.ok(servers.length === 3);
  });

  it('drops the clear-text entries of earlier versions when it is built (migration), keeping hashed ones', async () => {
    const memento = new FakeMemento();
    const hashed = { fp: definitionKey(bystander), at: 1, catalogue: catalogue('bystander tools') };
    await memento.update(CATALOGUE_CACHE_KEY, {
      secretive: { fp: stableStringify({ ...secretive, autoStart: undefined }), at: 2, catalogue: catalogue('old') },
      remote: { fp: stableStringify({ ...remote, autoStart: undefined }), at: 3, catalogue: catalogue('old') },
      bystander: hashed,
    });
    assert.ok(memento.dump().includes(SECRET) && memento.dump().includes(HEADER_SECRET), 'the old entries held the secrets');
    const { host, servers } = fakeHost([secretive, remote, bystander]);
    const cache = new CatalogueCache(memento, host, n => { const d = host.get(n)?.definition; return d && definitionKey(d); });
    await new Promise(r => setImmediate(r));
    const dump = memento.dump();
    for (const s of [SECRET, ENV_SECRET, HEADER_SECRET]) assert.ok(!dump.includes(s), `${s} is still stored after the migration`);
    assert.deepEqual(memento.get(CATALOGUE_CACHE_KEY), { bystander: hashed }, 'the hashed entry is kept');
    cache.seed();
    assert.equal(servers.find(s => s.name === 'bystander')!.seeded?.tools[0].description, 'bystander tools');
    assert.equal(servers.find(s => s.name === 'secretive')!.seeded, undefined);
    cache.dispose();

    // Only clear-text entries: the key goes away. Nothing to migrate: nothing is written.
    const old = new FakeMemento();
    await old.update(CATALOGUE_CACHE_KEY, { secretive: { fp: stableStringify(secretive), at: 2, catalogue: catalogue('old') } });
    new CatalogueCache(old, host, () => undefined).dispose();
    await new Promise(r => setImmediate(r));
    assert.equal(old.data.has(CATALOGUE_CACHE_KEY), false);
    const fresh = new FakeMemento();
    new CatalogueCache(fresh, host, () => undefined).dispose();
    assert.equal(fresh.writes, 0);
  });

  it('does not keep lists that carry one of the server\'s secrets (a server echoing its token), and keeps a bystander\'s', async () => {
    const memento = new FakeMemento();
    const { host, run } = fakeHost([secretive, bystander]);
    const cache = new CatalogueCache(memento, host, n => { const d = host.get(n)?.definition; return d && definitionKey(d); });
    run('secretive', catalogue(`call with token ${SECRET}`));
    run('bystander', catalogue('bystander tools'));
    cache.dispose();
    await new Promise(r => setImmediate(r));
    assert.ok(!memento.dump().includes(SECRET));
    assert.deepEqual(Object.keys(memento.get<Record<string, unknown>>(CATALOGUE_CACHE_KEY)!), ['bystander']);
  });
});

describe('failures already shown: kept as hashes (H48)', () => {
  it('keys a failure by the server and a hash of its message, and drops entries that kept the message in clear', async () => {
    const memento = new FakeMemento();
    await memento.update(SEEN_FAILURES_KEY, [`vault\u0000fatal: key ${SECRET} was rejected`, failureKey('bystander', 'exited (code 1)')]);
    const seen = new SeenFailures(memento);
    await new Promise(r => setImmediate(r));
    assert.ok(!memento.dump().includes(SECRET), 'the clear-text failure is still stored');
    assert.ok(seen.has(failureKey('bystander', 'exited (code 2)')), 'the hashed entry is kept (numbers do not count)');
    const key = failureKey('vault', `fatal: key ${SECRET} was rejected (pid 4242)`);
    assert.match(key, /^vault\u0000[0-9a-f]{64}$/);
    await seen.add(key);
    assert.ok(seen.has(failureKey('vault', `fatal: key ${SECRET} was rejected (pid 17)`)));
    assert.ok(!memento.dump().includes(SECRET));
    await seen.forget('vault');
    assert.ok(!seen.has(key));
  });

  it('H235: re-keys once from the unsalted keys: a current definition\'s lists move to its keyed key, the rest are dropped', async () => {
    const memento = new FakeMemento();
    await memento.update(CATALOGUE_CACHE_KEY, {
      bystander: { fp: legacyDefinitionKey(bystander), at: 1, catalogue: catalogue('bystander tools') },
      secretive: { fp: legacyDefinitionKey({ ...secretive, args: ['gone.js'] }), at: 2, catalogue: catalogue('old') },
    });
    const { host, servers } = fakeHost([secretive, bystander]);
    const cache = new CatalogueCache(memento, host, n => { const d = host.get(n)?.definition; return d && definitionKey(d); });
    cache.rekey(keyMigration([secretive, bystander], definitionKey));
    assert.deepEqual(Object.keys(memento.get<Record<string, unknown>>(CATALOGUE_CACHE_KEY)!), ['bystander']);
    assert.equal(memento.get<Record<string, { fp: string }>>(CATALOGUE_CACHE_KEY)!.bystander.fp, definitionKey(bystander));
    cache.seed();
    assert.equal(servers.find(s => s.name === 'bystander')!.seeded?.tools[0].description, 'bystander tools');
    assert.equal(servers.find(s => s.name === 'secretive')!.seeded, undefined);
    cache.dispose();
  });
});

