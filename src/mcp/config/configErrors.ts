/**
 * A configuration problem in words: each ajv error of a server definition or an input becomes a ConfigError naming
 * the server (or input), the setting path, the bad value (secrets hidden) and the fix. validate.ts finds them.
 */
import type { ErrorObject } from 'ajv';
import * as l10n from '@vscode/l10n';
import type { ConfigError } from '../types';
import { getOwn } from '../schema/own';
import { inputSchema, serverSchema } from './schema';
import { closest, describeValue, isSecretPath, joinPath, joinPointer, relativePath, truncate, typeName, typeWord } from './paths';

/** The properties a server definition may have (the schema's). */
export const SERVER_PROPERTIES = Object.keys(serverSchema.properties);

/** Properties other MCP clients use, and what to write instead (a function: the text is made in the display language). */
const FOREIGN_PROPERTIES = (): Record<string, string> => ({
  serverUrl: l10n.t('use `url` (this is Windsurf\'s name for it)'),
  transport: l10n.t('use `type` (`stdio`, `http` or `sse`)'),
  transportType: l10n.t('use `type` (`stdio`, `http` or `sse`)'),
  environment: l10n.t('use `env`'),
  workingDirectory: l10n.t('use `cwd`'),
  alwaysAllow: l10n.t('remove it: tool approval is not configured here'),
  autoApprove: l10n.t('remove it: tool approval is not configured here'),
  options: l10n.t('move `cwd`/`env` out of `options` onto the server itself'),
});

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
  if (rel === 'type') return l10n.t('write "stdio", "http" or "sse"');
  if (expected.includes('string') && (typeof value === 'number' || typeof value === 'boolean')) {
    return l10n.t('put the value in quotes');
  }
  if (rel === 'command' && Array.isArray(value)) {
    const [cmd, ...rest] = value.map(String);
    return l10n.t('put the program in `command` and its arguments in `args`: "command": {0}, "args": {1}', JSON.stringify(cmd ?? ''), truncate(JSON.stringify(rest)));
  }
  if ((rel === 'env' || rel === 'headers') && Array.isArray(value) && value.length > 0 && value.every(v => typeof v === 'string' && v.includes(rel === 'env' ? '=' : ':'))) {
    const sep = rel === 'env' ? '=' : ':';
    return l10n.t('write an object of names to strings instead of a list, e.g. {0}', `{ ${JSON.stringify((value[0] as string).split(sep)[0].trim())}: "…" }`);
  }
  if (expected === 'string') return l10n.t('write the value as a string (in quotes)');
  if (expected === 'array' && typeof value === 'string') {
    return rel === 'args'
      ? l10n.t('write one string per argument, e.g. ["-y", "some-package"]')
      : l10n.t('wrap it in brackets: {0}', `[${JSON.stringify(value)}]`);
  }
  if (expected === 'object') {
    if (rel === 'env' || rel === 'headers') return l10n.t('write an object of names to strings, e.g. { "NAME": "value" }');
    return l10n.t('write an object, e.g. { … }');
  }
  if (expected === 'boolean' && typeof value === 'string' && /^(true|false)$/i.test(value)) {
    return l10n.t('remove the quotes: {0}', value.toLowerCase());
  }
  if (expected === 'integer' || expected === 'number') {
    if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return l10n.t('remove the quotes: {0}', Number(value));
    if (typeof value === 'number') return l10n.t('use a whole number such as {0}', Math.round(value));
    return l10n.t('write a number');
  }
  if (expected === 'boolean') return l10n.t('write true or false (without quotes)');
  return l10n.t('use {0}', article(expected));
}

