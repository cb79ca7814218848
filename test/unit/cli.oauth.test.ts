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
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { freePort } from '../support/connection';
import { copyShippedCli } from '../support/shipped';
import { startProtectedServer } from '../support/oauthServer';

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
