// Types of conformance-lib.mjs (for test/unit/conformance-script.test.ts).

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

export const GRADED: Set<string>;
export const CLIENT_ERROR_ALLOWED: Set<string>;
export const TALLY_PATTERNS: RegExp[];
export function isTallyLike(line: string): boolean;
export function countChecks(checks: Check[]): CheckCounts;
export function describeExit(exit: ClientExit | undefined): string;
export function classifyScenario(result: ScenarioResult, allowed?: Set<string>): Graded;
export function tally(graded: Graded[]): Tally;
export function summaryLine(t: Tally): string;
export function scenarioLine(g: Graded, mark?: Record<Graded['status'], string>): string;
export function bundleKind(text: string): { production: boolean; why: string };
