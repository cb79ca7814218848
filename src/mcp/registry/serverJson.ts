/**
 * A registry `server.json` (the MCP Registry's server description) into an MCP Host server definition: an npm package
 * runs with `npx`, PyPI with `uvx`, an OCI image with `docker run`, a remote is an `http`/`sse` URL. Required
 * environment variables and headers become `${input:}` prompts (secret ones masked), so no value is ever written to
 * settings. Everything in the document is untrusted data: names, identifiers, versions, arguments and URLs are checked
 * and a document that fails is refused with a reason naming the server, the field, the value and the rule. What a
 * document may add to the runtime's own command line and environment is an allow-list per runtime (RUNTIME_OPTIONS,
 * REFUSED_ENV): the command line installed is exactly the one the install dialog shows. Plain functions, no I/O.
 *
 *   const r = fromServerJson(doc);            // { options: [{ label, server, inputs }], errors }
 */
import { describeInstall, MAX_INSTALL_DESCRIPTION } from './install';

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
/** A package name per registry type: no URL, path or `github:` spec (npx and uvx would fetch those from elsewhere). */
const IDENTIFIER_OF = {
  npm: /^(@[a-z0-9][\w.-]*\/)?[A-Za-z0-9][\w.-]*$/,
  pypi: /^[A-Za-z0-9][\w.-]*$/,
  oci: /^[a-z0-9][\w.-]*(:\d{1,5})?(\/[a-z0-9][\w.-]*)*(:[\w][\w.-]{0,127})?(@sha256:[0-9a-f]{64})?$/,
} as const;
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
  if (packages.length > MAX_ARGS || remotes.length > MAX_ARGS) { errors.push(`${regName}: more than ${MAX_ARGS} packages or remotes.`); return out; }
  const add = (r: InstallOption | string) => {
    // The install dialog shows the whole description or nothing: one too long to show whole is refused.
    if (typeof r !== 'string' && describeInstall(r).length > MAX_INSTALL_DESCRIPTION) r = `${r.label.slice(0, 120)}: its command line and environment are longer than ${MAX_INSTALL_DESCRIPTION} characters, too long to show whole before installing.`;
    if (typeof r === 'string') errors.push(`${regName}: ${r}`); else out.options.push(r);
  };
  packages.forEach((p, i) => add(fromPackage(name, p, i)));
  remotes.forEach((p, i) => add(fromRemote(name, p, i)));
  if (!packages.length && !remotes.length) errors.push(`${regName} lists no package and no remote to install.`);
  return out;
}

function inputId(name: string, key: string): string {
  return `${name}-${key}`.replace(/[^A-Za-z0-9_.-]+/g, '-');
}

/**
 * What a registry entry may add to its runtime's own command line (`runtimeArguments`), per runtime: only these named
 * options, each with the values it may take (a pattern), or none (a flag). Everything else a runtime reads — another
 * package index (`--registry`, `--index-url`, `--extra-index-url`, `--from`, `--with`), a host path or namespace
 * (`--privileged`, `-v`, `--mount`, `--pid host`, `--network host`, `--cap-add`, `--device`, `--security-opt`) — is
 * refused, and so is any positional runtime argument (it would land among the runtime's own options). The one source
 * of this wall: the install dialog shows the command line this module builds from it.
 */
export const RUNTIME_OPTIONS: Readonly<Record<'npm' | 'pypi' | 'oci', Readonly<Record<string, RegExp | null>>>> = {
  npm: { '--yes': null, '-y': null, '--quiet': null, '-q': null },
  pypi: { '--quiet': null, '-q': null, '--isolated': null, '--no-cache': null, '--python': /^3(\.\d{1,2}){0,2}$/, '-p': /^3(\.\d{1,2}){0,2}$/ },
  oci: {
    '--init': null, '--read-only': null, '--network': /^(none|bridge)$/, '--memory': /^\d{1,6}[kmg]?$/i, '--cpus': /^\d{1,3}(\.\d{1,2})?$/,
    '--pull': /^(always|missing|never)$/, '--platform': /^linux\/(amd64|arm64|arm\/v7)$/, '--tmpfs': /^\/tmp(:[\w,=]{1,64})?$/,
  },
};

