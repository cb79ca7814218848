/**
 * Reliability: bad input. Settings fuzzed through the whole core flow (parse → resolve → host.reconcile),
 * malformed tool inputSchemas, and results that break their outputSchema. Every problem is an error
 * naming the setting (or tool) and server; nothing throws out of the core; the bystander is undisturbed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseInputs, parseServers, resolveServer, type ResolveContext } from '../../src/mcp/config';
import type { ConfigError, ServerDefinition, ServerState } from '../../src/mcp/types';
import { BYSTANDER, marked, startHost, textOf, tmpDirPerTest, type TestHost } from './helpers';
import { rng } from '../support/rng';

/** Hand-picked malformed definitions: wrong types, typos, unknown variables, missing and circular inputs. */
const MALFORMED: Record<string, unknown> = {
  'wrong-type-command': { command: 42 },
  'typo-type': { type: 'stdoi', command: 'node' },
  'args-not-array': { command: 'node', args: 'server.js' },
  'env-number': { command: 'node', env: { PORT: 8080 } },
  'bad-url': { type: 'http', url: 'not a url' },
  'negative-timeout': { command: 'node', timeout: { startup: -5 } },
  'unknown-variable': { command: '${bogus}' },
  'missing-input': { command: 'node', args: ['${input:missing}'] },
  'unknown-folder': { command: 'node', cwd: '${workspaceFolder:nope}' },
  'empty-env-variable': { command: '${env:}' },
  'no-input-value': { command: 'node', env: { TOKEN: '${input:unanswered}' } },
  'null-definition': null,
  'string-definition': 'npx server',
  'array-definition': [],
  'empty-object': {},
  'empty-command': { command: '' },
  'http-without-url': { type: 'http' },
  'unknown-key': { command: 'node', comand: 'node' },
  'dotted.name': { command: 5 },
  'nested-garbage': { command: 'node', args: [['x'], { y: 1 }], env: [], headers: 7, sampling: { maxRequestsPerMinute: 'many' } },
  'both-command-and-url': { type: 'sse', command: 'node' },
};

const FRAGMENTS: Array<Record<string, unknown>> = [
  { command: 7 }, { command: '' }, { command: '${nope}' }, { command: 'node' }, { type: 'ftp' }, { type: 'http' }, { type: 'sse' },
  { url: 'https://example.com/mcp' }, { url: 'relative/path' }, { url: 12 }, { args: 'x' }, { args: [1, 2] }, { args: ['${input:ghost}'] },
  { args: ['${workspaceFolder:other}'] }, { args: ['${input:circular}'] }, { env: { A: true } }, { env: 'A=1' }, { env: { T: '${input:token}' } },
  { env: { E: '${env:}' } }, { headers: { Authorization: 'Bearer ${input:token}' } }, { headers: [] }, { headers: { H: 1 } },
  { timeout: 'soon' }, { timeout: { startup: 0 } }, { timeout: { request: -1 } }, { roots: 'all' }, { roots: [3] },
  { sampling: { maxRequestsPerMinute: -1 } }, { sampling: 'yes' }, { disabled: 'no' }, { autoStart: 1 }, { cwd: 5 }, { cwd: '${userHome}/x' },
  { envFile: 12 }, { unknownKey: true }, { '': 1 },
];

const INPUTS: unknown[] = [
  { id: 'token', type: 'promptString', password: true },
  { id: 'circular', type: 'promptString', default: '${input:circular}' },
  { id: 'token', type: 'promptString' },
  { id: 'bad id!', type: 'pickString' },
  7,
  { id: 'unanswered', type: 'promptString' },
];

