/**
 * Variable resolution for validated server definitions: `${workspaceFolder}`, `${workspaceFolder:name}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}`, `${pathSeparator}` / `${/}` and `${input:id}`
 * (through an injected resolver), in command, args, env, envFile, cwd, url and headers. Produces the
 * resolved ServerDefinition of types.ts. Never throws: problems become ConfigErrors.
 */
import { READ_CAPS, readBoundedTextSync } from '../boundedRead';
import * as nodePath from 'node:path';
import * as l10n from '@vscode/l10n';
import type { ConfigError, InputDefinition, SandboxSettings, ServerDefinition, WorkloadIdentityConfig } from '../types';
import type { RawServer } from './validate';
import { checkUrl } from './validate';
import { appendPath, closest, describeValue, isSecretPath, joinPath } from './paths';
import { parseDotenv } from './envFile';
import { definitionSecrets, looksSecretName } from '../logging/redact';
import { getOwn, setOwn } from '../schema/own';
import { KNOWN_NAMES, SUPPORTED_VARIABLES, VARIABLE, VARIABLE_ALIASES, copiedAsIs, firstUse, slotValue, slots, splitVariable } from './variableSlots';

export { SUPPORTED_VARIABLES, referencedInputs } from './variableSlots';

/** A workspace folder as the resolver sees it. */
export interface WorkspaceFolderInfo {
  /** The folder's name (what `${workspaceFolder:name}` and `roots` refer to). */
  name: string;
  /** Absolute file-system path. */
  path: string;
}

export interface ResolveContext {
  /** Open workspace folders, first = primary. */
  workspaceFolders: WorkspaceFolderInfo[];
  /**
   * The folder whose settings defined the server, when known (multi-root): a folder, or the name or
   * path of one of `workspaceFolders`. It is `${workspaceFolder}`, the base of relative paths and the
   * default `cwd`.
   */
  definingFolder?: WorkspaceFolderInfo | string;
  userHome: string;
  /** The environment `${env:NAME}` reads (usually process.env). */
  env: Record<string, string | undefined>;
  /** Declared inputs (`mcpHost.inputs`); `${input:id}` must name one of these. */
  inputs?: InputDefinition[];
  /**
   * Asks for (or looks up) an input's value; `undefined` = the user cancelled. Called at most once per
   * id for the same context object, however many servers or places use it.
   */
  resolveInput?: (input: InputDefinition) => Promise<string | undefined>;
  /** Path flavour for `${pathSeparator}` and relative `cwd`/`envFile`; default process.platform. */
  platform?: NodeJS.Platform;
}

export type ResolveResult =
  | { definition: ServerDefinition; warnings: ConfigError[]; error?: undefined }
  | { error: ConfigError; errors: ConfigError[]; warnings: ConfigError[]; definition?: undefined };

const inputCaches = new WeakMap<ResolveContext, Map<string, Promise<string | undefined>>>();

function askInput(ctx: ResolveContext, input: InputDefinition): Promise<string | undefined> {
  let cache = inputCaches.get(ctx);
  if (!cache) { cache = new Map(); inputCaches.set(ctx, cache); }
  let p = cache.get(input.id);
  if (!p) {
    const resolver = ctx.resolveInput;
    p = resolver
      ? Promise.resolve().then(() => resolver(input))
      : Promise.resolve(input.default);
    const cached = p;
    cache.set(input.id, p);
    // A failure is not remembered: a later resolution may ask again.
    p.catch(() => { if (cache.get(input.id) === cached) cache.delete(input.id); });
  }
  return p;
}

/** Resolves every server; errors of one never affect another. Inputs are asked once per id. */
export async function resolveServers(raws: RawServer[], ctx: ResolveContext): Promise<{
  definitions: ServerDefinition[]; errors: ConfigError[]; warnings: ConfigError[];
}> {
  const definitions: ServerDefinition[] = [];
  const errors: ConfigError[] = [];
  const warnings: ConfigError[] = [];
  for (const raw of raws) {
    const r = await resolveServer(raw, ctx);
    warnings.push(...r.warnings);
    if (r.definition) definitions.push(r.definition);
    else errors.push(...r.errors);
  }
  return { definitions, errors, warnings };
}

/** Resolves the variables of one validated server definition. Never throws. */
export async function resolveServer(raw: RawServer, ctx: ResolveContext): Promise<ResolveResult> {
  return resolveServerNow(raw, ctx);
}

