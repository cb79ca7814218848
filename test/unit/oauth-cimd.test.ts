/**
 * The shipped OAuth provider with a client ID metadata document (SEP-991) against an in-process
 * authorization server on 127.0.0.1, through the SDK v2's `auth()`: the metadata URL is the client id
 * where the server advertises `client_id_metadata_document_supported`; elsewhere (or with no URL
 * configured) the client registers dynamically, naming its `application_type`.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { auth } from '@modelcontextprotocol/client';
import { McpOAuthProvider, applicationTypeFor, checkClientMetadataUrl } from '../../src/mcp/oauth/provider';

const CIMD = 'https://mcp-host.example/oauth/client.json';

interface AuthServer { base: string; registrations: Record<string, unknown>[]; close(): Promise<void> }

async function startAuthServer(cimdSupported: boolean): Promise<AuthServer> {
  const registrations: Record<string, unknown>[] = [];
  let base = '';
  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    const path = new URL(req.url ?? '/', base).pathname;
    if (path.startsWith('/.well-known/oauth-protected-resource')) return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (path === '/.well-known/oauth-authorization-server') {
      return json(200, {
        issuer: base, authorization_endpoint: `${base}/authorize`, token_endpoint: `${base}/token`, registration_endpoint: `${base}/register`,
        response_types_supported: ['code'], grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'], token_endpoint_auth_methods_supported: ['none'],
        ...(cimdSupported ? { client_id_metadata_document_supported: true } : {}),
      });
    }
    if (path === '/register' && req.method === 'POST') {
      let body = '';
      req.on('data', c => { body += c; });
      req.on('end', () => {
        const meta = JSON.parse(body) as Record<string, unknown>;
        registrations.push(meta);
        json(201, { ...meta, client_id: `registered-${registrations.length}` });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, registrations, close: () => new Promise<void>(r => { server.closeAllConnections(); server.close(() => r()); }) };
}

function provider(clientMetadataUrl: string | undefined, store = new Map<string, string>(), opened: string[] = [], redirectUrl = 'http://127.0.0.1:33418/callback') {
  return new McpOAuthProvider({
    storage: { get: k => store.get(k), set: (k, v) => { store.set(k, v); }, delete: k => { store.delete(k); } },
    openBrowser: async url => { opened.push(url); },
    redirectUrl, clientName: 'mcp-host tests', key: 'srv', server: 'srv', clientMetadataUrl,
  });
}

describe('OAuth: client ID metadata document (SEP-991) in the shipped provider', function () {
  this.timeout(20_000);

  it('uses the metadata URL as client_id where the authorization server supports it; nothing is registered', async () => {
    const as = await startAuthServer(true);
    try {
      const opened: string[] = [];
      const result = await auth(provider(CIMD, new Map(), opened), { serverUrl: `${as.base}/mcp` });
      assert.equal(result, 'REDIRECT');
      assert.equal(as.registrations.length, 0);
      const url = new URL(opened[0]);
      assert.equal(`${url.origin}${url.pathname}`, `${as.base}/authorize`);
      assert.equal(url.searchParams.get('client_id'), CIMD);
    } finally {
      await as.close();
    }
  });

  it('registers dynamically, with application_type native for a loopback redirect, where it is not supported or not configured', async () => {
    for (const [supported, url] of [[false, CIMD], [true, undefined]] as const) {
      const as = await startAuthServer(supported);
      try {
        const opened: string[] = [];
        assert.equal(await auth(provider(url, new Map(), opened), { serverUrl: `${as.base}/mcp` }), 'REDIRECT');
        assert.equal(as.registrations.length, 1, `supported=${supported} url=${url}`);
        assert.equal(as.registrations[0].application_type, 'native');
        assert.deepEqual(as.registrations[0].redirect_uris, ['http://127.0.0.1:33418/callback']);
        assert.equal(new URL(opened[0]).searchParams.get('client_id'), 'registered-1');
      } finally {
        await as.close();
      }
    }
  });

  it('a stored metadata-URL client id is dropped when the setting changes (registers instead)', async () => {
    const as = await startAuthServer(true);
    try {
      const store = new Map<string, string>();
      await auth(provider(CIMD, store), { serverUrl: `${as.base}/mcp` });
      assert.equal((await provider(CIMD, store).clientInformation())?.client_id, CIMD);
      assert.equal(await provider(undefined, store).clientInformation(), undefined, 'the document is no longer configured');
      const opened: string[] = [];
      await auth(provider(undefined, store, opened), { serverUrl: `${as.base}/mcp` });
      assert.equal(as.registrations.length, 1);
      assert.equal(new URL(opened[0]).searchParams.get('client_id'), 'registered-1');
    } finally {
      await as.close();
    }
  });

  it('application_type follows the redirect; the setting must be an https URL with a path, with a message naming it', () => {
    assert.equal(applicationTypeFor('http://127.0.0.1:33418/callback'), 'native');
    assert.equal(applicationTypeFor('http://localhost:9/cb'), 'native');
    assert.equal(applicationTypeFor('vscode://mcp-host.mcp-host/oauth/srv'), 'native');
    assert.equal(applicationTypeFor('https://editor.example/callback'), 'web');
    assert.equal((provider(undefined, new Map(), [], 'https://editor.example/cb').clientMetadata as { application_type?: string }).application_type, 'web');
    assert.equal(checkClientMetadataUrl(CIMD, 'x'), CIMD);
    for (const bad of ['http://mcp-host.example/c.json', 'https://mcp-host.example/', 'https://mcp-host.example', 'nope']) {
      const r = checkClientMetadataUrl(bad, 'The setting `mcpHost.oauth.clientMetadataUrl`');
      assert.ok(r instanceof Error && r.message.startsWith('The setting `mcpHost.oauth.clientMetadataUrl` must be an https URL with a path') && /leave it empty/.test(r.message), bad);
    }
  });
});
