/** mcp-host: a headless command line over the host core (doctor, inspect, call, read, prompt, conformance). */
import { conformanceCommand } from './conformance/command';

const USAGE = `usage: mcp-host <doctor|inspect|call|read|prompt|conformance> [options]`;

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h') {
    console.log(USAGE);
    return cmd ? 0 : 2;
  }
  if (cmd === 'conformance') return conformanceCommand(rest);
  console.error(`mcp-host: unknown command "${cmd}"\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(code => { process.exitCode = code; }, err => {
  console.error(`mcp-host: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
