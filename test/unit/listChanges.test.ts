/**
 * The one list-change table (src/mcp/server/session.ts LIST_CHANGES, issue 39) drives both eras: the 2025 eras'
 * notification handlers and the 2026-07-28 `subscriptions/listen` filter. Its outcome in both eras against a real
 * server is in connection.eras.test.ts and modern.fixture.test.ts; here, that the table misses nothing the SDK knows.
 */
import * as assert from 'node:assert/strict';
import type { SubscriptionFilter } from '@modelcontextprotocol/client';
import { LIST_CHANGES } from '../../src/mcp/server/session';
import { specParse } from '../../src/mcp/spec';

/** Every `…ListChanged` key of the SDK's subscription filter has a row (a compile error names the missing one). */
type Missing = Exclude<Extract<keyof SubscriptionFilter, `${string}ListChanged`>, (typeof LIST_CHANGES)[number]['filter']>;
const complete: [Missing] extends [never] ? true : Missing = true;

describe('List changes (issue 39)', () => {
  it('H520: one row per list change: the SDK accepts each filter key and each method as a server notification, and none is listed twice', () => {
    assert.equal(complete, true);
    const filter = Object.fromEntries(LIST_CHANGES.map(c => [c.filter, true]));
    assert.equal(specParse('SubscriptionFilter', filter).success, true);
    for (const c of LIST_CHANGES) {
      assert.equal(specParse('ServerNotification', { method: c.method }).success, true, c.method);
      assert.match(c.method, new RegExp(`^notifications/${c.capability}/list_changed$`));
    }
    assert.equal(new Set(LIST_CHANGES.map(c => c.method)).size, LIST_CHANGES.length);
  });
});
