// What every UI test (test/e2e/*.mjs) does around its steps, written once (issue 39): packing the fake language model,
// the failure report (message, screenshot, where code-server's log is) and the end of a run (its folders removed when
// it passed, unless E2E_KEEP_RUN; exit code 0 = every step passed).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, WORK, sh } from '../../../scripts/editor/workbench.mjs';

/** Packs test/fixtures/fake-lm into <.vscode-test>/vsix/fake-lm.vsix and returns its path. */
export function packFakeLm() {
  fs.mkdirSync(path.join(WORK, 'vsix'), { recursive: true });
  const fakeLm = path.join(WORK, 'vsix', 'fake-lm.vsix');
  const pack = sh(`"${path.join(ROOT, 'node_modules/.bin/vsce')}" package --no-dependencies --out "${fakeLm}"`, { cwd: path.join(ROOT, 'test/fixtures/fake-lm') });
  if (pack.status !== 0) throw new Error(`packaging the fake model failed:\n${pack.stdout}${pack.stderr}`);
  return fakeLm;
}

/** Reports a failed run as `[tag] FAILED: …`, saves a screenshot of `page` (if there is one) to `shotPath`, and says where code-server's log is. */
export async function reportFailure(tag, e, { page, runDir, shotPath }) {
  console.error(`[${tag}] FAILED: ${e instanceof Error ? e.message : String(e)}`);
  await page?.screenshot({ path: shotPath }).catch(() => {});
  console.error(`[${tag}] screenshot ${shotPath}; code-server log ${runDir ? path.join(runDir, 'cs.log') : '(not started)'}`);
}

/** Ends the run: when it passed (and E2E_KEEP_RUN is unset) removes `runDir` and `also`; exits 1 if it failed, else 0. */
export function finish(failed, runDir, also = []) {
  if (!failed && !process.env.E2E_KEEP_RUN) {
    for (const dir of [runDir, ...also]) if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
  process.exit(failed ? 1 : 0);
}
