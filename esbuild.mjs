// Builds the extension and CLI bundles, or (with --tests) compiles tests, fixtures and benches to out/.
//   node esbuild.mjs               dist/extension.js + dist/cli.js +
//                                  dist/sandbox-runtime.js (with its helpers under dist/vendor/) + the bundles
//                                  loaded on first use (LAZY below), with source maps
//   node esbuild.mjs --production  minified, no source maps (what the VSIX ships)
//   node esbuild.mjs --analyze     also print what each package and module adds to dist/extension.js and dist/cli.js
//   node esbuild.mjs --outdir <d>  the bundles into <d> instead of dist/ (<d> is emptied first)
//   node esbuild.mjs --watch       rebuild on change
//   node esbuild.mjs --tests       out/** (one JS file per TS file, not bundled) for mocha and benches
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');
const analyze = process.argv.includes('--analyze');
/** Where the bundles go: dist/, or `--outdir <dir>` (the bundle benchmark builds into a temporary folder). */
const DIST = process.argv.includes('--outdir') ? process.argv[process.argv.indexOf('--outdir') + 1] : 'dist';

/**
 * Code most sessions never run, each its own bundle dist/<name>.js, loaded by its first use: a `require()` call
 * (not an import) of `module` in the extension's or the CLI's code becomes `require('./<name>.js')`, resolved next
 * to the bundle that calls it; a static import still bundles it in. Unbundled (out/, tests) the same require
 * loads the module itself. scripts/shipped.mjs and .vscodeignore list these bundles too.
 *   gateway-server  the gateway's MCP server and the SDK's Streamable HTTP server transport (the SDK's server package):
 *                   the first connection from VS Code's chat (src/extension/gateway/gatewayProvider.ts)
 *   re2             the linear-time regular expression engine: the first server-supplied pattern (src/mcp/schema/regexp.ts)
 *   ajv             ajv and its formats: the first schema a server sends (src/mcp/schema/ajvModule.ts, loaded by dialects.ts)
 *   sdk-ajv         the SDK client's default JSON Schema validator (its own copy of ajv), which the host replaces by
 *                   its own: loaded only if something constructs it (src/mcp/schema/sdkShims.ts, bundled in its stead)
 *   ext-tasks       @modelcontextprotocol/ext-tasks' client (its SDK and zod the host's, handed over): the first
 *                   server declaring Tasks, of either era (src/mcp/server/extTasksModule.ts, from src/mcp/tasks/extTaskSession.ts)
 *   jose            the JOSE library the SDK imports for DPoP proofs and private_key_jwt: the SDK's own `import('jose')`
 *                   on first use becomes `import('./jose.js')` (kind 'dynamic-import')
 *   app-bridge      the MCP Apps host bridge (@modelcontextprotocol/ext-apps' app-bridge): the first App view
 *                   (src/extension/apps/view.ts, through src/extension/apps/bridgeModule.ts)
 * A bundle with a `handover` imports packages the main bundle holds already (the SDK; for the bridge also the core
 * schemas and zod): its imports of them read the main bundle's own exports, handed over by the code that loads it
 * (its `module`: src/mcp/server/sdkHandover.ts, src/extension/apps/bridgeHandover.ts), never a second copy
 * (handoverPlugin).
 */
