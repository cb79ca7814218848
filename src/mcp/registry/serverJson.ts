/**
 * A registry `server.json` (the MCP Registry's server description) into an MCP Host server definition: an npm package
 * runs with `npx`, PyPI with `uvx`, an OCI image with `docker run`, a remote is an `http`/`sse` URL. Required
 * environment variables and headers become `${input:}` prompts (secret ones masked), so no value is ever written to
 * settings. Everything in the document is untrusted data: names, identifiers, versions, arguments and URLs are checked
 * and a document that fails is refused with a readable reason. Plain functions, no I/O.
 *
 *   const r = fromServerJson(doc);            // { options: [{ label, server, inputs }], errors }
 */

/** One way to install a server: its definition (settings shape) and the inputs it asks for. */
export interface InstallOption {
  /** "npm @scope/pkg@1.2.3", "remote https://…", for a pick. */
  label: string;
  /** The server's name in settings (from the registry name's last segment, sanitised). */
  name: string;
  server: Record<string, unknown>;
  inputs: { id: string; type: 'promptString'; description: string; password?: boolean }[];
}

/** What a server.json allows. */
export interface ServerJsonResult {
  title: string;
  description: string;
  options: InstallOption[];
  /** Why (parts of) the document were refused, one sentence each. */
  errors: string[];
}

const SAFE_IDENTIFIER = /^(@[a-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.\-/:]*$/;
const SAFE_VERSION = /^[A-Za-z0-9][\w.+-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_ARGS = 64;
const MAX_STRING = 4096;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length <= MAX_STRING ? v : undefined);

/** The settings name for a registry name (`io.github.user/weather` → `weather`). */
export function serverNameOf(registryName: string): string {
  const last = registryName.split('/').pop() ?? registryName;
  return last.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').slice(0, 64) || 'server';
}

/** Whether a remote URL may be used: https, or http on a loopback host. */
export function usableUrl(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.username || u.password) return false;
    return u.protocol === 'https:' || (u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname));
  } catch {
    return false;
  }
}

/** Reads a server.json (the `server` object of a registry answer, or the document itself). */
export function fromServerJson(doc: unknown): ServerJsonResult {
  const errors: string[] = [];
  const out: ServerJsonResult = { title: '', description: '', options: [], errors };
  if (!isObject(doc)) { errors.push('The server description is not a JSON object.'); return out; }
  const regName = str(doc.name);
  if (!regName || !/^[\w.-]+\/[\w.-]+$/.test(regName)) { errors.push(`The server's name ${JSON.stringify(String(doc.name).slice(0, 80))} is not of the form "namespace/name".`); return out; }
  const name = serverNameOf(regName);
  out.title = str(doc.title) ?? regName;
  out.description = (str(doc.description) ?? '').slice(0, 500);
  const packages = Array.isArray(doc.packages) ? doc.packages : [];
  const remotes = Array.isArray(doc.remotes) ? doc.remotes : [];
  packages.forEach((p, i) => {
    const r = fromPackage(name, p, i);
    if (typeof r === 'string') errors.push(r); else out.options.push(r);
  });
  remotes.forEach((p, i) => {
    const r = fromRemote(name, p, i);
    if (typeof r === 'string') errors.push(r); else out.options.push(r);
  });
  if (!packages.length && !remotes.length) errors.push(`${regName} lists no package and no remote to install.`);
  return out;
}

function inputId(name: string, key: string): string {
  return `${name}-${key}`.replace(/[^A-Za-z0-9_.-]+/g, '-');
}

/** Arguments of a package (`positional` values, `named` name [value]); undefined when one is not acceptable. */
function argumentsOf(list: unknown): string[] | undefined {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > MAX_ARGS) return undefined;
  const out: string[] = [];
  for (const a of list) {
    if (!isObject(a)) return undefined;
    const value = a.value === undefined ? undefined : str(a.value) ?? (a.default !== undefined ? str(a.default) : undefined);
    if (a.type === 'positional') { const v = value ?? str(a.default); if (v === undefined) return undefined; out.push(v); }
    else if (a.type === 'named') {
      const n = str(a.name);
      if (!n || !/^--?[\w-]+$/.test(n)) return undefined;
      out.push(n);
      if (value !== undefined) out.push(value);
    } else return undefined;
  }
  return out;
}

