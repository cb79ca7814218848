/**
 * What the gateway's loopback HTTP listener (http.ts) shares with the rest of the host: the per-window secret VS Code
 * sends as `Authorization: Bearer …` (only in the resolved definition), its constant-time comparison, and the caps.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { DEFAULT_LIMITS } from '../limits';

/** Longest MCP message VS Code may send the gateway: the host's own default message cap (`maxMessageBytes`). */
export const GATEWAY_MAX_MESSAGE_BYTES = DEFAULT_LIMITS.maxMessageBytes;
/** Requests from VS Code that may be answered at once; more are refused at once. */
export const GATEWAY_MAX_PENDING = 64;

/** A fresh per-window secret (256 bits). */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Constant-time comparison of two secrets of any length (compares their SHA-256 digests). `b` is the expected one: its
 * digest is kept while it stays the same (issue 41: one digest per request instead of two).
 */
export function secretsEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  if (expected?.secret !== b) expected = { secret: b, digest: createHash('sha256').update(b, 'utf8').digest() };
  return timingSafeEqual(da, expected.digest);
}
let expected: { secret: string; digest: Buffer } | undefined;
