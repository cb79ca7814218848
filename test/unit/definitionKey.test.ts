/**
 * One identity (issue 35): the table of server-definition fields (src/mcp/config/schema.ts SERVER_FIELDS), the key
 * derived from it (src/mcp/config/definitionKey.ts: an HMAC of the identity fields under the installation's key), the
 * host's restart rule (the same key), and the one-time re-keying of state stored under the old unsalted keys.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  definitionKeyer, ephemeralKeyer, identityOf, isDefinitionKey, isInstallationKey, keyMigration, legacyDefinitionKey, newInstallationKey,
} from '../../src/mcp/config/definitionKey';
import { DEFINITION_FIELDS, IDENTITY_FIELDS, SERVER_FIELDS, serverSchema } from '../../src/mcp/config/schema';
import { parseServers } from '../../src/mcp/config/validate';
import { McpHost } from '../../src/mcp/host';
import { fileInstallationKey } from '../../src/cli/eraCache';
import { KEYS_VERSION_STATE, migrateStoredKeys, rekeyGrant, rekeyList } from '../../src/extension/trust/definitionKeys';
import { historyKey } from '../../src/extension/state/historyStore';
import type { HttpServerDefinition, ServerDefinition, StdioServerDefinition } from '../../src/mcp/types';
import { FAST_STOP, nodeFixture } from '../support/connection';

const root = path.resolve(__dirname, '../../..');

describe('server-definition fields: one table (H234)', () => {
  it('classifies every property of the server schema, and nothing else', () => {
    assert.deepEqual(Object.keys(SERVER_FIELDS).sort(), Object.keys(serverSchema.properties).sort());
    for (const [field, cls] of Object.entries(DEFINITION_FIELDS)) assert.ok(cls === 'identity' || cls === 'tuning', field);
  });

  it('fails for a schema property without a class (what a new field would be)', () => {
    const withNew = { ...serverSchema.properties, label: { type: 'string' } };
    const unclassified = Object.keys(withNew).filter(k => !Object.prototype.hasOwnProperty.call(SERVER_FIELDS, k));
    assert.deepEqual(unclassified, ['label']);
  });

  it('package.json\'s mcpHost.servers declares exactly the table\'s fields', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { contributes: { configuration: unknown } };
    const sections = ([] as { properties: Record<string, { additionalProperties?: { properties?: Record<string, unknown> } }> }[]).concat(pkg.contributes.configuration as never);
    const servers = sections.map(s => s.properties['mcpHost.servers']).find(Boolean);
    assert.ok(servers?.additionalProperties?.properties, 'package.json declares mcpHost.servers');
    assert.deepEqual(Object.keys(servers.additionalProperties.properties).sort(), Object.keys(SERVER_FIELDS).sort());
  });

  it('the field lists written in docs/SECURITY.md ("One identity") and REQUIREMENTS.md H234 are the table\'s', () => {
    // Both docs name every field by class; a new field or a changed class must reach them, so they are read here.
    const fieldsIn = (text: string, cls: 'identity' | 'tuning') => {
      const m = new RegExp(`\\*${cls}\\* \\(([^)]*)\\)`).exec(text);
      assert.ok(m, `the ${cls} list`);
      return [...m[1].matchAll(/`(\w+)`/g)].map(x => x[1]).sort();
    };
    const byClass = (table: Record<string, string>, cls: string) => Object.keys(table).filter(k => table[k] === cls).sort();
    const security = fs.readFileSync(path.join(root, 'docs/SECURITY.md'), 'utf8');
    const bullet = security.slice(security.indexOf('- **One identity**'));
    assert.deepEqual(fieldsIn(bullet, 'identity'), byClass(SERVER_FIELDS, 'identity'), 'SECURITY.md identity fields');
    assert.deepEqual(fieldsIn(bullet, 'tuning'), byClass(SERVER_FIELDS, 'tuning'), 'SECURITY.md tuning fields');
    const h234 = fs.readFileSync(path.join(root, 'docs/REQUIREMENTS.md'), 'utf8').split('\n').find(l => l.startsWith('| H234 |')) ?? '';
    assert.deepEqual(fieldsIn(h234, 'identity'), [...IDENTITY_FIELDS].sort(), 'H234 identity fields (the resolved name and secrets too)');
    assert.deepEqual(fieldsIn(h234, 'tuning'), byClass(SERVER_FIELDS, 'tuning'), 'H234 tuning fields');
  });

  it('is what validation copies: every field of the table that a valid definition has reaches the parsed server', () => {
    const stdio = parseServers({ s: { type: 'stdio', command: 'node', args: ['a'], env: {}, envFile: '/e', cwd: '/w', sandboxEnabled: true, sandbox: {}, disabled: false, autoStart: false, timeout: { request: 5000 }, roots: [], sampling: {} } });
    assert.deepEqual(stdio.errors, []);
    for (const k of ['type', 'command', 'args', 'env', 'envFile', 'cwd', 'sandboxEnabled', 'sandbox', 'disabled', 'autoStart', 'timeout', 'roots', 'sampling']) {
      assert.ok(k in stdio.servers[0], k);
    }
    const http = parseServers({ h: { url: 'https://example.com/mcp', headers: {}, workloadIdentity: { clientId: 'c', tokenEnv: 'T' }, timeout: {} } });
    for (const k of ['url', 'headers', 'workloadIdentity', 'timeout']) assert.ok(k in http.servers[0], k);
  });
});

describe('definition key = HMAC(identity fields) (H48, H234, H235)', () => {
  const SECRET = 'sk-live-DefinitionKey0042';
  const key = definitionKeyer('01'.repeat(32));
  const base: StdioServerDefinition = { name: 'a', type: 'stdio', command: 'node', args: ['s.js'], env: { A: '1', B: SECRET }, cwd: '/w', secrets: [SECRET] };

  it('is stable whatever the key order, hides what it hashes, and has the stored shape', () => {
    assert.ok(isDefinitionKey(key(base)));
    assert.equal(key(base), key({ ...base }));
    assert.equal(key(base), key({ ...base, env: { B: SECRET, A: '1' } }));
    const h: HttpServerDefinition = { name: 'h', type: 'http', url: 'https://x', headers: { A: '1', B: '2' } };
    assert.equal(key(h), key({ ...h, headers: { B: '2', A: '1' } }));
    assert.ok(!key(base).includes(SECRET));
    for (const bad of ['', 'x'.repeat(64), JSON.stringify(base), 42, undefined, key(base).toUpperCase()]) assert.ok(!isDefinitionKey(bad), String(bad));
  });

  it('a tuning edit is the same server: timeouts, disabled, autoStart', () => {
    for (const tuned of [
      { ...base, timeout: { request: 5000 } }, { ...base, timeout: { startup: 2000, request: 120_000 } },
      { ...base, disabled: true }, { ...base, autoStart: false }, { ...base, autoStart: true },
    ]) assert.equal(key(tuned), key(base), JSON.stringify(tuned));
    assert.deepEqual(Object.keys(identityOf({ ...base, timeout: { request: 1 }, disabled: true, autoStart: false })).sort(), Object.keys(base).sort());
  });

  it('an identity edit is another server: launch, name, where values go, roots, sampling, sandbox, secrets', () => {
    const variants: ServerDefinition[] = [
      { ...base, command: 'nodejs' },
      { ...base, args: ['s.js', '--x'] },
      { ...base, args: ['s.js x'] },
      { ...base, args: ['s.js', ''] },
      { ...base, cwd: '/w2' },
      { ...base, cwd: undefined },
      { ...base, env: { A: '1', B: 'other' } },
      { ...base, env: { A: '1', C: SECRET } },
      { ...base, env: { A: '1', B: null } },
      { ...base, envFile: '/w/.env' },
      { ...base, name: 'renamed' },
      { ...base, roots: [] },
      { ...base, sampling: { maxTokens: 5 } },
      { ...base, sandboxEnabled: true },
      { ...base, secrets: [SECRET, 'an-envFile-value-changed'] },
      { name: 'a', type: 'http', url: 'https://x', headers: {} },
      { name: 'a', type: 'sse', url: 'https://x', headers: {} },
      { name: 'a', type: 'http', url: 'https://y', headers: {} },
      { name: 'a', type: 'http', url: 'https://x', headers: { A: '1' } },
      { name: 'a', type: 'http', url: 'https://x', headers: {}, workloadIdentity: { clientId: 'c', tokenEnv: 'T' } },
    ];
    const keys = new Set([key(base), ...variants.map(key)]);
    assert.equal(keys.size, variants.length + 1);
    // Every identity field of the table is one of those edits.
    const edited = new Set(variants.flatMap(v => Object.keys(v).filter(k => JSON.stringify((v as never)[k]) !== JSON.stringify((base as never)[k]))));
    for (const f of IDENTITY_FIELDS) if (!['sandbox'].includes(f)) assert.ok(edited.has(f), `no test edits the identity field ${f}`);
  });

  it('is keyed: another installation key gives other keys; the same key the same ones; nothing is the unsalted hash', () => {
    const other = definitionKeyer('02'.repeat(32));
    assert.notEqual(other(base), key(base));
    assert.equal(definitionKeyer('01'.repeat(32))(base), key(base));
    assert.notEqual(key(base), legacyDefinitionKey(base));
    assert.notEqual(ephemeralKeyer()(base), ephemeralKeyer()(base));
    const fresh = newInstallationKey();
    assert.ok(isInstallationKey(fresh) && fresh !== newInstallationKey());
  });

  it('hostile: stored keys are no oracle for a weak ${input:} (a PIN guessed offline never reproduces the stored key)', () => {
    const withPin = (pin: string): HttpServerDefinition => ({ name: 'bank', type: 'http', url: 'https://bank.example/mcp', headers: { 'X-Pin': pin }, secrets: [pin] });
    const stored = key(withPin('4711'));
    let hits = 0;
    for (let i = 0; i < 10_000; i++) {
      const guess = withPin(String(i).padStart(4, '0'));
      if (legacyDefinitionKey(guess) === stored || definitionKeyer('00'.repeat(32))(guess) === stored) hits++;
    }
    assert.equal(hits, 0);
    // The bystander: the owner, who has the key, still finds its own state.
    assert.equal(key(withPin('4711')), stored);
  });

  it('the CLI keeps its installation key in a 0600 file: made once, the same afterwards', function () {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-key-'));
    try {
      const file = path.join(dir, 'state', 'installation-key');
      const first = fileInstallationKey(file);
      assert.equal(first.created, true);
      if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      const second = fileInstallationKey(file);
      assert.equal(second.created, false);
      assert.equal(second.key(base), first.key(base));
      // A malformed file (not ours) is replaced, and says so.
      fs.writeFileSync(file, 'short');
      assert.equal(fileInstallationKey(file).created, true);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('re-keying stored state once (H235)', () => {
  const key = definitionKeyer('03'.repeat(32));
  const mine: StdioServerDefinition = { name: 'mine', type: 'stdio', command: 'node', args: ['m.js'], env: {}, timeout: { request: 60_000 } };
  const bystander: StdioServerDefinition = { name: 'by', type: 'stdio', command: 'node', args: ['b.js'], env: {} };
  const gone: StdioServerDefinition = { name: 'gone', type: 'stdio', command: 'node', args: ['g.js'], env: {} };
  const map = keyMigration([mine, bystander], key);

  it('maps the unsalted key of each current definition (as the old version computed it) to its keyed one', () => {
    assert.equal(map.get(legacyDefinitionKey(mine)), key(mine));
    assert.equal(map.get(legacyDefinitionKey({ ...mine, autoStart: false })), key(mine), 'autoStart never counted');
    assert.equal(map.get(legacyDefinitionKey(gone)), undefined);
  });

  it('key lists (launch consent, denials): current ones re-keyed, foreign and malformed ones dropped', () => {
    assert.deepEqual(rekeyList([legacyDefinitionKey(mine), legacyDefinitionKey(gone), 'x', 7, legacyDefinitionKey(bystander)], map), [key(mine), key(bystander)]);
    assert.deepEqual(rekeyList(undefined, map), []);
  });

  it('grant keys (scope:name:key/tool): the key part re-keyed, the rest kept; foreign grants dropped', () => {
    assert.equal(rekeyGrant(`ws:abc:mine:${legacyDefinitionKey(mine)}/echo`, map), `ws:abc:mine:${key(mine)}/echo`);
    assert.equal(rekeyGrant(`user:by:${legacyDefinitionKey(bystander)}`, map), `user:by:${key(bystander)}`);
    assert.equal(rekeyGrant(`user:gone:${legacyDefinitionKey(gone)}/t`, map), undefined);
    assert.equal(rekeyGrant('mine/echo', map), undefined);
  });
});

describe('re-keying the extension\'s stored state once (H235)', () => {
  class Memento {
    readonly data = new Map<string, unknown>();
    get<T>(k: string): T | undefined { return this.data.get(k) as T | undefined; }
    update(k: string, v: unknown): Promise<void> { if (v === undefined) this.data.delete(k); else this.data.set(k, v); return Promise.resolve(); }
  }
  const key = definitionKeyer('04'.repeat(32));
  const mine: StdioServerDefinition = { name: 'mine', type: 'stdio', command: 'node', args: ['m.js'], env: {} };
  const gone: StdioServerDefinition = { name: 'gone', type: 'stdio', command: 'node', args: ['g.js'], env: {} };

  it('consent, denials, grants in both scopes, History files and in-memory stores: current ones re-keyed, foreign ones dropped, once', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-rekey-'));
    try {
      const ws = new Memento();
      const global = new Memento();
      const L = legacyDefinitionKey;
      ws.data.set('consent', [L(mine), L(gone)]);
      ws.data.set('denied', [L(gone)]);
      ws.data.set('grants', [`ws:1:mine:${L(mine)}/echo`, `ws:1:gone:${L(gone)}/x`]);
      global.data.set('grants', [`user:mine:${L(mine)}`]);
      fs.writeFileSync(path.join(dir, `${historyKey('mine', mine, L)}.json`), '{"mine":1}');
      fs.writeFileSync(path.join(dir, `${historyKey('gone', gone, L)}.json`), '{"gone":1}');
      const rekeyed: ReadonlyMap<string, string>[] = [];
      const state = { workspace: ws, global, keyLists: ['consent', 'denied'], grantLists: ['grants'], stores: [{ rekey: (m: ReadonlyMap<string, string>) => { rekeyed.push(m); } }], historyDir: dir };
      migrateStoredKeys([mine], key, state);
      assert.deepEqual(ws.get('consent'), [key(mine)]);
      assert.equal(ws.get('denied'), undefined);
      assert.deepEqual(ws.get('grants'), [`ws:1:mine:${key(mine)}/echo`]);
      assert.deepEqual(global.get('grants'), [`user:mine:${key(mine)}`]);
      assert.deepEqual(fs.readdirSync(dir), [`${historyKey('mine', mine, key)}.json`]);
      assert.equal(fs.readFileSync(path.join(dir, `${historyKey('mine', mine, key)}.json`), 'utf8'), '{"mine":1}');
      assert.equal(rekeyed.length, 1);
      assert.equal(ws.get(KEYS_VERSION_STATE), 2);
      // Once: a second run (the next window) leaves what is stored under the new keys alone.
      migrateStoredKeys([], key, state);
      assert.deepEqual(ws.get('consent'), [key(mine)]);
      assert.deepEqual(global.get('grants'), [`user:mine:${key(mine)}`]);
      assert.equal(rekeyed.length, 1);
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('the restart rule is the definition key (H234)', function () {
  this.timeout(30_000);

  it('a timeout edit keeps the process and takes effect; an args edit restarts; a bystander is untouched', async () => {
    const host = new McpHost({ pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { enabled: false } });
    try {
      const def = nodeFixture('tuned', 'echo', []);
      const by = nodeFixture('bystander', 'echo', []);
      await host.reconcile([def, by]);
      const conn = host.get('tuned')!;
      const pid = conn.pid;
      const byPid = host.get('bystander')!.pid;
      assert.ok(pid && byPid);
      await host.reconcile([{ ...def, timeout: { request: 4321 } }, by]);
      assert.equal(host.get('tuned'), conn, 'a timeout edit made a new connection');
      assert.equal(host.get('tuned')!.pid, pid, 'a timeout edit restarted the process');
      assert.equal(host.get('tuned')!.definition.timeout?.request, 4321, 'the new timeout is not the one in use');
      await host.reconcile([{ ...def, timeout: { request: 4321 }, args: [...def.args, '--edited'] }, by]);
      assert.notEqual(host.get('tuned'), conn, 'an args edit kept the old server');
      assert.equal(host.get('bystander')!.pid, byPid);
    } finally { await host.shutdown(); }
  });
});
