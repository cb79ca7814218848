/**
 * Start-up of a sandboxed stdio server vs. the same server plain (issue 24): one echo server started through the
 * host up to `running` with its catalogue, with `sandboxEnabled` (bubblewrap through the sandbox runtime) and
 * without, alternating, after one warm-up of each (the first sandboxed start also loads the runtime and starts its
 * proxies; reported apart). Skipped (a row saying why) where the machine cannot sandbox.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeFixture } from '../test/support/connection';
import { McpHost } from '../src/mcp';
import { resetSandbox } from '../src/mcp/launch/sandboxLaunch';
import { sandboxUnavailable } from '../src/mcp/launch/sandboxRuntime';
import { BENCH_STOP, median, round, timed, type Bench } from './lib';

const ROUNDS = 5;

async function start(sandboxed: boolean, root: string): Promise<number> {
  const host = new McpHost({ pingIntervalMs: 0, stopGrace: BENCH_STOP, restart: { enabled: false } });
  host.setRoots([{ uri: pathToFileURL(root).href, name: 'root' }]);
  const def = nodeFixture('echo', 'echo', [], { cwd: root, ...(sandboxed && { sandboxEnabled: true }) });
  try {
    const ms = await timed(() => host.reconcile([def]));
    if (host.get('echo')?.state.kind !== 'running') throw new Error(`the ${sandboxed ? 'sandboxed' : 'plain'} server did not start`);
    return ms;
  } finally {
    await host.shutdown();
    host.dispose();
  }
}

export const sandboxStartup: Bench = {
  id: 'sandbox',
  title: 'sandbox: start-up of a sandboxed stdio server vs. the same server plain',
  async run(log) {
    const why = await sandboxUnavailable();
    if (why) {
      return [{ name: 'sandbox: start-up, sandboxed ÷ plain', value: NaN, unit: 'ms', ratio: null, target: 'report', met: null, note: `not measured: ${why}` }];
    }
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-bench-sandbox-')));
    try {
      const first = await start(true, root);
      await start(false, root);
      const boxed: number[] = [], plain: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        plain.push(await start(false, root));
        boxed.push(await start(true, root));
      }
      log(`plain ${plain.map(x => x.toFixed(0)).join('/')} ms; sandboxed ${boxed.map(x => x.toFixed(0)).join('/')} ms; first sandboxed start (loads the runtime) ${first.toFixed(0)} ms`);
      const ratio = median(boxed) / median(plain);
      return [{
        name: 'sandbox: start-up of a sandboxed stdio server', value: round(median(boxed), 1), unit: 'ms',
        ratio: round(ratio), target: 'report', met: null, baseline: 'the same server started plain',
        note: `plain ${round(median(plain), 1)} ms; the first sandboxed start of a process (runtime load + proxies) ${round(first, 0)} ms`,
      }];
    } finally {
      await resetSandbox();
      fs.rmSync(root, { recursive: true, force: true });
    }
  },
};
