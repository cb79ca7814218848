/**
 * SEP-2352 (src/mcp/oauth/rediscover.ts): a 401 to our bearer token at the MCP server drops the cached
 * OAuth discovery, so the SDK's auth() finds a moved authorization server; nothing else does.
 */
import * as assert from 'node:assert/strict';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { rediscoverOnRejectedToken } from '../../src/mcp/oauth/rediscover';

describe('OAuth re-discovery on a rejected token (SEP-2352)', () => {
  const run = async (status: number, url: string, auth?: string) => {
    const dropped: string[] = [];
    const provider = { invalidateCredentials: async (scope: string) => { dropped.push(scope); } } as unknown as OAuthClientProvider;
    const f = rediscoverOnRejectedToken('http://127.0.0.1:9/mcp', provider, async () => new Response(null, { status }));
    const res = await f(url, { method: 'POST', headers: auth ? { Authorization: auth } : {} });
    assert.equal(res.status, status);
    return dropped;
  };

  it('drops the discovery when the server answers 401 to a request with our bearer token', async () => {
    assert.deepEqual(await run(401, 'http://127.0.0.1:9/mcp', 'Bearer t0k'), ['discovery']);
  });

  it('keeps it on a first 401 without a token, a 403 step-up, another URL, or a success', async () => {
    assert.deepEqual(await run(401, 'http://127.0.0.1:9/mcp'), []);
    assert.deepEqual(await run(403, 'http://127.0.0.1:9/mcp', 'Bearer t0k'), []);
    assert.deepEqual(await run(401, 'http://127.0.0.1:9/token', 'Bearer t0k'), []);
    assert.deepEqual(await run(200, 'http://127.0.0.1:9/mcp', 'Bearer t0k'), []);
  });
});