export function article(t: string): string {
  return typeWord(t) ?? (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`);
}

/** Turns one ajv error into a ConfigError, or undefined for errors that only echo others (`if`, `anyOf`). */
export function serverError(name: string, path: string, def: Record<string, unknown>, e: ErrorObject): ConfigError | undefined {
  const where = joinPointer(path, e.instancePath);
  const rel = relativePath(e.instancePath);
  const value = valueAt(def, e.instancePath);
  const shown = describeValue(rel, value);
  const at = (p: string, message: string): ConfigError => ({ server: name, path: p, message: l10n.t('Server "{0}": {1}', name, message) });
  switch (e.keyword) {
    case 'if':
    case 'anyOf':
      return undefined;
    case 'type': {
      const expected = String((e.params as { type: string | string[] }).type);
      const exp = expected === 'string,null' ? l10n.t('a string or null') : article(expected);
      const fix = typeFix(expected.split(',')[0], value, rel);
      return at(where, isSecretPath(rel)
        ? l10n.t('the value of {0} is {1}; expected {2} — {3}.', where, typeName(value), exp, fix)
        : l10n.t('{0} is {1}, {2}; expected {3} — {4}.', where, shown, typeName(value), exp, fix));
    }
    case 'additionalProperties': {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      const propPath = joinPath(where, prop);
      const parentRel = rel;
      const candidates = parentRel === '' ? SERVER_PROPERTIES : propertiesAt(parentRel);
      const foreign = parentRel === '' ? getOwn(FOREIGN_PROPERTIES(), prop) : undefined;
      const guess = closest(prop, candidates);
      const fix = foreign ?? (guess ? l10n.t('did you mean `{0}`?', guess) : l10n.t('remove it; allowed here: {0}.', candidates.map(c => `\`${c}\``).join(', ')));
      return at(propPath, l10n.t('unknown property `{0}` at {1} — {2}', prop, propPath, fix));
    }
    case 'enum': {
      const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map(String);
      let fix: string;
      const alias = typeof value === 'string' && rel === 'type' ? getOwn(TYPE_ALIASES, value.toLowerCase()) : undefined;
      const guess = typeof value === 'string' ? closest(value, allowed) : undefined;
      if (alias) fix = l10n.t('did you mean "{0}"?', alias);
      else if (guess) fix = l10n.t('did you mean "{0}"?', guess);
      else fix = l10n.t('use one of {0}.', allowed.map(a => `"${a}"`).join(', '));
      return at(where, alias || guess
        ? l10n.t('{0} is {1}; {2} (allowed: {3})', where, shown, fix, allowed.join(', '))
        : l10n.t('{0} is {1}; {2}', where, shown, fix));
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const type = def.type;
      if (missing === 'command' && type === 'stdio') {
        return at(joinPath(path, 'command'), typeof def.url === 'string'
          ? l10n.t('`type` is `stdio` but there is no `command` at {0}; add the program to run, e.g. "command": "npx", or set "type": "http" for a server at a URL.', joinPath(path, 'command'))
          : l10n.t('`type` is `stdio` but there is no `command` at {0}; add the program to run, e.g. "command": "npx".', joinPath(path, 'command')));
      }
      if (missing === 'url' && (type === 'http' || type === 'sse')) {
        return at(joinPath(path, 'url'), typeof def.command === 'string'
          ? l10n.t('`type` is `{0}` but there is no `url` at {1}; add the server\'s address, e.g. "url": "https://example.com/mcp", or set "type": "stdio" to launch `command`.', type, joinPath(path, 'url'))
          : l10n.t('`type` is `{0}` but there is no `url` at {1}; add the server\'s address, e.g. "url": "https://example.com/mcp".', type, joinPath(path, 'url')));
      }
      if ((missing === 'command' || missing === 'url') && type === undefined) {
        return at(path, l10n.t('{0} has neither `command` nor `url`; add "command" (a program to launch, stdio) or "url" (a remote http/sse server).', path));
      }
      return at(joinPath(where, missing), l10n.t('{0} is missing; add it.', joinPath(where, missing)));
    }
    case 'minimum':
    case 'maximum': {
      const limit = (e.params as { limit: number }).limit;
      const isTimeout = rel.startsWith('timeout');
      let fix = e.keyword === 'minimum' ? l10n.t('use at least {0}', limit) : l10n.t('use at most {0}', limit);
      if (isTimeout && typeof value === 'number' && e.keyword === 'minimum' && value > 0 && value * 1000 >= limit) {
        fix = l10n.t('{0} (timeouts are in milliseconds: did you mean {1}?)', fix, value * 1000);
      } else if (isTimeout) fix = l10n.t('{0} (milliseconds)', fix);
      return at(where, l10n.t('{0} is {1}; {2}.', where, shown, fix));
    }
    case 'minLength':
      return at(where, rel === 'command' ? l10n.t('{0} is empty; name the program to run, e.g. "npx".', where)
        : rel === 'url' ? l10n.t('{0} is empty; write the server\'s address, e.g. "https://example.com/mcp".', where)
        : l10n.t('{0} is empty; write a value or remove the property.', where));
    case 'uniqueItems': {
      const { i, j } = e.params as { i: number; j: number };
      return at(where, l10n.t('{0} lists the same value twice (items {1} and {2}); remove the duplicate.', where, j, i));
    }
    case 'minProperties':
    case 'maxProperties':
    case 'pattern':
    case 'format':
    case 'const':
    default:
      return at(where, l10n.t('{0} is {1}: {2}; fix the value to match the schema.', where, shown, e.message ?? l10n.t('invalid')));
  }
}


