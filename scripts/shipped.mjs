// The artefact under test is the one that ships (issue 11). This script makes sure that
//   dist/mcp-host.vsix        is the production package of the current sources (`npm run package`: minified bundles),
//   dist/extension.js, cli.js are byte for byte the bundles inside that VSIX, and
//   .vscode-test/shipped/extension/  is that VSIX unpacked (what the editor suite loads as the extension; or
//                             $MCP_HOST_SHIPPED_DIR/extension/, a folder no other run touches),
// rebuilding only when something is stale.
//   node scripts/shipped.mjs            ensure (rebuild when stale)
//   node scripts/shipped.mjs --print    ensure, then print the unpacked extension folder on stdout
//   node scripts/shipped.mjs --check    exit 1 (with the reason) instead of rebuilding
// Importable: `ensureShipped({ check })` returns { vsix, extensionDir, cli }.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORK = process.env.VSCODE_TEST_DIR ? path.resolve(process.env.VSCODE_TEST_DIR) : path.join(ROOT, '.vscode-test');
export const VSIX = path.join(ROOT, 'dist/mcp-host.vsix');
// MCP_HOST_SHIPPED_DIR: a folder of the caller's own to unpack into (the benchmarks' editor runs, issue 41): the shared
// .vscode-test/shipped is re-unpacked by any other editor run on the machine (another checkout's VSIX), which swapped
// the extension under a running benchmark.
export const SHIPPED_DIR = process.env.MCP_HOST_SHIPPED_DIR ? path.resolve(process.env.MCP_HOST_SHIPPED_DIR) : path.join(WORK, 'shipped');
export const SHIPPED_EXTENSION = path.join(SHIPPED_DIR, 'extension');
// With the bundles loaded on first use (esbuild.mjs, LAZY) and started as workers (WORKERS): the VSIX must carry each (.vscodeignore).
const BUNDLES = ['extension.js', 'app-bridge.js', 'cli.js', 'sandbox-runtime.js', 'gateway-server.js', 're2.js', 'ajv.js', 'sdk-ajv.js', 'ext-tasks.js', 'jose.js', 'codemode.js', 'codemode-worker.js'];
/** What goes into the VSIX: a change to any of these makes it stale (not media/screens, the README's pictures, which the
 * UI tests write after the VSIX is built: they ship with the next build). */
const INPUTS = ['src', 'media', 'package.json', 'package.nls.json', 'l10n', 'package-lock.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'esbuild.mjs', '.vscodeignore'];

function newestInput() {
  let newest = 0;
  for (const rel of INPUTS) {
    const abs = path.join(ROOT, rel);
    if (!fs.existsSync(abs)) continue;
    const st = fs.statSync(abs);
    if (!st.isDirectory()) { newest = Math.max(newest, st.mtimeMs); continue; }
    for (const e of fs.readdirSync(abs, { recursive: true, withFileTypes: true })) {
      if (e.isFile() && !path.relative(ROOT, e.parentPath ?? e.path).startsWith(path.join('media', 'screens'))) newest = Math.max(newest, fs.statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs);
    }
  }
  return newest;
}

/** Why the shipped artefact must be rebuilt, or undefined when it is current. */
function staleness() {
  if (!fs.existsSync(VSIX)) return 'dist/mcp-host.vsix does not exist';
  if (fs.statSync(VSIX).mtimeMs < newestInput()) return 'the sources are newer than dist/mcp-host.vsix';
  for (const f of BUNDLES) {
    const inDist = path.join(ROOT, 'dist', f);
    if (!fs.existsSync(inDist)) return `dist/${f} is missing`;
    const text = fs.readFileSync(inDist, 'utf8');
    if (/\/\/# sourceMappingURL=/.test(text)) return `dist/${f} is a development build (it has a source map)`;
  }
  const stamp = path.join(SHIPPED_DIR, 'vsix.stamp');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== stampOf()) return 'the unpacked VSIX is not this one';
  for (const f of BUNDLES) {
    const a = fs.readFileSync(path.join(ROOT, 'dist', f));
    const b = path.join(SHIPPED_EXTENSION, 'dist', f);
    if (!fs.existsSync(b) || !a.equals(fs.readFileSync(b))) return `dist/${f} differs from the one inside dist/mcp-host.vsix`;
  }
  return undefined;
}

function stampOf() {
  const st = fs.statSync(VSIX);
  return `${st.size}:${st.mtimeMs}`;
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function unpack() {
  fs.rmSync(SHIPPED_DIR, { recursive: true, force: true, maxRetries: 3 });
  fs.mkdirSync(SHIPPED_DIR, { recursive: true });
  // A VSIX is a zip with the extension under extension/. python3 is on every machine the harness supports
  // (node-gyp needs it); no unzip binary is assumed.
  run('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', VSIX, SHIPPED_DIR]);
  for (const f of BUNDLES) fs.chmodSync(path.join(SHIPPED_EXTENSION, 'dist', f), 0o755);
  // zipfile keeps no file modes: the sandbox's seccomp helper must be executable (issue 24).
  for (const arch of ['x64', 'arm64']) {
    const helper = path.join(SHIPPED_EXTENSION, 'dist/vendor/seccomp', arch, 'apply-seccomp');
    if (fs.existsSync(helper)) fs.chmodSync(helper, 0o755);
  }
  fs.writeFileSync(path.join(SHIPPED_DIR, 'vsix.stamp'), stampOf());
}

export function ensureShipped({ check = false, log = m => console.error(`[shipped] ${m}`) } = {}) {
  let why = staleness();
  if (why && check) throw new Error(`the shipped artefact is stale: ${why} (run \`node scripts/shipped.mjs\`)`);
  if (why) {
    // `npm run package` = node esbuild.mjs --production && vsce package (see package.json)
    if (why !== 'the unpacked VSIX is not this one') {
      log(`${why}: npm run package`);
      run('npm', ['run', '--silent', 'package']);
    }
    unpack();
    why = staleness();
    if (why) throw new Error(`the shipped artefact is still stale after packaging: ${why}`);
    log(`unpacked ${path.relative(ROOT, VSIX)} (${Math.round(fs.statSync(VSIX).size / 1024)} KiB) into ${path.relative(ROOT, SHIPPED_EXTENSION)}`);
  }
  return { vsix: VSIX, extensionDir: SHIPPED_EXTENSION, cli: path.join(ROOT, 'dist/cli.js') };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { extensionDir } = ensureShipped({ check: process.argv.includes('--check') });
    if (process.argv.includes('--print')) console.log(extensionDir);
  } catch (e) {
    console.error(`[shipped] ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
