/**
 * MCP 2025-03-26 servers without protected-resource metadata (src/mcp/oauth/legacyIssuer.ts): an
 * authorization-server `issuer` under a path of the MCP server's own origin is accepted on a retry; every
 * other issuer mismatch stays fatal (RFC 8414 §3.3; 2026-07-28's auth/metadata-issuer-mismatch).
 */
import * as assert from 'node:assert/strict';
import { IssuerMismatchError } from '@modelcontextprotocol/client';
import { legacySameOriginIssuer } from '../../src/mcp/oauth/legacyIssuer';

const SERVER = 'http://127.0.0.1:9/mcp';
const noPrm = async () => new Response('Not Found', { status: 404 });
const withPrm = async (input: string | URL | Request) => {
  const url = input instanceof Request ? input.url : String(input);
  return url.includes('/.well-known/oauth-protected-resource')
    ? Response.json({ resource: SERVER, authorization_servers: ['http://127.0.0.1:9/'] })
    : new Response('Not Found', { status: 404 });
};
const offline = async () => { throw new TypeError('fetch failed'); };

describe('OAuth: 2025-03-26 issuer on the server\'s own origin', () => {
  it('accepts an issuer under a path of the server\'s origin when the server has no protected-resource metadata', async () => {
    const why = await legacySameOriginIssuer(new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/oauth'), SERVER, noPrm);
    assert.match(why ?? '', /issuer http:\/\/127\.0\.0\.1:9\/oauth; accepted because it is on the server's own origin/);
  });

  it('finds the mismatch as the cause of a wrapping error', async () => {
    const err = new Error('connect failed', { cause: new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/oauth') });
    assert.ok(await legacySameOriginIssuer(err, SERVER, noPrm));
  });

  it('refuses when the server publishes protected-resource metadata, or the network fails', async () => {
    const err = new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/oauth');
    assert.equal(await legacySameOriginIssuer(err, SERVER, withPrm), undefined);
    assert.equal(await legacySameOriginIssuer(err, SERVER, offline), undefined);
  });

  it('refuses an issuer on another origin, metadata looked up elsewhere, an iss mismatch, and other errors', async () => {
    const cases: unknown[] = [
      new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'http://127.0.0.1:10/oauth'),
      new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'https://127.0.0.1:9/oauth'),
      new IssuerMismatchError('metadata', 'https://as.example/', 'http://127.0.0.1:9/oauth'),
      new IssuerMismatchError('metadata', 'http://127.0.0.1:9/tenant', 'http://127.0.0.1:9/oauth'),
      new IssuerMismatchError('authorization_response', 'http://127.0.0.1:9/', 'http://127.0.0.1:9/oauth'),
      new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', undefined),
      new IssuerMismatchError('metadata', 'http://127.0.0.1:9/', 'not a url'),
      new Error('HTTP 401'),
      undefined,
    ];
    for (const err of cases) assert.equal(await legacySameOriginIssuer(err, SERVER, noPrm), undefined, String(err));
  });
});
