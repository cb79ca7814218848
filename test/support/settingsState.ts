/**
 * Test helpers for the extension's stored state and parsed settings, shared by the unit suites of added servers and
 * registry installs (issue 39: one copy).
 */
import * as assert from 'node:assert/strict';
import { parseServers, type RawServer } from '../../src/mcp/config/validate';

/** A memento in memory, as the extension's global state behaves (get sees an update at once). */
export function memento(): { get<T>(k: string): T | undefined; update(k: string, v: unknown): Promise<void>; data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(k: string) => data.get(k) as T | undefined, update: async (k, v) => { data.set(k, v); } };
}

/** The entry `name` of `servers` as the controller parses the settings at a sync. */
export function raw(servers: Record<string, unknown>, name: string): RawServer {
  const s = parseServers(servers).servers.find(r => r.name === name);
  assert.ok(s, `${name} parses`);
  return s;
}
