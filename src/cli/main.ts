/** mcp-host: a headless command line over the host core; its commands are the rows of `commandTable.ts`. */
import { UsageError, parseArgs } from './args';
import { shutdownAll } from './commandHost';
import { USAGE, commandNamed } from './commandTable';
import { createRuntime } from './runtime';
import { CLI_VERSION } from './version';
import { ownText, watchOutput, write } from './output';

/** One line on stderr; usage errors get a pointer to --help. */
function report(err: unknown, cmd: string | undefined): number {
  const code = (err as { exitCode?: number } | undefined)?.exitCode ?? 1;
  const message = err instanceof Error ? err.message : String(err);
  const hint = err instanceof UsageError && err.showHelp && commandNamed(cmd) ? ` (see mcp-host ${cmd} --help)` : '';
  write('stderr', ownText(`mcp-host${cmd ? ` ${cmd}` : ''}: ${message}${hint}`, 16 * 1024));
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? commandNamed(rest[0]) : undefined;
    console.log(topic?.help ?? USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-V') {
    console.log(CLI_VERSION);
    return 0;
  }
  const command = commandNamed(cmd);
  if (!command) {
    write('stderr', `${ownText(`mcp-host: unknown command "${cmd}"`)}\n${USAGE}`);
    return 2;
  }
  if (command.handler.kind === 'argv') return command.handler.run(rest);
  try {
    const args = parseArgs(rest);
    if (args.help) {
      console.log(command.help);
      return 0;
    }
    const rt = createRuntime(process.cwd(), process.env, { raw: args.raw });
    try {
      return await command.handler.run(rt, args);
    } finally {
      await rt.dispose?.();
    }
  } catch (err) {
    return report(err, cmd);
  }
}

/** Longest wait for the servers to stop once the CLI must end (their own stop sends SIGKILL well before). */
const STOP_DEADLINE_MS = 10_000;

/**
 * Ends the process after stopping every server (whole process trees); a second request, or the deadline,
 * ends it at once. Used for Ctrl+C, SIGTERM, SIGHUP, a closed stdout/stderr and internal errors.
 */
let stopping = false;
function stopAndExit(code: number, note?: string): void {
  if (stopping) process.exit(code);
  stopping = true;
  if (note) write('stderr', note);
  setTimeout(() => process.exit(code), STOP_DEADLINE_MS);
  void shutdownAll(line => write('stderr', line)).finally(() => process.exit(code));
}

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.on(signal, () => stopAndExit(code, `mcp-host: ${signal}, stopping servers…`));
}

/** `mcp-host … | head -1`: the reader left. Stop quietly (128 + SIGPIPE, as a tool killed by it would). */
watchOutput(() => stopAndExit(141));

/** A bug must not leave servers behind: stop them, then fail. */
process.on('uncaughtException', err => {
  write('stderr', `mcp-host: internal error: ${ownText(err instanceof Error ? err.stack ?? err.message : String(err), 16 * 1024)}`);
  stopAndExit(1);
});

/** Leaves with `code`; if a stray handle (a reconnect timer, a socket) keeps Node alive, leave anyway. */
function finish(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 3000).unref();
}

main(process.argv.slice(2)).then(finish, err => finish(report(err, undefined)));