export function inputError(label: string, path: string, entry: unknown, e: ErrorObject): ConfigError {
  const where = joinPointer(path, e.instancePath);
  const rel = relativePath(e.instancePath);
  // Defaults of password inputs are secrets too.
  const value = valueAt(entry, e.instancePath);
  const shown = rel === 'default' ? l10n.t('the default value') : describeValue(rel, value);
  const msg = (m: string): ConfigError => ({ path: where, message: l10n.t('{0}: {1}', label, m) });
  switch (e.keyword) {
    case 'type': {
      if (e.instancePath === '') return msg(l10n.t('{0} is {1} ({2}); expected an object such as {3}.', where, shown, typeName(value), '{ "id": "api-token", "type": "promptString" }'));
      const expected = String((e.params as { type: string }).type);
      return msg(l10n.t('{0} is {1}, {2}; expected {3} — {4}.', where, shown, typeName(value), article(expected), typeFix(expected, value, rel)));
    }
    case 'required': {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      const fix = missing === 'id' ? l10n.t('add "id": "some-name" and refer to it as {0}', '${input:some-name}') : l10n.t('add "type": "promptString"');
      return { path: joinPath(where, missing), message: l10n.t('{0}: {1} is missing; {2}.', label, joinPath(where, missing), fix) };
    }
    case 'additionalProperties': {
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      const guess = closest(prop, INPUT_PROPERTIES);
      const fix = prop === 'options' ? l10n.t('remove it: only promptString inputs are supported') : guess ? l10n.t('did you mean `{0}`?', guess) : l10n.t('remove it; allowed: {0}.', INPUT_PROPERTIES.join(', '));
      return { path: joinPath(where, prop), message: l10n.t('{0}: unknown property `{1}` at {2} — {3}', label, prop, joinPath(where, prop), fix) };
    }
    case 'enum':
      return msg(l10n.t('{0} is {1}; only "promptString" is supported (pickString and command inputs are not).', where, shown));
    case 'pattern':
      return msg(l10n.t('{0} is {1}; use letters, digits, `_`, `.` and `-` only.', where, shown));
    default:
      return msg(l10n.t('{0} is {1}: {2}.', where, shown, e.message ?? l10n.t('invalid')));
  }
}

/**
 * The property names the server schema allows in the object at a server-relative path (`timeout`, `sampling`,
 * `sandbox.filesystem`…), read from the schema itself so a new nested property needs no edit here; none when the
 * path is not an object with listed properties.
 */
function propertiesAt(rel: string): string[] {
  let node: unknown = serverSchema;
  for (const part of rel.split('.')) {
    const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
    node = props ? getOwn(props, part) : undefined;
  }
  const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
  return props ? Object.keys(props) : [];
}
