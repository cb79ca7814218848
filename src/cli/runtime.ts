/** The real CliRuntime: configuration files through the core's config module, McpHost for servers. */
import { McpHost, parseLimits, type Limits, type Root, resolveCommand, resetSandbox, keyMigration, type DefinitionKey, type ServerDefinition, type EraVerdicts } from '../mcp';
import type { CliRuntime } from './commandHost';
import { CliSignIn } from './oauth';
import { terminalElicit } from './elicit';
import { loadConfig } from './config';
import { CLI_NAME, CLI_VERSION } from './version';
import { dataText, hideSecretsOf, ownText, write } from './output';
import { eraCachePath, fileEraVerdicts, fileInstallationKey, installationKeyPath } from './eraCache';

/** `raw`: stdout gets the servers' bytes as sent (`--raw`); else control characters are escaped (output.ts). */
export function createRuntime(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env, opts: { raw?: boolean } = {}): CliRuntime {
  const terminal = Boolean(process.stderr.isTTY && process.stdin.isTTY);
  const port = Number(env.MCP_HOST_OAUTH_PORT) || undefined;
  const signIn = new CliSignIn({ port, err: line => { process.stderr.write(`${line}\n`); }, openBrowser: terminal });
  const wait = terminal || env.MCP_HOST_SIGN_IN === 'wait';
  let roots: Root[] = [];
  let forceSandbox = false;
  // More paths no sandboxed server may read (the editor's mcpHost.sandbox.denyRead): a JSON array of paths.
  let denyRead: string[] | undefined;
  if (env.MCP_HOST_SANDBOX_DENY_READ) {
    try {
      const v: unknown = JSON.parse(env.MCP_HOST_SANDBOX_DENY_READ);
      if (!Array.isArray(v) || !v.every(x => typeof x === 'string')) throw new Error('not an array of strings');
      denyRead = v as string[];
    } catch (e) {
      process.stderr.write(`mcp-host: warning: MCP_HOST_SANDBOX_DENY_READ is ignored: ${(e as Error).message}; write a JSON array such as '["~/private"]'\n`);
    }
  }
  // Caps on what servers send (the editor's mcpHost.limits.*): MCP_HOST_LIMITS='{"maxMessageBytes": 134217728}'.
  let limits: Partial<Limits> | undefined;
  if (env.MCP_HOST_LIMITS) {
    const parsed = parseLimits(env.MCP_HOST_LIMITS, 'MCP_HOST_LIMITS');
    for (const p of parsed.problems) process.stderr.write(`mcp-host: warning: ${p}\n`);
    limits = parsed.limits;
  }
  // H123: servers found to speak only the `initialize` era are not probed again (a file in the user's cache directory).
  const eraFile = eraCachePath(env);
  let eraVerdicts: EraVerdicts | undefined;
  // The definition key the era cache is kept under: an HMAC under the installation key (a 0600 file beside the cache).
  let installation: { key: DefinitionKey; created: boolean } | undefined;
  let definitions: readonly ServerDefinition[] = [];
  /** The era cache, re-keyed once (unsalted → keyed) when the installation key is new. */
  const eraCache = (file: string): EraVerdicts => {
    installation ??= fileInstallationKey(installationKeyPath(file));
    const verdicts = fileEraVerdicts(file);
    if (installation.created) verdicts.rekey(keyMigration(definitions, installation.key));
    return verdicts;
  };
  return {
    signIn: {
      isPending: server => signIn.isPending(server),
      waitForCode: (server, ms) => signIn.waitForCode(server, ms),
      wait,
      waitMs: Number(env.MCP_HOST_SIGN_IN_TIMEOUT) || 5 * 60_000,
    },
    // `call` on a terminal asks a server's forms (without a terminal only `--elicit` answers them).
    ...(terminal && { askElicitation: terminalElicit(process.stdin, process.stderr) }),
    // The sandbox runtime's proxies (if a sandboxed server ran) end with the run.
    dispose: async () => { await signIn.dispose(); await resetSandbox(); },
    loadConfig: async args => {
      const cfg = await loadConfig(args.config, { cwd, root: args.root });
      roots = cfg.roots ?? [];
      forceSandbox = args.sandbox;
      // Every line from here on hides the secrets of every server the file defines.
      hideSecretsOf(cfg.definitions);
      definitions = cfg.definitions;
      return cfg;
    },
    createHost: (features, compileTool) => {
      // One-shot commands: no automatic restarts, no health pings, and a shorter wait after closing
      // stdin before SIGTERM (servers such as server-everything ignore EOF; nobody waits on a CLI).
      const host = new McpHost({
        clientInfo: { name: CLI_NAME, version: CLI_VERSION },
        restart: { enabled: false },
        limits,
        pingIntervalMs: 0,
        stopGrace: { eofGraceMs: 500, termGraceMs: 2000 },
        // Remote servers may ask the user to sign in (OAuth): tokens in a 0600 file, loopback redirect.
        authProvider: def => signIn.providerFor(def),
        sandbox: { force: forceSandbox, ...(denyRead && { denyRead }) },
        // Each server gets the `${input:}` values its own definition uses (resolved into it), never the
        // MCP_HOST_INPUT_* variables the run was given for every server (issue 34).
        baseEnv: withoutInputValues(process.env),
        // Elicitation is declared only when the command can answer it (`call --elicit`).
        ...(features && { features }),
        // Only the schemas the command uses are compiled (commandHost.ts, CompileTool: `call` its tool's; `inspect` none).
        ...(compileTool && { compileToolSchemas: compileTool }),
        ...(eraFile ? { eraVerdicts: eraVerdicts ??= eraCache(eraFile), definitionKey: installation?.key } : {}),
      });
      // The configuration's workspace folder (or --root), as the loaded configuration says; none before loading.
      host.setRoots(roots);
      return host;
    },
    resolveCommand: async def => {
      if (def.type !== 'stdio') throw new Error('not a stdio server');
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const [k, v] of Object.entries(def.env ?? {})) {
        if (v === null) delete env[k];
        else env[k] = v;
      }
      return resolveCommand(def.command, { cwd: def.cwd ?? cwd, env });
    },
    out: text => { write('stdout', dataText(text, opts.raw)); },
    err: text => { write('stderr', ownText(text, 16 * 1024)); },
  };
}

/** `env` without the MCP_HOST_INPUT_* variables (inputs.ts, inputEnvName): what a server's process starts from. */
export function withoutInputValues(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.toUpperCase().startsWith('MCP_HOST_INPUT_')) out[k] = v;
  return out;
}
