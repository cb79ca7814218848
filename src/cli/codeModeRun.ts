/**
 * `mcp-host run` (issue 42, code mode): a JavaScript program run in the code-mode engine (src/mcp/codemode) against
 * servers, each tool call granted by `--allow` or asked on a terminal once per tool and run.
 */
import { createInterface } from 'node:readline/promises';
import { READ_CAPS, readBoundedText, programValue, visibleToModel } from '../mcp';
import { CodeModeError, runProgram } from '../mcp/codemode/codeModeEngine';
import { FailureError, UsageError, type ParsedArgs } from './args';
import { jsonText, ownText } from './output';
import { oneLine, pick, startOne, withHost, withTimeout, type CliRuntime } from './commandHost';

/**
 * `mcp-host run [<server>…] <file.js>` (issue 42, code mode): runs a JavaScript program in the code-mode engine
 * (src/mcp/codemode) against the named servers (none named: every enabled server). Each `mcp.<server>.<tool>(args)`
 * goes through the same call path as `call` (the host's `callTool`, arguments checked against the schema); a tool may
 * be called only when `--allow server/tool` (or `server/*`) grants it, else on a terminal the user is asked once per
 * tool, and without a terminal the call is refused with the flag to pass. A tool's result reaches the program as its
 * structuredContent, else the text of a single text block, else its content array; `isError: true` throws.
 */
export async function run(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const file = args.positionals[args.positionals.length - 1];
  const named = args.positionals.slice(0, -1);
  if (!file) throw new UsageError('run needs a program: mcp-host run [<server>…] <file.js> [--allow server/tool]', { help: true });
  for (const a of args.allow) {
    if (!/^[^/]+\/.+$/.test(a)) throw new UsageError(`--allow ${a}: give a server and a tool as server/tool (or server/* for all its tools)`, { help: true });
  }
  let source: string;
  try {
    source = await readBoundedText(file, { maxBytes: READ_CAPS.program, what: 'program' });
  } catch (err) {
    throw new UsageError(`cannot read the program ${err instanceof Error ? err.message : String(err)}`);
  }
  const cfg = await rt.loadConfig(args);
  const defs = (named.length ? named.map(n => pick(cfg, n)) : cfg.definitions.filter(d => !d.disabled)).map(d => withTimeout(d, args.timeout));
  if (!defs.length) throw new UsageError(`no servers to run the program against: ${cfg.file} defines no enabled server`);
  const granted = new Set(args.allow);
  // One question per tool and run, even when the program calls it several times at once (Promise.all).
  const asked = new Map<string, Promise<boolean>>();
  const interactive = process.stdin.isTTY && process.stderr.isTTY;
  const ask = async (server: string, tool: string): Promise<boolean> => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(ownText(`mcp-host run: the program calls tool "${tool}" on server "${server}"; allow it for this run? [y/N] `));
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
  const allowed = (server: string, tool: string): Promise<boolean> => {
    if (granted.has(`${server}/${tool}`) || granted.has(`${server}/*`)) return Promise.resolve(true);
    if (!interactive) return Promise.resolve(false);
    const key = `${server}/${tool}`;
    let answer = asked.get(key);
    if (!answer) {
      // Questions one after another on the terminal, each after the one before.
      const before = [...asked.values()].at(-1) ?? Promise.resolve(false);
      asked.set(key, answer = before.catch(() => false).then(() => ask(server, tool)));
    }
    return answer;
  };
  const outcome = await withHost(rt, defs, async host => {
    const handles = await Promise.all(defs.map(d => startOne(host, d.name, rt).catch(oneLine)));
    const servers = handles.map(h => ({ name: h.name, tools: h.catalogue.tools.filter(visibleToModel) }));
    try {
      return await runProgram(source, {
        servers,
        callTool: async (server, tool, toolArgs, signal) => {
          if (!(await allowed(server, tool))) {
            throw new Error(`tool "${tool}" on server "${server}" is not allowed for this program; grant it with --allow ${server}/${tool} (or --allow ${server}/*)`);
          }
          const handle = handles.find(h => h.name === server);
          if (!handle) throw new Error(`server "${server}" is not part of this run`);
          return programValue(server, tool, await handle.callTool(tool, toolArgs, { userStarted: true, signal }));
        },
      });
    } catch (err) {
      if (err instanceof CodeModeError) return err;
      throw err;
    }
  }, args.verbose, undefined, (server, tool) => defs.some(d => d.name === server) && !!tool);
  for (const line of outcome.console) rt.err(ownText(line, 16 * 1024));
  if (outcome instanceof CodeModeError) throw new FailureError(`the program ${file} stopped: ${outcome.message}`);
  rt.out(args.json ? jsonText(outcome) : jsonText(outcome.value));
  return 0;
}
