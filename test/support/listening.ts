/**
 * Starting a fixture server that says where it listens (issue 39: written once for the editor suites that had their
 * own copies). The fixture prints `LISTENING <port>` (or `LISTENING <port> <url>`) on stdout once it accepts
 * connections on 127.0.0.1; this resolves then, and rejects, naming the fixture, if it exits first. The caller stops
 * the child it is given (`child.kill()`), as it started it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';

/** A started fixture: its port, `http://127.0.0.1:<port>`, the MCP endpoint (`<base>/mcp`, or the URL it printed), the process. */
export interface ListeningFixture { port: number; base: string; url: string; child: ChildProcess }

/** Runs `node <script> ...args` in `cwd` and resolves once it printed `LISTENING <port>`. */
export function startListening(script: string, args: string[], opts: { cwd: string; stderr?: 'ignore' | 'inherit' }): Promise<ListeningFixture> {
  const child = spawn(process.execPath, [script, ...args], { cwd: opts.cwd, stdio: ['pipe', 'pipe', opts.stderr ?? 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', d => {
      out += d;
      const m = /LISTENING (\d+)(?: (\S+))?/.exec(out);
      if (!m) return;
      const base = `http://127.0.0.1:${m[1]}`;
      resolve({ port: Number(m[1]), base, url: m[2] ?? `${base}/mcp`, child });
    });
    child.once('exit', code => reject(new Error(`${path.basename(script)} exited (${code}) before listening`)));
  });
}
