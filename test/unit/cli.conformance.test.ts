/**
 * The conformance client mode, graded by @modelcontextprotocol/conformance itself, 0.1.16 and 0.2 (a few
 * representative scenarios, each in every set that has it; `npm run conformance` runs them all). The suite needs Node 22+: it runs
 * on the Node of package.json's engines.node (scripts/node.sh: the system one when new enough, else .vscode-test/node24).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function conformance(scenario: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/conformance.mjs'), '--scenario', scenario],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', d => { out += d; });
    child.stderr.on('data', d => { out += d; });
    child.on('error', reject);
    child.on('close', code => resolve({ code, out }));
  });
}

describe('mcp-host conformance (client mode, graded by the conformance suite)', function () {
  this.timeout(120_000);
  const scenarios: [string, string][] = [
    ['initialize', 'H5/H7: initialize handshake with protocol version and clientInfo'],
    ['tools_call', 'H24: lists and calls a tool with arguments'],
    ['elicitation-sep1034-client-defaults', 'elicitation answers carry the schema defaults (SEP-1034)'],
    ['auth/metadata-default', 'H14: OAuth with PKCE, protected-resource and authorization-server metadata discovery, DCR'],
    ['auth/2025-03-26-oauth-endpoint-fallback', 'H14: falls back to /authorize, /token, /register without metadata'],
    ['auth/scope-step-up', 'H15: a 403 insufficient_scope re-authorizes with the larger scope'],
    ['auth/scope-retry-limit', 'H15: gives up after at most 3 authorization rounds'],
    ['auth/client-credentials-basic', 'client credentials grant (non-interactive)'],
    ['auth/cross-app-access-complete-flow', 'cross-app access: IdP token exchange then jwt-bearer grant (SEP-990)'],
    ['request-metadata', '2026-07-28: server/discover, protocol version header and _meta on every request (SEP-2575)'],
    ['sep-2322-client-request-state', '2026-07-28: input_required rounds echo requestState on a fresh id (SEP-2322)'],
    ['http-custom-headers', '2026-07-28: x-mcp-header parameters go out as Mcp-Param-* headers (SEP-2243)'],
    ['auth/iss-wrong-issuer', '2026-07-28: an authorization response from another issuer is refused (RFC 9207)'],
    ['auth/authorization-server-migration', '2026-07-28: registers anew when the resource moves to another authorization server (SEP-2352)'],
  ];
  for (const [scenario, title] of scenarios) {
    it(`${title} [${scenario}]`, async () => {
      const r = await conformance(scenario);
      assert.equal(r.code, 0, r.out);
      // One summary line per set that has the scenario (0.1.16, the 0.2 requirement sets, the full 0.2 suite).
      const lines = r.out.split('\n').filter(l => /^conformance: \d+ scenarios/.test(l));
      assert.ok(lines.length >= 1, r.out);
      for (const l of lines) assert.match(l, /^conformance: 1 scenarios \(1 passed, 0 failed, 0 skipped\), [1-9]\d* checks \(\d+ passed, 0 failed, \d+ skipped\) \[/);
    });
  }
});