/**
 * resolveServer, with its result at once (not a promise) when the definition uses no `${input:}`: nothing else
 * waits (no file is read, no command looked up on PATH: the launch does both), so the editor's first settings
 * sync reaches `reconcile` without yielding its turn to other extensions. A promise only when an input is asked.
 */
export function resolveServerNow(raw: RawServer, ctx: ResolveContext): ResolveResult | Promise<ResolveResult> {
  const errors: ConfigError[] = [];
  const warnings: ConfigError[] = [];
  const failed = (e: unknown): ResolveResult => {
    const err: ConfigError = {
      server: raw?.name, path: raw?.path ?? '',
      message: l10n.t('Server "{0}": resolving its settings failed unexpectedly ({1}).', String(raw?.name), e instanceof Error ? e.message : String(e)),
    };
    return { error: err, errors: [...errors, err], warnings };
  };
  try {
    const r = resolveInner(raw, ctx, errors, warnings);
    return r instanceof Promise ? r.catch(failed) : r;
  } catch (e) {
    return failed(e);
  }
}

function resolveInner(raw: RawServer, ctx: ResolveContext, errors: ConfigError[], warnings: ConfigError[]): ResolveResult | Promise<ResolveResult> {
  const platform = ctx.platform ?? process.platform;
  const pathApi = platform === 'win32' ? nodePath.win32 : nodePath.posix;
  const folders = ctx.workspaceFolders ?? [];
  const named = typeof ctx.definingFolder === 'string'
    ? folders.find(f => f.name === ctx.definingFolder || f.path === ctx.definingFolder)
    : ctx.definingFolder;
  const defining = named ?? folders[0];
  const where = (rel: string) => appendPath(raw.path, rel);
  const subject = (rel: string) => isSecretPath(rel) ? l10n.t('the value of {0}', where(rel)) : `${where(rel)} (${describeValue(rel, slotValue(raw, rel))})`;
  const fail = (rel: string, message: string) => errors.push({ server: raw.name, path: where(rel), message: l10n.t('Server "{0}": {1}', raw.name, message) });
  const warn = (rel: string, message: string) => warnings.push({ server: raw.name, path: where(rel), message: l10n.t('Server "{0}": {1}', raw.name, message) });
  if (typeof ctx.definingFolder === 'string' && !named) {
    warn('', folders[0]
      ? l10n.t('the folder "{0}" it was defined in is not open; using "{1}" instead.', ctx.definingFolder, folders[0].name)
      : l10n.t('the folder "{0}" it was defined in is not open; using no folder instead.', ctx.definingFolder));
  }
  const envValue = (key: string): string | undefined => {
    // Own properties only: `${env:constructor}` is a variable named constructor, not Object.prototype's.
    const own = getOwn(ctx.env, key);
    if (own !== undefined || platform !== 'win32') return own;
    const lower = key.toLowerCase();
    const found = Object.keys(ctx.env).find(k => k.toLowerCase() === lower);
    return found === undefined ? undefined : ctx.env[found];
  };
  const inputsById = new Map((ctx.inputs ?? []).map(i => [i.id, i]));
  const neededInputs: InputDefinition[] = [];
  let warnedAmbiguous = false;

  // Pass 1: check every variable, so nobody is asked for an input of a definition that cannot work.
  for (const slot of slots(raw)) {
    for (const m of slot.value.matchAll(VARIABLE)) {
      const [name, arg] = splitVariable(m[1]);
      const variable = m[0];
      switch (name) {
        case 'workspaceFolder':
        case 'workspaceFolderBasename':
          if (arg !== undefined) {
            if (!folders.some(f => f.name === arg)) {
              fail(slot.rel, folders.length
                ? l10n.t('{0} uses `{1}` but no open workspace folder is named "{2}" (open: {3}); use one of those names.', subject(slot.rel), variable, arg, folders.map(f => `"${f.name}"`).join(', '))
                : l10n.t('{0} uses `{1}` but no open workspace folder is named "{2}"; open that folder or write the path.', subject(slot.rel), variable, arg));
            }
          } else if (!folders.length) {
            fail(slot.rel, l10n.t('{0} uses `{1}` but no workspace folder is open; open a folder or write an absolute path.', subject(slot.rel), variable));
          } else if (folders.length > 1 && !named && !warnedAmbiguous) {
            warnedAmbiguous = true;
            warn(slot.rel, l10n.t('`{0}` in {1} is ambiguous with {2} workspace folders open; using "{3}" (the first). Write `{4}` to choose one.', variable, where(slot.rel), folders.length, folders[0].name, '${workspaceFolder:name}'));
          }
          break;
        case 'userHome':
        case 'pathSeparator':
        case '/':
          if (arg !== undefined) fail(slot.rel, l10n.t('{0} uses `{1}`, which takes no argument; write `{2}`.', subject(slot.rel), variable, `\${${name}}`));
          break;
        case 'env':
          if (!arg) fail(slot.rel, l10n.t('{0} uses `{1}` without a variable name; write `{2}`.', subject(slot.rel), variable, '${env:NAME}'));
          else if (envValue(arg) === undefined) {
            warn(slot.rel, l10n.t('{0} uses `{1}` but {2} is not set in the environment; it resolves to an empty string.', subject(slot.rel), variable, arg));
          }
          break;
        case 'input': {
          if (!arg) { fail(slot.rel, l10n.t('{0} uses `{1}` without an input id; write `{2}`.', subject(slot.rel), variable, '${input:some-id}')); break; }
          const input = inputsById.get(arg);
          if (!input) {
            const guess = closest(arg, [...inputsById.keys()]);
            fail(slot.rel, guess
              ? l10n.t('{0} uses `{1}` but mcpHost.inputs has no input with id "{2}"; did you mean `{3}`?', subject(slot.rel), variable, arg, `\${input:${guess}}`)
              : l10n.t('{0} uses `{1}` but mcpHost.inputs has no input with id "{2}"; add {3} to mcpHost.inputs.', subject(slot.rel), variable, arg, `{ "id": "${arg}", "type": "promptString", "password": true }`));
          } else if (!neededInputs.includes(input)) neededInputs.push(input);
          break;
        }
        default: {
          const guess = getOwn(VARIABLE_ALIASES, name) ?? closest(name, KNOWN_NAMES);
          fail(slot.rel, guess
            ? l10n.t('{0} uses the unknown variable `{1}`; did you mean `{2}`? supported: {3}.', subject(slot.rel), variable, `\${${guess}${arg !== undefined ? `:${arg}` : ''}}`, SUPPORTED_VARIABLES.join(', '))
            : l10n.t('{0} uses the unknown variable `{1}`; supported: {2}.', subject(slot.rel), variable, SUPPORTED_VARIABLES.join(', ')));
        }
      }
    }
  }
  if (raw.roots && folders.length) {
    for (const r of raw.roots) {
      if (!folders.some(f => f.name === r)) warn('roots', l10n.t('{0} names "{1}", which is not an open workspace folder (open: {2}); it is ignored.', where('roots'), r, folders.map(f => `"${f.name}"`).join(', ')));
    }
  }
  if (errors.length) return { error: errors[0], errors, warnings };

  // Pass 3 (below): substitute. Without inputs to ask for, nothing here waits: the result is there at once.
  const pass3 = (inputValues: ReadonlyMap<string, string>): ResolveResult => {
    // Pass 3: substitute.
    const sep = platform === 'win32' ? '\\' : '/';
    // Every secret-bearing value this definition carries (see recordSecrets); becomes `definition.secrets`.
    const secrets = new Set<string>();
    const notSecret = new Set([ctx.userHome, ...folders.map(f => f.path)]);
    const substitute = (s: string, rel = ''): string => s.replace(VARIABLE, (whole, body: string) => {
      const [name, arg] = splitVariable(body);
      switch (name) {
        case 'workspaceFolder':
        case 'workspaceFolderBasename': {
          const f = arg !== undefined ? folders.find(x => x.name === arg) : defining;
          if (!f) return whole;
          return name === 'workspaceFolder' ? f.path : pathApi.basename(f.path);
        }
        case 'userHome': return ctx.userHome;
        case 'pathSeparator':
        case '/': return sep;
        case 'env': {
          const v = envValue(arg ?? '') ?? '';
          // `${env:}` placed into args, headers or the URL. Short values of plain names (`true`, `3000`) are
          // not hidden everywhere; a secret-looking name (`GH_TOKEN`) always is.
          if (/^(args|headers|url)($|\.|\[)/.test(rel) && !notSecret.has(v) && (v.length >= 8 || looksSecretName(arg ?? ''))) secrets.add(v);
          return v;
        }
        case 'input': {
          const v = inputValues.get(arg ?? '') ?? '';
          secrets.add(v);
          return v;
        }
        default: return whole;
      }
    });

    const base = { name: raw.name, ...copiedAsIs(raw) };
    const withSecrets = <T extends ServerDefinition>(d: T): T => {
      for (const v of definitionSecrets(d)) secrets.add(v);
      const list = [...secrets].filter(v => v.length > 0);
      return list.length ? { ...d, secrets: list } : d;
    };

    if (raw.type === 'stdio') {
      const command = substitute(raw.command ?? '').trim();
      if (!command) fail('command', l10n.t('{0} is empty after resolving its variables; name the program to run, e.g. "npx".', where('command')));
      const args = (raw.args ?? []).map((a, i) => substitute(a, joinPath('args', i)));
      const env: Record<string, string | null> = {};
      for (const [k, v] of Object.entries(raw.env ?? {})) setOwn(env, k, v === null ? null : substitute(v, joinPath('env', k)));
      const toAbsolute = (rel: 'cwd' | 'envFile', p: string): string | undefined => {
        if (pathApi.isAbsolute(p)) return pathApi.normalize(p);
        if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) return pathApi.join(ctx.userHome, p.slice(1));
        if (!defining) {
          fail(rel, l10n.t('{0} is {1}, a relative path, but no workspace folder is open to resolve it against; write an absolute path.', where(rel), describeValue(rel, p)));
          return undefined;
        }
        return pathApi.resolve(defining.path, p);
      };
      let cwd: string | undefined = defining?.path;
      if (raw.cwd !== undefined) {
        const c = substitute(raw.cwd).trim();
        cwd = c ? toAbsolute('cwd', c) : defining?.path;
      }
      let envFile: string | undefined;
      if (raw.envFile !== undefined) {
        const f = substitute(raw.envFile).trim();
        if (!f) fail('envFile', l10n.t('{0} is empty after resolving its variables; write the path of a .env file or remove the setting.', where('envFile')));
        else envFile = toAbsolute('envFile', f);
      }
      if (errors.length) return { error: errors[0], errors, warnings };
      // The envFile's secret-looking values are read now (one small synchronous read, so the first settings sync
      // still reaches reconcile in one turn): every output of this server, doctor and inspect included, hides them
      // from the start, and they are part of the definition's key. The launch reads the file again (launch/stdio.ts).
      if (envFile !== undefined) for (const v of envFileSecrets(envFile)) secrets.add(v);
      // Sandbox paths: variables resolved, `~` and relative paths made absolute (against cwd), so the policy is exact.
      let sandbox: SandboxSettings | undefined;
      if (raw.sandbox) {
        const paths = (list: string[] | undefined) => list?.map(p => {
          const v = substitute(p).trim();
          if (v === '~' || v.startsWith('~/') || v.startsWith('~\\')) return pathApi.join(ctx.userHome, v.slice(1));
          return pathApi.isAbsolute(v) ? pathApi.normalize(v) : pathApi.resolve(cwd ?? ctx.userHome, v);
        });
        const fsIn = raw.sandbox.filesystem;
        const netIn = raw.sandbox.network;
        sandbox = {
          ...(fsIn && { filesystem: {
            ...(fsIn.allowWrite && { allowWrite: paths(fsIn.allowWrite) }),
            ...(fsIn.denyRead && { denyRead: paths(fsIn.denyRead) }),
            ...(fsIn.denyWrite && { denyWrite: paths(fsIn.denyWrite) }),
          } }),
          ...(netIn && { network: {
            ...(netIn.allowedDomains && { allowedDomains: [...netIn.allowedDomains] }),
            ...(netIn.deniedDomains && { deniedDomains: [...netIn.deniedDomains] }),
          } }),
        };
      }
      const definition: ServerDefinition = withSecrets({
        ...base, type: 'stdio', command, args, env,
        ...(envFile !== undefined && { envFile }),
        ...(cwd !== undefined && { cwd }),
        ...(sandbox && { sandbox }),
      });
      return { definition, warnings };
    }

    const url = substitute(raw.url ?? '', 'url').trim();
    const problem = url ? checkUrl(url) : l10n.t('is empty after resolving its variables; write the server\'s address, e.g. "https://example.com/mcp".');
    if (problem) fail('url', `${where('url')} ${problem}`);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(raw.headers ?? {})) {
      const value = substitute(v, joinPath('headers', k));
      setOwn(headers, k, value);
      if (/[\r\n]/.test(value)) fail(joinPath('headers', k), l10n.t('the value of {0} contains a line break after resolving its variables; remove it.', where(joinPath('headers', k))));
    }
    let workloadIdentity: WorkloadIdentityConfig | undefined;
    const wi = raw.workloadIdentity;
    if (wi) {
      const clientId = substitute(wi.clientId, 'workloadIdentity.clientId').trim();
      if (!clientId) fail('workloadIdentity.clientId', l10n.t('{0} is empty after resolving its variables; write the client id the authorization server registered for this workload.', where('workloadIdentity.clientId')));
      if ((wi.tokenFile === undefined) === (wi.tokenEnv === undefined)) {
        fail('workloadIdentity', wi.tokenFile === undefined
          ? l10n.t('{0} needs exactly one of `tokenFile` (the file holding the workload\'s identity token) and `tokenEnv` (the environment variable holding it); add one.', where('workloadIdentity'))
          : l10n.t('{0} needs exactly one of `tokenFile` (the file holding the workload\'s identity token) and `tokenEnv` (the environment variable holding it); remove one.', where('workloadIdentity')));
      }
      const tokenFile = wi.tokenFile === undefined ? undefined : substitute(wi.tokenFile, 'workloadIdentity.tokenFile').trim();
      if (tokenFile !== undefined && !nodePath.isAbsolute(tokenFile)) {
        fail('workloadIdentity.tokenFile', l10n.t('{0} is {1}, not an absolute path after resolving its variables; write a full path ({2} and {3} help).', where('workloadIdentity.tokenFile'), JSON.stringify(tokenFile.slice(0, 200)), '`${userHome}`', '`${workspaceFolder}`'));
      }
      workloadIdentity = { clientId, ...(tokenFile !== undefined && { tokenFile }), ...(wi.tokenEnv !== undefined && { tokenEnv: wi.tokenEnv }) };
    }
    if (errors.length) return { error: errors[0], errors, warnings };
    return { definition: withSecrets({ ...base, type: raw.type, url, headers, ...(workloadIdentity && { workloadIdentity }) }), warnings };
  };
  if (!neededInputs.length) return pass3(new Map());
  return (async () => {
    // Pass 2: ask for inputs (once per id per context).
    const inputValues = new Map<string, string>();
    for (const input of neededInputs) {
      let value: string | undefined;
      try {
        value = await askInput(ctx, input);
      } catch (e) {
        const rel = firstUse(raw, input.id);
        fail(rel, l10n.t('asking for input "{0}" (used in {1}) failed: {2}; try again or check mcpHost.inputs.', input.id, where(rel), e instanceof Error ? e.message : String(e)));
        continue;
      }
      if (value === undefined) {
        const rel = firstUse(raw, input.id);
        fail(rel, ctx.resolveInput
          ? l10n.t('no value was given for input "{0}" (used in {1}); the server cannot start until you enter it.', input.id, where(rel))
          : l10n.t('input "{0}" (used in {1}) has no value and there is no way to ask for it here; give it a "default" or provide the value.', input.id, where(rel)));
      } else {
        inputValues.set(input.id, value);
      }
    }
    if (errors.length) return { error: errors[0], errors, warnings };
    return pass3(inputValues);

  })();
}

/**
 * The values of an envFile's secret-looking variables (`API_TOKEN=…`), read at resolve time so every output of the
 * server hides them from the start; the file is read again at launch (and what it then holds is added). A file that
 * cannot be read yet, or is not a regular file or over the cap, gives none (the launch reports it). The bounded reader
 * never blocks: /dev/zero or a FIFO here is refused at once.
 */
function envFileSecrets(file: string): string[] {
  try {
    const { vars } = parseDotenv(readBoundedTextSync(file, { maxBytes: READ_CAPS.envFile, what: 'envFile' }));
    return Object.entries(vars).filter(([k, v]) => v && looksSecretName(k)).map(([, v]) => v);
  } catch {
    return [];
  }
}
