/** `--help` texts, one per command. */
import { inputEnvName } from './inputs';
import { DEFAULT_OAUTH_PORT } from './oauth';

const CONFIG_OPTS = `  --config FILE   settings.json (mcpHost.servers / mcp.servers), mcp.json (servers), or a
                  Claude Desktop / Cursor file (mcpServers). Default: ./.vscode/settings.json,
                  then ./.vscode/mcp.json. \${workspaceFolder} is the current directory.
  --root DIR      the folder servers get as their root (roots/list). Default: the folder of the
                  configuration's workspace (the parent of its .vscode folder); none for other files.
  --timeout MS    startup and request timeout for the servers this command starts
  --sandbox       run every stdio server in the OS sandbox (bubblewrap on Linux, sandbox-exec on
                  macOS), as "sandboxEnabled": true does for one: writes only in its roots and
                  temporary folder, no secrets (~/.ssh, ~/.aws, …; more in MCP_HOST_SANDBOX_DENY_READ,
                  a JSON array), network only to its sandbox.network.allowedDomains
  -v, --verbose   every log line (server stderr, notifications/message, lifecycle) on stderr
  -h, --help      this text`;

const INPUTS = `Inputs: \${input:id} values come from the environment (${inputEnvName('id')}), else are asked
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

const EXIT = `Exit codes: 0 ok, 1 a server or tool failed, 2 usage or configuration error.`;

export const USAGE = `usage: mcp-host <command> [options]

Commands:
  doctor                          check the configuration and start every server
  inspect <server>                print a server's info, capabilities and full catalogue as JSON
  call <server> <tool> --args JSON      call a tool
  read <server> <uri>             read a resource
  prompt <server> <name> --arg k=v…     get a prompt
  skills <server>                 list a server's skills (name and description)
  skill <server> <name> [file]    print a skill's SKILL.md (or one of its files), verified
  run [<server>…] <file.js>       run a JavaScript program that calls tools (code mode)
  conformance <url>               client mode for @modelcontextprotocol/conformance

Run "mcp-host <command> --help" for a command's options.
${EXIT}`;

export const HELP: Record<string, string> = {
  doctor: `usage: mcp-host doctor [--config FILE] [--timeout MS]

Validates the configuration, resolves each stdio command (path and how it was found), starts every
enabled server with a timeout and prints its protocol version, capabilities and the number of tools,
prompts, resources and templates, or the error with the last stderr lines.

${CONFIG_OPTS}

${INPUTS}
${EXIT} (1 when any server failed, 2 when the configuration has errors)`,

  inspect: `usage: mcp-host inspect <server> [--config FILE] [--timeout MS]

Starts one server and prints JSON: { serverInfo, protocolVersion, era, capabilities, tools, prompts,
resources, resourceTemplates }, every page of every list. Control characters in the server's text
(C0, DEL, C1, U+2028/9) are \\u escapes, so the JSON is the same data and safe on a terminal.

