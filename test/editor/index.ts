// The suite entry the extension host loads (extensionTestsPath = out/test/editor/index.js): runs every
// out/test/editor/**/*.test.js with mocha's bdd ui (describe/it) inside the real VS Code extension host.
import * as fs from 'fs';
import * as path from 'path';
import * as util from 'util';
import Mocha from 'mocha';

/** Every `*.test.js` file below `dir`, sorted so the order is stable. */
function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter(f => f.endsWith('.test.js'))
    .map(f => path.join(dir, f))
    .sort();
}

export function run(): Promise<void> {
  // The extension host forwards console.* to the workbench WITHOUT printf-style substitution and does not let
  // code reassign console.log, so mocha's reporter output goes through util.format here, and is appended to the
  // file the outside runner streams (EXTENSION_TEST_OUTPUT, set by scripts/editor/run-extension-tests.mjs).
  const outFile = process.env.EXTENSION_TEST_OUTPUT;
  (Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void }).consoleLog = (...a: unknown[]) => {
    const line = util.format(...a);
    if (outFile) fs.appendFileSync(outFile, line + '\n');
    console.log(line);
  };
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    reporter: 'spec',
    timeout: Number(process.env.MCP_HOST_TEST_TIMEOUT ?? 30000),
    grep: process.env.MCP_HOST_TEST_GREP || undefined,
    // MCP_HOST_TEST_GREP_INVERT=1: run what does NOT match (the trusted pass leaves out the other passes' tests)
    invert: process.env.MCP_HOST_TEST_GREP_INVERT === '1',
  });
  // These files are switches, not tests: they load only when asked for, so a normal run has no pending test.
  const onlyWhen: Record<string, string | undefined> = {
    'force-fail.test.js': process.env.MCP_HOST_FORCE_FAIL,
    'bench-activation.test.js': process.env.MCP_HOST_BENCH_ACTIVATION_OUT,
    'bench-apps.test.js': process.env.MCP_HOST_BENCH_APPS_OUT,
    'bench-vs-builtin.test.js': process.env.MCP_HOST_BENCH_VSBUILTIN_OUT,
  };
  for (const f of testFiles(__dirname)) {
    const base = path.basename(f);
    if (base in onlyWhen && !onlyWhen[base]) continue;
    mocha.addFile(f);
  }
  return new Promise((resolve, reject) => {
    mocha.run(failures => (failures > 0 ? reject(new Error(`${failures} editor test(s) failed.`)) : resolve()));
  });
}