const SDK_HANDOVER = {
  module: /\/sdkHandover$/, provide: 'provideSdk',
  imports: { '@modelcontextprotocol/client': ['Client', 'ProtocolError'], '@modelcontextprotocol/core': [], 'zod/v4': ['z'] },
  // ext-tasks imports zod both ways (`import * as z`, `import { z }`): z's functions are exports of their own too.
  members: { z: ['NEVER', 'array', 'boolean', 'custom', 'discriminatedUnion', 'enum', 'int', 'intersection', 'literal', 'number', 'object', 'record', 'strictObject', 'string', 'union', 'unknown'] },
};
const BRIDGE_HANDOVER = {
  module: /\/bridgeHandover$/, provide: 'provideBridgeSdk',
  imports: {
    '@modelcontextprotocol/client': ['Protocol'],
    '@modelcontextprotocol/core': [
      'CallToolResultSchema', 'ContentBlockSchema', 'EmbeddedResourceSchema', 'EmptyResultSchema', 'ImplementationSchema',
      'JSONRPCMessageSchema', 'LoggingMessageNotificationSchema', 'RequestIdSchema', 'ResourceLinkSchema', 'ToolSchema',
    ],
    'zod/v4': ['z'],
  },
  members: { z: ['any', 'array', 'boolean', 'literal', 'never', 'number', 'object', 'record', 'string', 'undefined', 'union', 'unknown'] },
};
const LAZY = [
  { name: 'gateway-server', entry: 'src/mcp/gateway/httpSession.ts', request: /^\.\.\/\.\.\/mcp\/gateway\/httpSession$/ },
  { name: 're2', entry: 'node_modules/re2js/build/index.js', request: /^re2js$/ },
  { name: 'ajv', entry: 'src/mcp/schema/ajvModule.ts', request: /^\.\/ajvModule$/ },
  { name: 'sdk-ajv', entry: 'node_modules/@modelcontextprotocol/client/dist/shimsNode.mjs', request: /^@modelcontextprotocol\/client\/_shims$/ },
  { name: 'ext-tasks', entry: 'src/mcp/server/extTasksModule.ts', request: /^\.\.\/server\/extTasksModule$/, handover: SDK_HANDOVER },
  { name: 'jose', entry: 'node_modules/jose/dist/webapi/index.js', request: /^jose$/, kind: 'dynamic-import' },
  { name: 'app-bridge', entry: 'src/extension/apps/bridgeModule.ts', request: /^\.\/bridgeModule$/, handover: BRIDGE_HANDOVER },
  // Code mode's engine (issue 42), required by src/mcp/codemode/codeModeTool.ts with the first program: it starts the
  // interpreter's worker (WORKERS below) and bridges its tool calls.
  { name: 'codemode', entry: 'src/mcp/codemode/codeModeEngine.ts', request: /^\.\/codeModeEngine$/ },
];

/**
 * Bundles started as a `worker_threads` Worker by the code next to them, never required (issue 41): dist/<name>.js,
 * listed in scripts/shipped.mjs and .vscodeignore, and copied next to the CLI (test/support/shipped.ts).
 *   codemode-worker  code mode's interpreter (QuickJS), one worker per program, started by
 *                    src/mcp/codemode/codeModeEngine.ts (in dist/codemode.js for the extension, in dist/cli.js for the
 *                    CLI) so that guest code never runs on their main thread; quickjs-emscripten's loader asks
 *                    `import.meta.url` for its own place, its WebAssembly file is in dist/vendor/quickjs/.
 */
const WORKERS = [{ name: 'codemode-worker', entry: 'src/mcp/codemode/codeModeWorker.ts' }];

/**
 * In a LAZY bundle with a `handover`: each package of `imports` and the handover module are one stand-in module
 * whose exports are the host's, assigned by the handover module's `provide` function before the code importing them
 * runs (the lazy entry imports the rest with `import()`, which esbuild evaluates on that call). `members` are an
 * object's members that are exports too (zod's functions, for `import * as z from 'zod/v4'`): the host hands over
 * an object of exactly those, never zod's whole namespace. A name outside the lists fails the build ("No matching
 * export"), and so does an import of another entry of a handed-over package (which would bring a second copy); a
 * handover missing any of them is refused before anything reads it.
 */
