// The Node of package.json's engines.node for the scripts that run on whatever `node` started them (`npm test`,
// scripts/ensure-deps.mjs): scripts/node.sh picks it (the system Node when new enough, else Node 24 in
// .vscode-test/node24, installed the first time), and this module hands it on.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The picked Node: its binary, an environment with its folder first on PATH, and whether it is the one running. */
export function engineNode() {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/node.sh'), 'pick'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const dir = r.stdout?.trim();
  if (r.status !== 0 || !dir) {
    console.error(`[node] no Node for package.json's engines.node: bash scripts/node.sh pick exited ${r.status ?? r.signal}`);
    process.exit(r.status || 1);
  }
  const node = path.join(dir, 'node');
  const env = { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` };
  return { node, env, current: fs.realpathSync(node) === fs.realpathSync(process.execPath) };
}

/** Runs the calling script again on the picked Node when another one runs it (and exits with its status). */
export function rerunOnEngineNode() {
  const picked = engineNode();
  if (picked.current) return;
  console.error(`[node] running ${path.relative(ROOT, process.argv[1])} on ${picked.node}`);
  const r = spawnSync(picked.node, process.argv.slice(1), { stdio: 'inherit', env: picked.env });
  process.exit(r.status ?? (r.signal ? 128 : 1));
}
