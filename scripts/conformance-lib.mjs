// How scripts/conformance.mjs grades a scenario and what it prints, kept apart from the running so a unit
// test (test/unit/conformance.script.test.ts) can feed it synthetic results. Types: conformance-lib.d.mts.
//
// A scenario FAILS when the suite recorded no result for it, when the client under test exited non-zero
// or was killed (except where the suite itself expects the client to give up with an error), when it
// produced no graded check, or when a check failed or warned (the suite's own verdict counts a warning
// as a failure). It is SKIPPED when every graded check was skipped, and PASSED otherwise.

/** Check statuses of @modelcontextprotocol/conformance (`CheckStatus`). INFO records are not graded. */
export const GRADED = new Set(['SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED']);

/**
 * Scenarios whose client is expected to stop with an error (the suite marks them `allowClientError`: the
 * client must refuse to go on); a non-zero exit is not a failure there, a kill still is. Per suite version:
 * 0.1.16, and 0.2.0-alpha.12 (the iss / issuer checks of RFC 9207 and RFC 8414, and the tool list with
 * invalid header annotations, whose calls may be refused).
 */
export const CLIENT_ERROR_ALLOWED = new Set(['auth/scope-retry-limit', 'auth/resource-mismatch']);
export const CLIENT_ERROR_ALLOWED_NEXT = new Set([
  'auth/scope-retry-limit', 'auth/resource-mismatch', 'auth/iss-supported-missing', 'auth/iss-wrong-issuer',
  'auth/iss-unexpected', 'auth/iss-normalized', 'auth/metadata-issuer-mismatch', 'http-invalid-tool-headers',
]);

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
 *   none), `exit` as `{ code, signal, protocolVersion }` of the client process (undefined when not recorded).
 * @param allowed check ids (or the pseudo ids `no-result`, `client-exit`, `no-checks`, `wrong-version`)
 *   the baseline expects to fail in this scenario.
 * @param opts `clientErrorAllowed`: scenarios where a non-zero exit is the expected outcome (default: the
 *   0.1.16 set); `version`: the spec version the scenario had to run at (a requirement set), checked
 *   against the MCP_CONFORMANCE_PROTOCOL_VERSION the client was given.
 */
export function classifyScenario(result, allowed = new Set(), opts = {}) {
  const { name, checks, exit } = result;
  const clientErrorAllowed = opts.clientErrorAllowed ?? CLIENT_ERROR_ALLOWED;
  const failures = [];
  if (!checks) {
    failures.push({ id: 'no-result', message: 'the suite recorded no result for this scenario' });
  }
  const clientFailed = !exit || exit.signal != null || (exit.code !== 0 && !clientErrorAllowed.has(name));
  if (clientFailed) failures.push({ id: 'client-exit', message: describeExit(exit) });
  if (opts.version && exit && exit.protocolVersion !== opts.version) {
    failures.push({ id: 'wrong-version', message: `the scenario ran at spec version ${exit.protocolVersion ?? '(none)'}, not ${opts.version}` });
  }
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

/** A run set's summary line (the script prints one per set, last); `label` names the suite and set. */
export function summaryLine(t, label) {
  return `conformance: ${t.scenarios} scenarios (${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped), `
    + `${t.checks} checks (${t.checksPassed} passed, ${t.checksFailed} failed, ${t.checksSkipped} skipped)`
    + (label ? ` [${label}]` : '');
}

/** The summary line's pattern (scripts/test-all.mjs reads every such line of the conformance step). */
export const SUMMARY_PATTERN = /^conformance: (\d+) scenarios \((\d+) passed, (\d+) failed, (\d+) skipped\), (\d+) checks \((\d+) passed, (\d+) failed, (\d+) skipped\)(?: \[([^\]]*)\])?$/;

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

/**
 * The scenarios of `conformance list --client`: `[{ name, tags }]`, tags as printed after the name
 * (spec versions, or `extension`); 0.1.16 prints none.
 */
export function parseScenarioList(text) {
  return [...text.matchAll(/^\s+- (\S+)(?: \[([^\]]*)\])?\s*$/gm)].map(m => ({ name: m[1], tags: m[2] ? m[2].split(',').map(t => t.trim()) : [] }));
}

/** The client scenarios `conformance list --requirements <revision>` names as required (not the unscored ones). */
export function parseRequiredClientScenarios(text) {
  const at = text.indexOf('Client scenarios');
  if (at < 0) return [];
  const section = text.slice(at).split(/\n\s*\n/)[0];
  return [...section.matchAll(/^\s+- (\S+)\s*$/gm)].map(m => m[1]);
}

/**
 * The client scenarios a suite runs and reports but never scores: those `conformance list --client` tags
 * `extension` (0.2.0-alpha.12: the sep-2640-client-* skills scenarios, the DPoP ones whose checks are
 * sep-1932-client-*, the other auth extensions; tasks-* where a version has client ones).
 */
export function unscoredClientScenarios(list) {
  return list.filter(s => s.tags.includes('extension')).map(s => s.name);
}

/**
 * The spec version the suite runs a scenario at when none is asked for: 2026-07-28 for a scenario
 * introduced in that revision (listed with that version only), 2025-11-25 otherwise (as the runner does).
 */
export function defaultVersion(tags) {
  return tags.length === 1 && tags[0] === '2026-07-28' ? '2026-07-28' : '2025-11-25';
}

/**
 * Reads an expected-failures file's section: `{ "<scenario>": ["<check id>", …] }` or
 * `{ "<scenario>": { "checks": [...], "why": "…" } }` → Map(scenario → { ids: Set, why }). With
 * `requireWhy`, an entry without a reason is an error (thrown, naming the scenario).
 */
export function parseBaseline(section = {}, { requireWhy = false } = {}) {
  const out = new Map();
  for (const [scenario, entry] of Object.entries(section)) {
    const ids = Array.isArray(entry) ? entry : entry?.checks;
    const why = Array.isArray(entry) ? undefined : entry?.why;
    if (!Array.isArray(ids) || ids.length === 0) throw new Error(`expected failures: "${scenario}" lists no check ids`);
    if (requireWhy && (typeof why !== 'string' || !why.trim())) throw new Error(`expected failures: "${scenario}" says not why it fails ("why")`);
    out.set(scenario, { ids: new Set(ids), why });
  }
  return out;
}

/**
 * Plans the suite runs for the selected sets: one job per (suite, scenario, spec version), shared between
 * sets that need the same run (a required scenario run at its default version is the full suite's run).
 * `sets`: `[{ id, suite, scenarios: [{ name, version? }] }]` where `version` is the forced spec version
 * (undefined: the suite's default, `defaultVersion` says which). Returns `{ jobs, bySet }`: jobs
 * `{ key, suite, scenario, version, forced }`, and for each set the job key of each scenario.
 */
export function planJobs(sets, tagsOf = () => []) {
  const jobs = new Map();
  const bySet = new Map();
  for (const set of sets) {
    const keys = new Map();
    for (const { name, version } of set.scenarios) {
      const effective = version ?? (set.suite === 'next' ? defaultVersion(tagsOf(name)) : undefined);
      const key = `${set.suite}|${name}|${effective ?? 'default'}`;
      const existing = jobs.get(key);
      // Prefer the unforced run (exactly what `--suite all` does) when both would do.
      if (!existing || (existing.forced && version === undefined)) {
        jobs.set(key, { key, suite: set.suite, scenario: name, version: effective, forced: version !== undefined });
      }
      keys.set(name, key);
    }
    bySet.set(set.id, keys);
  }
  return { jobs: [...jobs.values()], bySet };
}
