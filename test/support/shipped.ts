/**
 * The CLI under test is the one that ships (issue 11): `dist/cli.js` of the production build, byte for byte the
 * copy inside dist/mcp-host.vsix. `scripts/shipped.mjs` rebuilds the package when the sources are newer, so a
 * test run never spawns a development bundle. Tests get a private copy: a concurrent build (which empties dist/)
 * cannot pull it away mid-run.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..').replace(/[\\/]out$/, '');

let checked: string | undefined;

/** Makes sure dist/ holds the production build of the current sources; returns the path of dist/cli.js. */
export function shippedCliPath(): string {
  if (checked) return checked;
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts/shipped.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node scripts/shipped.mjs failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  const cli = path.join(ROOT, 'dist/cli.js');
  const text = fs.readFileSync(cli, 'utf8');
  if (/\/\/# sourceMappingURL=/.test(text)) throw new Error(`${cli} is a development build`);
  checked = cli;
  return cli;
}

/** The bundles the CLI loads on first use from next to itself (esbuild.mjs, LAZY; code mode's worker, WORKERS). */
export const CLI_LAZY_BUNDLES = ['re2.js', 'ajv.js', 'sdk-ajv.js', 'ext-tasks.js', 'jose.js', 'codemode-worker.js'];

/** Copies the production CLI to `to` (a path ending in cli.js) with the bundles it loads from next to itself. */
export function copyShippedCli(to: string): void {
  const dist = path.dirname(shippedCliPath());
  fs.copyFileSync(path.join(dist, 'cli.js'), to);
  for (const f of CLI_LAZY_BUNDLES) fs.copyFileSync(path.join(dist, f), path.join(path.dirname(to), f));
}

/** A private copy of the production CLI in a new temp folder; `dispose()` removes the folder. */
export function shippedCliCopy(prefix = 'mcp-host-cli-'): { cli: string; dir: string; dispose(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const cli = path.join(dir, 'cli.js');
  copyShippedCli(cli);
  copySandboxRuntime(dir);
  return { cli, dir, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A test's CLI start-up: a private copy of the shipped CLI, a `servers` folder beside it (the cwd to give every server
 * the test starts, so `assertNoProcessesIn(serverCwd)` finds any left behind) and the path of its `mcp.json`.
 */
export function shippedCliWorkspace(prefix: string): { copy: ReturnType<typeof shippedCliCopy>; serverCwd: string; config: string } {
  const copy = shippedCliCopy(prefix);
  const serverCwd = path.join(copy.dir, 'servers');
  fs.mkdirSync(serverCwd);
  return { copy, serverCwd, config: path.join(copy.dir, 'mcp.json') };
}

/** The CLI loads the OS sandbox's runtime from next to itself (dist/sandbox-runtime.js + dist/vendor/): copy it too. */
export function copySandboxRuntime(dir: string): void {
  const dist = path.dirname(shippedCliPath());
  fs.copyFileSync(path.join(dist, 'sandbox-runtime.js'), path.join(dir, 'sandbox-runtime.js'));
  fs.cpSync(path.join(dist, 'vendor'), path.join(dir, 'vendor'), { recursive: true });
}
