/**
 * Issue 39: the editor layer is wired at construction and its test hooks are one test-only object.
 * H555: src/extension/extension.ts builds each feature with what it needs and sets no field on it afterwards.
 * H556: the public API carries no `set…` hook; the dialogs tests replace are seams of one object (testSupport.ts),
 * given to the features at construction and returned by `activate` in test mode only. (The editor suites use it
 * through test/editor/helpers.ts testSupport(); in the real editor, H556's test mode is the runner's.)
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
