/**
 * A configuration problem in words: each ajv error of a server definition or an input becomes a ConfigError naming
 * the server (or input), the setting path, the bad value (secrets hidden) and the fix. validate.ts finds them.
 */
import type { ErrorObject } from 'ajv';
import type { ConfigError } from '../types';
import { getOwn } from '../schema/own';
import { inputSchema, serverSchema } from './schema';
import { closest, describeValue, isSecretPath, joinPath, joinPointer, relativePath, truncate, typeName } from './paths';

/** The properties a server definition may have (the schema's). */
export const SERVER_PROPERTIES = Object.keys(serverSchema.properties);

/** Properties other MCP clients use, and what to write instead. */
const FOREIGN_PROPERTIES: Record<string, string> = {
  serverUrl: 'use `url` (this is Windsurf\'s name for it)',
  transport: 'use `type` (`stdio`, `http` or `sse`)',
  transportType: 'use `type` (`stdio`, `http` or `sse`)',
  environment: 'use `env`',
  workingDirectory: 'use `cwd`',
  alwaysAllow: 'remove it: tool approval is not configured here',
  autoApprove: 'remove it: tool approval is not configured here',
  options: 'move `cwd`/`env` out of `options` onto the server itself',
};

const TYPE_ALIASES: Record<string, 'stdio' | 'http' | 'sse'> = {
  'streamable-http': 'http', streamablehttp: 'http', 'streamable_http': 'http', https: 'http', remote: 'http',
  local: 'stdio', process: 'stdio', command: 'stdio',
};

const INPUT_PROPERTIES = Object.keys(inputSchema.properties);

export function valueAt(def: unknown, pointer: string): unknown {
  let cur: unknown = def;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

export function typeFix(expected: string, value: unknown, rel: string): string {
  if (rel === 'type') return 'write "stdio", "http" or "sse"';
  if (expected.includes('string') && (typeof value === 'number' || typeof value === 'boolean')) {
    return 'put the value in quotes';
  }
  if (rel === 'command' && Array.isArray(value)) {
    const [cmd, ...rest] = value.map(String);
    return `put the program in \`command\` and its arguments in \`args\`: "command": ${JSON.stringify(cmd ?? '')}, "args": ${truncate(JSON.stringify(rest))}`;
  }
  if ((rel === 'env' || rel === 'headers') && Array.isArray(value) && value.length > 0 && value.every(v => typeof v === 'string' && v.includes(rel === 'env' ? '=' : ':'))) {
    const sep = rel === 'env' ? '=' : ':';
    return `write an object of names to strings instead of a list, e.g. { ${JSON.stringify((value[0] as string).split(sep)[0].trim())}: "…" }`;
  }
  if (expected === 'string') return 'write the value as a string (in quotes)';
  if (expected === 'array' && typeof value === 'string') {
    return rel === 'args'
      ? 'write one string per argument, e.g. ["-y", "some-package"]'
      : `wrap it in brackets: [${JSON.stringify(value)}]`;
  }
  if (expected === 'object') {
    if (rel === 'env' || rel === 'headers') return 'write an object of names to strings, e.g. { "NAME": "value" }';
    return 'write an object, e.g. { … }';
  }
  if (expected === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value)) {
    return `remove the quotes: ${value.toLowerCase()}`;
  }
  if (expected === 'integer' || expected === 'number') {
    if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return `remove the quotes: ${Number(value)}`;
    if (typeof value === 'number') return `use a whole number such as ${Math.round(value)}`;
    return 'write a number';
  }
  if (expected === 'boolean') return 'write true or false (without quotes)';
  return `use ${article(expected)}`;
}

export function article(t: string): string {
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}

