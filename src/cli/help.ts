/** The parts every command's `--help` text shares (the texts themselves are rows of `commandTable.ts`). */
import { inputEnvName } from './inputs';
import { DEFAULT_OAUTH_PORT } from './oauth';
import { TIMEOUT_KEYS } from '../mcp';

export const CONFIG_OPTS = `  --config FILE   settings.json (mcpHost.servers / mcp.servers), mcp.json (servers), or a
                  Claude Desktop / Cursor file (mcpServers). Default: ./.vscode/settings.json,
                  then ./.vscode/mcp.json. \${workspaceFolder} is the current directory.
  --root DIR      the folder servers get as their root (roots/list). Default: the folder of the
                  configuration's workspace (the parent of its .vscode folder); none for other files.
  --timeout MS    ${TIMEOUT_KEYS.join(' and ')} timeout for the servers this command starts
  --sandbox       run every stdio server in the OS sandbox (bubblewrap on Linux, sandbox-exec on
                  macOS), as "sandboxEnabled": true does for one: writes only in its roots and
                  temporary folder, no secrets (~/.ssh, ~/.aws, …; more in MCP_HOST_SANDBOX_DENY_READ,
                  a JSON array), network only to its sandbox.network.allowedDomains
  -v, --verbose   every log line (server stderr, notifications/message, lifecycle) on stderr
  -h, --help      this text`;

export const INPUTS = `Inputs: \${input:id} values come from the environment (${inputEnvName('id')}), else are asked
on the terminal, else take the input's "default".
Sign-in: a remote server that asks for OAuth prints an authorization URL (and opens a browser from a
terminal); the redirect comes back to http://127.0.0.1:${DEFAULT_OAUTH_PORT}/callback/<server> (MCP_HOST_OAUTH_PORT).
Tokens are kept in ${'$'}XDG_CONFIG_HOME/mcp-host/oauth.json, mode 0600 (MCP_HOST_OAUTH_FILE). Without a
terminal set MCP_HOST_SIGN_IN=wait to wait for the sign-in (MCP_HOST_SIGN_IN_TIMEOUT ms, default 5 min).
DPoP keys (where the authorization server offers DPoP) are kept in dpop-keys.json beside the token file,
mode 0600. Unattended: a server's "workloadIdentity" ({"clientId": …, "tokenFile": … | "tokenEnv": …})
signs in without a browser, with the workload's identity token (OAuth jwt-bearer grant).
Caps on what servers send (the editor's mcpHost.limits.* settings) come from MCP_HOST_LIMITS, a JSON
object such as '{"maxMessageBytes": 134217728}'.
Protocol era: a server that answered initialize after the server/discover probe is not probed again (a
cache of definition hashes in ${'$'}XDG_CACHE_HOME/mcp-host/era-verdicts.json, MCP_HOST_ERA_CACHE=FILE|off).`;

export const EXIT = `Exit codes: 0 ok, 1 a server or tool failed, 2 usage or configuration error.`;

/** `--raw`, as every command that prints a server's text offers it. */
export const RAW_OPT = `  --raw           print the server's text as sent; without it, control characters (C0 but newline
                  and tab, ESC, DEL, C1) are shown as escapes such as \\x1b, so a result cannot clear the
                  screen, set the window title or write the clipboard`;

/** The end of every command's help that starts servers: the common options, inputs and sign-in, exit codes. */
export const COMMON_TAIL = `${CONFIG_OPTS}

${INPUTS}
${EXIT}`;