${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  call: `usage: mcp-host call <server> <tool> [--args JSON] [--elicit JSON] [--task | --no-task] [--json] [--raw] [--config FILE] [--timeout MS]

Calls a tool and prints its result. Arguments are a JSON object, checked against the tool's input
schema before sending: --args '{"message":"hello"}'. A result with isError: true exits 1.
A call may run as an MCP task: its status lines go to stderr, its result to stdout when it ends,
and Ctrl+C cancels it (tasks/cancel); with --timeout, a task not ended that long after it started is
cancelled too. On protocol 2026-07-28, a server that declares the Tasks extension decides per call
whether it answers with a task: no flag is needed. On 2025-11-25, a tool whose execution.taskSupport
is "required" runs as a task; an "optional" one with --task, or when a plain call of it took 10 s or
more earlier in the same run.

  --args JSON     the tool's arguments (default {})
  --elicit JSON   the answer to the server's form elicitation(s) while the call (or task) runs, e.g.
                  --elicit '{"name":"Ada","check":true}': each form gets the fields its schema names
                  (and its defaults), checked before sending; content that does not fit ends the run
                  (exit 2). Without it, on a terminal each form is asked field by field
                  (Enter keeps a default, !decline declines); without a terminal no
                  elicitation is offered
  --task          2025-11-25 servers: run an "optional" tool as a task
  --no-task       2025-11-25 servers: run an "optional" tool as a plain call
  --json          print the CallToolResult (JSON; control characters as \\u escapes)
  --raw           print the server's text as sent; without it, control characters (C0 but newline
                  and tab, ESC, DEL, C1) are shown as escapes such as \\x1b, so a result cannot clear the
                  screen, set the window title or write the clipboard
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  skills: `usage: mcp-host skills <server> [--json] [--config FILE] [--timeout MS]

Starts one server and lists the skills it offers (the io.modelcontextprotocol/skills extension), one per
line: the name, then the description on one line. Nothing of a skill is read.

  --json          print { skills: [{ name, description, uri, files, bytes }] }
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  skill: `usage: mcp-host skill <server> <name> [file] [--json] [--raw] [--config FILE] [--timeout MS]

Starts one server and prints a skill's SKILL.md (or the file given, relative to the skill's folder, e.g.
references/FORMS.md). Every file is verified against the server's own skill entry (listed, size, SHA-256
digest, and for SKILL.md the frontmatter); a file that does not match is refused (exit 1) with a message
naming the server, the skill and the file.

  --json          print { server, skill, uri, text, body, verified }
  --raw           print the file as sent; without it, control characters are shown as escapes
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  run: `usage: mcp-host run [<server>…] <file.js> [--allow server/tool]… [--json] [--config FILE] [--timeout MS]

Runs a JavaScript program (code mode) against the servers named (none: every enabled server) and prints
its return value as JSON. The program is the body of an async function in an embedded QuickJS
interpreter: it sees only mcp.<server>.<tool>(args) (async; names other than letters, digits, _ and $
become _, collisions get _2, _3…), console.log (printed on stderr) and the language's built-ins; no
require, process, files or network. A call goes through the same path as "call" (arguments checked
against the tool's schema); the program gets the result's structuredContent, else the text of a single
text block, else the content array; isError: true throws. Limits: 5 s of CPU, 50 ms without awaiting (split long work with await null),
64 MiB of memory, 64 KiB of return value and of console output, 50 tool calls; a program over one
is stopped with an error naming it (exit 1).

  --allow S/T     the program may call tool T of server S (repeat; S/* for all of S's tools). A tool
                  not allowed is asked for on a terminal (once per tool), and refused without one:
                  the program then gets an error naming the flag to pass
  --json          print { value, console, calls } instead of the value
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  read: `usage: mcp-host read <server> <uri> [--json] [--raw] [--config FILE] [--timeout MS]

Reads a resource and prints its text contents (binary contents are summarised; --json prints all).

  --json          print the ReadResourceResult (JSON; control characters as \\u escapes)
  --raw           print the server's text as sent; without it, control characters (C0 but newline
                  and tab, ESC, DEL, C1) are shown as escapes such as \\x1b, so a result cannot clear the
                  screen, set the window title or write the clipboard
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,

  prompt: `usage: mcp-host prompt <server> <name> [--arg key=value]… [--json] [--raw] [--config FILE] [--timeout MS]

Gets a prompt with its arguments and prints the messages.

  --arg key=value a prompt argument (repeat for several)
  --json          print the GetPromptResult (JSON; control characters as \\u escapes)
  --raw           print the server's text as sent; without it, control characters (C0 but newline
                  and tab, ESC, DEL, C1) are shown as escapes such as \\x1b, so a result cannot clear the
                  screen, set the window title or write the clipboard
${CONFIG_OPTS}

${INPUTS}
${EXIT}`,
};
