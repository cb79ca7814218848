/**
 * A secret linter: env and header values that look like credentials written in plain text, with the
 * `${input:…}` to use instead. Messages name the setting, never the value.
 */
import type { ConfigError } from '../types';
import * as l10n from '@vscode/l10n';
import { joinPath } from './paths';
import type { RawServer } from './validate';

const SECRET_NAME = /(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?|AUTH)/i;
const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|x-auth-token|cookie)$/i;
/** Placeholders people leave in examples; not secrets. */
const PLACEHOLDER = /^(<[^>]*>|your[-_ ].*|xxx+|\*+|changeme|todo|)$/i;

/** A suggested input id for a variable or header name: `GITHUB_TOKEN` → `github-token`. */
export function suggestInputId(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'secret';
}

/** Literal secrets in a validated server definition, as warnings. */
export function lintSecrets(raw: RawServer): ConfigError[] {
  const out: ConfigError[] = [];
  const check = (kind: 'env' | 'headers', name: string, value: string | null | undefined, looksSecret: boolean) => {
    if (!looksSecret || typeof value !== 'string' || value.includes('${')) return;
    const bare = kind === 'headers' ? value.replace(/^(Bearer|Basic|Token)\s+/i, '') : value;
    if (PLACEHOLDER.test(bare.trim()) || bare.length < 8) return;
    const path = joinPath(joinPath(raw.path, kind), name);
    const id = suggestInputId(name === 'Authorization' ? `${raw.name}-token` : name);
    const prefix = kind === 'headers' && bare !== value ? `${value.slice(0, value.length - bare.length)}` : '';
    out.push({
      server: raw.name, path,
      message: l10n.t('Server "{0}": the value of {1} looks like a secret written in plain text; replace it with {2} and add {3} to the inputs, so it is kept in secret storage.',
        raw.name, path, `"${prefix}\${input:${id}}"`, `{ "id": "${id}", "type": "promptString", "password": true }`),
    });
  };
  for (const [k, v] of Object.entries(raw.env ?? {})) check('env', k, v, SECRET_NAME.test(k));
  for (const [k, v] of Object.entries(raw.headers ?? {})) check('headers', k, v, SECRET_HEADER.test(k) || SECRET_NAME.test(k));
  return out;
}
