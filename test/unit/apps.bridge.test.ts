/**
 * The MCP Apps bridge's bundle (dist/app-bridge.js: src/extension/apps/bridgeModule.ts, esbuild.mjs LAZY) reads the
 * host's SDK, core schemas and zod (src/extension/apps/bridgeHandover.ts) instead of carrying copies (H151):
 * - ext-apps' bridge imports nothing the handover lists leave out (a newer ext-apps calling another zod function would
 *   fail at its first view, so it fails here first);
 * - the production bundle, given the host's exports, answers a view's `ui/initialize` on the host's own `Protocol`,
 *   refuses a malformed one (an App is untrusted) and keeps answering the well-formed one after it;
 * - a handover missing a name or a zod function is refused before the bridge's code runs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as client from '@modelcontextprotocol/client';
import * as core from '@modelcontextprotocol/core';
import * as zod from 'zod/v4';
import { BRIDGE_HANDOVER, BRIDGE_ZOD, type BridgeSdk } from '../../src/extension/apps/bridgeHandover';
import { ROOT, shippedCliPath } from '../support/shipped';

const EXT_APPS_BRIDGE = path.join(ROOT, 'node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js');

/** The host's exports, as src/extension/apps/view.ts hands them over. */
function handover(): BridgeSdk {
  const z = Object.fromEntries(BRIDGE_ZOD.map(n => [n, zod[n]])) as unknown as BridgeSdk['z'];
  const picked = Object.fromEntries(BRIDGE_HANDOVER['@modelcontextprotocol/core'].map(n => [n, core[n]]));
  return { Protocol: client.Protocol, z, ...picked } as BridgeSdk;
}

/** `import{A as B,C}from"<module>"` clauses of ext-apps' built bridge: module → imported names. */
function importsOf(text: string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
    const names = out.get(m[2]) ?? new Set<string>();
    for (const clause of m[1].split(',')) names.add(clause.trim().split(/\s+as\s+/)[0]);
    out.set(m[2], names);
  }
  return out;
}

describe('the App bridge bundle on the host\'s SDK (H151)', () => {
  it('ext-apps\' bridge imports only what the host hands over, and calls only the zod functions it is given', () => {
    const text = fs.readFileSync(EXT_APPS_BRIDGE, 'utf8');
    const imports = importsOf(text);
    assert.ok(imports.size > 0, 'ext-apps\' bridge has import clauses to check');
    for (const [from, names] of imports) {
      const allowed = (BRIDGE_HANDOVER as Record<string, readonly string[]>)[from];
      assert.ok(allowed, `ext-apps' bridge imports ${from}, which the handover does not list (bridgeHandover.ts, esbuild.mjs)`);
      for (const n of names) assert.ok(allowed.includes(n), `ext-apps' bridge imports ${n} from ${from}, not in the handover's list`);
    }
    // Its zod: the local name of `z` and every member it reads.
    const local = /import\s*\{\s*z\s+as\s+([\w$]+)\s*\}\s*from\s*"zod\/v4"/.exec(text)?.[1] ?? (/import\s*\{\s*z\s*\}\s*from\s*"zod\/v4"/.test(text) ? 'z' : undefined);
    assert.ok(local, 'ext-apps\' bridge imports z from zod/v4');
    const esc = local.replace(/\$/g, '\\$');
    const used = new Set([...text.matchAll(new RegExp(`(?<![\\w$.])${esc}\\.([\\w$]+)`, 'g'))].map(m => m[1]));
    assert.ok(used.size > 0);
    for (const n of used) assert.ok((BRIDGE_ZOD as readonly string[]).includes(n), `ext-apps' bridge calls z.${n}, not in BRIDGE_ZOD`);
    // And never uses its zod as a whole value (passed on, spread): only member calls would be handed over.
    assert.equal(new RegExp(`(?<![\\w$.])${esc}(?![\\w$.])`, 'g').exec(text.replace(/import\s*\{[^}]*\}\s*from\s*"[^"]+"/g, ''))?.[0], undefined);
  });

  describe('the production dist/app-bridge.js', function () {
    this.timeout(600_000);
    let dir: string;
    let bundle: typeof import('../../src/extension/apps/bridgeModule');
    before(() => {
      const dist = path.dirname(shippedCliPath());
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-bridge-'));
      const copy = path.join(dir, 'app-bridge.js');
      fs.copyFileSync(path.join(dist, 'app-bridge.js'), copy);
      const text = fs.readFileSync(copy, 'utf8');
      assert.ok(text.length < 100_000, `dist/app-bridge.js is ${text.length} bytes: it carries more than ext-apps' bridge`);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      bundle = require(copy);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('refuses a handover missing a name or a zod function, before the bridge runs', async () => {
      const sdk = handover();
      await assert.rejects(bundle.loadAppBridge({ ...sdk, ToolSchema: undefined } as unknown as BridgeSdk), /no ToolSchema/);
      await assert.rejects(bundle.loadAppBridge({ ...sdk, z: { ...sdk.z, union: undefined } } as unknown as BridgeSdk), /no z\.union/);
    });

    it('answers a view\'s ui/initialize on the host\'s Protocol, refuses a malformed one and keeps answering', async () => {
      const { AppBridge } = await bundle.loadAppBridge(handover());
      const bridge = new AppBridge(null, { name: 'mcp-host-test', version: '1.0.0' }, { logging: {} }, { hostContext: { theme: 'dark' } });
      assert.ok((bridge as unknown) instanceof client.Protocol, 'the bridge is built on the host\'s own Protocol, not a copy');
      const [view, host] = client.InMemoryTransport.createLinkedPair();
      const answers = new Map<unknown, client.JSONRPCMessage>();
      view.onmessage = m => { if ('id' in m) answers.set(m.id, m); };
      await bridge.connect(host);
      await view.start();
      const until = async (id: string) => { for (let i = 0; i < 200 && !answers.has(id); i++) await new Promise(r => setTimeout(r, 5)); return answers.get(id); };
      // Hostile: params that are not what ui/initialize takes.
      await view.send({ jsonrpc: '2.0', id: 'bad', method: 'ui/initialize', params: { appInfo: 'not an object', protocolVersion: 42 } } as client.JSONRPCMessage);
      const bad = await until('bad') as { error?: { code: number } };
      assert.ok(bad?.error, `a malformed ui/initialize is refused with an error: ${JSON.stringify(bad)}`);
      // Well-behaved, after it.
      await view.send({ jsonrpc: '2.0', id: 'ok', method: 'ui/initialize', params: { appInfo: { name: 'view', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' } } as client.JSONRPCMessage);
      const ok = await until('ok') as { result?: { hostInfo?: { name: string }; protocolVersion?: string; hostContext?: { theme?: string } } };
      assert.equal(ok?.result?.hostInfo?.name, 'mcp-host-test', JSON.stringify(ok));
      assert.equal(typeof ok.result?.protocolVersion, 'string');
      assert.equal(ok.result?.hostContext?.theme, 'dark');
      await bridge.close();
    });
  });
});
