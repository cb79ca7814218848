/**
 * Validation of raw `mcpHost.servers` / `mcpHost.inputs` values against the schema (ajv), one server at a
 * time so one bad definition never blocks the others. Every problem becomes a ConfigError whose message
 * names the server, the setting path, the bad value (secrets hidden) and a fix (worded in configErrors.ts).
 */
import type { ValidateFunction } from 'ajv';
import * as l10n from '@vscode/l10n';
import type { ConfigError, InputDefinition } from '../types';
import { COMMON_PROPERTIES, HTTP_PROPERTIES, STDIO_PROPERTIES, type IgnoredProperty, type ServerFields } from './schema';
import { compiledInputValidator, compiledServerValidator } from './validators.generated';
import { lintSecrets } from './secrets';
import { Redactor } from '../logging/redact';
import { closest, describeValue, joinPath, typeName } from './paths';
import { inputError, serverError, SERVER_PROPERTIES } from './configErrors';

/**
 * A server definition that passed validation, with `type` inferred; variables not yet resolved. Its fields are the
 * server schema's (schema.ts `ServerFields`, typed from `serverSchema`) but the ignored ones (`dev`): a new property of
 * the schema is a field here, and `toRawServer` copies it, with no edit.
 */
export interface RawServer extends Omit<ServerFields, 'type' | IgnoredProperty> {
  /** The key under `servers`. */
  name: string;
  /** The setting path of this server, e.g. `mcpHost.servers.github`. */
  path: string;
  type: NonNullable<ServerFields['type']>;
  /** True when `type` was not written and was inferred from `command` / `url`. */
  typeInferred: boolean;
}

export interface ParseOptions {
  /** Prefix of every setting path; default `mcpHost.servers` (or `mcpHost.inputs` for parseInputs). */
  settingPrefix?: string;
}

export interface ParseServersResult {
  servers: RawServer[];
  errors: ConfigError[];
  /**
   * Problems that do not stop a server: a property that only applies to the other transport type,
   * a secret written in plain text (see lintSecrets).
   */
  warnings: ConfigError[];
}

/**
 * The validators of one server definition and one input: ajv standalone code precompiled from schema.ts by
 * scripts/gen-config-validators.mjs (options: allErrors, strict, allowUnionTypes, the editor's keywords), so a
 * settings sync never compiles a schema (the cold compile was over 100 ms of the extension's first sync and of
 * every CLI run). test/unit/config.validators.test.ts fails when the generated file is stale.
 */
export function getServerValidator(): ValidateFunction {
  return compiledServerValidator as ValidateFunction;
}

function getInputValidator(): ValidateFunction {
  return compiledInputValidator as ValidateFunction;
}

const nonEmptyString = (v: unknown) => typeof v === 'string' && v.length > 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The properties of a plain stdio definition, each with what the schema asks of its value (minLength 1 counts code
 * points, so any non-empty string passes). A Map: a key such as `constructor` or `__proto__` is never found in it.
 */
const PLAIN_STDIO = new Map<string, (v: unknown) => boolean>([
  ['type', v => v === 'stdio'],
  ['command', nonEmptyString],
  ['args', v => {
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'string') return false;
    return true;
  }],
  ['env', v => {
    if (!isObject(v)) return false;
    for (const k in v) if (typeof v[k] !== 'string' && v[k] !== null) return false;
    return true;
  }],
  ['envFile', nonEmptyString],
  ['cwd', nonEmptyString],
  ['disabled', v => typeof v === 'boolean'],
  ['autoStart', v => typeof v === 'boolean'],
]);

/**
 * True only for a definition the server schema certainly accepts: an object with a non-empty `command` and nothing
 * but the properties above, each well formed (properties are walked with `for…in`, as the validator walks them).
 * False says nothing: the validator decides, and its errors name the server, the setting and the fix.
 * test/unit/config.validate.test.ts checks it never accepts what the validator rejects.
 */
export function plainStdio(def: Record<string, unknown>): boolean {
  if (!isObject(def) || !nonEmptyString(def.command)) return false;
  for (const k in def) {
    const check = PLAIN_STDIO.get(k);
    if (!check || !check(def[k])) return false;
  }
  return true;
}

