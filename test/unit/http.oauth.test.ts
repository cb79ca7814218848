/**
 * OAuth against the SDK's own authorization server pieces (mcpAuthRouter with its demo in-memory
 * provider, requireBearerAuth in front of a Streamable HTTP MCP endpoint), all on 127.0.0.1:
 * discovery, dynamic client registration, PKCE, the injected browser step and token storage (H14, H15).
 */
import * as assert from 'node:assert/strict';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';
import { Connection } from '../../src/mcp/server/connection';
import { McpOAuthProvider } from '../../src/mcp/oauth/provider';
import { collectLogs, http } from '../support/connection';

// express comes with the SDK (its server side); it has no types here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require('express') as any;

async function startProtectedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  const server: HttpServer = await new Promise(resolve => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const provider = new DemoInMemoryAuthProvider();
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported: ['mcp'] }));
  app.use(express.json());
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.post('/mcp', bearer, async (req: any, res: any) => {
    const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'who is calling' }, async (extra: any) => ({ content: [{ type: 'text', text: `client ${extra?.authInfo?.clientId ?? '?'}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { void transport.close(); void mcp.close(); });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req: any, res: any) => res.status(405).end());
  app.delete('/mcp', bearer, (_req: any, res: any) => res.status(405).end());
  return { url: mcpUrl.href, close: () => new Promise<void>(r => { server.closeAllConnections?.(); server.close(() => r()); }) };
}

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