describe('Reliability: bad input', function () {
  this.timeout(120_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-reliability-input-', async () => { await t?.close(); t = undefined; });

  /** Settings → definitions and errors, the way the extension and CLI do it (inputs answered with their default). */
  async function fromSettings(servers: unknown, inputs: unknown): Promise<{ defs: ServerDefinition[]; errors: ConfigError[] }> {
    const parsedInputs = parseInputs(inputs);
    const parsed = parseServers(servers);
    const errors = [...parsed.errors, ...parsedInputs.errors];
    const ctx: ResolveContext = {
      workspaceFolders: [{ name: 'web', path: scratch.dir }], userHome: scratch.dir, env: { HOME: scratch.dir }, platform: process.platform,
      inputs: parsedInputs.inputs,
      resolveInput: async i => (i.id === 'unanswered' ? undefined : i.default ?? 'typed-by-the-user'),
    };
    const defs: ServerDefinition[] = [];
    for (const raw of parsed.servers) {
      const r = await resolveServer(raw, ctx);
      if (r.definition) defs.push({ ...r.definition, autoStart: false });
      else errors.push(...r.errors);
    }
    return { defs, errors };
  }

  /** Every named server is either a definition or has errors, each naming the server and its setting path. */
  function assertEveryServerAccountedFor(names: string[], defs: ServerDefinition[], errors: ConfigError[]): void {
    for (const e of errors) {
      assert.ok(e.path.startsWith('mcpHost.servers') || e.path.startsWith('mcpHost.inputs'), `setting path: ${e.path}`);
      assert.ok(e.message.includes(e.path), `the message names its setting ${e.path}: ${e.message}`);
      if (e.server !== undefined) assert.ok(e.message.includes(`"${e.server}"`), `the message names server ${e.server}: ${e.message}`);
    }
    for (const name of names) {
      const ok = defs.some(d => d.name === name);
      const errs = errors.filter(e => e.server === name);
      assert.ok(ok !== (errs.length > 0), `${name}: accepted xor errors`);
    }
  }

  it('malformed settings (wrong types, typos, unknown variables, missing and circular inputs): each is an error naming the setting, shown as that server\'s error state; the rest keep working', async () => {
    const { defs, errors } = await fromSettings(MALFORMED, INPUTS);
    const names = Object.keys(MALFORMED);
    assertEveryServerAccountedFor(names, defs, errors);
    // A circular input is taken literally (never expanded again), so it resolves; everything else is an error.
    assert.deepEqual(defs.map(d => d.name), []);
    t = await startHost([]);
    await t.host.reconcile([marked(BYSTANDER, 'echo'), ...defs], errors);
    for (const name of names) {
      const s = t.get(name).state;
      assert.ok(s.kind === 'error', `${name} is in an error state: ${JSON.stringify(s)}`);
      assert.ok(s.message.includes(`"${name}"`) && /mcpHost\.servers/.test(s.message), `${name}: ${s.message}`);
      await assert.rejects(t.get(name).start(), new RegExp(`mcpHost\\.servers`));
    }
    for (const e of errors.filter(x => x.path.startsWith('mcpHost.inputs'))) assert.match(e.message, /^Input /);
    await t.assertBystanderUndisturbed();
  });

  it('a circular input (its default names itself) is taken literally, never expanded in a loop', async () => {
    const { defs, errors } = await fromSettings({ loop: { command: 'node', args: ['${input:circular}'] } }, INPUTS.slice(0, 2));
    assert.deepEqual(errors, []);
    assert.ok(defs[0].type === 'stdio');
    assert.deepEqual(defs[0].type === 'stdio' && defs[0].args, ['${input:circular}']);
  });

  it('600 random definitions through parse → resolve → reconcile: nothing throws, every server is accepted or names its setting', async () => {
    const r = rng(20261201);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    t = await startHost([]);
    let accepted = 0;
    let rejected = 0;
    for (let round = 0; round < 60; round++) {
      const servers: Record<string, unknown> = {};
      for (let i = 0; i < 10; i++) {
        // Half start from a plausible definition and get at most one fragment; the rest are 1–4 fragments.
        const plausible = r() < 0.5;
        const def: Record<string, unknown> = plausible ? pick([{ command: 'node', args: ['server.js'] }, { type: 'http', url: 'https://example.com/mcp' }]) : {};
        for (let k = plausible ? Math.floor(r() * 2) : 1 + Math.floor(r() * 4); k > 0; k--) Object.assign(def, pick(FRAGMENTS));
        servers[`r${round}-${i}${r() < 0.1 ? '.dotted' : ''}`] = r() < 0.05 ? pick([null, 3, 'x', [], true]) : def;
      }
      const { defs, errors } = await fromSettings(servers, r() < 0.5 ? INPUTS : pick([[], 'nope', INPUTS.slice(0, 2), [null]]));
      assertEveryServerAccountedFor(Object.keys(servers), defs, errors);
      accepted += defs.length;
      rejected += Object.keys(servers).length - defs.length;
      await t.host.reconcile([marked(BYSTANDER, 'echo'), ...defs], errors);
      for (const name of Object.keys(servers)) {
        const s: ServerState = t.get(name).state;
        const ok = defs.some(d => d.name === name);
        assert.equal(s.kind, ok ? 'stopped' : 'error', `${name}: ${JSON.stringify(s)}`);
      }
    }
    assert.ok(accepted > 100 && rejected > 200, `the generator exercises both outcomes: accepted ${accepted}, rejected ${rejected}`);
    await t.assertBystanderUndisturbed();
  });

  it('malformed tool inputSchemas: those tools are refused with a message naming tool and server; the others work', async () => {
    const record = path.join(scratch.dir, 'record');
    t = await startHost([marked('schemas', 'hostile', ['--bad-schema', '--record', record])]);
    const s = t.get('schemas');
    assert.equal(s.state.kind, 'running');
    const names = s.catalogue.tools.map(x => x.name);
    for (const bad of ['bad_type', 'bad_required', 'bad_ref']) {
      // A schema MCP itself rejects (required: "a") keeps the tool out of the list; one only JSON Schema rejects is listed, marked invalid.
      if (bad === 'bad_required') assert.ok(!names.includes(bad), `${bad} is left out of the tool list`);
      // A `$ref` that resolves nowhere is found by the compile, which runs on the tool's first call (H146); the rest when listed.
      else assert.ok(names.includes(bad) && (bad === 'bad_ref' || s.invalidTools.has(bad)), `${bad} is listed and marked invalid`);
      await assert.rejects(s.callTool(bad, { a: 1 }), new RegExp(`^McpHostError: server \`schemas\` cannot call tool \`${bad}\` has an invalid inputSchema: .+`));
      if (bad !== 'bad_required') assert.ok(s.invalidTools.has(bad), `${bad} is marked invalid after its call`);
      assert.ok(t.logs.some(l => l.server === 'schemas' && l.level === 'warning' && l.message.includes(`tool \`${bad}\` has an invalid inputSchema`)));
    }
    assert.ok(['echo', 'pid', 'flood', 'sample', 'roots_seen', 'hang', 'typed'].every(n => names.includes(n)), 'one malformed tool hides none of the others');
    assert.equal(textOf(await s.callTool('echo', { text: 'fine' })), 'fine');
    // Arguments that break a valid schema never reach the server.
    const callsBefore = fs.readFileSync(record, 'utf8').split('\n').filter(l => l === 'tools/call').length;
    await assert.rejects(s.callTool('flood', { n: 'lots' }), /invalid arguments for tool `flood` on server `schemas`: .*n.* must be integer/);
    assert.equal(fs.readFileSync(record, 'utf8').split('\n').filter(l => l === 'tools/call').length, callsBefore);
    await t.assertBystanderUndisturbed();
  });

  it('a result that fails its outputSchema is an error naming the tool, the server and the field; the server keeps running', async () => {
    t = await startHost([marked('typed', 'hostile', ['--bad-schema'])]);
    const s = t.get('typed');
    await assert.rejects(s.callTool('typed', {}), /tool `typed` on server `typed` returned structuredContent that does not match its outputSchema: .*count.*integer/);
    assert.equal(s.state.kind, 'running');
    assert.equal(textOf(await s.callTool('echo', { text: 'still fine' })), 'still fine');
    await t.assertBystanderUndisturbed();
  });
});