/** Validates `mcpHost.servers` server by server. Never throws. */
export function parseServers(raw: unknown, opts: ParseOptions = {}): ParseServersResult {
  const prefix = opts.settingPrefix ?? 'mcpHost.servers';
  const result: ParseServersResult = { servers: [], errors: [], warnings: [] };
  if (raw === undefined || raw === null) return result;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    result.errors.push({
      path: prefix,
      message: l10n.t('{0} is {1} ({2}); expected an object whose keys are server names, e.g. {3}.', prefix, describeValue('', raw), typeName(raw),
        '{ "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] } }'),
    });
    return result;
  }
  for (const [name, def] of Object.entries(raw as Record<string, unknown>)) {
    const path = joinPath(prefix, name);
    if (!name.trim()) {
      result.errors.push({ server: name, path, message: l10n.t('{0}: a server name is empty; give the server a name such as "github".', path) });
      continue;
    }
    const errors = validateServer(name, path, def);
    if (errors.length) {
      result.errors.push(...errors);
      continue;
    }
    const { server, warnings } = toRawServer(name, path, def as Record<string, unknown>);
    result.warnings.push(...warnings, ...lintSecrets(server));
    result.servers.push(server);
  }
  return result;
}

function validateServer(name: string, path: string, def: unknown): ConfigError[] {
  if (def === null || typeof def !== 'object' || Array.isArray(def)) {
    return [{
      server: name, path,
      message: def === null || def === false
        ? l10n.t('Server "{0}" ({1}) is {2} ({3}); expected an object such as {4} or {5}. To turn a server off, keep its definition and add "disabled": true.',
          name, path, describeValue('', def), typeName(def), '{ "command": "npx", "args": [...] }', '{ "url": "https://…" }')
        : l10n.t('Server "{0}" ({1}) is {2} ({3}); expected an object such as {4} or {5}.',
          name, path, describeValue('', def), typeName(def), '{ "command": "npx", "args": [...] }', '{ "url": "https://…" }'),
    }];
  }
  // Most definitions are a plain stdio command: they are valid without running the validator, whose first call is
  // most of a cold settings sync (~10 ms of the first reconcile on a loaded machine). Anything else runs it.
  if (plainStdio(def as Record<string, unknown>)) return [];
  const validate = getServerValidator();
  const errors: ConfigError[] = [];
  if (!validate(def)) {
    const seen = new Set<string>();
    const all = validate.errors ?? [];
    // `comand` → `command`: the "did you mean" error says it all; drop the "no command/url" echo.
    const misspelt = all.some(e => {
      if (e.keyword !== 'additionalProperties' || e.instancePath !== '') return false;
      const prop = (e.params as { additionalProperty: string }).additionalProperty;
      return prop === 'serverUrl' || ['command', 'url'].includes(closest(prop, SERVER_PROPERTIES) ?? '');
    });
    const typeErrorAt = new Set(all.filter(e => e.keyword === 'type').map(e => e.instancePath));
    for (const e of all) {
      if (misspelt && e.keyword === 'required' && e.instancePath === '') continue;
      if (e.keyword !== 'type' && typeErrorAt.has(e.instancePath)) continue;
      const err = serverError(name, path, def as Record<string, unknown>, e);
      if (!err) continue;
      const key = `${err.path}\u0000${err.message}`;
      if (!seen.has(key)) { seen.add(key); errors.push(err); }
    }
    if (!errors.length) {
      errors.push({ server: name, path, message: l10n.t('Server "{0}" ({1}) is not a valid server definition; check it against the examples in the settings editor.', name, path) });
    }
  }
  const url = (def as { url?: unknown }).url;
  if (typeof url === 'string' && url && !url.includes('${')) {
    const problem = checkUrl(url);
    if (problem) errors.push({ server: name, path: joinPath(path, 'url'), message: l10n.t('Server "{0}": {1} {2}', name, joinPath(path, 'url'), problem) });
  }
  return errors;
}

