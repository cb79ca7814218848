/**
 * Reliability: the one redaction path against a hostile server (leaky.mjs) that sends back every secret it
 * was given — `${input:}` values (with quotes and backslashes, so their JSON-escaped form differs), an
 * `envFile` value whose name looks secret (API_TOKEN) and a `${env:}` value placed into args — in stderr,
 * JSON-RPC error messages, `notifications/message` text and objects, long lines cut mid-secret, trace lines
 * and its serverInfo. Nothing of them may appear in any log entry, error state, stderr tail or thrown error;
 * entries over maxLogEntryBytes are cut with "(N more bytes)" and the cut is reported once, naming the
 * setting. A well-behaved bystander keeps working; no process survives.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseInputs, parseServers, resolveServer } from '../../src/mcp/config';
import { DEFAULT_LIMITS, LIMIT_SETTING } from '../../src/mcp/limits';
import type { ServerDefinition, ServerState } from '../../src/mcp/types';
import { BYSTANDER, MARK, MARK_NAME, fixture, marked, startHost, textOf, tmpDirPerTest, until, type TestHost } from './helpers';

const INPUT = 'in-"S3cr3t"\\val';
const ENVFILE = 'ef-T0kenAbcdef';
const ENVARG = 'env-ArgSecret77';
/** Parts that must never show (each secret's distinctive middle, raw and JSON-escaped). */
const NEEDLES = ['S3cr3t', 'T0kenAbc', 'ArgSecret'];

describe('Reliability: secrets never leave through any output', function () {
  this.timeout(90_000);
  let t: TestHost | undefined;
  const scratch = tmpDirPerTest('mcp-reliability-secrets-', async () => { await t?.close(); t = undefined; });

  async function definitions(): Promise<ServerDefinition[]> {
    const envFile = path.join(scratch.dir, '.env');
    fs.writeFileSync(envFile, `# secrets\nAPI_TOKEN=${ENVFILE}\nPLAIN=hello\n`);
    const settings = {
      leaky: {
        command: process.execPath,
        args: [fixture('leaky'), '--secret-env', 'API_TOKEN,GREETING', '${input:pw}', '${env:MY_ARG}'],
        env: { GREETING: '${input:pw}', [MARK_NAME]: MARK },
        envFile,
      },
      crashing: { command: process.execPath, args: [fixture('crash-at-start'), '--message', 'fatal: key ${input:pw} and ${env:MY_ARG} rejected'], env: { [MARK_NAME]: MARK } },
    };
    const inputs = parseInputs([{ id: 'pw', type: 'promptString', password: true }]);
    const parsed = parseServers(settings);
    assert.deepEqual(parsed.errors, []);
    const defs: ServerDefinition[] = [];
    for (const raw of parsed.servers) {
      const r = await resolveServer(raw, { workspaceFolders: [], userHome: scratch.dir, env: { MY_ARG: ENVARG }, inputs: inputs.inputs, resolveInput: async () => INPUT });
      assert.ok(r.definition, JSON.stringify(r.error));
      defs.push(r.definition);
    }
    return defs;
  }

  function assertClean(what: string, texts: string[]): void {
    for (const text of texts) {
      for (const n of NEEDLES) assert.ok(!text.includes(n), `${what} shows ${n}: …${text.slice(Math.max(0, text.indexOf(n) - 80), text.indexOf(n) + 40)}…`);
    }
  }

  it('hides them in stderr, error messages, JSON-escaped log data, cut log entries and trace lines (cut mid-secret)', async () => {
    const defs = await definitions();
    const states: ServerState[] = [];
    t = await startHost([]);
    t.host.onDidChangeState(e => states.push(e.state));
    await t.host.reconcile([marked(BYSTANDER, 'echo'), ...defs]);
    const leaky = t.get('leaky');
    leaky.setTrace(true);
    await leaky.restart();
    assert.equal(leaky.state.kind, 'running', JSON.stringify(leaky.state));
    assert.equal(t.get('crashing').state.kind, 'error');

    // The server really has every secret.
    const r = await leaky.callTool('leak', {});
    for (const s of [INPUT, ENVFILE, ENVARG]) assert.ok(textOf(r).includes(s), `the server got ${s}`);
    // A JSON-RPC error quoting them.
    const errors: string[] = [];
    await leaky.callTool('fail', {}).then(() => assert.fail('fail succeeded'), (e: Error) => {
      errors.push(e.message, String(e.stack), String((e.cause as Error | undefined)?.message), String((e.cause as Error | undefined)?.stack));
    });
    assert.match(errors[0], /bad credentials \*\*\*/, t.logs.filter(l => l.server === "leaky").map(l => `${l.source} ${l.message.slice(0, 300)}`).join("\n"));
    // Trace lines over the cap, cut at every offset around the secret.
    const prefix = 60;
    for (let at = DEFAULT_LIMITS.maxLogEntryBytes - prefix - 20; at < DEFAULT_LIMITS.maxLogEntryBytes - prefix + 20; at += 3) {
      await leaky.callTool('long', { at });
    }
    await until(() => t!.logs.filter(l => l.server === 'leaky' && l.source === 'server').length >= 4, 'the log notifications', 10_000);

    const cut = t.logs.filter(l => l.server === 'leaky' && /… \(\d+ more bytes\)$/.test(l.message));
    assert.ok(cut.some(l => l.source === 'trace'), 'trace lines were cut');
    assert.ok(cut.some(l => l.source === 'server'), 'the 70 KiB log notification was cut');
    for (const l of t.logs) assert.ok(Buffer.byteLength(l.message) <= DEFAULT_LIMITS.maxLogEntryBytes + 40, `an entry of ${Buffer.byteLength(l.message)} bytes`);
    const reported = t.logs.filter(l => l.server === 'leaky' && l.message.includes(LIMIT_SETTING.maxLogEntryBytes));
    assert.equal(reported.length, 1, 'the cap is reported once, naming the setting');
    assert.match(reported[0].message, /server `leaky` .*64 KiB/);
    assert.ok(t.logs.some(l => l.server === 'leaky' && l.source === 'server' && l.message.includes('"quoted"')), 'the object log message arrived');
    assert.ok(t.logs.some(l => l.server === 'leaky' && l.source === 'stderr' && l.message.includes('my secret is ***')));

    assertClean('a log entry', t.logs.map(l => `${l.source} ${l.logger ?? ''} ${l.message}`));
    assertClean('a state', states.map(s => JSON.stringify(s)));
    assertClean('a server', t.host.servers.map(s => JSON.stringify(s.state) + s.stderrTail.join('\n')));
    assertClean('an error', errors);
    assert.match(JSON.stringify(t.get('crashing').state), /fatal: key \*\*\* and \*\*\* rejected/);
    await t.assertBystanderUndisturbed();
  });
});
