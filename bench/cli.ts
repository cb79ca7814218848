/**
 * CLI start-up: `mcp-host inspect <server>` as a user runs it (`node dist/cli.js`, the production bundle with the
 * bundles it loads on first use next to it), whole process from spawn to exit, on server-everything and server-memory
 * (stdio, from node_modules/.bin); 5 runs each, alternating servers, median. Needs dist/cli.js (built here with
 * --production if missing). The peer, the MCP Inspector CLI doing the same `tools/list`, is not a dependency
 * of this project: the row reports the figure alone.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, median, round, type Bench } from './lib';

const RUNS = 5;

export const cliStartup: Bench = {
  id: 'cli',
  title: 'mcp-host inspect, whole process, server-everything and server-memory (production dist/cli.js)',
  async run(log) {
    const cli = path.join(ROOT, 'dist', 'cli.js');
    if (!fs.existsSync(cli) || /\/\/# sourceMappingURL=/.test(fs.readFileSync(cli, 'utf8').slice(-512))) {
      log('dist/cli.js is missing or a development build: building it (node esbuild.mjs --production)');
      const b = spawnSync(process.execPath, ['esbuild.mjs', '--production'], { cwd: ROOT, encoding: 'utf8' });
      if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
    }
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bench-cli-'));
    try {
      const bin = path.join(ROOT, 'node_modules', '.bin');
      const cfg = path.join(work, 'mcp.json');
      fs.writeFileSync(cfg, JSON.stringify({ servers: {
        everything: { type: 'stdio', command: path.join(bin, 'mcp-server-everything'), args: ['stdio'], cwd: work },
        memory: { type: 'stdio', command: path.join(bin, 'mcp-server-memory'), env: { MEMORY_FILE_PATH: path.join(work, 'memory.jsonl') }, cwd: work },
      } }));
      const times: Record<string, number[]> = { everything: [], memory: [] };
      for (let i = 0; i < RUNS; i++) {
        for (const server of Object.keys(times)) {
          const t0 = performance.now();
          const r = spawnSync(process.execPath, [cli, 'inspect', server, '--config', cfg], { cwd: work, encoding: 'utf8', timeout: 120_000 });
          const ms = performance.now() - t0;
          if (r.status !== 0) throw new Error(`mcp-host inspect ${server} exited ${r.status ?? r.signal}: ${r.stderr.slice(0, 500)}`);
          times[server].push(ms);
        }
      }
      return Object.entries(times).map(([server, ms]) => {
        log(`inspect ${server}: ${ms.map(x => x.toFixed(0)).join(', ')} ms`);
        return {
          name: `cli: mcp-host inspect ${server === 'everything' ? 'server-everything' : 'server-memory'}, whole process (median of ${RUNS})`,
          value: round(median(ms), 0), unit: 'ms', ratio: null,
          target: 'report (no slower than the MCP Inspector CLI; that peer is not installed here)', met: null,
          note: `runs: ${ms.map(x => x.toFixed(0)).join(', ')} ms; load ${os.loadavg()[0].toFixed(1)}`,
        };
      });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  },
};
