/**
 * Where variables may stand in a server definition and how they are written (variables.ts resolves them): the
 * supported names and the other tools' aliases, the string-valued places of a definition (`slots`) with their paths,
 * the fields resolution rewrites (`RESOLVED_HERE`; every other field of the table is copied as it is), and the
 * `${input:id}` uses found in them.
 */
import type { RawServer } from './validate';
import { COMMON_PROPERTIES, HTTP_PROPERTIES, STDIO_PROPERTIES, type CommonProperty, type HttpProperty, type ServerField, type StdioProperty } from './schema';
import { joinPath } from './paths';

/** The variables this resolver understands, for messages. */
export const SUPPORTED_VARIABLES = [
  '${workspaceFolder}', '${workspaceFolder:name}', '${workspaceFolderBasename}', '${userHome}',
  '${env:NAME}', '${pathSeparator}', '${/}', '${input:id}',
] as const;

export const VARIABLE = /\$\{([^{}]*)\}/g;
export const KNOWN_NAMES = ['workspaceFolder', 'workspaceFolderBasename', 'userHome', 'env', 'pathSeparator', 'input'];
/** Names from other tools (VS Code's deprecated ones, shells) and what they mean here. */
export const VARIABLE_ALIASES: Record<string, string> = {
  workspaceRoot: 'workspaceFolder', rootPath: 'workspaceFolder', cwd: 'workspaceFolder', home: 'userHome', HOME: 'userHome',
  workspaceRootFolderName: 'workspaceFolderBasename', separator: 'pathSeparator',
};

/**
 * The fields this module resolves (variables substituted, paths made absolute, values checked) in `resolveInner`. Every
 * other field of the table (schema.ts SERVER_FIELDS) that the server's transport may have is copied as it is, so a new
 * server-definition field needs no line here unless it takes variables.
 */
export const RESOLVED_HERE: readonly ServerField[] = ['command', 'args', 'env', 'envFile', 'cwd', 'sandbox', 'url', 'headers', 'workloadIdentity'];

/** The fields of `raw` that resolution does not change (see RESOLVED_HERE), deep-copied. */
export function copiedAsIs(raw: RawServer): Pick<RawServer, CommonProperty | StdioProperty | HttpProperty> {
  const out: Record<string, unknown> = {};
  for (const k of [...COMMON_PROPERTIES, ...(raw.type === 'stdio' ? STDIO_PROPERTIES : HTTP_PROPERTIES)]) {
    if (!RESOLVED_HERE.includes(k) && raw[k] !== undefined) out[k] = structuredClone(raw[k]);
  }
  return out as Pick<RawServer, CommonProperty | StdioProperty | HttpProperty>;
}

/** A string-valued place in a raw definition: its server-relative path and value. */
export interface Slot {
  rel: string;
  value: string;
}

export function slots(raw: RawServer): Slot[] {
  const out: Slot[] = [];
  const add = (rel: string, v: unknown) => { if (typeof v === 'string') out.push({ rel, value: v }); };
  add('command', raw.command);
  raw.args?.forEach((a, i) => add(joinPath('args', i), a));
  for (const [k, v] of Object.entries(raw.env ?? {})) add(joinPath('env', k), v);
  add('envFile', raw.envFile);
  add('cwd', raw.cwd);
  add('url', raw.url);
  for (const [k, v] of Object.entries(raw.headers ?? {})) add(joinPath('headers', k), v);
  add('workloadIdentity.clientId', raw.workloadIdentity?.clientId);
  add('workloadIdentity.tokenFile', raw.workloadIdentity?.tokenFile);
  return out;
}

/** Input ids a raw definition uses (`${input:id}`), in order of first use, without repeats. */
export function referencedInputs(raw: RawServer): string[] {
  const ids: string[] = [];
  for (const { value } of slots(raw)) {
    for (const m of value.matchAll(VARIABLE)) {
      const [name, arg] = splitVariable(m[1]);
      if (name === 'input' && arg && !ids.includes(arg)) ids.push(arg);
    }
  }
  return ids;
}

export function splitVariable(body: string): [string, string | undefined] {
  const i = body.indexOf(':');
  return i < 0 ? [body.trim(), undefined] : [body.slice(0, i).trim(), body.slice(i + 1).trim()];
}

export function slotValue(raw: RawServer, rel: string): string | undefined {
  return slots(raw).find(s => s.rel === rel)?.value;
}

export function firstUse(raw: RawServer, id: string): string {
  const s = slots(raw).find(x => [...x.value.matchAll(VARIABLE)].some(m => {
    const [n, a] = splitVariable(m[1]);
    return n === 'input' && a === id;
  }));
  return s?.rel ?? '';
}
