/**
 * `mcp-host --sandbox` and the wall from the server's roots (issue 34; H170, H172, H173), on the production
 * dist/cli.js with the sandbox runtime it ships next to it. The CLI runs from a folder OUTSIDE the server's root
 * (the runtime alone would protect only that folder, the host process's cwd): the hostile probe (sandbox-probe.mjs)
 * tries what runs code outside the sandbox later — `<root>/.git/config` (`core.fsmonitor`, run by the next
 * `git status`), `<root>/.git/hooks/pre-commit`, `<root>/.vscode/tasks.json`, `<root>/.mcp.json`, and in a fake
 * HOME `~/.profile`, `~/.bashrc`, `~/.config/autostart/x.desktop`, `~/.local/bin/ls` — all refused, while the
 * bystander write to an ordinary file in its root goes through; the same with a definition's `allowWrite: ["~"]`
 * (the home folder is then writable, its protected paths are not). A sandboxed server does not see GITHUB_TOKEN
 * of the host's environment; no server of a run sees another's `MCP_HOST_INPUT_*` value, each sees its own.
 * Linux with bubblewrap only.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { skipWithoutSandbox } from '../support/sandbox';
import { shippedCliCopy } from '../support/shipped';
import { assertNoProcessesIn, runCli, type CliRun } from '../support/cli';
import { tmpDir } from '../support/connection';

const ROOT = path.resolve(__dirname, '../../..');
const PROBE = path.join(ROOT, 'test/fixtures/servers/sandbox-probe.mjs');
const ORIGINAL = 'original content';

describe('mcp-host CLI: the sandbox wall comes from the server\'s roots (dist/cli.js)', function () {
  this.timeout(180_000);
  let copy: ReturnType<typeof shippedCliCopy>;
  let work: string;
  let home: string;
  let root: string;
  let hostCwd: string;
  let config: string;

  before(async function () {
    await skipWithoutSandbox(this, { reset: true });
    copy = shippedCliCopy('mcp-host-cli-wall-');
    work = tmpDir('mcp-cli-wall-');
    home = path.join(work, 'home');
    root = path.join(work, 'project');
    hostCwd = path.join(work, 'elsewhere');
    for (const d of [hostCwd, path.join(root, '.git', 'hooks'), path.join(root, '.vscode'), path.join(home, '.config', 'autostart'), path.join(home, '.local', 'bin')]) {
      fs.mkdirSync(d, { recursive: true });
    }
    // A repository as git makes it (HEAD, config, hooks), so that each target exists and a write would succeed unprotected.
    fs.writeFileSync(path.join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    for (const f of targets()) if (!f.endsWith('x.desktop') && !f.endsWith(`${path.sep}ls`)) fs.writeFileSync(f, ORIGINAL);
    config = path.join(work, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({
      inputs: [{ id: 'mine', type: 'promptString', password: true }, { id: 'github-token', type: 'promptString', password: true }],
      servers: {
        probe: { command: process.execPath, args: [PROBE], cwd: root, sandboxEnabled: true },
        wide: { command: process.execPath, args: [PROBE], cwd: root, sandboxEnabled: true, sandbox: { filesystem: { allowWrite: ['~'] } } },
        plain: { command: process.execPath, args: [PROBE], cwd: root },
        mine: { command: process.execPath, args: [PROBE], cwd: root, env: { MINE: '${input:mine}' } },
        gh: { command: process.execPath, args: [PROBE], cwd: root, env: { GH: '${input:github-token}' } },
      },
    }, null, 2));
  });
  afterEach(async () => { if (root) await assertNoProcessesIn(root); });
  after(() => {
    copy?.dispose();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  function targets(): string[] {
    return [
      path.join(root, '.git', 'config'), path.join(root, '.git', 'hooks', 'pre-commit'), path.join(root, '.vscode', 'tasks.json'),
      path.join(root, '.mcp.json'), path.join(home, '.profile'), path.join(home, '.bashrc'),
      path.join(home, '.config', 'autostart', 'x.desktop'), path.join(home, '.local', 'bin', 'ls'),
    ];
  }
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> =>
    runCli(copy.cli, [...args, '--config', config, '--root', root], { cwd: hostCwd, env: { HOME: home, ...env }, timeoutMs: 120_000 });
  const result = (r: CliRun) => {
    try {
      return JSON.parse(r.stdout.trim()) as { ok: boolean; value?: string | null; code?: string };
    } catch {
      throw new Error(`mcp-host printed no JSON result (exit ${r.code ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
    }
  };
  const write = (server: string, p: string) => cli(['call', server, 'write', '--args', JSON.stringify({ path: p, text: '[core]\n\tfsmonitor = touch /tmp/pwned\n' })]);
  const unchanged = (f: string) => !fs.existsSync(f) || fs.readFileSync(f, 'utf8') === ORIGINAL;

  for (const server of ['probe', 'wide']) {
    it(`H170: ${server === 'wide' ? 'with allowWrite ["~"], ' : ''}run from outside its root, the sandboxed server cannot write its root's .git/config, hooks, .vscode, .mcp.json nor the home's startup files; an ordinary file in its root it writes`, async () => {
      // One after another: eight sandboxed launches at once on a loaded 2-core machine measure the machine.
      const runs: CliRun[] = [];
      for (const f of targets()) runs.push(await write(server, f));
      runs.forEach((r, i) => {
        assert.equal(result(r).ok, false, `${targets()[i]} was written: ${r.stdout}${r.stderr}`);
        assert.ok(unchanged(targets()[i]), targets()[i]);
      });
      const bystander = path.join(root, `notes-${server}.txt`);
      const ok = await write(server, bystander);
      assert.equal(result(ok).ok, true, ok.stdout + ok.stderr);
      assert.ok(fs.existsSync(bystander));
      if (server === 'wide') {
        // What the definition widened (and the consent dialog lists, consent.ts describeWall) is writable: the home folder itself.
        const inHome = path.join(home, 'ordinary.txt');
        assert.equal(result(await write(server, inHome)).ok, true);
      } else {
        assert.equal(result(await write(server, path.join(home, 'ordinary.txt'))).ok, false, 'the home folder is outside its roots');
      }
    });
  }

  it('H172: a sandboxed server gets an allow-listed environment: no GITHUB_TOKEN or SSH_AUTH_SOCK of the host, PATH and HOME yes; unsandboxed it sees them (the fixture works)', async () => {
    const env = { GITHUB_TOKEN: 'ghp_host_token_1', SSH_AUTH_SOCK: '/tmp/agent.sock' };
    // One after another: each mcp-host process has its own sandbox runtime, and the empty placeholder one run's bwrap
    // makes for an absent protected file of the shared root (.bash_profile) is removed when that run ends, under
    // another run's bwrap that took it for an existing file ("Can't get type of source …"; seen on Node 24).
    const token = await cli(['call', 'probe', 'env', '--args', '{"name":"GITHUB_TOKEN"}'], env);
    const sock = await cli(['call', 'probe', 'env', '--args', '{"name":"SSH_AUTH_SOCK"}'], env);
    const pathVar = await cli(['call', 'probe', 'env', '--args', '{"name":"PATH"}'], env);
    const homeVar = await cli(['call', 'probe', 'env', '--args', '{"name":"HOME"}'], env);
    const open = await cli(['call', 'plain', 'env', '--args', '{"name":"GITHUB_TOKEN"}'], env);
    assert.equal(result(token).value, null, token.stdout + token.stderr);
    assert.equal(result(sock).value, null, sock.stdout);
    assert.ok(result(pathVar).value, pathVar.stdout);
    assert.equal(result(homeVar).value, home);
    assert.equal(result(open).value, 'ghp_host_token_1');
  });

  it('H173: each server sees only the ${input:} values its own definition uses, never the run\'s MCP_HOST_INPUT_* variables', async () => {
    const env = { MCP_HOST_INPUT_MINE: 'mine-value', MCP_HOST_INPUT_GITHUB_TOKEN: 'ghp_other_server_2' };
    const [own, other, raw] = await Promise.all([
      cli(['call', 'mine', 'env', '--args', '{"name":"MINE"}'], env),
      cli(['call', 'plain', 'env', '--args', '{"name":"MCP_HOST_INPUT_GITHUB_TOKEN"}'], env),
      cli(['call', 'mine', 'env', '--args', '{"name":"MCP_HOST_INPUT_MINE"}'], env),
    ]);
    assert.equal(own.code, 0, own.stdout + own.stderr);
    // Its own value reaches it (the CLI's output masks it as the secret it is).
    assert.ok(['mine-value', '***'].includes(String(result(own).value)), own.stdout + own.stderr);
    assert.equal(result(other).value, null, other.stdout);
    assert.equal(result(raw).value, null, raw.stdout);
  });
});
