// How scripts/conformance.mjs grades a scenario and what it prints, kept apart from the running so a unit
// test (test/unit/conformance-script.test.ts) can feed it synthetic results. Types: conformance-lib.d.mts.
//
// A scenario FAILS when the suite recorded no result for it, when the client under test exited non-zero
// or was killed (except where the suite itself expects the client to give up with an error), when it
// produced no graded check, or when a check failed or warned (the suite's own verdict counts a warning
// as a failure). It is SKIPPED when every graded check was skipped, and PASSED otherwise.

/** Check statuses of @modelcontextprotocol/conformance (`CheckStatus`). INFO records are not graded. */
export const GRADED = new Set(['SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED']);

/**
 * Scenarios whose client is expected to stop with an error (the suite marks them `allowClientError` in
 * 0.1.16: the client must refuse to go on); a non-zero exit is not a failure there, a kill still is.
 */
export const CLIENT_ERROR_ALLOWED = new Set(['auth/scope-retry-limit', 'auth/resource-mismatch']);

/** Lines the CI tally reads as test counts: conformance output must never contain one. */
export const TALLY_PATTERNS = [/^\s*\d+ passed/, /^Total: /, /\d+ passing/];

/** True when `line` would be mistaken for a test tally. */
export function isTallyLike(line) {
  return TALLY_PATTERNS.some(p => p.test(line));
}

/** Counts of a scenario's checks: warnings are counted as failed too (and also on their own). */
export function countChecks(checks) {
  const n = { passed: 0, failed: 0, skipped: 0, warnings: 0, info: 0 };
  for (const k of checks) {
    if (k.status === 'SUCCESS') n.passed++;
    else if (k.status === 'FAILURE') n.failed++;
    else if (k.status === 'WARNING') { n.failed++; n.warnings++; }
    else if (k.status === 'SKIPPED') n.skipped++;
    else n.info++;
  }
  return n;
}

/** How the client process ended, in words. */
export function describeExit(exit) {
  if (!exit) return 'the client did not run or its exit status was not recorded';
  if (exit.error) return `the client could not start: ${exit.error}`;
  if (exit.signal) return `the client was killed by ${exit.signal}${exit.signal === 'SIGTERM' ? ' (the suite stops a client that outlives its timeout)' : ''}`;
  return `the client exited with code ${exit.code}`;
}

/**
 * Grades one scenario.
 * @param result `{ name, checks, exit }`: `checks` as in the suite's checks.json (undefined when it wrote
 *   none), `exit` as `{ code, signal }` of the client process (undefined when not recorded).
 * @param allowed check ids (or the pseudo ids `no-result`, `client-exit`, `no-checks`) the baseline
 *   expects to fail in this scenario.
 */
export function classifyScenario(result, allowed = new Set()) {
  const { name, checks, exit } = result;
  const failures = [];
  if (!checks) {
    failures.push({ id: 'no-result', message: 'the suite recorded no result for this scenario' });
  }
  const clientFailed = !exit || exit.signal != null || (exit.code !== 0 && !CLIENT_ERROR_ALLOWED.has(name));
  if (clientFailed) failures.push({ id: 'client-exit', message: describeExit(exit) });
  const counts = countChecks(checks ?? []);
  const graded = counts.passed + counts.failed + counts.skipped;
  if (checks && graded === 0) {
    failures.push({ id: 'no-checks', message: checks.length ? `the scenario produced no graded check (${checks.length} informational records only)` : 'the scenario produced no check' });
  }
  for (const k of checks ?? []) {
    if (k.status === 'FAILURE' || k.status === 'WARNING') {
      failures.push({ id: k.id, message: `${k.status === 'WARNING' ? 'warning: ' : ''}${k.errorMessage ?? k.description ?? k.name ?? ''}` });
    }
  }
  const status = failures.length ? 'failed' : counts.skipped === graded ? 'skipped' : 'passed';
  const failedIds = new Set(failures.map(f => f.id));
  return {
    name,
    status,
    counts,
    failures,
    expected: failures.filter(f => allowed.has(f.id)),
    unexpected: failures.filter(f => !allowed.has(f.id)),
    stale: [...allowed].filter(id => !failedIds.has(id)),
  };
}

/** Scenario and check totals over graded scenarios. */
export function tally(graded) {
  const t = { scenarios: graded.length, passed: 0, failed: 0, skipped: 0, checks: 0, checksPassed: 0, checksFailed: 0, checksSkipped: 0 };
  for (const g of graded) {
    t[g.status]++;
    t.checksPassed += g.counts.passed;
    t.checksFailed += g.counts.failed;
    t.checksSkipped += g.counts.skipped;
  }
  t.checks = t.checksPassed + t.checksFailed + t.checksSkipped;
  return t;
}

/** The script's last line. */
export function summaryLine(t) {
  return `conformance: ${t.scenarios} scenarios (${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped), `
    + `${t.checks} checks (${t.checksPassed} passed, ${t.checksFailed} failed, ${t.checksSkipped} skipped)`;
}

/** One line per scenario (never tally-like: it starts with a mark and the name). */
export function scenarioLine(g, mark = { passed: '✓', failed: '✗', skipped: '-' }) {
  const n = g.counts;
  const parts = [`${n.passed}/${n.passed + n.failed + n.skipped} checks passed`];
  if (n.failed) parts.push(`${n.failed} failed${n.warnings ? ` (${n.warnings} warnings)` : ''}`);
  if (n.skipped) parts.push(`${n.skipped} skipped`);
  const expected = g.status === 'failed' && g.unexpected.length === 0 ? ', expected (baseline)' : '';
  return `${mark[g.status]} ${g.name}: ${g.status}${expected}, ${parts.join(', ')}`;
}

/**
 * Whether a bundle's text is the production build (what the VSIX ships): esbuild --production writes no
 * source map reference and minifies (a few hundred lines for half a megabyte); the development build has
 * a trailing `//# sourceMappingURL=` and tens of thousands of lines.
 */
export function bundleKind(text) {
  const tail = text.slice(-512);
  if (/\/\/# sourceMappingURL=/.test(tail)) return { production: false, why: 'it ends with a //# sourceMappingURL (development build)' };
  const lines = text.split('\n').length;
  if (text.length / lines < 400) return { production: false, why: `it is not minified (${lines} lines for ${Math.round(text.length / 1024)} KiB)` };
  return { production: true, why: 'minified, no source map' };
}
