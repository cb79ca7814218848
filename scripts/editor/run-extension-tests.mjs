// Runs an extension's mocha suite inside the real extension host of a running code-server, the way
// microsoft/vscode's test/integration/browser does: open the workbench in headless Chromium (playwright-core)
// with a `payload` naming extensionDevelopmentPath / extensionTestsPath. code-server must have been started
// with `--vscode-option enable-smoke-test-driver` (a built workbench ignores the payload otherwise).
// The workbench calls window.codeAutomationExit(code) when the suite ends; that code is our exit code.
//
//   node run-extension-tests.mjs --base http://127.0.0.1:PORT --folder FOLDER|FILE.code-workspace --ext EXTENSION_DIR \
//     --tests EXTENSION_DIR/out/test/editor/index.js [--env '{"K":"V"}'] [--out mocha.log] \
//     [--timeout 600] [--screenshot end.png] [--verbose]
//
// Only ONE extensionDevelopmentPath is honoured (the payload is read into a Map): helper extensions go into
// code-server's --extensions-dir as VSIX files. Exit codes: suite's code, 2 timeout, 3 page crash, 4 browser error.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser } from './workbench.mjs';

const args = { timeout: '600' };
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i].replace(/^--/, '');
  if (k === 'verbose') { args.verbose = true; continue; }
  args[k] = process.argv[++i];
}
for (const k of ['base', 'folder', 'ext', 'tests']) {
  if (!args[k]) { console.error(`run-extension-tests: --${k} is required`); process.exit(64); }
}
const base = new URL(args.base);
const remote = p => `vscode-remote://${base.host}${p}`;   // code-server's remote authority is the page's host:port
// The suite index appends mocha's (formatted) output to this file; we stream it to our stdout.
const outFile = args.out ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'exttest-')), 'mocha.log');
fs.writeFileSync(outFile, '');
// What the workbench shows, for a test that must read a part the extension host cannot (a walkthrough page rendered
// in the workbench's own webview): GET <MCP_HOST_UI_PROBE>/frames answers the visible text of every frame of the page
// (nested webview frames included) as JSON [{ url, main, text }] (`main`: the workbench's own frame), each text cut at 20,000 characters. On 127.0.0.1 only,
// for the suite of this run (the URL goes to its extension host alone); closed when the run ends.
let page;
const probe = http.createServer((req, res) => {
  if (req.method !== 'GET' || req.url !== '/frames' || !page) { res.writeHead(404).end(); return; }
  void Promise.all(page.frames().map(async f => ({ url: f.url().slice(0, 300), main: f === page.mainFrame(), text: String(await f.evaluate(() => document.body?.innerText ?? '').catch(() => '')).slice(0, 20000) })))
    .then(frames => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(frames)), e => res.writeHead(500).end(String(e)));
});
await new Promise(resolve => probe.listen(0, '127.0.0.1', resolve));
const env = { ...(args.env ? JSON.parse(args.env) : {}), EXTENSION_TEST_OUTPUT: outFile, MCP_HOST_UI_PROBE: `http://127.0.0.1:${probe.address().port}` };
const payload = [
  ['extensionDevelopmentPath', remote(args.ext)],
  ['extensionTestsPath', remote(args.tests)],
  ['extensionEnvironment', JSON.stringify(env)],   // env vars for the extension host process
  ['skipWelcome', 'true'],
];
// a .code-workspace file opens as a (multi-root) workspace, anything else as a folder
const target = args.folder.endsWith('.code-workspace') ? 'workspace' : 'folder';
const url = `${base.origin}/?${target}=${encodeURIComponent(args.folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
const t0 = Date.now();
const ts = () => `[${((Date.now() - t0) / 1000).toFixed(1)}s]`;

let printed = 0;
function pump() {
  const buf = fs.readFileSync(outFile);
  if (buf.length > printed) { process.stdout.write(buf.subarray(printed)); printed = buf.length; }
}
const pumpTimer = setInterval(pump, 250);

// MCP_HOST_BENCH_LONGTASKS_OUT (a benchmark's): the workbench page's long tasks (Chromium's PerformanceObserver,
// type 'longtask': a task of the renderer's main thread over 50 ms), as [epoch ms at its start, ms], written there at the end.
const longTasksOut = env.MCP_HOST_BENCH_LONGTASKS_OUT;
let browser;
let finished = false;
async function finish(code, why) {
  if (finished) return;
  finished = true;
  clearInterval(pumpTimer);
  pump();
  console.log(`${ts()} ${why}; exit code ${code}`);
  if (args.screenshot && page) await page.screenshot({ path: args.screenshot }).catch(() => {});
  if (longTasksOut && page) {
    const tasks = await page.evaluate(() => globalThis.__mcpHostLongTasks ?? []).catch(() => []);
    fs.writeFileSync(longTasksOut, JSON.stringify(tasks));
  }
  await browser?.close().catch(() => {});
  probe.close();
  process.exit(code);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void finish(130, `got ${sig}`));

try {
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // Hooks the workbench calls when the smoke-test driver is enabled.
  await page.exposeFunction('codeAutomationLog', (type, msgArgs) => {
    if (args.verbose) console.log(`[workbench:${type}]`, ...[].concat(msgArgs));
  });
  await page.exposeFunction('codeAutomationExit', code => finish(Number(code), 'extension host exited (suite done)'));
  if (longTasksOut) {
    await page.addInitScript(() => {
      const tasks = globalThis.__mcpHostLongTasks = [];
      new PerformanceObserver(list => { for (const e of list.getEntries()) tasks.push([performance.timeOrigin + e.startTime, e.duration]); })
        .observe({ type: 'longtask', buffered: true });
    });
  }
  page.on('pageerror', e => { if (args.verbose) console.log('[page error]', String(e)); });
  page.on('crash', () => void finish(3, 'page crashed'));
  setTimeout(() => void finish(2, `TIMEOUT after ${args.timeout}s`), 1000 * Number(args.timeout));
  if (args.verbose) console.log(`${ts()} opening ${url}`);
  // The suite's own timeout bounds the run; a loaded machine may take longer than playwright's 30 s to load the page.
  await page.goto(url, { timeout: 1000 * Number(args.timeout) });
} catch (e) {
  console.error(`${ts()} browser error: ${e instanceof Error ? e.message : String(e)}`);
  await finish(4, 'could not drive the workbench');
}
