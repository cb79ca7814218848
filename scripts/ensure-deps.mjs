// Runs `npm ci` when node_modules does not match package-lock.json (missing, or a direct dependency at another
// version), and does nothing otherwise, so `npm start` / `npm test` work on a fresh clone without reinstalling
// on every run. Needs nothing but Node; `npm ci` runs on the Node of package.json's engines.node (scripts/node.sh:
// the system one when new enough, else Node 24), so it installs without EBADENGINE warnings.
//   node scripts/ensure-deps.mjs [--check]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { engineNode } from './engine-node.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const readJson = f => JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8'));

function stale() {
  const pkg = readJson('package.json');
  const lock = readJson('package-lock.json');
  for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    const want = lock.packages?.[`node_modules/${name}`]?.version;
    const file = path.join(ROOT, 'node_modules', name, 'package.json');
    if (!fs.existsSync(file)) return `${name} is not installed`;
    const have = JSON.parse(fs.readFileSync(file, 'utf8')).version;
    if (want && have !== want) return `${name} is ${have}, the lockfile wants ${want}`;
  }
  return undefined;
}

const why = stale();
if (!why) process.exit(0);
if (process.argv.includes('--check')) { console.log(`node_modules is stale: ${why}`); process.exit(1); }
console.log(`[deps] ${why}: running npm ci`);
const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit', env: engineNode().env });
process.exit(r.status ?? 1);
