/**
 * DPoP (SEP-1932, H107/H108) and workload identity federation (SEP-1933, H109/H110) in the CLI, end to end
 * on the production `dist/cli.js`: an authorization server on 127.0.0.1 that takes only the jwt-bearer grant
 * and, when asked to, only DPoP proofs with its nonce, in front of a Streamable HTTP MCP endpoint that takes
 * only DPoP-bound tokens (with its own nonce). The workload's token comes from a file or a variable; the DPoP
 * key is made once, kept in a 0600 file beside the token file and used again; a key file others can read
 * or that is not a key stops the run with a message naming the server, the file and the fix, while a server
 * without DPoP keeps working beside it. Nothing secret (key, workload token) is ever printed.
 */
import * as assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import type { Server as HttpServer } from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../support/cli';
import { copyShippedCli } from '../support/shipped';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

// express comes with the SDK (its server side); it has no types here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express = require('express') as any;

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const AS_NONCE = 'as-nonce-1';
const RS_NONCE = 'rs-nonce-1';

function b64url(buf: Buffer | string): string {
  return Buffer.from(buf).toString('base64url');
}

/** A JWT-shaped workload token (the test authorization server compares it byte for byte). */
const WORKLOAD_TOKEN = `${b64url(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64url(JSON.stringify({ sub: 'ci-job', aud: 'test' }))}.c2ln`;

interface Proof { jkt: string; nonce?: string; jti: string; htm: string; htu: string; ath?: string }

/** Checks a DPoP proof (RFC 9449 §4.3, the parts that matter here) with jose; its key thumbprint and claims. */
async function checkProof(proof: string | undefined): Promise<Proof | string> {
  if (!proof) return 'no DPoP proof';
  const jose = await import('jose');
  const header = jose.decodeProtectedHeader(proof);
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || !header.jwk) return `bad header ${JSON.stringify(header)}`;
  if ('d' in (header.jwk as object)) return 'the proof carries a private key';
  const key = await jose.importJWK(header.jwk as any, 'ES256');
  const { payload } = await jose.jwtVerify(proof, key);
  return { jkt: await jose.calculateJwkThumbprint(header.jwk as any, 'sha256'), nonce: payload.nonce as string | undefined, jti: String(payload.jti), htm: String(payload.htm), htu: String(payload.htu), ath: payload.ath as string | undefined };
}

interface TestServer {
  url: string;
  /** Thumbprints the tokens were bound to, in order. */
  boundKeys: string[];
  assertions: string[];
  schemes: string[];
  close(): Promise<void>;
}