/** Checks a concrete URL; returns a sentence fragment describing the problem, or undefined. */
export function checkUrl(url: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    const local = /^(localhost|127\.|\[::1\]|0\.0\.0\.0)/i.test(url);
    const fixed = `${local ? 'http' : 'https'}://${url}`;
    let plausible = false;
    try { const h = new URL(fixed).hostname; plausible = local || h.includes('.'); } catch { /* not a URL either way */ }
    if (plausible) return l10n.t('is {0}, which has no scheme; write {1}.', describeValue('url', url), JSON.stringify(Redactor.none.url(fixed)));
  }
  let u: URL;
  try { u = new URL(url); } catch {
    return l10n.t('is {0}, which is not a valid URL; write a full address such as "https://example.com/mcp".', describeValue('url', url));
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return l10n.t('is {0}: the scheme `{1}` is not supported; use http:// or https://.', describeValue('url', Redactor.none.url(url)), u.protocol.replace(/:$/, ''));
  }
  return undefined;
}

function toRawServer(name: string, path: string, def: Record<string, unknown>): { server: RawServer; warnings: ConfigError[] } {
  const warnings: ConfigError[] = [];
  const typeInferred = def.type === undefined;
  const type = (def.type as RawServer['type'] | undefined) ?? (typeof def.command === 'string' ? 'stdio' : 'http');
  if (typeInferred && typeof def.command === 'string' && typeof def.url === 'string') {
    warnings.push({
      server: name, path: joinPath(path, 'type'),
      message: l10n.t('Server "{0}": {1} has both `command` and `url` and no `type`; it is treated as stdio. Set "type" to "stdio" or "http" to say which you mean.', name, path),
    });
  }
  const misplaced = type === 'stdio' ? HTTP_PROPERTIES : STDIO_PROPERTIES;
  for (const p of misplaced) {
    if (def[p] !== undefined && !(typeInferred && type === 'stdio' && p === 'url')) {
      warnings.push({
        server: name, path: joinPath(path, p),
        message: l10n.t('Server "{0}": {1} is ignored because the server\'s type is `{2}`; remove it or change "type".', name, joinPath(path, p), type),
      });
    }
  }
  const server: RawServer = { name, path, type, typeInferred };
  const copy = <K extends keyof RawServer>(k: K) => { if (def[k] !== undefined) server[k] = structuredClone(def[k]) as RawServer[K]; };
  // The fields of the table (schema.ts SERVER_FIELDS): the type's own, then the common ones (IGNORED_PROPERTIES are not).
  (type === 'stdio' ? STDIO_PROPERTIES : HTTP_PROPERTIES).forEach(copy);
  COMMON_PROPERTIES.forEach(copy);
  return { server, warnings };
}

export interface ParseInputsResult {
  inputs: InputDefinition[];
  errors: ConfigError[];
}

/** Validates `mcpHost.inputs` entry by entry. Never throws. */
export function parseInputs(raw: unknown, opts: ParseOptions = {}): ParseInputsResult {
  const prefix = opts.settingPrefix ?? 'mcpHost.inputs';
  const result: ParseInputsResult = { inputs: [], errors: [] };
  if (raw === undefined || raw === null) return result;
  if (!Array.isArray(raw)) {
    result.errors.push({
      path: prefix,
      message: l10n.t('{0} is {1} ({2}); expected an array such as {3}.', prefix, describeValue('', raw), typeName(raw), '[{ "id": "api-token", "type": "promptString", "password": true }]'),
    });
    return result;
  }
  const validate = getInputValidator();
  const ids = new Map<string, number>();
  raw.forEach((entry, index) => {
    const path = joinPath(prefix, index);
    const label = entry && typeof entry === 'object' && typeof (entry as { id?: unknown }).id === 'string'
      ? l10n.t('Input "{0}"', (entry as { id: string }).id) : l10n.t('Input {0}', index);
    if (!validate(entry)) {
      const seen = new Set<string>();
      for (const e of validate.errors ?? []) {
        const err = inputError(label, path, entry, e);
        if (!seen.has(err.message)) { seen.add(err.message); result.errors.push(err); }
      }
      return;
    }
    const input = entry as InputDefinition;
    const first = ids.get(input.id);
    if (first !== undefined) {
      result.errors.push({ path: joinPath(path, 'id'), message: l10n.t('{0} ({1}) repeats the id of {2}; give each input its own id.', label, joinPath(path, 'id'), joinPath(prefix, first)) });
      return;
    }
    ids.set(input.id, index);
    result.inputs.push(structuredClone(input));
  });
  return result;
}

