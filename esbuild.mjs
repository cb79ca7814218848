// Builds the extension and CLI bundles, or (with --tests) compiles tests, fixtures and benches to out/.
//   node esbuild.mjs               dist/extension.js + dist/app-bridge.js + dist/cli.js + dist/gateway.js +
//                                  dist/sandbox-runtime.js (with its helpers under dist/vendor/), with source maps
//   node esbuild.mjs --production  minified, no source maps (what the VSIX ships)
//   node esbuild.mjs --watch       rebuild on change
//   node esbuild.mjs --tests       out/** (one JS file per TS file, not bundled) for mocha and benches
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

/** Every .ts file below `dir`, skipping declaration files. */
function tsFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map(e => path.join(e.parentPath ?? e.path, e.name));
}

const common = {
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
  // Prefer packages' ES module builds: jsonc-parser's UMD build does a dynamic require esbuild cannot follow.
  mainFields: ['module', 'main'],
};

const configs = tests
  ? [{
      ...common,
      entryPoints: ['src', 'test', 'bench'].flatMap(tsFiles),
      outdir: 'out',
      outbase: '.',
      sourcemap: 'inline',
    }]
  : [
      {
        ...common,
        entryPoints: { extension: 'src/extension/extension.ts' },
        bundle: true,
        // The sandbox runtime is its own bundle (below), loaded by the first sandboxed launch (src/mcp/launch/sandbox.ts).
        external: ['vscode', '@anthropic-ai/sandbox-runtime'],
        outdir: 'dist',
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
        metafile: true,
      },
      {
        // The MCP Apps host bridge (ext-apps, with the protocol schemas it brings): loaded by the first app view
        // (src/extension/apps/view.ts), so activation never parses it.
        ...common,
        entryPoints: { 'app-bridge': 'node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js' },
        bundle: true,
        outdir: 'dist',
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
      },
      {
        ...common,
        entryPoints: { cli: 'src/cli/main.ts' },
        bundle: true,
        external: ['@anthropic-ai/sandbox-runtime'],
        outdir: 'dist',
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
        banner: { js: '#!/usr/bin/env node' },
      },
      {
        // The gateway process VS Code's own MCP support starts (src/mcp/gateway/main.ts): no SDK, only the channel.
        ...common,
        entryPoints: { gateway: 'src/mcp/gateway/main.ts' },
        bundle: true,
        outdir: 'dist',
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
      },
      {
        // The OS sandbox (issue 24): @anthropic-ai/sandbox-runtime is ESM and finds its helpers (apply-seccomp, the
        // JVM proxy agent) next to `import.meta.url`; here that is dist/sandbox-runtime.js, and the helpers are
        // copied to dist/vendor/ below, where the runtime looks for a bundled copy.
        ...common,
        entryPoints: { 'sandbox-runtime': 'node_modules/@anthropic-ai/sandbox-runtime/dist/index.js' },
        bundle: true,
        outdir: 'dist',
        minify: production,
        sourcemap: !production,
        sourcesContent: false,
        define: { 'import.meta.url': 'importMetaUrl' },
        banner: { js: 'var importMetaUrl = require("url").pathToFileURL(__filename).href;' },
        external: ['@microsoft/mxc-sdk'],
      },
    ];

/** The sandbox runtime's helpers for Linux (seccomp) and JVMs, next to dist/sandbox-runtime.js. */
function copySandboxHelpers() {
  const from = 'node_modules/@anthropic-ai/sandbox-runtime/vendor';
  for (const rel of ['seccomp/x64/apply-seccomp', 'seccomp/arm64/apply-seccomp', 'java-proxy-agent/srt-proxy-agent.jar']) {
    const src = path.join(from, rel);
    if (!fs.existsSync(src)) continue;
    const dest = path.join('dist/vendor', rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(src, dest);
    if (rel.endsWith('apply-seccomp')) fs.chmodSync(dest, 0o755);
  }
}

if (!tests) fs.rmSync('dist', { recursive: true, force: true, maxRetries: 3 });
if (watch) {
  for (const c of configs) await (await esbuild.context(c)).watch();
  console.log('[esbuild] watching');
} else {
  const results = await Promise.all(configs.map(c => esbuild.build(c)));
  if (!tests) {
    copySandboxHelpers();
    for (const f of ['extension.js', 'cli.js', 'gateway.js']) fs.chmodSync(path.join('dist', f), 0o755);
    const size = fs.statSync('dist/extension.js').size;
    console.log(`[esbuild] dist/extension.js ${(size / 1024).toFixed(0)} KiB, dist/app-bridge.js ${(fs.statSync('dist/app-bridge.js').size / 1024).toFixed(0)} KiB, dist/cli.js ${(fs.statSync('dist/cli.js').size / 1024).toFixed(0)} KiB, dist/gateway.js ${(fs.statSync('dist/gateway.js').size / 1024).toFixed(0)} KiB${production ? ' (production)' : ''}`);
    void results;
  }
}
