/**
 * Workload identity federation (SEP-1933): the workload's identity token for the jwt-bearer grant, from
 * the file or environment variable a server's `workloadIdentity` names. Read afresh at each sign-in
 * (platforms rotate these tokens), bounded, and checked to be a JWT, so a definition cannot send some
 * other file to an authorization server. Errors name the server, the setting and the fix; they never
 * quote the token.
 */
import { McpHostError } from '../errors';
import * as l10n from '@vscode/l10n';
import { BoundedReadError, READ_CAPS, readBoundedText } from '../boundedRead';
import type { HttpServerDefinition } from '../types';
import type { WorkloadIdentity } from './provider';

/** The most a token file may hold (platform tokens are a few KiB). */
export const MAX_WORKLOAD_TOKEN_BYTES = READ_CAPS.keyFile;

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The provider's workload identity for `def` (undefined when it has no `workloadIdentity`). `env` is the
 * environment `tokenEnv` is read from (default: this process's).
 */
export function workloadIdentityFor(def: HttpServerDefinition, env: NodeJS.ProcessEnv = process.env): WorkloadIdentity | undefined {
  const wi = def.workloadIdentity;
  if (!wi) return undefined;
  const check = (token: string, source: string, fix: string): string => {
    const t = token.trim();
    if (!t) throw new McpHostError(l10n.t('server "{0}": workloadIdentity: {1} is empty; {2}', def.name, source, fix));
    if (!JWT.test(t)) throw new McpHostError(l10n.t('server "{0}": workloadIdentity: {1} does not hold a JWT (three base64url parts separated by dots); {2}', def.name, source, fix));
    return t;
  };
  return {
    clientId: wi.clientId,
    token: async () => {
      if (wi.tokenEnv !== undefined) {
        const v = env[wi.tokenEnv];
        const fix = l10n.t('set {0} to the workload\'s identity token in the environment the host runs in, or use `tokenFile`', wi.tokenEnv);
        const source = l10n.t('the environment variable {0} (tokenEnv)', wi.tokenEnv);
        if (v === undefined) throw new McpHostError(l10n.t('server "{0}": workloadIdentity: {1} is not set; {2}', def.name, source, fix));
        return check(v, source, fix);
      }
      const file = wi.tokenFile ?? '';
      const fix = l10n.t('point tokenFile at the token file your platform writes (e.g. a projected service-account token), or use `tokenEnv`');
      let text: string;
      try {
        text = await readBoundedText(file, { maxBytes: MAX_WORKLOAD_TOKEN_BYTES, what: 'tokenFile' });
      } catch (err) {
        if (err instanceof BoundedReadError) {
          throw new McpHostError(err.kind === 'too-large'
            ? l10n.t('server "{0}": workloadIdentity: tokenFile {1} holds more than a token, {2}; {3}', def.name, file, err.why, fix)
            : l10n.t('server "{0}": workloadIdentity: tokenFile {1} cannot be used, {2}; {3}', def.name, file, err.why, fix));
        }
        throw new McpHostError(l10n.t('server "{0}": workloadIdentity: cannot read tokenFile {1} ({2}); {3}', def.name, file, (err as NodeJS.ErrnoException).code ?? String(err), fix));
      }
      return check(text, l10n.t('tokenFile {0}', file), fix);
    },
  };
}
