/**
 * Workload identity federation (SEP-1933): the workload's identity token for the jwt-bearer grant, from
 * the file or environment variable a server's `workloadIdentity` names. Read afresh at each sign-in
 * (platforms rotate these tokens), bounded, and checked to be a JWT, so a definition cannot send some
 * other file to an authorization server. Errors name the server, the setting and the fix; they never
 * quote the token.
 */
import { promises as fs } from 'node:fs';
import type { HttpServerDefinition } from '../types';
import type { WorkloadIdentity } from './provider';

/** The most a token file may hold (platform tokens are a few KiB). */
export const MAX_WORKLOAD_TOKEN_BYTES = 64 * 1024;

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The provider's workload identity for `def` (undefined when it has no `workloadIdentity`). `env` is the
 * environment `tokenEnv` is read from (default: this process's).
 */
export function workloadIdentityFor(def: HttpServerDefinition, env: NodeJS.ProcessEnv = process.env): WorkloadIdentity | undefined {
  const wi = def.workloadIdentity;
  if (!wi) return undefined;
  const where = `server "${def.name}": workloadIdentity`;
  const check = (token: string, source: string, fix: string): string => {
    const t = token.trim();
    if (!t) throw new Error(`${where}: ${source} is empty; ${fix}`);
    if (!JWT.test(t)) throw new Error(`${where}: ${source} does not hold a JWT (three base64url parts separated by dots); ${fix}`);
    return t;
  };
  return {
    clientId: wi.clientId,
    token: async () => {
      if (wi.tokenEnv !== undefined) {
        const v = env[wi.tokenEnv];
        const fix = `set ${wi.tokenEnv} to the workload's identity token in the environment the host runs in, or use \`tokenFile\``;
        if (v === undefined) throw new Error(`${where}: the environment variable ${wi.tokenEnv} (tokenEnv) is not set; ${fix}`);
        return check(v, `the environment variable ${wi.tokenEnv} (tokenEnv)`, fix);
      }
      const file = wi.tokenFile ?? '';
      const fix = `point tokenFile at the token file your platform writes (e.g. a projected service-account token), or use \`tokenEnv\``;
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, 'r');
      } catch (err) {
        throw new Error(`${where}: cannot read tokenFile ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)}); ${fix}`);
      }
      try {
        const st = await handle.stat();
        if (!st.isFile()) throw new Error(`${where}: tokenFile ${file} is not a file; ${fix}`);
        if (st.size > MAX_WORKLOAD_TOKEN_BYTES) throw new Error(`${where}: tokenFile ${file} is ${st.size} bytes, more than a token (${MAX_WORKLOAD_TOKEN_BYTES} at most); ${fix}`);
        const buf = Buffer.alloc(MAX_WORKLOAD_TOKEN_BYTES + 1);
        const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
        if (bytesRead > MAX_WORKLOAD_TOKEN_BYTES) throw new Error(`${where}: tokenFile ${file} holds more than a token (${MAX_WORKLOAD_TOKEN_BYTES} bytes at most); ${fix}`);
        return check(buf.subarray(0, bytesRead).toString('utf8'), `tokenFile ${file}`, fix);
      } finally {
        await handle.close();
      }
    },
  };
}
