/**
 * The organisation's MCP policy (issue 40, H450–H453), written from the published rules (docs/POLICY.md quotes
 * them): GitHub Copilot's managed-settings.json — "Copilot clients evaluate MCP servers in this order: … 2. If the
 * server matches any entry in deniedMcpServers, it is blocked. 3. If allowedMcpServers is present and the server
 * does not match an entry, it is blocked" — with entries that match "by name, server URL, or specific command"
 * ("Each entry must have either serverName or serverCommand", Claude Code's managed settings, whose keys Copilot
 * shares; "Command arrays must match exactly - both the command and all arguments in the correct order").
 * Each blocked server sits beside a bystander the policy allows; the CLI runs are the production dist/cli.js with the
 * test-only MCP_HOST_POLICY_ROOT in place of the platform folder.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyPolicy, loadPolicy, parsePolicy, platformPolicyFile, policyBreakMessage, policyVerdict } from '../../src/mcp/policy/orgPolicy';
import type { ServerDefinition } from '../../src/mcp/types';
import { shippedCliCopy } from '../support/shipped';
import { assertNoProcessesIn, runCli } from '../support/cli';

const stdio = (name: string, command: string, args: string[]): ServerDefinition => ({ name, type: 'stdio', command, args, env: {} });
const remote = (name: string, url: string): ServerDefinition => ({ name, type: 'http', url, headers: {} } as ServerDefinition);
const names = (defs: ServerDefinition[]) => defs.map(d => d.name);

describe('Organisation policy: the rules (H450)', () => {
  const fs1 = stdio('files', 'npx', ['-y', '@modelcontextprotocol/server-filesystem']);
  const gh = remote('github', 'https://api.githubcopilot.com/mcp/');
  const other = remote('other', 'https://evil.example/mcp');

  it('an allow-list by name, by URL wildcard and by exact command; everything else is blocked', () => {
    const p = parsePolicy(JSON.stringify({ allowedMcpServers: [{ serverName: 'memory' }, { serverUrl: 'https://api.githubcopilot.com/*' }, { serverCommand: ['npx', '-y', '@modelcontextprotocol/server-filesystem'] }] }), '/etc/github-copilot/managed-settings.json');
    const memory = remote('memory', 'http://127.0.0.1:9/mcp');
    const r = applyPolicy(p, [fs1, gh, other, memory, stdio('files-extra', 'npx', ['-y', '@modelcontextprotocol/server-filesystem', '/'])]);
    // With serverUrl entries a remote must match one of them: "memory" by name alone is not enough.
    assert.deepEqual(names(r.defs), ['files', 'github']);
    assert.deepEqual(r.errors.map(e => e.server), ['other', 'memory', 'files-extra']);
    assert.match(r.errors[0].message, /^Server "other" is blocked by your organisation's policy \(\/etc\/github-copilot\/managed-settings\.json\): allowedMcpServers does not list it\.$/);
  });

  it('a deny entry wins over an allow entry; a deny-list alone blocks only what it names', () => {
    const both = parsePolicy(JSON.stringify({ allowedMcpServers: [{ serverName: 'files' }, { serverName: 'github' }], deniedMcpServers: [{ serverCommand: ['npx', '-y', '@modelcontextprotocol/server-filesystem'] }] }), 'p.json');
    assert.deepEqual(policyVerdict(both, fs1), { allowed: false, reason: 'blocked by your organisation\'s policy (p.json): deniedMcpServers names it' });
    assert.deepEqual(policyVerdict(both, gh), { allowed: true });
    const denyOnly = parsePolicy(JSON.stringify({ deniedMcpServers: [{ serverUrl: 'https://*.example/*' }] }), 'p.json');
    assert.deepEqual(names(applyPolicy(denyOnly, [fs1, gh, other]).defs), ['files', 'github']);
  });

  it('chat.mcp.access: "none" blocks every server, "registry" all but those installed from the registry', () => {
    assert.equal(policyVerdict({ denied: [], access: 'none' }, gh).allowed, false);
    const reg = applyPolicy({ denied: [], access: 'registry' }, [fs1, gh], d => d.name === 'github');
    assert.deepEqual(names(reg.defs), ['github']);
    assert.match(reg.errors[0].message, /chat\.mcp\.access is "registry"/);
  });

  it('a malformed policy fails closed with a message naming the file and the fix; an empty or missing one is no policy', () => {
    for (const [text, why] of [['{ "allowedMcpServers": [', /not valid JSON/], ['[]', /does not hold an object/], ['{"allowedMcpServers": {"serverName": "x"}}', /allowedMcpServers is not an array/],
      ['{"deniedMcpServers": [{"serverName": "a", "serverUrl": "b"}]}', /deniedMcpServers\[0\] must have exactly one of serverName, serverCommand, serverUrl \(it has serverName, serverUrl\)/],
      ['{"allowedMcpServers": [{"serverCommand": "npx"}]}', /serverCommand must be a non-empty array of strings/]] as const) {
      const p = parsePolicy(text, '/etc/github-copilot/managed-settings.json');
      const v = policyVerdict(p, gh);
      assert.equal(v.allowed, false, text);
      if (!v.allowed) { assert.match(v.reason, why); assert.match(v.reason, /ask your administrator to correct it; until then no MCP server may run/); }
    }
    assert.deepEqual(policyVerdict(parsePolicy('', 'p.json'), gh), { allowed: true });
    assert.deepEqual(policyVerdict(parsePolicy('{"model": "auto"}', 'p.json'), gh), { allowed: true });
  });

  it('the platform file: /etc/github-copilot on Linux, the Program Files and Application Support folders elsewhere; the test root replaces it', () => {
    assert.equal(platformPolicyFile('linux', {}), '/etc/github-copilot/managed-settings.json');
    assert.equal(platformPolicyFile('darwin', {}), '/Library/Application Support/GitHubCopilot/managed-settings.json');
    assert.equal(platformPolicyFile('win32', { ProgramFiles: 'C:\\Program Files' }), 'C:\\Program Files\\GitHubCopilot\\managed-settings.json');
    assert.equal(platformPolicyFile('linux', { MCP_HOST_POLICY_ROOT: '/tmp/p' }), '/tmp/p/managed-settings.json');
  });
});

describe('Organisation policy: the file is read bounded and fails closed (H451)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-policy-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('missing → no policy; a FIFO, a directory or a 2 MB file → every server blocked at once, naming the file', async () => {
    assert.deepEqual(await loadPolicy(path.join(dir, 'nope.json')), { denied: [] });
    const fifo = path.join(dir, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, `{"x": "${'a'.repeat(2 * 1024 * 1024)}"}`);
    for (const f of [fifo, dir, big]) {
      const t0 = Date.now();
      const p = await loadPolicy(f);
      assert.ok(Date.now() - t0 < 1000, 'within a second');
      assert.ok(p.broken?.kind === 'unusable' && p.broken.file === f && typeof p.broken.read !== 'string', f);
      assert.match(policyBreakMessage(p.broken), new RegExp(`policy file ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be used`));
      assert.equal(policyVerdict(p, stdio('x', 'node', [])).allowed, false);
    }
  });
});

describe('Organisation policy in the production CLI (H452)', function () {
  this.timeout(120_000);
  let cli: { cli: string; dir: string; dispose(): void };
  let work: string;
  const fixture = (n: string) => path.resolve(__dirname, '../../../test/fixtures/servers', n);
  before(function () {
    this.timeout(180_000);
    cli = shippedCliCopy('mcp-host-policy-');
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-policy-cli-'));
  });
  afterEach(async () => { await assertNoProcessesIn(work); });
  after(() => { cli?.dispose(); fs.rmSync(work, { recursive: true, force: true }); });

  function setup(policy: string | undefined): { config: string; env: NodeJS.ProcessEnv; count: string } {
    const root = fs.mkdtempSync(path.join(work, 'policy-'));
    if (policy !== undefined) fs.writeFileSync(path.join(root, 'managed-settings.json'), policy);
    const count = path.join(root, 'blocked.count');
    const config = path.join(root, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ servers: {
      bystander: { command: process.execPath, args: [fixture('echo.mjs')], cwd: work },
      blocked: { command: process.execPath, args: [fixture('closes-on-probe.mjs')], env: { LAUNCH_COUNT_FILE: count }, cwd: work },
    } }));
    return { config, env: { MCP_HOST_POLICY_ROOT: root }, count };
  }

  it('a server the allow-list leaves out never starts (doctor and call say why); the bystander it lists runs', async () => {
    const s = setup(JSON.stringify({ allowedMcpServers: [{ serverName: 'bystander' }] }));
    const doctor = await runCli(cli.cli, ['doctor', '--config', s.config], { cwd: work, env: s.env });
    assert.match(doctor.stdout, /✗ .*Server "blocked" is blocked by your organisation's policy \(.*managed-settings\.json\): allowedMcpServers does not list it\./);
    assert.match(doctor.stdout, /✓ bystander \(stdio\)/);
    const call = await runCli(cli.cli, ['call', 'blocked', 'echo', '--args', '{"text":"x"}', '--config', s.config], { cwd: work, env: s.env });
    assert.equal(call.code, 2);
    assert.match(call.stderr, /blocked by your organisation's policy/);
    assert.equal(fs.existsSync(s.count), false, 'the blocked server was never launched');
  });

  it('a malformed policy file blocks every server with a message naming the file; no file, no policy', async () => {
    const bad = setup('{ "deniedMcpServers": [ ');
    const doctor = await runCli(cli.cli, ['doctor', '--config', bad.config], { cwd: work, env: bad.env });
    assert.match(doctor.stdout, /Server "bystander" is blocked: .*managed-settings\.json is not valid JSON/);
    assert.match(doctor.stdout, /Server "blocked" is blocked: /);
    assert.equal(fs.existsSync(bad.count), false);
    const none = setup(undefined);
    const ok = await runCli(cli.cli, ['call', 'blocked', 'echo', '--args', '{"text":"runs"}', '--config', none.config], { cwd: work, env: none.env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /runs/);
  });
});
