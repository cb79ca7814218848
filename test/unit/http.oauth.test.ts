/**
 * OAuth against the SDK's own authorization server pieces (mcpAuthRouter with its demo in-memory
 * provider, requireBearerAuth in front of a Streamable HTTP MCP endpoint), all on 127.0.0.1:
 * discovery, dynamic client registration, PKCE, the injected browser step and token storage (H14, H15).
 */
import * as assert from 'node:assert/strict';
import { Connection } from '../../src/mcp/server/connection';
import { McpOAuthProvider } from '../../src/mcp/oauth/provider';
import { collectLogs, http } from '../support/connection';
import { startProtectedServer } from '../support/oauthServer';

describe('HTTP OAuth (SDK authorization server)', function () {
  this.timeout(30_000);

  it('H14/H15: a 401 runs discovery + registration + PKCE, the browser step gets the URL, finishAuth signs in, tokens go to storage and never to logs', async () => {
    const srv = await startProtectedServer();
    const store = new Map<string, string>();
    const opened: string[] = [];
    const c = new Connection(http('protected', srv.url), {
      pingIntervalMs: 0,
      authProvider: new McpOAuthProvider({
        storage: { get: k => store.get(k), set: (k, v) => { store.set(k, v); }, delete: k => { store.delete(k); } },
        openBrowser: async url => { opened.push(url); },
        redirectUrl: 'http://127.0.0.1:9/callback', clientName: 'mcp-host tests', key: srv.url,
      }),
    });
    const logs = collectLogs(c);
    c.setTrace(true);
    try {
      await assert.rejects(c.start(), /server `protected` needs you to sign in/);
      assert.equal(c.state.kind, 'error');
      assert.equal(opened.length, 1, 'the browser step got the authorization URL');
      const authUrl = new URL(opened[0]);
      assert.equal(authUrl.searchParams.get('code_challenge_method'), 'S256', 'PKCE');
      assert.ok(authUrl.searchParams.get('client_id'), 'dynamically registered client');
      assert.ok([...store.keys()].some(k => k.endsWith(':client')), 'client registration stored');

      // The "user" approves: the authorization endpoint redirects back with a code.
      const res = await fetch(authUrl, { redirect: 'manual' });
      const location = new URL(res.headers.get('location')!);
      const code = location.searchParams.get('code')!;
      assert.ok(code);

      await c.finishAuth(code);
      assert.equal(c.state.kind, 'running');
      const r = await c.callTool('whoami', {});
      assert.match(JSON.stringify(r.content), /client /);
      const tokens = JSON.parse(store.get([...store.keys()].find(k => k.endsWith(':tokens'))!)!) as { access_token: string };
      assert.ok(tokens.access_token);
      assert.ok(logs.every(l => !l.message.includes(tokens.access_token)), 'the token never reaches the logs');

      // A second connection with the same storage starts without a browser.
      const again = new Connection(http('protected', srv.url), {
        pingIntervalMs: 0,
        authProvider: new McpOAuthProvider({
          storage: { get: k => store.get(k), set: (k, v) => { store.set(k, v); }, delete: k => { store.delete(k); } },
          openBrowser: async url => { opened.push(url); },
          redirectUrl: 'http://127.0.0.1:9/callback', clientName: 'mcp-host tests', key: srv.url,
        }),
      });
      await again.start();
      assert.equal(opened.length, 1);
      await again.dispose();
    } finally {
      await c.dispose();
      await srv.close();
    }
  });
});