function handoverPlugin(handover) {
  const packages = handoverPackages(handover);
  const top = Object.values(handover.imports).flat();
  const members = Object.entries(handover.members ?? {});
  const exported = [...top, ...members.flatMap(([, ms]) => ms)];
  return {
    name: 'handover',
    setup(build) {
      build.onResolve({ filter: /.*/ }, args => {
        if (Object.hasOwn(handover.imports, args.path) || handover.module.test(args.path)) return { path: 'handover', namespace: 'handover' };
        if (packages.some(p => args.path === p || args.path.startsWith(`${p}/`))) return { errors: [{ text: `${args.path}: a lazy bundle on the host's packages may import only ${Object.keys(handover.imports).join(', ')}` }] };
        return undefined;
      });
      // Local names h0, h1, … (an export may be named `enum`, which no binding can be).
      build.onLoad({ filter: /.*/, namespace: 'handover' }, () => ({
        loader: 'js',
        contents: [
          `let ${exported.map((_, i) => `h${i}`).join(', ')};`,
          `export { ${exported.map((n, i) => `h${i} as ${n}`).join(', ')} };`,
          `export function ${handover.provide}(sdk) {`,
          `  const top = ${JSON.stringify(top)};`,
          `  const members = ${JSON.stringify(members)};`,
          '  for (const name of top) if (sdk[name] === undefined || sdk[name] === null) throw new TypeError(\'the host handed to a lazy bundle has no \' + name);',
          '  for (const [obj, ms] of members) for (const m of ms) if (sdk[obj][m] === undefined) throw new TypeError(\'the host handed to a lazy bundle has no \' + obj + \'.\' + m);',
          `  [${exported.map((_, i) => `h${i}`).join(', ')}] = [...top.map(n => sdk[n]), ...members.flatMap(([obj, ms]) => ms.map(m => sdk[obj][m]))];`,
          '}',
        ].join('\n'),
      }));
    },
  };
}

/** The packages a handover's imports come from (`zod/v4` → `zod`): no other entry of them may be bundled. */
function handoverPackages(handover) {
  return [...new Set(Object.keys(handover.imports).map(i => i.split('/').slice(0, i.startsWith('@') ? 2 : 1).join('/')))];
}

/**
 * Turns the `require()` (with `kind: 'dynamic-import'`, the `import()`) of a LAZY module into a run-time load of its own bundle (see LAZY); the SDK client's
 * own imports of its Node shim get src/mcp/schema/sdkShims.ts instead.
 */
const lazyPlugin = {
  name: 'lazy-bundles',
  setup(build) {
    for (const lazy of LAZY) {
      build.onResolve({ filter: lazy.request }, args => args.kind === (lazy.kind ?? 'require-call') ? { path: `./${lazy.name}.js`, external: true } : undefined);
    }
    build.onResolve({ filter: /^@modelcontextprotocol\/client\/_shims$/ }, args =>
      args.kind === 'import-statement' ? { path: path.resolve('src/mcp/schema/sdkShims.ts') } : undefined);
  },
};

/** In the other LAZY bundles (the gateway's server offers code mode too): the engine stays its own bundle, loaded on first use. */
const codeModeLazyPlugin = {
  name: 'lazy-codemode',
  setup(build) {
    const lazy = LAZY.find(l => l.name === 'codemode');
    build.onResolve({ filter: lazy.request }, args => args.kind === 'require-call' ? { path: `./${lazy.name}.js`, external: true } : undefined);
  },
};

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

/** Every production bundle: one self-contained file in DIST, minified for the VSIX, source maps in development. */
const bundled = {
  ...common,
  bundle: true,
  outdir: DIST,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
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
        ...bundled,
        entryPoints: { extension: 'src/extension/extension.ts' },
        // The sandbox runtime is its own bundle (below), loaded by the first sandboxed launch (src/mcp/launch/sandboxRuntime.ts).
        external: ['vscode', '@anthropic-ai/sandbox-runtime'],
        plugins: [lazyPlugin],
        metafile: true,
      },
      ...LAZY.map(lazy => ({
        ...bundled,
        entryPoints: { [lazy.name]: lazy.entry },
        plugins: [...(lazy.handover ? [handoverPlugin(lazy.handover)] : []), ...(lazy.name === 'codemode' ? [] : [codeModeLazyPlugin])],
        ...(lazy.handover ? { metafile: true } : {}),
      })),
      ...WORKERS.map(w => ({
        ...bundled,
        entryPoints: { [w.name]: w.entry },
        define: { 'import.meta.url': 'importMetaUrl' },
        banner: { js: 'var importMetaUrl = require("url").pathToFileURL(__filename).href;' },
      })),
      {
        ...bundled,
        entryPoints: { cli: 'src/cli/main.ts' },
        external: ['@anthropic-ai/sandbox-runtime'],
        plugins: [lazyPlugin],
        metafile: true,
        // Code mode's interpreter is not in it: it runs in dist/codemode-worker.js (WORKERS), found next to dist/cli.js.
        banner: { js: '#!/usr/bin/env node' },
      },
      {
        // The OS sandbox (issue 24): @anthropic-ai/sandbox-runtime is ESM and finds its helpers (apply-seccomp, the
        // JVM proxy agent) next to `import.meta.url`; here that is dist/sandbox-runtime.js, and the helpers are
        // copied to dist/vendor/ below, where the runtime looks for a bundled copy.
        ...bundled,
        // Its index, and the names it protects from writes in a working directory (DANGEROUS_FILES,
        // getDangerousDirectories), which the host applies to every root itself (sandboxPolicy.ts, protectedPaths).
        outdir: undefined,
        outfile: path.join(DIST, 'sandbox-runtime.js'),
        stdin: {
          contents: "export * from '@anthropic-ai/sandbox-runtime';\n" +
            "export { DANGEROUS_FILES, getDangerousDirectories } from '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js';\n",
          resolveDir: '.', sourcefile: 'sandbox-runtime-entry.js', loader: 'js',
        },
        define: { 'import.meta.url': 'importMetaUrl' },
        banner: { js: 'var importMetaUrl = require("url").pathToFileURL(__filename).href;' },
        external: ['@microsoft/mxc-sdk'],
      },
    ];