/**
 * Environment variables no registry entry may set or ask for, whatever the runtime: loaders and interpreters'
 * start-up hooks (`NODE_OPTIONS`, `LD_PRELOAD`, `DYLD_*`, `PYTHONPATH`, `BASH_ENV`, `ENV`, `PERL5OPT`, `RUBYOPT`,
 * `JAVA_TOOL_OPTIONS`…) and the runtimes' own configuration (`npm_config_registry`, `UV_INDEX_URL`, `PIP_*`,
 * `DOCKER_HOST`, proxies, CA bundles, `OPENSSL_CONF` (an OpenSSL config loads engines), the resolver's host aliases),
 * which would change what npx, uvx or docker fetch and run before the server does.
 */
export const REFUSED_ENV = /^(NODE_.*|NPM_CONFIG_.*|NPM_.*|COREPACK_.*|ELECTRON_.*|LD_.*|DYLD_.*|GCONV_PATH|GLIBC_TUNABLES|MALLOC_.*|PYTHON.*|PIP_.*|UV_.*|VIRTUAL_ENV|CONDA_.*|BASH_ENV|ENV|BASH_FUNC_.*|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|IFS|PATH|HOME|SHELL|TMPDIR|PERL5OPT|PERL5LIB|PERLLIB|PERL_.*|RUBYOPT|RUBYLIB|GEM_.*|BUNDLE_.*|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|DOTNET_.*|COMPLUS_.*|CORECLR_.*|DOCKER_.*|BUILDKIT_.*|GIT_.*|SSH_.*|(HTTPS?|ALL|NO|FTP)_PROXY|SSL_CERT_.*|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|OPENSSL_.*|SSLKEYLOGFILE|HOSTALIASES|LOCALDOMAIN|RES_OPTIONS|LOCPATH|NLSPATH|XDG_.*)$/i;

/**
 * A value from a registry document: bounded, no control character, no `${…}` (settings would resolve it: `${env:TOKEN}`),
 * no invisible formatting character (a bidi override would reorder the command line the install dialog shows) and no
 * `](` (a `[label](command:…)` link in that dialog).
 */
function plainValue(v: string): boolean {
  return !/[\x00-\x1f\x7f-\x9f\u2028\u2029]|\p{Cf}/u.test(v) && !v.includes('${') && !v.includes('](');
}

/** Why plainValue refused a value. */
const NOT_PLAIN = 'carries a control or invisible formatting character, a ${…} variable or a "](" link';

const shown = (v: unknown, n = 80) => JSON.stringify(String(v).slice(0, n));

/** The value an argument carries (`value`, else `default`), or undefined. */
function valueOf(a: Record<string, unknown>): string | undefined {
  return str(a.value) ?? str(a.default);
}

/** A package's own arguments (after the package: the server reads them, not the runtime); a string says why not. */
function packageArgumentsOf(list: unknown): string[] | string {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > MAX_ARGS) return `packageArguments is not a list of at most ${MAX_ARGS} arguments`;
  const out: string[] = [];
  for (const a of list) {
    if (!isObject(a)) return 'packageArguments has an entry that is not an object';
    const value = valueOf(a);
    if (value !== undefined && !plainValue(value)) return `packageArguments value ${shown(value)} ${NOT_PLAIN}`;
    if (a.type === 'positional') {
      if (value === undefined) return 'packageArguments has a positional argument without a value';
      out.push(value);
    } else if (a.type === 'named') {
      const n = str(a.name);
      if (!n || !/^--?[\w-]+$/.test(n)) return `packageArguments name ${shown(a.name)} is not an option name (-x or --name)`;
      out.push(n);
      if (value !== undefined) out.push(value);
    } else return `packageArguments type ${shown(a.type)} is not positional or named`;
  }
  return out;
}

