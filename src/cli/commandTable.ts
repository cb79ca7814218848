/**
 * The one table of mcp-host's commands: each row is a command's name, its line in the usage text, its `--help` text and
 * its handler. `main.ts` dispatches from it, `mcp-host --help` / `help <command>` / `<command> --help` print from it, and
 * test/unit/cliCommands.test.ts checks that README.md, docs/CLI.md and docs/ARCHITECTURE.md name every command in it.
 * A new command is one row here (and its handler, in `commands.ts` or its own file, on `commandHost.ts`).
 */
import type { ParsedArgs } from './args';
import { call, inspect, prompt, read, skill, skills } from './commands';
import type { CliRuntime } from './commandHost';
import { run } from './codeModeRun';
import { doctor } from './doctor';
import { CONFORMANCE_HELP, conformanceCommand } from './conformance/command';
import { COMMON_TAIL, CONFIG_OPTS, EXIT, INPUTS, RAW_OPT } from './help';

/** How a command runs: over the runtime with the common options parsed, or on its own argument list. */
export type CliHandler =
  | { kind: 'host'; run: (rt: CliRuntime, args: ParsedArgs) => Promise<number> }
  | { kind: 'argv'; run: (argv: string[]) => Promise<number> };

export interface CliCommand {
  readonly name: string;
  /** The command and its arguments as the usage list shows them (`call <server> <tool> --args JSON`). */
  readonly synopsis: string;
  /** What it does, in a few words, for the usage list. */
  readonly summary: string;
  /** The whole `--help` text. */
  readonly help: string;
  readonly handler: CliHandler;
}

export const CLI_COMMANDS: readonly CliCommand[] = [
  {
    name: 'doctor',
    synopsis: 'doctor',
    summary: 'check the configuration and start every server',
    handler: { kind: 'host', run: doctor },
    help: `usage: mcp-host doctor [--config FILE] [--timeout MS]

Validates the configuration, resolves each stdio command (path and how it was found), starts every
enabled server with a timeout and prints its protocol version, capabilities and the number of tools,
prompts, resources and templates, or the error with the last stderr lines.

${CONFIG_OPTS}

${INPUTS}
${EXIT} (1 when any server failed, 2 when the configuration has errors)`,
  },
  {
    name: 'inspect',
    synopsis: 'inspect <server>',
    summary: "print a server's info, capabilities and full catalogue as JSON",
    handler: { kind: 'host', run: inspect },
    help: `usage: mcp-host inspect <server> [--config FILE] [--timeout MS]

Starts one server and prints JSON: { serverInfo, protocolVersion, era, capabilities, tools, prompts,
resources, resourceTemplates }, every page of every list. Control characters in the server's text
(C0, DEL, C1, U+2028/9) are \\u escapes, so the JSON is the same data and safe on a terminal.

${COMMON_TAIL}`,
  },
  {
    name: 'call',
    synopsis: 'call <server> <tool> --args JSON',
    summary: 'call a tool',
    handler: { kind: 'host', run: call },
    help: `usage: mcp-host call <server> <tool> [--args JSON] [--elicit JSON] [--task | --no-task] [--json] [--raw] [--config FILE] [--timeout MS]

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
${RAW_OPT}
${COMMON_TAIL}`,
  },
  {
    name: 'read',
    synopsis: 'read <server> <uri>',
    summary: 'read a resource',
    handler: { kind: 'host', run: read },
    help: `usage: mcp-host read <server> <uri> [--json] [--raw] [--config FILE] [--timeout MS]

Reads a resource and prints its text contents (binary contents are summarised; --json prints all).

  --json          print the ReadResourceResult (JSON; control characters as \\u escapes)
${RAW_OPT}
${COMMON_TAIL}`,
  },
  {
    name: 'prompt',
    synopsis: 'prompt <server> <name> --arg k=v…',
    summary: 'get a prompt',
    handler: { kind: 'host', run: prompt },
    help: `usage: mcp-host prompt <server> <name> [--arg key=value]… [--json] [--raw] [--config FILE] [--timeout MS]

Gets a prompt with its arguments and prints the messages.

  --arg key=value a prompt argument (repeat for several)
  --json          print the GetPromptResult (JSON; control characters as \\u escapes)
${RAW_OPT}
${COMMON_TAIL}`,
  },
  {
    name: 'skills',
    synopsis: 'skills <server>',
    summary: "list a server's skills (name and description)",
    handler: { kind: 'host', run: skills },
    help: `usage: mcp-host skills <server> [--json] [--config FILE] [--timeout MS]

Starts one server and lists the skills it offers (the io.modelcontextprotocol/skills extension), one per
line: the name, then the description on one line. Nothing of a skill is read.

  --json          print { skills: [{ name, description, uri, files, bytes }] }
${COMMON_TAIL}`,
  },
  {
    name: 'skill',
    synopsis: 'skill <server> <name> [file]',
    summary: "print a skill's SKILL.md (or one of its files), verified",
    handler: { kind: 'host', run: skill },
    help: `usage: mcp-host skill <server> <name> [file] [--json] [--raw] [--config FILE] [--timeout MS]

Starts one server and prints a skill's SKILL.md (or the file given, relative to the skill's folder, e.g.
references/FORMS.md). Every file is verified against the server's own skill entry (listed, size, SHA-256
digest, and for SKILL.md the frontmatter); a file that does not match is refused (exit 1) with a message
naming the server, the skill and the file.

  --json          print { server, skill, uri, text, body, verified }
  --raw           print the file as sent; without it, control characters are shown as escapes
${COMMON_TAIL}`,
  },
  {
    name: 'run',
    synopsis: 'run [<server>…] <file.js>',
    summary: 'run a JavaScript program that calls tools (code mode)',
    handler: { kind: 'host', run: run },
    help: `usage: mcp-host run [<server>…] <file.js> [--allow server/tool]… [--json] [--config FILE] [--timeout MS]

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
${COMMON_TAIL}`,
  },
  {
    name: 'conformance',
    synopsis: 'conformance <url>',
    summary: 'client mode for @modelcontextprotocol/conformance',
    handler: { kind: 'argv', run: conformanceCommand },
    help: CONFORMANCE_HELP,
  },
];

/** The command named `name`, if there is one (own rows only: `help constructor` is no command). */
export function commandNamed(name: string | undefined): CliCommand | undefined {
  return CLI_COMMANDS.find(c => c.name === name);
}

/** The usage list's two columns: a synopsis is padded to the first stop it fits (2 + 32, else 2 + 38 characters). */
function usageLine(c: CliCommand): string {
  const stop = [32, 38].find(w => c.synopsis.length < w) ?? c.synopsis.length + 1;
  return `  ${c.synopsis.padEnd(stop)}${c.summary}`;
}

export const USAGE = `usage: mcp-host <command> [options]

Commands:
${CLI_COMMANDS.map(usageLine).join('\n')}

Run "mcp-host <command> --help" for a command's options.
${EXIT}`;