/** Code mode's interpreter (src/mcp/codemode/codeModeInterpreter.ts, in dist/codemode-worker.js): its WebAssembly file in dist/vendor/quickjs/ (issue 42). */
function copyQuickJsWasm() {
  const src = 'node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm';
  const dest = path.join(DIST, 'vendor', 'quickjs', 'emscripten-module.wasm');
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.copyFileSync(src, dest);
}

/** The sandbox runtime's helpers for Linux (seccomp) and JVMs, next to dist/sandbox-runtime.js. */
function copySandboxHelpers() {
  const from = 'node_modules/@anthropic-ai/sandbox-runtime/vendor';
  for (const rel of ['seccomp/x64/apply-seccomp', 'seccomp/arm64/apply-seccomp', 'java-proxy-agent/srt-proxy-agent.jar']) {
    const src = path.join(from, rel);
    if (!fs.existsSync(src)) continue;
    const dest = path.join(DIST, 'vendor', rel);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(src, dest);
    if (rel.endsWith('apply-seccomp')) fs.chmodSync(dest, 0o755);
  }
}

if (!tests) fs.rmSync(DIST, { recursive: true, force: true, maxRetries: 3 });
if (watch) {
  for (const c of configs) await (await esbuild.context(c)).watch();
  console.log('[esbuild] watching');
} else {
  const results = await Promise.all(configs.map(c => esbuild.build(c)));
  if (!tests) {
    // A LAZY bundle on the host's packages must not carry a copy of them (handoverPlugin): fail the build if it does.
    for (const [i, c] of configs.entries()) {
      const name = c.entryPoints && Object.keys(c.entryPoints)[0];
      const lazy = LAZY.find(l => l.handover && l.name === name);
      if (!lazy) continue;
      const packages = handoverPackages(lazy.handover);
      const copied = Object.keys(results[i].metafile.inputs).filter(f => packages.some(p => f.includes(`node_modules/${p}/`)));
      if (copied.length) throw new Error(`dist/${name}.js carries its own copy of a package the host hands over: ${copied.join(', ')}`);
    }
    copySandboxHelpers();
    copyQuickJsWasm();
    for (const f of ['extension.js', 'cli.js']) fs.chmodSync(path.join(DIST, f), 0o755);
    const kib = f => `${DIST}/${f} ${(fs.statSync(path.join(DIST, f)).size / 1024).toFixed(0)} KiB`;
    console.log(`[esbuild] ${['extension.js', 'cli.js'].map(kib).join(', ')}${production ? ' (production)' : ''}`);
    console.log(`[esbuild] loaded on first use: ${LAZY.map(lazy => kib(`${lazy.name}.js`)).join(', ')}`);
    console.log(`[esbuild] started as workers: ${WORKERS.map(w => kib(`${w.name}.js`)).join(', ')}`);
    if (analyze) {
      for (const r of results) {
        if (r.metafile) console.log(await esbuild.analyzeMetafile(r.metafile, { verbose: false }));
      }
    }
  }
}