/** The runtime options of a package, each checked against RUNTIME_OPTIONS[runtime]; a string says why not. */
function runtimeArgumentsOf(runtime: keyof typeof RUNTIME_OPTIONS, list: unknown): string[] | string {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > MAX_ARGS) return `runtimeArguments is not a list of at most ${MAX_ARGS} arguments`;
  const allowed = RUNTIME_OPTIONS[runtime];
  const allowedList = Object.keys(allowed).join(', ');
  const out: string[] = [];
  for (const a of list) {
    if (!isObject(a)) return 'runtimeArguments has an entry that is not an object';
    const value = valueOf(a);
    if (a.type !== 'named') return `runtimeArguments ${shown(value ?? a.type)} is positional: a registry entry may give the runtime only named options it allows (${allowedList})`;
    const n = str(a.name) ?? '';
    const rule = Object.hasOwn(allowed, n) ? allowed[n] : undefined;
    if (rule === undefined) return `runtimeArguments ${shown(n)} is not an option a registry entry may give ${RUNTIME_COMMAND[runtime]} (allowed: ${allowedList})`;
    if (rule === null) {
      if (value !== undefined && value !== '') return `runtimeArguments ${shown(n)} takes no value (given ${shown(value)})`;
      out.push(n);
    } else {
      if (value === undefined || !rule.test(value)) return `runtimeArguments ${shown(n)} value ${shown(value ?? '(none)')} is not one ${RUNTIME_COMMAND[runtime]} allows here (${rule.source})`;
      out.push(n, value);
    }
  }
  return out;
}

const RUNTIME_COMMAND = { npm: 'npx', pypi: 'uvx', oci: 'docker run' } as const;

function envOf(name: string, list: unknown): { env: Record<string, string>; inputs: InstallOption['inputs'] } | string {
  const env: Record<string, string> = {};
  const inputs: InstallOption['inputs'] = [];
  if (list === undefined) return { env, inputs };
  if (!Array.isArray(list) || list.length > MAX_ARGS) return 'environmentVariables is not a list';
  for (const v of list) {
    if (!isObject(v) || !str(v.name) || !ENV_NAME.test(v.name as string)) return `environmentVariables name ${shown(isObject(v) ? v.name : v)} is not a valid environment variable name`;
    const key = v.name as string;
    if (REFUSED_ENV.test(key)) return `environmentVariables ${key} is refused: it controls the runtime or a loader (what runs before the server), not the server`;
    if (v.isRequired === true || v.isSecret === true) {
      const id = inputId(name, key);
      env[key] = `\${input:${id}}`;
      inputs.push({ id, type: 'promptString', description: (str(v.description) ?? key).slice(0, 200), ...(v.isSecret === true ? { password: true } : {}) });
    } else if (str(v.default) !== undefined) {
      if (!plainValue(v.default as string)) return `environmentVariables ${key} default ${shown(v.default)} ${NOT_PLAIN}`;
      env[key] = v.default as string;
    }
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
  if (type !== 'npm' && type !== 'pypi' && type !== 'oci') return `${where}: the registry type ${JSON.stringify(type)} is not supported (npm, pypi, oci).`;
  // npx and uvx also take a git URL, a tarball or `github:user/repo` where a package name goes: only a name here.
  if (!IDENTIFIER_OF[type].test(id)) return `${where}: the identifier ${JSON.stringify(id.slice(0, 80))} is not a ${type} package name (${IDENTIFIER_OF[type].source}).`;
  const args = packageArgumentsOf(p.packageArguments);
  if (typeof args === 'string') return `${where}: ${args}.`;
  const runtime = runtimeArgumentsOf(type, p.runtimeArguments);
  if (typeof runtime === 'string') return `${where}: ${runtime}.`;
  const e = envOf(name, p.environmentVariables);
  if (typeof e === 'string') return `${where}: ${e}.`;
  let command: string;
  let all: string[];
  switch (type) {
    case 'npm': command = 'npx'; all = [...runtime.filter(a => a !== '-y' && a !== '--yes'), '-y', version ? `${id}@${version}` : id, ...args]; break;
    case 'pypi': command = 'uvx'; all = [...runtime, version ? `${id}==${version}` : id, ...args]; break;
    case 'oci': {
      command = 'docker';
      const image = version && !/[:@]/.test(id.split('/').pop() ?? '') ? `${id}:${version}` : id;
      all = ['run', '-i', '--rm', ...Object.keys(e.env).flatMap(k => ['-e', k]), ...runtime, image, ...args];
      break;
    }
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
  if (!url || !usableUrl(url) || /[{\s]/.test(url) || !plainValue(url)) return `${where}: the URL ${JSON.stringify(String(r.url).slice(0, 120))} is not an https URL (or a loopback http one).`;
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
