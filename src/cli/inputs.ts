/**
 * `${input:id}` values for the CLI: from the environment (`MCP_HOST_INPUT_<ID>`), else asked on the
 * terminal (passwords without echo), else the input's `default`. Each id is asked once per run.
 */
import * as readline from 'node:readline';
import { Writable } from 'node:stream';
import type { InputDefinition } from '../mcp';
import { UsageError } from './args';

/** `MCP_HOST_INPUT_` + the id upper-cased, every other character than A–Z/0–9 as `_`. */
export function inputEnvName(id: string): string {
  return `MCP_HOST_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

export interface InputResolverOptions {
  env?: NodeJS.ProcessEnv;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
}

export type InputResolver = (id: string) => Promise<string>;

export function createInputResolver(inputs: readonly InputDefinition[], opts: InputResolverOptions = {}): InputResolver {
  const env = opts.env ?? process.env;
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stderr;
  const cache = new Map<string, Promise<string>>();
  const byId = new Map(inputs.map(i => [i.id, i]));

  const resolve = async (id: string): Promise<string> => {
    const fromEnv = env[inputEnvName(id)];
    if (fromEnv !== undefined) return fromEnv;
    const def = byId.get(id);
    if (input.isTTY && output.isTTY) return ask(def ?? { id, type: 'promptString' }, input, output);
    if (def?.default !== undefined) return def.default;
    const known = def ? '' : ` (it is not declared under "inputs" either)`;
    throw new UsageError(`\${input:${id}} has no value${known}: set ${inputEnvName(id)} or run mcp-host in a terminal to be asked`);
  };

  return id => {
    let p = cache.get(id);
    if (!p) {
      p = resolve(id);
      cache.set(id, p);
    }
    return p;
  };
}

function ask(def: InputDefinition, input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Promise<string> {
  const label = `${def.description ?? def.id}${def.default !== undefined && !def.password ? ` [${def.default}]` : ''}: `;
  // A password is read through a sink, so what is typed is not echoed; the label goes out directly.
  const sink = new Writable({ write(_chunk, _enc, cb) { cb(); } });
  // The interface first (it puts the terminal in raw mode, so nothing typed is echoed by the tty),
  // then the label: an answer typed the moment the label shows is never echoed either.
  const rl = readline.createInterface({ input, output: def.password ? sink : output, terminal: true });
  if (def.password) output.write(label);
  return new Promise<string>((resolve, reject) => {
    rl.on('SIGINT', () => {
      rl.close();
      reject(new UsageError(`cancelled while asking for \${input:${def.id}}`));
    });
    rl.question(def.password ? '' : label, answer => {
      rl.close();
      if (def.password) output.write('\n');
      resolve(answer === '' && def.default !== undefined ? def.default : answer);
    });
  });
}