function envOf(name: string, list: unknown): { env: Record<string, string>; inputs: InstallOption['inputs'] } | string {
  const env: Record<string, string> = {};
  const inputs: InstallOption['inputs'] = [];
  if (list === undefined) return { env, inputs };
  if (!Array.isArray(list) || list.length > MAX_ARGS) return 'its environment variables are not a list';
  for (const v of list) {
    if (!isObject(v) || !str(v.name) || !ENV_NAME.test(v.name as string)) return `an environment variable name is not valid (${JSON.stringify(isObject(v) ? v.name : v)})`;
    const key = v.name as string;
    if (v.isRequired === true || v.isSecret === true) {
      const id = inputId(name, key);
      env[key] = `\${input:${id}}`;
      inputs.push({ id, type: 'promptString', description: (str(v.description) ?? key).slice(0, 200), ...(v.isSecret === true ? { password: true } : {}) });
    } else if (str(v.default) !== undefined) env[key] = v.default as string;
  }
  return { env, inputs };
}

function fromPackage(name: string, p: unknown, i: number): InstallOption | string {
  const where = `package ${i + 1}`;
  if (!isObject(p)) return `${where} is not an object.`;
  const type = str(p.registryType);
  const id = str(p.identifier);
  const version = str(p.version);
  if (!id || !SAFE_IDENTIFIER.test(id) || id.startsWith('-')) return `${where}: the identifier ${JSON.stringify(String(p.identifier).slice(0, 80))} is not a package name.`;
  if (version !== undefined && (!SAFE_VERSION.test(version) || version === 'latest')) return `${where}: the version ${JSON.stringify(version.slice(0, 40))} is not a pinned version.`;
  const transport = isObject(p.transport) ? str(p.transport.type) : 'stdio';
  if (transport !== 'stdio') return `${where}: only stdio packages are installed (this one is ${JSON.stringify(transport)}; use its remote).`;
  const args = argumentsOf(p.packageArguments);
  if (!args) return `${where}: its package arguments are not valid.`;
  const runtime = argumentsOf(p.runtimeArguments);
  if (!runtime) return `${where}: its runtime arguments are not valid.`;
  const e = envOf(name, p.environmentVariables);
  if (typeof e === 'string') return `${where}: ${e}.`;
  let command: string;
  let all: string[];
  switch (type) {
    case 'npm': command = 'npx'; all = [...runtime, '-y', version ? `${id}@${version}` : id, ...args]; break;
    case 'pypi': command = 'uvx'; all = [...runtime, version ? `${id}==${version}` : id, ...args]; break;
    case 'oci': {
      command = 'docker';
      const image = version && !/[:@]/.test(id.split('/').pop() ?? '') ? `${id}:${version}` : id;
      all = ['run', '-i', '--rm', ...Object.keys(e.env).flatMap(k => ['-e', k]), ...runtime, image, ...args];
      break;
    }
    default: return `${where}: the registry type ${JSON.stringify(type)} is not supported (npm, pypi, oci).`;
  }
  return {
    label: `${type} ${id}${version ? `@${version}` : ''}`, name,
    server: { type: 'stdio', command, args: all, ...(Object.keys(e.env).length ? { env: e.env } : {}) },
    inputs: e.inputs,
  };
}

function fromRemote(name: string, r: unknown, i: number): InstallOption | string {
  const where = `remote ${i + 1}`;
  if (!isObject(r)) return `${where} is not an object.`;
  const type = r.type === 'streamable-http' ? 'http' : r.type === 'sse' ? 'sse' : undefined;
  if (!type) return `${where}: the transport ${JSON.stringify(r.type)} is not streamable-http or sse.`;
  const url = str(r.url);
  if (!url || !usableUrl(url) || /\{/.test(url)) return `${where}: the URL ${JSON.stringify(String(r.url).slice(0, 120))} is not an https URL (or a loopback http one).`;
  const headers: Record<string, string> = {};
  const inputs: InstallOption['inputs'] = [];
  if (r.headers !== undefined) {
    if (!Array.isArray(r.headers) || r.headers.length > MAX_ARGS) return `${where}: its headers are not a list.`;
    for (const h of r.headers) {
      if (!isObject(h) || !str(h.name) || !HEADER_NAME.test(h.name as string)) return `${where}: a header name is not valid.`;
      const key = h.name as string;
      if (h.isRequired === true || h.isSecret === true) {
        const id = inputId(name, key);
        headers[key] = `\${input:${id}}`;
        inputs.push({ id, type: 'promptString', description: (str(h.description) ?? key).slice(0, 200), ...(h.isSecret === true ? { password: true } : {}) });
      }
    }
  }
  return { label: `remote ${url}`, name, server: { type, url, ...(Object.keys(headers).length ? { headers } : {}) }, inputs };
}
