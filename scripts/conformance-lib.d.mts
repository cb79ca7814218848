// Types of conformance-lib.mjs (for test/unit/conformance.script.test.ts).

/** One record of the suite's checks.json. */
export interface Check {
  id: string;
  name?: string;
  description?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

/** How the client process ended. */
export interface ClientExit {
  code: number | null;
  signal: string | null;
  /** set when the client process could not be started */
  error?: string;
  /** MCP_CONFORMANCE_PROTOCOL_VERSION the suite gave the client (0.2 and later) */
  protocolVersion?: string;
}

export interface ScenarioResult {
  name: string;
  /** undefined when the suite wrote no checks.json */
  checks?: Check[];
  /** undefined when the client's end was not recorded */
  exit?: ClientExit;
}

export interface Failure {
  id: string;
  message: string;
}

export interface CheckCounts {
  passed: number;
  failed: number;
  skipped: number;
  warnings: number;
  info: number;
}

export interface Graded {
  name: string;
  status: 'passed' | 'failed' | 'skipped';
  counts: CheckCounts;
  failures: Failure[];
  expected: Failure[];
  unexpected: Failure[];
  stale: string[];
}

export interface Tally {
  scenarios: number;
  passed: number;
  failed: number;
  skipped: number;
  checks: number;
  checksPassed: number;
  checksFailed: number;
  checksSkipped: number;
}

export interface ScenarioTags {
  name: string;
  tags: string[];
}

export interface PlannedSet {
  id: string;
  suite: 'legacy' | 'next';
  /** `version`: the spec version the scenario is forced to (a requirement set) */
  scenarios: { name: string; version?: string }[];
}

export interface Job {
  key: string;
  suite: 'legacy' | 'next';
  scenario: string;
  version?: string;
  forced: boolean;
}

export interface BaselineEntry {
  ids: Set<string>;
  why?: string;
}

export const GRADED: Set<string>;
export const CLIENT_ERROR_ALLOWED: Set<string>;
export const CLIENT_ERROR_ALLOWED_NEXT: Set<string>;
export const SUMMARY_PATTERN: RegExp;
export const TALLY_PATTERNS: RegExp[];
export function isTallyLike(line: string): boolean;
export function countChecks(checks: Check[]): CheckCounts;
export function describeExit(exit: ClientExit | undefined): string;
export function classifyScenario(result: ScenarioResult, allowed?: Set<string>, opts?: { clientErrorAllowed?: Set<string>; version?: string }): Graded;
export function tally(graded: Graded[]): Tally;
export function summaryLine(t: Tally, label?: string): string;
export function parseScenarioList(text: string): ScenarioTags[];
export function parseRequiredClientScenarios(text: string): string[];
export function unscoredClientScenarios(list: { name: string; tags: string[] }[]): string[];
export function defaultVersion(tags: string[]): string;
export function parseBaseline(section?: Record<string, unknown>, opts?: { requireWhy?: boolean }): Map<string, BaselineEntry>;
export function planJobs(sets: PlannedSet[], tagsOf?: (name: string) => string[]): { jobs: Job[]; bySet: Map<string, Map<string, string>> };
export function scenarioLine(g: Graded, mark?: Record<Graded['status'], string>): string;
export function bundleKind(text: string): { production: boolean; why: string };
