/**
 * Issue 39: the editor layer is wired at construction and its test hooks are one test-only object.
 * H555: src/extension/extension.ts builds each feature with what it needs and sets no field on it afterwards.
 * H556: the public API carries no `set…` hook; the dialogs tests replace are seams of one object (testSupport.ts),
 * given to the features at construction and returned by `activate` in test mode only. (The editor suites use it
 * through test/editor/helpers.ts testSupport(); in the real editor, H556's test mode is the runner's.)
 * H605: no module of the editor layer (src/extension, src/views) holds state set from outside: no exported `set…`/`use…`
 * setter of module state and no module-level `let`, but for the listed exceptions, each with its reason.
 * H616: the modal dialogs are a service (ui/dialogs.ts `Dialogs`) built once in activate() and given at construction to
 * every feature that asks a modal; its answerer is a test seam (set through testSupport), not module state.
 * H617: the record of quick inputs exists only in test mode: ui/quickInputs.ts keeps no module-level collection; its
 * `QuickInputs` records through the `recordQuickInput` seam that only createTestSupport sets (production: no seams).
 * H606: the commands are given their services at registration (register.ts CommandServices), extension.ts passes them.
 * H557: the editor suites' fixture start-up is written once: startListening (test/support/listening.ts) resolves when
 * a fixture prints LISTENING <port> and rejects, naming the fixture, when it exits first.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { startListening } from '../support/listening';

const ROOT = path.resolve(__dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

/** Every .ts file under `dir` (relative to the repository). */
function tsFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter(e => e.isFile() && e.name.endsWith('.ts'))
    .map(e => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

/** A module's setters of its own state and its module-level `let`s: `file: name` each. */
function moduleState(file: string, src: string): string[] {
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '');
  return [
    ...[...code.matchAll(/^export (?:async )?function ((?:set|use)[A-Z]\w*)\s*\(/gm)].map(m => `${file}: ${m[1]}`),
    ...[...code.matchAll(/^(?:export )?let (\w+)/gm)].map(m => `${file}: let ${m[1]}`),
  ];
}

/**
 * The module state the editor layer keeps, each with why it is not given at construction. Anything else fails H605.
 */
const MODULE_STATE_EXCEPTIONS: Record<string, string> = {
  // VS Code calls `deactivate()` with no arguments: the host to shut down can only be found here.
  'src/extension/extension.ts: let current': 'deactivate() gets no arguments',
  // Caches of a module loaded on first use (startup time, issue 41); nothing outside sets them.
  'src/extension/gateway/gatewayProvider.ts: let sessionModule': 'lazy import cache',
  'src/extension/apps/view.ts: let bridgeModule': 'lazy import cache',
  // The policy stand-in file's last read: written only by the module's own OrgPolicyWatcher, read by configuredRegistry().
  'src/extension/trust/policy.ts: let standIn': 'set by its own watcher, not from outside',
};

/** A module's module-level collections (`const x = []`, `new Map()`, `new Set()`): state that grows. `file: name` each. */
function moduleCollections(file: string, src: string): string[] {
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '');
  return [...code.matchAll(/^(?:export )?const (\w+)(?::[^=\n]+)? = (?:\[\]|new (?:Map|Set|WeakMap|WeakSet)\b)/gm)].map(m => `${file}: ${m[1]}`);
}

/** The module-level collections the editor layer keeps, each with why. Anything else fails H617. */
const MODULE_COLLECTION_EXCEPTIONS: Record<string, string> = {
};

/** The body of `activate` in extension.ts, comments removed. */
function activateBody(): string {
  const src = read('src/extension/extension.ts').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const from = src.indexOf('export async function activate(');
  const to = src.indexOf('export function deactivate(');
  assert.ok(from >= 0 && to > from, 'activate and deactivate are in extension.ts');
  return src.slice(from, to);
}

