/**
 * How `npm run conformance` (scripts/conformance.mjs) grades a scenario, on synthetic results fed to its
 * grading module (scripts/conformance-lib.mjs): a client that exits non-zero or is killed fails the
 * scenario, so does a scenario with no check or no result; all-skipped is skipped, not passed; the
 * summary is one line of scenarios and checks per set that the CI tally cannot mistake for a test count;
 * only the production bundle is graded; and the 0.2 suite's lists, requirement sets, baselines and
 * shared runs are read and planned as the runner would run them.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import type * as ConformanceLib from '../../scripts/conformance-lib.mjs' with { 'resolution-mode': 'import' };

type Lib = typeof ConformanceLib;
type Check = ConformanceLib.Check;

const ROOT = path.resolve(__dirname, '../../..');
const ok = { code: 0, signal: null };
const pass = (id: string): Check => ({ id, status: 'SUCCESS', description: id });
const fail = (id: string): Check => ({ id, status: 'FAILURE', description: id, errorMessage: `${id} went wrong` });
const skip = (id: string): Check => ({ id, status: 'SKIPPED', description: id });
const info = (id: string): Check => ({ id, status: 'INFO', description: id });

describe('conformance script: grading of scenarios', () => {
  let lib: Lib;
  before(async () => {
    lib = await import(pathToFileURL(path.join(ROOT, 'scripts/conformance-lib.mjs')).href) as Lib;
  });

  it('passes a scenario whose checks passed and whose client exited 0', () => {
    const g = lib.classifyScenario({ name: 'initialize', checks: [info('incoming-request'), pass('mcp-client-initialization')], exit: ok });
    assert.equal(g.status, 'passed');
    assert.deepEqual(g.failures, []);
    assert.deepEqual({ p: g.counts.passed, f: g.counts.failed, s: g.counts.skipped }, { p: 1, f: 0, s: 0 });
  });

  it('fails a scenario whose client exited non-zero, even when every check passed', () => {
    const g = lib.classifyScenario({ name: 'tools_call', checks: [pass('tool-call')], exit: { code: 1, signal: null } });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.unexpected.map(f => f.id), ['client-exit']);
    assert.match(g.unexpected[0].message, /exited with code 1/);
  });

  it('fails a scenario whose client was killed (the suite timed it out)', () => {
    const g = lib.classifyScenario({ name: 'tools_call', checks: [pass('tool-call')], exit: { code: null, signal: 'SIGTERM' } });
    assert.equal(g.status, 'failed');
    assert.match(g.failures[0].message, /killed by SIGTERM/);
  });

  it('fails a scenario whose client exit was never recorded', () => {
    const g = lib.classifyScenario({ name: 'tools_call', checks: [pass('tool-call')] });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.failures.map(f => f.id), ['client-exit']);
  });

  it('accepts a non-zero exit only where the suite expects the client to give up (allowClientError)', () => {
    const g = lib.classifyScenario({ name: 'auth/scope-retry-limit', checks: [pass('scope-retry-limit')], exit: { code: 1, signal: null } });
    assert.equal(g.status, 'passed');
    const killed = lib.classifyScenario({ name: 'auth/scope-retry-limit', checks: [pass('scope-retry-limit')], exit: { code: null, signal: 'SIGTERM' } });
    assert.equal(killed.status, 'failed');
  });

  it('fails a scenario that produced no check at all', () => {
    const g = lib.classifyScenario({ name: 'initialize', checks: [], exit: ok });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.failures.map(f => f.id), ['no-checks']);
  });

  it('fails a scenario that produced informational records only (nothing graded)', () => {
    const g = lib.classifyScenario({ name: 'initialize', checks: [info('incoming-request'), info('outgoing-response')], exit: ok });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.failures.map(f => f.id), ['no-checks']);
  });

  it('fails a scenario the suite recorded no result for', () => {
    const g = lib.classifyScenario({ name: 'sse-retry' });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.failures.map(f => f.id).sort(), ['client-exit', 'no-result']);
  });

  it('reports a scenario whose checks were all skipped as skipped, not passed', () => {
    const g = lib.classifyScenario({ name: 'auth/offline-access-scope', checks: [skip('a'), info('b'), skip('c')], exit: ok });
    assert.equal(g.status, 'skipped');
    assert.equal(g.counts.skipped, 2);
  });

  it('passes a scenario with passed and skipped checks', () => {
    assert.equal(lib.classifyScenario({ name: 'x', checks: [pass('a'), skip('b')], exit: ok }).status, 'passed');
  });

  it('fails on a failed check and on a warning, and counts both as failed checks', () => {
    const g = lib.classifyScenario({ name: 'x', checks: [pass('a'), fail('b'), { id: 'c', status: 'WARNING', description: 'c' }], exit: ok });
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.failures.map(f => f.id), ['b', 'c']);
    assert.deepEqual({ f: g.counts.failed, w: g.counts.warnings }, { f: 2, w: 1 });
  });

  it('splits failures by the baseline and reports baseline entries that no longer fail', () => {
    const g = lib.classifyScenario({ name: 'x', checks: [fail('b'), pass('a')], exit: { code: 1, signal: null } }, new Set(['b', 'client-exit', 'gone']));
    assert.equal(g.status, 'failed');
    assert.deepEqual(g.unexpected, []);
    assert.deepEqual(g.expected.map(f => f.id), ['client-exit', 'b']);
    assert.deepEqual(g.stale, ['gone']);
  });

  it('ends with one summary line of scenarios and checks, and prints nothing the CI tally would count as tests', () => {
    const graded = [
      lib.classifyScenario({ name: 'a', checks: [pass('1'), pass('2')], exit: ok }),
      lib.classifyScenario({ name: 'b', checks: [pass('1'), fail('2')], exit: ok }),
      lib.classifyScenario({ name: 'c', checks: [skip('1')], exit: ok }),
      lib.classifyScenario({ name: 'd', checks: [], exit: { code: 2, signal: null } }),
    ];
    const line = lib.summaryLine(lib.tally(graded));
    assert.equal(line, 'conformance: 4 scenarios (1 passed, 2 failed, 1 skipped), 5 checks (3 passed, 1 failed, 1 skipped)');
    for (const l of [line, ...graded.map(g => lib.scenarioLine(g))]) {
      assert.ok(!lib.isTallyLike(l), l);
      for (const p of [/^\s*\d+ passed/, /^Total: /, /\d+ passing/]) assert.doesNotMatch(l, p);
    }
    assert.ok(lib.isTallyLike('Total: 3 passed, 0 failed') && lib.isTallyLike('  12 passing (3s)') && lib.isTallyLike('4 passed'));
  });

  it('grades only the production bundle: a source-mapped or unminified dist/cli.js is refused', () => {
    const minified = `#!/usr/bin/env node\n${'var a=1;'.repeat(2000)}\n`;
    assert.equal(lib.bundleKind(minified).production, true);
    assert.equal(lib.bundleKind(`${minified}//# sourceMappingURL=cli.js.map\n`).production, false);
    assert.equal(lib.bundleKind('var a = 1;\n'.repeat(2000)).production, false);
  });

  it('accepts a non-zero exit per suite version: 0.2 expects it in the iss and issuer scenarios, 0.1.16 does not know them', () => {
    const r = { name: 'auth/iss-wrong-issuer', checks: [pass('sep-2468-client-compare-iss-supported')], exit: { code: 1, signal: null } };
    assert.equal(lib.classifyScenario(r).status, 'failed');
    assert.equal(lib.classifyScenario(r, new Set(), { clientErrorAllowed: lib.CLIENT_ERROR_ALLOWED_NEXT }).status, 'passed');
    assert.equal(lib.classifyScenario({ ...r, name: 'tools_call' }, new Set(), { clientErrorAllowed: lib.CLIENT_ERROR_ALLOWED_NEXT }).status, 'failed');
  });

  it('fails a required scenario that ran at another spec version than its revision', () => {
    const at = (protocolVersion?: string) => lib.classifyScenario({ name: 'tools_call', checks: [pass('tool-call')], exit: { code: 0, signal: null, protocolVersion } }, new Set(), { version: '2026-07-28' });
    assert.equal(at('2026-07-28').status, 'passed');
    assert.deepEqual(at('2025-11-25').failures.map(f => f.id), ['wrong-version']);
    assert.match(at(undefined).failures[0].message, /ran at spec version \(none\), not 2026-07-28/);
  });

  it('labels each set\'s summary line, which test-all reads with SUMMARY_PATTERN', () => {
    const t = lib.tally([lib.classifyScenario({ name: 'a', checks: [pass('1')], exit: ok })]);
    const line = lib.summaryLine(t, '0.2.0-alpha.12, requirements 2026-07-28');
    assert.equal(line, 'conformance: 1 scenarios (1 passed, 0 failed, 0 skipped), 1 checks (1 passed, 0 failed, 0 skipped) [0.2.0-alpha.12, requirements 2026-07-28]');
    assert.equal(lib.SUMMARY_PATTERN.exec(line)?.[9], '0.2.0-alpha.12, requirements 2026-07-28');
    assert.ok(lib.SUMMARY_PATTERN.test(lib.summaryLine(t)));
    assert.ok(!lib.isTallyLike(line));
  });

  it('reads the suites\' scenario lists: names with their spec-version tags, and only the required client scenarios', () => {
    const list = 'Client scenarios (test against a client):\n  - initialize [2025-06-18,2025-11-25]\n  - request-metadata [2026-07-28]\n  - auth/dpop [extension]\n  - sse-retry\n';
    assert.deepEqual(lib.parseScenarioList(list), [
      { name: 'initialize', tags: ['2025-06-18', '2025-11-25'] },
      { name: 'request-metadata', tags: ['2026-07-28'] },
      { name: 'auth/dpop', tags: ['extension'] },
      { name: 'sse-retry', tags: [] },
    ]);
    const req = 'Required for 2026-07-28 (3 scenarios):\n\nServer scenarios (test against a server):\n  - server-stateless\n\n'
      + 'Client scenarios (test against a client):\n  - tools_call\n  - request-metadata\n\nRun and reported, but never scored:\n  extension (1):\n    - auth/dpop [client]\n';
    assert.deepEqual(lib.parseRequiredClientScenarios(req), ['tools_call', 'request-metadata']);
    // The unscored client scenarios (their own line): those the list tags `extension`.
    assert.deepEqual(lib.unscoredClientScenarios([...lib.parseScenarioList(list), { name: 'sep-2640-client-verify-digest', tags: ['extension'] }]), ['auth/dpop', 'sep-2640-client-verify-digest']);
    assert.equal(lib.defaultVersion(['2026-07-28']), '2026-07-28');
    assert.equal(lib.defaultVersion(['2025-06-18', '2025-11-25', '2026-07-28']), '2025-11-25');
    assert.equal(lib.defaultVersion(['extension']), '2025-11-25');
  });

  it('plans one run per scenario and version: a required scenario at its default version shares the full suite\'s run', () => {
    const tags = new Map([['tools_call', ['2025-11-25', '2026-07-28']], ['request-metadata', ['2026-07-28']], ['initialize', ['2025-11-25']]]);
    const { jobs, bySet } = lib.planJobs([
      { id: '2025-11-25', suite: 'next', scenarios: [{ name: 'initialize', version: '2025-11-25' }, { name: 'tools_call', version: '2025-11-25' }] },
      { id: '2026-07-28', suite: 'next', scenarios: [{ name: 'tools_call', version: '2026-07-28' }, { name: 'request-metadata', version: '2026-07-28' }] },
      { id: 'all', suite: 'next', scenarios: [{ name: 'initialize' }, { name: 'tools_call' }, { name: 'request-metadata' }] },
      { id: '0.1.16', suite: 'legacy', scenarios: [{ name: 'tools_call' }] },
    ], n => tags.get(n) ?? []);
    assert.deepEqual(jobs.map(j => `${j.key} forced=${j.forced}`).sort(), [
      'legacy|tools_call|default forced=false',
      'next|initialize|2025-11-25 forced=false',
      'next|request-metadata|2026-07-28 forced=false',
      'next|tools_call|2025-11-25 forced=false',
      'next|tools_call|2026-07-28 forced=true',
    ]);
    assert.equal(bySet.get('2026-07-28')?.get('request-metadata'), bySet.get('all')?.get('request-metadata'));
    assert.notEqual(bySet.get('2026-07-28')?.get('tools_call'), bySet.get('all')?.get('tools_call'));
  });

  it('reads baselines: ids per scenario, and in the 0.2 file each entry must say why', () => {
    const b = lib.parseBaseline({ 'auth/dpop': { checks: ['sep-1932-client-fresh-proof'], why: 'DPoP is not implemented' } }, { requireWhy: true });
    assert.deepEqual([...(b.get('auth/dpop')?.ids ?? [])], ['sep-1932-client-fresh-proof']);
    assert.equal(lib.parseBaseline({ x: ['a'] }).get('x')?.why, undefined);
    assert.throws(() => lib.parseBaseline({ x: ['a'] }, { requireWhy: true }), /"x" says not why/);
    assert.throws(() => lib.parseBaseline({ x: { checks: [], why: 'w' } }), /"x" lists no check ids/);
  });
});
