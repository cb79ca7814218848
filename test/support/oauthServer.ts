/**
 * A Streamable HTTP MCP endpoint behind the SDK's own authorization server pieces (mcpAuthRouter with its demo
 * in-memory provider, requireBearerAuth in front of /mcp), on 127.0.0.1: discovery, dynamic client registration and
 * PKCE as the SDK does them. Its one tool `whoami` answers `signed-in client <client id>`. Shared by the core's OAuth
 * tests and the CLI's sign-in tests (issue 39: written once).
 */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

// express comes with the SDK (its server side); it has no types here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require('express') as any;

/** Starts the protected endpoint; `url` is its /mcp, `close` stops it (open connections included). */
export async function startProtectedServer(): Promise<{ url: string; close(): Promise<void> }> {
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
    mcp.registerTool('whoami', { description: 'who is calling' }, async (extra: any) => ({ content: [{ type: 'text', text: `signed-in client ${extra?.authInfo?.clientId ?? '?'}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { void transport.close(); void mcp.close(); });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', bearer, (_req: any, res: any) => res.status(405).end());
  app.delete('/mcp', bearer, (_req: any, res: any) => res.status(405).end());
  return { url: mcpUrl.href, close: () => new Promise<void>(r => { server.closeAllConnections?.(); server.close(() => r()); }) };
}
