/**
 * How `npm run conformance` (scripts/conformance.mjs) grades a scenario, on synthetic results fed to its
 * grading module (scripts/conformance-lib.mjs): a client that exits non-zero or is killed fails the
 * scenario, so does a scenario with no check or no result; all-skipped is skipped, not passed; the
 * summary is one line of scenarios and checks that the CI tally cannot mistake for a test count; and
 * only the production bundle is graded.
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
});