describe('wiring: the editor layer at construction (issue 39)', function () {
  this.timeout(30_000);

  it('H555: activate() assigns no field of an object it built (no `x.y = …`; locals and the step marks are not fields)', () => {
    const body = activateBody();
    // `a.b = ` or `a.b.c = ` (not `==`, not `=>`); an object literal's `key: value` is not an assignment.
    const assigned = [...body.matchAll(/\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*(?:\?\?=|\|\|=|&&=|=(?![=>]))/g)].map(m => m[1]);
    assert.deepEqual(assigned, [], `extension.ts sets fields after construction: ${assigned.join(', ')}; give them to the constructor or factory instead`);
  });

  it('H555: the check finds a field set after construction (the bystander: the same pattern in a made-up body)', () => {
    const body = 'const chat = registerChat(context, host);\n  chat.chat.gate = modelGate;\n  if (a == b) x = 1;\n  const f = (y) => y;';
    const assigned = [...body.matchAll(/\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*(?:\?\?=|\|\|=|&&=|=(?![=>]))/g)].map(m => m[1]);
    assert.deepEqual(assigned, ['chat.chat.gate']);
  });

  it('H556: the API declares no set… member; @mcp and sampling carry no setUi; testSupport is made in test mode only', () => {
    const ext = read('src/extension/extension.ts');
    const api = ext.slice(ext.indexOf('export interface McpHostExtensionApi'), ext.indexOf('\n}\n', ext.indexOf('export interface McpHostExtensionApi')));
    assert.deepEqual([...api.matchAll(/^\s+(set[A-Z]\w*)\s*\(/gm)].map(m => m[1]), [], 'the product API has no set… hooks');
    assert.match(api, /testSupport\?: TestSupport;/);
    assert.match(ext, /context\.extensionMode === vscode\.ExtensionMode\.Test \? \{\} : undefined/, 'the seams exist in test mode only');
    assert.match(ext, /\.\.\.\(seams && \{ testSupport: createTestSupport\(seams\) \}\)/, 'testSupport is returned only with the seams');
    for (const f of ['src/extension/chat/mcpChat.ts', 'src/extension/sampling/clientFeatures.ts', 'src/extension/elicitation/elicitation.ts', 'src/extension/elicitation/url.ts']) {
      assert.doesNotMatch(read(f), /\bset(?:Ui|ElicitUi|UrlElicitUi|UrlUi)\s*[(:]/, `${f} has no setUi of its own (the seams replace its dialogs)`);
    }
  });

  it('H556: every seam has its setter, and every feature that asks through a seam is given the seams in extension.ts', () => {
    const ts = read('src/extension/testSupport.ts');
    const seams = [...ts.slice(ts.indexOf('export interface TestSeams'), ts.indexOf('export interface TestSupport')).matchAll(/^ {2}(\w+)\?:/gm)].map(m => m[1]);
    assert.ok(seams.length >= 8, seams.join(', '));
    const made = ts.slice(ts.indexOf('export function createTestSupport'));
    for (const s of seams) assert.match(made, new RegExp(`seams\\.${s} = `), `createTestSupport sets ${s}`);
    const body = activateBody();
    for (const given of [/new LaunchConsent\([^)]*seams\)/, /new InputStore\([^)]*\{ seams \}\)/, /new OAuthBridge\([^;]*seams\)\)/, /createClientFeatures\(\{[^}]*seams,/, /registerChat\(context, \{[\s\S]*?seams,\s*\}\)/]) {
      assert.match(body, given);
    }
  });

  it('H605: no module in src/extension or src/views exports a set…/use… setter of its state or keeps a module-level let, but the listed exceptions', () => {
    const found = [...tsFiles('src/extension'), ...tsFiles('src/views')].flatMap(f => moduleState(f, read(f)));
    const unlisted = found.filter(x => !(x in MODULE_STATE_EXCEPTIONS));
    assert.deepEqual(unlisted, [], `module state set from outside: ${unlisted.join('; ')}; give it to the feature at construction (or, with a reason, list it in MODULE_STATE_EXCEPTIONS)`);
    const stale = Object.keys(MODULE_STATE_EXCEPTIONS).filter(x => !found.includes(x));
    assert.deepEqual(stale, [], 'every listed exception still exists (remove the ones that are gone)');
  });

  it('H605: the check finds a setter and a module-level let (the bystander: a made-up module; settings… and local lets are not setters)', () => {
    const src = 'let forms;\nexport function useForms(f) { forms = f; }\nexport function setStartOnUse(l) {}\nexport function settingsOf() { let x = 1; return x; }\n/* let hidden */';
    assert.deepEqual(moduleState('m.ts', src), ['m.ts: useForms', 'm.ts: setStartOnUse', 'm.ts: let forms']);
  });

  it('H616: ui/dialogs.ts keeps no module state; activate() builds one Dialogs over the seams and gives it to every feature that asks a modal', () => {
    const dialogs = read('src/extension/ui/dialogs.ts');
    assert.deepEqual(moduleState('src/extension/ui/dialogs.ts', dialogs), [], 'no module-level let or set…/use… setter in ui/dialogs.ts');
    assert.doesNotMatch(dialogs, /^export (?:const|function) (?:ask|govern|governor)\b/m, 'ask/govern are members of Dialogs, not module functions over a module governor');
    const body = activateBody();
    assert.equal([...body.matchAll(/new Dialogs\(/g)].length, 1, 'one Dialogs (one governor) per window');
    assert.match(body, /const dialogs = new Dialogs\(seams\);/, 'its answerer is the test seam, set through testSupport');
    for (const given of [/new LaunchConsent\([^)]*dialogs, seams\)/, /new SandboxDenials\([^;]*dialogs\)\)/, /new OAuthBridge\([^;]*dialogs,/, /createClientFeatures\(\{[^}]*dialogs,/, /new AppViews\(\{[\s\S]*?dialogs,/, /registerChat\(context, \{[^}]*dialogs,/, /registerCommands\(\{[^}]*dialogs,/]) {
      assert.match(body, given, `activate() gives the dialogs: ${given}`);
    }
    assert.match(read('src/extension/testSupport.ts'), /setDialogAnswerer: a => \{ seams\.dialogAnswerer = a; \}/, 'testSupport sets the seam the Dialogs reads');
    // Nothing else imports a value from ui/dialogs but Dialogs itself (extension.ts), Turn and notify; the rest are types.
    const importers = [...tsFiles('src/extension'), ...tsFiles('src/views'), ...tsFiles('test')].filter(f => f !== 'src/extension/ui/dialogs.ts');
    for (const f of importers) {
      for (const m of read(f).matchAll(/^import \{([^}]*)\} from '[./]*(?:src\/extension\/)?(?:ui\/)?dialogs';/gm)) {
        const values = m[1].split(',').map(x => x.trim()).filter(x => x && !x.startsWith('type '));
        const allowed = f === 'src/extension/extension.ts' || f.startsWith('test/') ? ['Dialogs', 'Turn'] : ['Turn', 'notify'];
        assert.deepEqual(values.filter(v => !allowed.includes(v)), [], `${f} imports ${values.join(', ')} from ui/dialogs: ask through the Dialogs it is given`);
      }
    }
  });

  it('H616: the module-state check finds the old answerer (the bystander: a module-level let and its setter; the Dialogs class is clean)', () => {
    const old = 'let answerer: DialogAnswerer = shown;\nexport const governor = new Governor(() => d => answerer(d));\nexport function setDialogAnswerer(a) { answerer = a ?? shown; }';
    assert.deepEqual(moduleState('src/extension/ui/dialogs.ts', old), ['src/extension/ui/dialogs.ts: setDialogAnswerer', 'src/extension/ui/dialogs.ts: let answerer']);
    const now = 'export class Dialogs {\n  readonly governor: Governor;\n  constructor(seams) { let x = 1; this.governor = new Governor(() => d => (seams?.dialogAnswerer ?? shown)(d)); }\n}';
    assert.deepEqual(moduleState('src/extension/ui/dialogs.ts', now), []);
  });

  it('H617: the quick-input record exists only in test mode: no module-level record, QuickInputs records through the seam createTestSupport sets', () => {
    const found = [...tsFiles('src/extension'), ...tsFiles('src/views')].flatMap(f => moduleCollections(f, read(f)));
    const unlisted = found.filter(x => !(x in MODULE_COLLECTION_EXCEPTIONS));
    assert.deepEqual(unlisted, [], `module-level collections (kept in production too): ${unlisted.join('; ')}; record through a test seam instead (or list it with a reason)`);
    assert.deepEqual(Object.keys(MODULE_COLLECTION_EXCEPTIONS).filter(x => !found.includes(x)), [], 'every listed exception still exists');
    const qi = read('src/extension/ui/quickInputs.ts');
    assert.deepEqual([...moduleState('src/extension/ui/quickInputs.ts', qi), ...moduleCollections('src/extension/ui/quickInputs.ts', qi)], []);
    assert.doesNotMatch(qi.replace(/\/\*[\s\S]*?\*\//g, ''), /^export (?:const|function) /m, 'quick inputs are shown through the QuickInputs object only');
    assert.match(qi, /this\.seams\?\.recordQuickInput\?\.\(/, 'QuickInputs records only through the seam');
    // Production: activate gives QuickInputs the seams, which exist in test mode only (H556), so nothing is recorded.
    const body = activateBody();
    assert.equal([...body.matchAll(/new QuickInputs\(/g)].length, 1);
    assert.match(body, /const quickInputs = new QuickInputs\(seams\);/);
    assert.match(body, /registerCommands\(\{[^}]*quickInputs,/);
    assert.match(body, /registerChat\(context, \{[^}]*quickInputs,/);
    const ts = read('src/extension/testSupport.ts');
    const made = ts.slice(ts.indexOf('export function createTestSupport'));
    assert.match(made, /const quickInputs: ShownQuickInput\[\] = \[\];/, 'the record is made by createTestSupport');
    assert.match(made, /seams\.recordQuickInput = /);
  });

  it('H617: the collection check finds the old module-level record (the bystander: a local array and a constant are not collections)', () => {
    const old = 'export const quickInputs: ShownQuickInput[] = [];\nconst seen = new Map<string, number>();\nconst LIMIT = 20;\nfunction f() { const local = []; return local; }';
    assert.deepEqual(moduleCollections('m.ts', old), ['m.ts: quickInputs', 'm.ts: seen']);
  });

  it('H606: the commands are given startOnUse, the records of added servers and registry installs and the form host at registration', () => {
    const reg = read('src/extension/commands/register.ts');
    const services = reg.slice(reg.indexOf('export interface CommandServices'), reg.indexOf('\n}\n', reg.indexOf('export interface CommandServices')));
    for (const f of ['startOnUse: StartOnUse;', 'added: AddedServers;', 'registryInstalls: RegistryInstalls;', 'forms?: Forms;']) assert.ok(services.includes(f), `CommandServices has ${f}`);
    assert.match(activateBody(), /registerCommands\(\{[^}]*startOnUse, added, registryInstalls, forms: formHost,/);
    assert.match(activateBody(), /createClientFeatures\(\{[^}]*forms: formHost,/, 'elicitation is given the form host');
    assert.match(activateBody(), /new AppViews\(\{[\s\S]*?seams,/, 'App views are given the seams (the external-URL dialog)');
  });

  it('H557: startListening resolves with the URL of a fixture that prints LISTENING <port>, and the bystander rejects naming the fixture that exits first', async () => {
    const fx = await startListening(path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs'), [], { cwd: ROOT });
    try {
      assert.match(fx.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      assert.equal(fx.base, `http://127.0.0.1:${fx.port}`);
      const status = await new Promise<number>((resolve, reject) => {
        http.get(`${fx.base}/stats`, res => { res.resume(); resolve(res.statusCode ?? 0); }).once('error', reject);
      });
      assert.equal(status, 200, 'the fixture answers where startListening said it listens');
    } finally {
      const exited = new Promise(resolve => fx.child.once('exit', resolve));
      fx.child.kill();
      await exited;
    }
    const gone = path.join(ROOT, 'test/fixtures/servers/does-not-exist.mjs');
    await assert.rejects(startListening(gone, [], { cwd: ROOT }), /does-not-exist\.mjs exited \(1\) before listening/);
  });
});
