/**
 * The provider's DPoP key (H107/H108) over an injected storage, as the extension's SecretStorage and the CLI's
 * file give it: offered only where the authorization server advertises ES256 (a bystander server without it keeps
 * plain Bearer), one key per server and authorization server, kept and used again by a later provider, kept as a
 * private JWK under a hashed name only, refused with the fix when damaged, forgotten on sign-out. And the
 * workload-identity grant (H109): no redirect, the configured client id, the jwt-bearer parameters.
 */
import * as assert from 'node:assert/strict';
import { McpOAuthProvider, type OAuthStorage } from '../../src/mcp/oauth/provider';

function memory(): OAuthStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, get: k => data.get(k), set: (k, v) => { data.set(k, v); }, delete: k => { data.delete(k); } };
}

function provider(storage: OAuthStorage, url = 'https://mcp.example/mcp', extra: Partial<ConstructorParameters<typeof McpOAuthProvider>[0]> = {}): McpOAuthProvider {
  return new McpOAuthProvider({ storage, key: url, server: 'remote', clientName: 'test', redirectUrl: 'http://127.0.0.1:1/cb', openBrowser: async () => undefined, ...extra });
}

async function discovered(p: McpOAuthProvider, issuer: string, algs?: string[]): Promise<void> {
  await p.saveDiscoveryState({
    authorizationServerUrl: issuer,
    authorizationServerMetadata: {
      issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'],
      ...(algs ? { dpop_signing_alg_values_supported: algs } : {}),
    },
  });
}

describe('McpOAuthProvider: DPoP key and workload identity', () => {
  it('H107: no DPoP where the authorization server does not advertise ES256 (plain Bearer, nothing stored)', async () => {
    const s = memory();
    const p = provider(s);
    assert.equal(await p.dpop(), undefined, 'nothing discovered yet');
    await discovered(p, 'https://as.example');
    assert.equal(await p.dpop(), undefined);
    await discovered(p, 'https://as.example', ['RS256']);
    assert.equal(await p.dpop(), undefined, 'only ES256 is offered');
    assert.ok(![...s.data.keys()].some(k => k.includes(':dpop:')));
  });

  it('H107/H108: one key per server and authorization server, the same session each time, used again by a later provider', async () => {
    const s = memory();
    const p = provider(s);
    await discovered(p, 'https://as.example', ['ES256', 'RS256']);
    const a = await p.dpop();
    assert.ok(a);
    assert.equal(await p.dpop(), a, 'one session (its nonces) for the provider\'s life');
    const keys = [...s.data.keys()].filter(k => k.includes(':dpop:'));
    assert.equal(keys.length, 1);
    assert.doesNotMatch(keys[0], /as\.example/, 'the storage name carries a hash of the issuer, not the issuer');
    const stored = JSON.parse(s.data.get(keys[0])!) as { alg: string; jwk: { d: string; kty: string; crv: string } };
    assert.deepEqual([stored.alg, stored.jwk.kty, stored.jwk.crv], ['ES256', 'EC', 'P-256']);
    assert.equal(JSON.stringify(a.publicJwk).includes(stored.jwk.d), false, 'the proof key carries no private part');

    const later = provider(s);
    await discovered(later, 'https://as.example', ['ES256']);
    assert.equal((await later.dpop())!.thumbprint, a.thumbprint, 'the kept key');

    const other = provider(s, 'https://other.example/mcp');
    await discovered(other, 'https://as.example', ['ES256']);
    assert.notEqual((await other.dpop())!.thumbprint, a.thumbprint, 'another server: another key');
    const moved = provider(s);
    await discovered(moved, 'https://as2.example', ['ES256']);
    assert.notEqual((await moved.dpop())!.thumbprint, a.thumbprint, 'another authorization server: another key');
  });

  it('H108: a stored value that is no key is refused naming the server and the fix, and left as it is', async () => {
    const s = memory();
    const p = provider(s);
    await discovered(p, 'https://as.example', ['ES256']);
    await p.dpop();
    const [name] = [...s.data.keys()].filter(k => k.includes(':dpop:'));
    s.data.set(name, '{"alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":"AA","y":"AA","d":"AA"}}');
    const again = provider(s);
    await discovered(again, 'https://as.example', ['ES256']);
    await assert.rejects(again.dpop(), /server "remote": the DPoP key for the authorization server https:\/\/as\.example is stored but is not a valid P-256 key; sign out of the server/);
    s.data.set(name, 'not json');
    const third = provider(s);
    await discovered(third, 'https://as.example', ['ES256']);
    await assert.rejects(third.dpop(), /is stored but is not an ES256 key/);
    assert.equal(s.data.get(name), 'not json');
  });

  it('H108: signing out forgets the key (a later sign-in makes a new one)', async () => {
    const s = memory();
    const p = provider(s);
    await discovered(p, 'https://as.example', ['ES256']);
    const first = (await p.dpop())!.thumbprint;
    await provider(s).invalidateCredentials('all');
    assert.ok(![...s.data.keys()].some(k => k.includes(':dpop:')), 'a fresh provider (the editor\'s Sign Out) finds and deletes it');
    // The provider of the running connection (the editor's Sign Out uses one of its own) follows the storage.
    await discovered(p, 'https://as.example', ['ES256']);
    const renewed = (await p.dpop())!.thumbprint;
    assert.notEqual(renewed, first);
    const q = provider(s);
    await discovered(q, 'https://as.example', ['ES256']);
    assert.equal((await q.dpop())!.thumbprint, renewed, 'the new key is the kept one');
  });

  it('H109: workload identity: no redirect, the configured client, the jwt-bearer grant with the token read at request time', async () => {
    let reads = 0;
    const p = provider(memory(), undefined, { workloadIdentity: { clientId: 'ci-deployer', token: async () => `a.b.${++reads}` } });
    assert.equal(p.redirectUrl, undefined, 'non-interactive');
    assert.deepEqual(await p.clientInformation(), { client_id: 'ci-deployer' });
    assert.deepEqual(p.clientMetadata.grant_types, ['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    const params = await p.prepareTokenRequest('mcp');
    assert.equal(params!.get('grant_type'), 'urn:ietf:params:oauth:grant-type:jwt-bearer');
    assert.equal(params!.get('assertion'), 'a.b.1');
    assert.equal(params!.get('scope'), 'mcp');
    assert.equal((await p.prepareTokenRequest())!.get('assertion'), 'a.b.2', 'read afresh');
    const plain = provider(memory());
    assert.equal(await plain.prepareTokenRequest(), undefined, 'a bystander keeps the authorization-code flow');
    assert.equal(plain.redirectUrl, 'http://127.0.0.1:1/cb');
  });
});