/** The authorization server (jwt-bearer only; DPoP with a nonce when `dpop`) and the MCP endpoint it guards. */
async function startServer(opts: { dpop: boolean }): Promise<TestServer> {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  const server: HttpServer = await new Promise(resolve => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });
  const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const mcpUrl = `${base}/mcp`;
  const tokens = new Map<string, string | undefined>(); // access token → bound jkt
  const out: TestServer = { url: mcpUrl, boundKeys: [], assertions: [], schemes: [], close: async () => undefined };
  app.get('/.well-known/oauth-protected-resource/mcp', (_req: any, res: any) => res.json({ resource: mcpUrl, authorization_servers: [base] }));
  app.get('/.well-known/oauth-authorization-server', (_req: any, res: any) => res.json({
    issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`,
    response_types_supported: ['code'], grant_types_supported: [JWT_BEARER], token_endpoint_auth_methods_supported: ['none'],
    ...(opts.dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
  }));
  app.post('/token', async (req: any, res: any) => {
    if (req.body.grant_type !== JWT_BEARER) return res.status(400).json({ error: 'unsupported_grant_type' });
    out.assertions.push(req.body.assertion);
    if (req.body.assertion !== WORKLOAD_TOKEN) return res.status(400).json({ error: 'invalid_grant' });
    let jkt: string | undefined;
    if (opts.dpop) {
      const p = await checkProof(req.headers.dpop);
      if (typeof p === 'string') return res.status(400).json({ error: 'invalid_dpop_proof', error_description: p });
      if (p.nonce !== AS_NONCE) return res.status(400).set('DPoP-Nonce', AS_NONCE).json({ error: 'use_dpop_nonce' });
      jkt = p.jkt;
      out.boundKeys.push(jkt);
    }
    const token = randomUUID();
    tokens.set(token, jkt);
    res.json({ access_token: token, token_type: opts.dpop ? 'DPoP' : 'Bearer', expires_in: 3600 });
  });
  const challenge = (res: any, extra = '') => res.status(401)
    .set('WWW-Authenticate', `${opts.dpop ? 'DPoP' : 'Bearer'} ${extra}resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`).json({ error: 'unauthorized' });
  app.all('/mcp', express.json(), async (req: any, res: any) => {
    const auth = String(req.headers.authorization ?? '');
    const [scheme, token] = auth.split(' ');
    if (!token || !tokens.has(token)) return challenge(res);
    out.schemes.push(scheme);
    const jkt = tokens.get(token);
    if (jkt) {
      if (scheme !== 'DPoP') return challenge(res, 'error="invalid_token", ');
      const p = await checkProof(req.headers.dpop);
      if (typeof p === 'string' || p.jkt !== jkt || p.ath !== createHash('sha256').update(token).digest('base64url')) return challenge(res, 'error="invalid_dpop_proof", ');
      if (p.nonce !== RS_NONCE) return res.status(401).set('DPoP-Nonce', RS_NONCE).set('WWW-Authenticate', 'DPoP error="use_dpop_nonce"').json({ error: 'use_dpop_nonce' });
    }
    if (req.method !== 'POST') return res.status(405).end();
    const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'who is calling' }, async () => ({ content: [{ type: 'text', text: `workload signed in (${jkt ? 'DPoP' : 'Bearer'})` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { void transport.close(); void mcp.close(); });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  out.close = () => new Promise<void>(r => { server.closeAllConnections?.(); server.close(() => r()); });
  return out;
}


describe('mcp-host CLI: DPoP-bound tokens and workload identity (jwt-bearer)', function () {
  this.timeout(60_000);
  let work: string;
  let cli: string;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-dpop-'));
    cli = path.join(work, 'cli.js');
    copyShippedCli(cli); // with jose.js, which DPoP loads on first use
  });
  after(() => { fs.rmSync(work, { recursive: true, force: true }); });

  /** A fresh folder with a config of `servers` and the token file's environment. */
  function setup(name: string, servers: Record<string, unknown>, extraEnv: NodeJS.ProcessEnv = {}) {
    const dir = path.join(work, name);
    fs.mkdirSync(dir);
    const cfg = path.join(dir, 'mcp.json');
    fs.writeFileSync(cfg, JSON.stringify({ servers }));
    const tokenFile = path.join(dir, 'state', 'oauth.json');
    const env = { ...process.env, MCP_HOST_SIGN_IN: '', MCP_HOST_OAUTH_FILE: tokenFile, MCP_HOST_WORKLOAD_TOKEN: undefined, ...extraEnv };
    return { dir, cfg, keyFile: path.join(dir, 'state', 'dpop-keys.json'), env };
  }

  it('H107/H109: signs in unattended (workload token from tokenFile, jwt-bearer), binds the token to a DPoP key kept 0600, answers both nonces, reuses the key', async () => {
    const srv = await startServer({ dpop: true });
    try {
      const tokenPath = path.join(work, 'workload.jwt');
      fs.writeFileSync(tokenPath, `${WORKLOAD_TOKEN}\n`);
      const s = setup('file', { remote: { type: 'http', url: srv.url, workloadIdentity: { clientId: 'ci-deployer', tokenFile: tokenPath } } });
      const r = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /workload signed in \(DPoP\)/);
      assert.doesNotMatch(r.stderr, /sign in/, 'nobody is asked to sign in');
      assert.deepEqual(srv.assertions, [WORKLOAD_TOKEN, WORKLOAD_TOKEN], 'the token request carried the workload token (again after the nonce)');
      assert.ok(srv.schemes.length > 0 && srv.schemes.every(x => x === 'DPoP'), `presented as DPoP: ${srv.schemes.join(',')}`);
      const st = fs.statSync(s.keyFile);
      assert.equal(st.mode & 0o777, 0o600, 'the key file is private');
      const stored = JSON.parse(fs.readFileSync(s.keyFile, 'utf8')) as Record<string, string>;
      const entries = Object.entries(stored);
      assert.equal(entries.length, 1, 'one key: this server at this authorization server');
      const jwk = (JSON.parse(entries[0][1]) as { jwk: { d: string; x: string } }).jwk;
      assert.ok(!(r.stdout + r.stderr).includes(jwk.d), 'the private key is never printed');
      assert.ok(!(r.stdout + r.stderr).includes(WORKLOAD_TOKEN), 'the workload token is never printed');
      assert.ok(!fs.readFileSync(path.join(s.dir, 'state', 'oauth.json'), 'utf8').includes(jwk.d), 'the key is not in the token file');

      // Second run: the stored DPoP-bound token is presented with the kept key (the server checks the
      // proof's key against the token's binding), and the file is unchanged.
      const before = fs.readFileSync(s.keyFile, 'utf8');
      const presented = srv.schemes.length;
      const again = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg, '--verbose'], { cwd: s.dir, env: s.env });
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /workload signed in \(DPoP\)/);
      assert.ok(srv.schemes.length > presented && srv.schemes.every(x => x === 'DPoP'));
      assert.ok(srv.boundKeys.every(k => k === srv.boundKeys[0]), 'one key throughout');
      assert.equal(fs.readFileSync(s.keyFile, 'utf8'), before);
      assert.ok(!(again.stdout + again.stderr).includes(jwk.d), 'not even --verbose prints the key');
    } finally {
      await srv.close();
    }
  });

  it('H110: the token from tokenEnv; an unset variable or a file that is not a JWT is a readable error naming the server and the fix, never the content', async () => {
    const srv = await startServer({ dpop: false });
    try {
      const s = setup('env', { remote: { type: 'http', url: srv.url, workloadIdentity: { clientId: 'ci-deployer', tokenEnv: 'MCP_TEST_WORKLOAD_TOKEN' } } }, { MCP_TEST_WORKLOAD_TOKEN: WORKLOAD_TOKEN });
      const ok = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /workload signed in \(Bearer\)/);
      assert.equal(fs.existsSync(s.keyFile), false, 'no DPoP key where the authorization server offers no DPoP');

      const u = setup('unset', { remote: { type: 'http', url: srv.url, workloadIdentity: { clientId: 'ci-deployer', tokenEnv: 'MCP_TEST_WORKLOAD_TOKEN' } } });
      const unset = await runCli(cli, ['call', 'remote', 'whoami', '--config', u.cfg], { cwd: u.dir, env: { ...u.env, MCP_TEST_WORKLOAD_TOKEN: undefined } });
      assert.notEqual(unset.code, 0);
      assert.match(unset.stderr, /server "remote": workloadIdentity: the environment variable MCP_TEST_WORKLOAD_TOKEN \(tokenEnv\) is not set; set MCP_TEST_WORKLOAD_TOKEN/);

      const secretish = path.join(work, 'not-a-token');
      fs.writeFileSync(secretish, '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n');
      const f = setup('notjwt', { remote: { type: 'http', url: srv.url, workloadIdentity: { clientId: 'ci-deployer', tokenFile: secretish } } });
      const before = srv.assertions.length;
      const bad = await runCli(cli, ['call', 'remote', 'whoami', '--config', f.cfg], { cwd: f.dir, env: f.env });
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /server "remote": workloadIdentity: tokenFile \S+not-a-token does not hold a JWT/);
      assert.doesNotMatch(bad.stderr, /b3BlbnNzaC1rZXktdjEAAAAA/, 'the file content is never printed');
      assert.equal(srv.assertions.length, before, 'nothing that is not a JWT is sent to the authorization server');
    } finally {
      await srv.close();
    }
  });

  it('H108: a DPoP key file open to others, or not a key file, stops the run naming the server, the file and the fix (left as it is); a server without DPoP keeps working', async () => {
    const srv = await startServer({ dpop: true });
    const plain = await startServer({ dpop: false });
    try {
      const tokenPath = path.join(work, 'workload2.jwt');
      fs.writeFileSync(tokenPath, WORKLOAD_TOKEN);
      const wi = { clientId: 'ci-deployer', tokenFile: tokenPath };
      const s = setup('hostile', { remote: { type: 'http', url: srv.url, workloadIdentity: wi }, bystander: { type: 'http', url: plain.url, workloadIdentity: wi } });
      const first = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(first.code, 0, first.stderr);

      fs.chmodSync(s.keyFile, 0o644);
      const open = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.notEqual(open.code, 0);
      assert.match(open.stderr, /server "remote"/);
      assert.match(open.stderr, /the key file \S+dpop-keys\.json is open to other users \(mode 0644\): run `chmod 600 \S+dpop-keys\.json` if nobody else could have changed it, or delete it/);
      assert.equal(fs.statSync(s.keyFile).mode & 0o777, 0o644, 'the file is left for the user to judge');
      const by1 = await runCli(cli, ['call', 'bystander', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(by1.code, 0, by1.stderr);
      assert.match(by1.stdout, /workload signed in \(Bearer\)/);

      fs.writeFileSync(s.keyFile, 'garbage{', { mode: 0o600 });
      fs.chmodSync(s.keyFile, 0o600);
      const garbage = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.notEqual(garbage.code, 0);
      assert.match(garbage.stderr, /server "remote"/);
      assert.match(garbage.stderr, /the key file \S+dpop-keys\.json is not a JSON object \(damaged or written by something else\): delete it to make new keys/);
      assert.equal(fs.readFileSync(s.keyFile, 'utf8'), 'garbage{', 'never overwritten');

      fs.rmSync(s.keyFile);
      const fresh = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(fresh.code, 0, `deleting the file (the fix) makes a new key: ${fresh.stderr}`);
      assert.notEqual(srv.boundKeys.at(-1), srv.boundKeys[0], 'a new key');
      const by2 = await runCli(cli, ['call', 'bystander', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.equal(by2.code, 0, by2.stderr);
    } finally {
      await srv.close();
      await plain.close();
    }
  });

  it('H108: a stored entry that is not a P-256 key is refused with the fix, never replaced', async () => {
    const srv = await startServer({ dpop: true });
    try {
      const tokenPath = path.join(work, 'workload3.jwt');
      fs.writeFileSync(tokenPath, WORKLOAD_TOKEN);
      const s = setup('badentry', { remote: { type: 'http', url: srv.url, workloadIdentity: { clientId: 'ci-deployer', tokenFile: tokenPath } } });
      assert.equal((await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env })).code, 0);
      const stored = JSON.parse(fs.readFileSync(s.keyFile, 'utf8')) as Record<string, string>;
      const [name] = Object.keys(stored);
      fs.writeFileSync(s.keyFile, JSON.stringify({ [name]: JSON.stringify({ alg: 'HS256', jwk: { kty: 'oct', k: 'c2VjcmV0' } }) }), { mode: 0o600 });
      const r = await runCli(cli, ['call', 'remote', 'whoami', '--config', s.cfg], { cwd: s.dir, env: s.env });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /server "remote": the DPoP key for the authorization server http:\/\/127\.0\.0\.1:\d+ is stored but is not an ES256 key/);
      assert.match(r.stderr, /delete the key file/);
    } finally {
      await srv.close();
    }
  });
});