/** Turns one ajv error into a ConfigError, or undefined for errors that only echo others (`if`, `anyOf`). */
export function serverError(name: string, path: string, def: Record<string, unknown>, e: ErrorObject): ConfigError | undefined {
  const where = joinPointer(path, e.instancePath);
  const rel = relativePath(e.instancePath);
  const value = valueAt(def, e.instancePath);
  const shown = describeValue(rel, value);
  const at = (p: string, message: string): ConfigError => ({ server: name, path: p, message: `Server "${name}": ${message}` });
  switch (e.keyword) {
    case 'if':
    case 'anyOf':
      return undefined;
    case 'type': {
      const expected = String((e.params as { type: string | string[] }).type);
      const exp = expected === 'string,null' ? 'a string or null' : article(expected);
      const subject = isSecretPath(rel) ? `the value of ${where} is` : `${where} is ${shown},`;
      return at(where, `${subject} ${typeName(value)}; expected ${exp} — ${typeFix(expected.split(',')[0], value, rel)}.`);
    }
    case 'additionalProperties': {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      const propPath = joinPath(where, prop);
      const parentRel = rel;
      const candidates = parentRel === ''
        ? SERVER_PROPERTIES
        : parentRel === 'timeout' ? ['startup', 'request']
        : parentRel === 'sampling' ? ['allowedModels', 'model', 'maxRequestsPerMinute', 'maxTokens'] : [];
      const foreign = parentRel === '' ? getOwn(FOREIGN_PROPERTIES, prop) : undefined;
      const guess = closest(prop, candidates);
      const fix = foreign ?? (guess ? `did you mean \`${guess}\`?` : `remove it; allowed here: ${candidates.map(c => `\`${c}\``).join(', ')}.`);
      return at(propPath, `unknown property \`${prop}\` at ${propPath} — ${fix}`);
    }
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
      let fix: string;
      const alias = typeof value === 'string' && rel === 'type' ? getOwn(TYPE_ALIASES, value.toLowerCase()) : undefined;
      const guess = typeof value === 'string' ? closest(value, allowed) : undefined;
      if (alias) fix = `did you mean "${alias}"?`;
      else if (guess) fix = `did you mean "${guess}"?`;
      else fix = `use one of ${allowed.map(a => `"${a}"`).join(', ')}.`;
      return at(where, `${where} is ${shown}; ${fix}${alias || guess ? ` (allowed: ${allowed.join(', ')})` : ''}`);
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const type = def.type;
      if (missing === 'command' && type === 'stdio') {
        return at(joinPath(path, 'command'), `\`type\` is \`stdio\` but there is no \`command\` at ${joinPath(path, 'command')}; add the program to run, e.g. "command": "npx"${typeof def.url === 'string' ? ', or set "type": "http" for a server at a URL' : ''}.`);
      }
      if (missing === 'url' && (type === 'http' || type === 'sse')) {
        return at(joinPath(path, 'url'), `\`type\` is \`${type}\` but there is no \`url\` at ${joinPath(path, 'url')}; add the server's address, e.g. "url": "https://example.com/mcp"${typeof def.command === 'string' ? ', or set "type": "stdio" to launch `command`' : ''}.`);
      }
      if ((missing === 'command' || missing === 'url') && type === undefined) {
        return at(path, `${path} has neither \`command\` nor \`url\`; add "command" (a program to launch, stdio) or "url" (a remote http/sse server).`);
      }
      return at(joinPath(where, missing), `${joinPath(where, missing)} is missing; add it.`);
    }
    case 'minimum':
    case 'maximum': {
      const limit = (e.params as { limit: number }).limit;
      const isTimeout = rel.startsWith('timeout');
      let fix = e.keyword === 'minimum' ? `use at least ${limit}` : `use at most ${limit}`;
      if (isTimeout && typeof value === 'number' && e.keyword === 'minimum' && value > 0 && value * 1000 >= limit) {
        fix += ` (timeouts are in milliseconds: did you mean ${value * 1000}?)`;
      } else if (isTimeout) fix += ' (milliseconds)';
      return at(where, `${where} is ${shown}; ${fix}.`);
    }
    case 'minLength':
      return at(where, `${where} is empty; ${rel === 'command' ? 'name the program to run, e.g. "npx"' : rel === 'url' ? 'write the server\'s address, e.g. "https://example.com/mcp"' : 'write a value or remove the property'}.`);
    case 'uniqueItems': {
      const { i, j } = e.params as { i: number; j: number };
      return at(where, `${where} lists the same value twice (items ${j} and ${i}); remove the duplicate.`);
    }
    case 'minProperties':
    case 'maxProperties':
    case 'pattern':
    case 'format':
    case 'const':
    default:
      return at(where, `${where} is ${shown}: ${e.message ?? 'invalid'}; fix the value to match the schema.`);
  }
}


export function inputError(label: string, path: string, entry: unknown, e: ErrorObject): ConfigError {
  const where = joinPointer(path, e.instancePath);
  const rel = relativePath(e.instancePath);
  // Defaults of password inputs are secrets too.
  const value = valueAt(entry, e.instancePath);
  const shown = rel === 'default' ? 'the default value' : describeValue(rel, value);
  const msg = (m: string): ConfigError => ({ path: where, message: `${label}: ${m}` });
  switch (e.keyword) {
    case 'type': {
      if (e.instancePath === '') return msg(`${where} is ${shown} (${typeName(value)}); expected an object such as { "id": "api-token", "type": "promptString" }.`);
      const expected = String((e.params as { type: string }).type);
      return msg(`${where} is ${shown}, ${typeName(value)}; expected ${article(expected)} — ${typeFix(expected, value, rel)}.`);
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const fix = missing === 'id' ? 'add "id": "some-name" and refer to it as ${input:some-name}' : 'add "type": "promptString"';
      return { path: joinPath(where, missing), message: `${label}: ${joinPath(where, missing)} is missing; ${fix}.` };
    }
    case 'additionalProperties': {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      const guess = closest(prop, INPUT_PROPERTIES);
      const fix = prop === 'options' ? 'remove it: only promptString inputs are supported' : guess ? `did you mean \`${guess}\`?` : `remove it; allowed: ${INPUT_PROPERTIES.join(', ')}.`;
      return { path: joinPath(where, prop), message: `${label}: unknown property \`${prop}\` at ${joinPath(where, prop)} — ${fix}` };
    }
    case 'enum':
      return msg(`${where} is ${shown}; only "promptString" is supported (pickString and command inputs are not).`);
    case 'pattern':
      return msg(`${where} is ${shown}; use letters, digits, \`_\`, \`.\` and \`-\` only.`);
    default:
      return msg(`${where} is ${shown}: ${e.message ?? 'invalid'}.`);
  }
}
