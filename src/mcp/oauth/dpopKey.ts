/**
 * DPoP keys at rest (SEP-1932, RFC 9449): one ES256 key per server and authorization server, made with the
 * SDK's `generateDpopKeyPair` and kept as a private JWK in the OAuth key storage (the extension's
 * SecretStorage; the CLI's own 0600 file). In memory the key is re-imported non-extractable, so nothing
 * the process logs or serialises can carry it out. A stored value that is not a usable key is an Error
 * naming the server, where it is kept and the fix; it is never overwritten silently (tokens are bound to it).
 */
import * as l10n from '@vscode/l10n';
import { McpHostError } from '../errors';
import { createHash, webcrypto } from 'node:crypto';
import { generateDpopKeyPair, type DpopKeyPair } from '@modelcontextprotocol/client';
import type { OAuthStorage } from './provider';

/** The storage name of the key for `issuer` (a hash: the editor keeps SecretStorage's keys in clear). */
export function dpopStorageKey(issuer: string): string {
  return `dpop:${createHash('sha256').update(issuer).digest('hex').slice(0, 32)}`;
}

interface StoredKey {
  alg: 'ES256';
  jwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string; d: string };
}

const b64url = /^[A-Za-z0-9_-]+$/;

function parseStored(raw: string): StoredKey | undefined {
  let v: unknown;
  try { v = JSON.parse(raw); } catch { return undefined; }
  const k = v as Partial<StoredKey> | null;
  const j = k?.jwk;
  if (!k || k.alg !== 'ES256' || !j || j.kty !== 'EC' || j.crv !== 'P-256') return undefined;
  if (![j.x, j.y, j.d].every(p => typeof p === 'string' && b64url.test(p))) return undefined;
  return { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: j.x, y: j.y, d: j.d } };
}

/** RFC 7638 JWK SHA-256 thumbprint of an EC public key (members crv, kty, x, y in that order). */
function thumbprint(jwk: { crv: string; kty: string; x: string; y: string }): string {
  return createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');
}

/** The key pair for signing: private key non-extractable, public JWK without `d`. */
async function importKey(stored: StoredKey): Promise<DpopKeyPair> {
  const { d: _d, ...pub } = stored.jwk;
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const privateKey = await webcrypto.subtle.importKey('jwk', { ...stored.jwk, ext: false }, algorithm, false, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('jwk', pub, algorithm, true, ['verify']);
  return { privateKey, publicKey, publicJwk: { ...pub }, thumbprint: thumbprint(pub), alg: 'ES256' } as DpopKeyPair;
}


/**
 * The DPoP key pair under `name` in `storage` and the stored text: read and imported, or (none stored) made,
 * stored and imported. An unreadable store or a stored value that is not an ES256 private JWK is an Error naming
 * `server` and the fix.
 */
export async function loadOrCreateDpopKey(storage: OAuthStorage, name: string, server: string, issuer: string): Promise<{ keyPair: DpopKeyPair; stored: string }> {
  let raw: string | undefined;
  try {
    raw = await storage.get(name);
  } catch (err) {
    throw new McpHostError(l10n.t('server "{0}": the DPoP key for the authorization server {1} cannot be read: {2}', server, issuer, err instanceof Error ? err.message : String(err)));
  }
  if (raw !== undefined) {
    const stored = parseStored(raw);
    if (!stored) throw new McpHostError(l10n.t('server "{0}": the DPoP key for the authorization server {1} is stored but is not an ES256 key (damaged or written by something else); sign out of the server (CLI: delete the key file it names) to make a new key, then sign in again', server, issuer));
    try {
      return { keyPair: await importKey(stored), stored: raw };
    } catch {
      throw new McpHostError(l10n.t('server "{0}": the DPoP key for the authorization server {1} is stored but is not a valid P-256 key; sign out of the server (CLI: delete the key file) to make a new key, then sign in again', server, issuer));
    }
  }
  const fresh = await generateDpopKeyPair({ alg: 'ES256', extractable: true });
  const jwk = await webcrypto.subtle.exportKey('jwk', fresh.privateKey) as StoredKey['jwk'];
  const stored: StoredKey = { alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, d: jwk.d } };
  const text = JSON.stringify(stored);
  try {
    await storage.set(name, text);
  } catch (err) {
    throw new McpHostError(l10n.t('server "{0}": the DPoP key for the authorization server {1} cannot be stored: {2}', server, issuer, err instanceof Error ? err.message : String(err)));
  }
  return { keyPair: await importKey(stored), stored: text };
}
