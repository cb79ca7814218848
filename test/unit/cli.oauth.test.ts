/**
 * Signing in to a remote server from the CLI (H14/H15), end to end: a Streamable HTTP MCP endpoint
 * behind the SDK's own authorization server (discovery, dynamic client registration, PKCE) on
 * 127.0.0.1; `node dist/cli.js` prints the authorization URL, the "user" approves (the test follows
 * the URL), the redirect lands on the CLI's loopback listener, and the call goes through. A second
 * run uses the stored tokens without asking.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { freePort } from '../support/connection';
import { copyShippedCli } from '../support/shipped';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

// express comes with the SDK (its server side); it has no types here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require('express') as any;


async function startProtectedServer(): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  const server: HttpServer = await new Promise(resolve => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
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



describe('mcp-host CLI sign-in (OAuth against the SDK authorization server)', function () {
  this.timeout(60_000);
  let work: string;
  let cli: string;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-oauth-'));
    cli = path.join(work, 'cli.js');
    copyShippedCli(cli); // the production bundle (test/support/shipped.ts)
  });
  after(() => { fs.rmSync(work, { recursive: true, force: true }); });

  it('H14/H15: prints the URL, catches the redirect on 127.0.0.1, signs in, stores tokens (0600, never printed), reuses them', async () => {
    const srv = await startProtectedServer();
    try {
      const cfg = path.join(work, 'mcp.json');
      fs.writeFileSync(cfg, JSON.stringify({ servers: { remote: { type: 'http', url: srv.url } } }));
      const tokenFile = path.join(work, 'oauth', 'tokens.json');
      const env = { ...process.env, MCP_HOST_SIGN_IN: 'wait', MCP_HOST_OAUTH_FILE: tokenFile, MCP_HOST_OAUTH_PORT: String(await freePort()) };
      const args = [cli, 'call', 'remote', 'whoami', '--config', cfg];

      const child = spawn(process.execPath, args, { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '', stderr = '';
      let approved: Promise<void> | undefined;
      child.stdout.on('data', d => { stdout += d; });
      child.stderr.on('data', d => {
        stderr += d;
        const m = /needs you to sign in\. Open this URL in a browser:\s+(\S+)/.exec(stderr);
        if (m && !approved) {
          // The user approves in the browser: the authorization server redirects to the CLI's loopback.
          approved = (async () => {
            const res = await fetch(m[1], { redirect: 'manual' });
            const back = res.headers.get('location');
            assert.ok(back, 'the authorization endpoint redirects back');
            assert.match(back, /^http:\/\/127\.0\.0\.1:\d+\/callback\/remote\?code=/);
            const landing = await fetch(back);
            assert.equal(landing.status, 200);
            assert.match(await landing.text(), /Signed in/);
          })();
        }
      });
      const code = await new Promise<number | null>(resolve => child.on('close', c => resolve(c)));
      await approved;
      assert.equal(code, 0, stdout + stderr);
      assert.match(stdout, /signed-in client /);
      const stat = fs.statSync(tokenFile);
      assert.equal(stat.mode & 0o777, 0o600, 'the token file is private');
      const stored = JSON.parse(fs.readFileSync(tokenFile, 'utf8')) as Record<string, string>;
      const tokens = JSON.parse(Object.entries(stored).find(([k]) => k.endsWith(':tokens'))![1]) as { access_token: string };
      assert.ok(!(stdout + stderr).includes(tokens.access_token), 'the token is never printed');

      // Second run: the stored token is used; nobody is asked.
      const again = await runCli(cli, args.slice(1), { cwd: work, env });
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stderr, /sign in/);
      assert.match(again.stdout, /signed-in client /);
    } finally {
      await srv.close();
    }
  });

  it('without a terminal (and without MCP_HOST_SIGN_IN=wait) a needed sign-in is one readable line, exit 1', async () => {
    const srv = await startProtectedServer();
    try {
      const cfg = path.join(work, 'mcp2.json');
      fs.writeFileSync(cfg, JSON.stringify({ servers: { remote: { type: 'http', url: srv.url } } }));
      const env = { ...process.env, MCP_HOST_SIGN_IN: '', MCP_HOST_OAUTH_FILE: path.join(work, 'other.json'), MCP_HOST_OAUTH_PORT: String(await freePort()) };
      const r = await runCli(cli, ['call', 'remote', 'whoami', '--config', cfg], { cwd: work, env });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /server "remote" needs you to sign in: run mcp-host in a terminal/);
    } finally {
      await srv.close();
    }
  });
});
