/** mcp-host: a headless command line over the host core (doctor, inspect, call, read, prompt, conformance). */
import { UsageError, parseArgs, type ParsedArgs } from './args';
import { call, doctor, inspect, prompt, read, shutdownAll, type CliRuntime } from './commands';
import { conformanceCommand } from './conformance/command';
import { HELP, USAGE } from './help';
import { createRuntime } from './runtime';
import { CLI_VERSION } from './version';

const COMMANDS: Record<string, (rt: CliRuntime, args: ParsedArgs) => Promise<number>> = { doctor, inspect, call, read, prompt };

/** One line on stderr; usage errors get a pointer to --help. */
function report(err: unknown, cmd: string | undefined): number {
  const code = (err as { exitCode?: number } | undefined)?.exitCode ?? 1;
  const message = err instanceof Error ? err.message : String(err);
  const hint = err instanceof UsageError && err.showHelp && cmd && HELP[cmd] ? ` (see mcp-host ${cmd} --help)` : '';
  process.stderr.write(`mcp-host${cmd ? ` ${cmd}` : ''}: ${message}${hint}\n`);
  return code;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? rest[0] : undefined;
    console.log(topic && Object.hasOwn(HELP, topic) ? HELP[topic] : USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === '--version' || cmd === '-V') {
    console.log(CLI_VERSION);
    return 0;
  }
  if (cmd === 'conformance') return conformanceCommand(rest);
  const run = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!run) {
    process.stderr.write(`mcp-host: unknown command "${cmd}"\n${USAGE}\n`);
    return 2;
  }
  try {
    const args = parseArgs(rest);
    if (args.help) {
      console.log(HELP[cmd]);
      return 0;
    }
    const rt = createRuntime();
    try {
      return await run(rt, args);
    } finally {
      await rt.dispose?.();
    }
  } catch (err) {
    return report(err, cmd);
  }
}

/** Ctrl+C / SIGTERM: stop every server (whole process trees) before leaving. */
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write(`mcp-host: ${signal}, stopping servers…\n`);
    void shutdownAll().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

/** A bug must not leave servers behind: stop them, then fail. */
process.on('uncaughtException', err => {
  process.stderr.write(`mcp-host: internal error: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  void shutdownAll().finally(() => process.exit(1));
});

/** Leaves with `code`; if a stray handle (a reconnect timer, a socket) keeps Node alive, leave anyway. */
function finish(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 3000).unref();
}

main(process.argv.slice(2)).then(finish, err => finish(report(err, undefined)));
