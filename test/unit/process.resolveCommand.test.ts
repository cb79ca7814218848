import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive } from '../../src/mcp/process/processTree';
import { CommandNotFoundError, resolveCommand, withPathPrefix } from '../../src/mcp/process/resolveCommand';

const posix = process.platform !== 'win32';

/** Write an executable shell script (or a plain file with mode 0644 when `exec` is false). */
function writeTool(file: string, exec = true, body = '#!/bin/sh\necho hi\n'): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, body);
  fs.chmodSync(file, exec ? 0o755 : 0o644);
  return file;
}

describe('process: resolveCommand', function () {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-resolve-')); });
  afterEach(() => { fs.rmSync(tmp, { recursive: true, force: true }); });

  it('H10: an absolute path to an executable is used as is', async () => {
    const r = await resolveCommand(process.execPath, { env: { PATH: '' }, loginShell: false });
    assert.equal(r.path, process.execPath);
    assert.equal(r.via, 'absolute');
  });

  it('H10: finds a command on env.PATH (the child\'s PATH, not ours), skipping non-executable files', async function () {
    if (!posix) this.skip();
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    writeTool(path.join(a, 'my-mcp-tool'), false);
    const exe = writeTool(path.join(b, 'my-mcp-tool'));
    const r = await resolveCommand('my-mcp-tool', { env: { PATH: [a, b].join(path.delimiter), HOME: tmp }, loginShell: false });
    assert.equal(r.path, exe);
    assert.equal(r.via, 'PATH');
    assert.deepEqual(r.searched, [a, b]);
  });

  it('H10: resolves a relative command against cwd', async function () {
    if (!posix) this.skip();
    const exe = writeTool(path.join(tmp, 'bin', 'server'));
    const r = await resolveCommand('./bin/server', { cwd: tmp, env: { PATH: '' }, loginShell: false });
    assert.equal(r.path, exe);
    assert.equal(r.via, 'relative');
  });

  it('H10: a missing command is an error naming the command, the PATH searched and the fix', async () => {
    const PATH = ['/nonexistent-a', '/nonexistent-b'].join(path.delimiter);
    await assert.rejects(
      resolveCommand('no-such-mcp-server-xyz', { env: { PATH, HOME: tmp }, loginShell: false }),
      (e: unknown) => {
        assert.ok(e instanceof CommandNotFoundError);
        assert.match(e.message, /command `no-such-mcp-server-xyz` not found on PATH/);
        assert.ok(e.message.includes(`PATH=${PATH}`), e.message);
        assert.match(e.message, /set `command` to an absolute path/);
        assert.equal(e.command, 'no-such-mcp-server-xyz');
        assert.equal(e.pathValue, PATH);
        assert.ok(e.searched.includes('/nonexistent-a'));
        assert.ok(e.searched.includes(path.join(tmp, '.volta', 'bin')), 'shim directories are searched too');
        return true;
      });
  });

  it('H10: the message for npx reads like the issue asks', () => {
    const e = new CommandNotFoundError('npx', '/usr/bin:/bin', { kind: 'install', what: 'Node.js' });
    assert.equal(e.message, 'command `npx` not found on PATH (PATH=/usr/bin:/bin); install Node.js or set `command` to an absolute path');
  });

  it('H10: a missing absolute path names the file and says to fix `command`', async () => {
    const missing = path.join(tmp, 'nope', 'server');
    await assert.rejects(resolveCommand(missing, { env: { PATH: '/usr/bin' }, loginShell: false }),
      (e: unknown) => e instanceof CommandNotFoundError && e.message.includes(missing) && /fix the path in `command`/.test(e.message));
  });

  it('H10: finds a command in nvm\'s newest installed Node when PATH lacks it (fake nvm under a temp HOME)', async function () {
    if (!posix) this.skip();
    for (const v of ['v9.11.2', 'v20.11.1', 'v18.19.0', 'not-a-version']) {
      writeTool(path.join(tmp, '.nvm', 'versions', 'node', v, 'bin', 'fake-npx'));
    }
    const r = await resolveCommand('fake-npx', { env: { PATH: '/nonexistent', HOME: tmp }, loginShell: false });
    assert.equal(r.path, path.join(tmp, '.nvm', 'versions', 'node', 'v20.11.1', 'bin', 'fake-npx'));
    assert.equal(r.via, 'shim');
  });

  it('H10: finds volta and asdf shims under HOME', async function () {
    if (!posix) this.skip();
    const volta = writeTool(path.join(tmp, '.volta', 'bin', 'volta-tool'));
    const asdf = writeTool(path.join(tmp, '.asdf', 'shims', 'asdf-tool'));
    const env = { PATH: '/nonexistent', HOME: tmp };
    assert.equal((await resolveCommand('volta-tool', { env, loginShell: false })).path, volta);
    assert.equal((await resolveCommand('asdf-tool', { env, loginShell: false })).path, asdf);
  });

  it('H10: asks the login shell for its PATH as a last resort', async function () {
    if (!posix) this.skip();
    const loginBin = path.join(tmp, 'login-bin');
    const exe = writeTool(path.join(loginBin, 'login-only-tool'));
    // A stand-in login shell that ignores its arguments and prints the marker-wrapped PATH.
    const shell = writeTool(path.join(tmp, 'fake-shell'), true,
      `#!/bin/sh\necho "welcome banner"\nprintf '\\n__MCP_PATH__%s__MCP_PATH__' '/nonexistent${path.delimiter}${loginBin}'\n`);
    const env = { PATH: '/nonexistent', HOME: tmp, SHELL: shell };
    await assert.rejects(resolveCommand('login-only-tool', { env, loginShell: false }), CommandNotFoundError);
    const r = await resolveCommand('login-only-tool', { env });
    assert.equal(r.path, exe);
    assert.equal(r.via, 'login-shell');
  });

  it('H10: a login shell that hangs is abandoned after its bound, and killed with its children', async function () {
    if (!posix) this.skip();
    this.timeout(15_000);
    const pidFile = path.join(tmp, 'shell.pid');
    const shell = writeTool(path.join(tmp, 'hanging-shell'), true, `#!/bin/sh\necho $$ > '${pidFile}'\nsleep 30\n`);
    await assert.rejects(resolveCommand('not-there-either', { env: { PATH: '/nonexistent', HOME: tmp, SHELL: shell } }), CommandNotFoundError);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    const deadline = Date.now() + 5000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise(r => setTimeout(r, 25));
    assert.equal(isAlive(pid), false, 'the hanging shell was killed');
  });

  it('H10: a whole command line in `command` is not found, and the error says how to split it', async () => {
    await assert.rejects(resolveCommand(`${path.basename(process.execPath)} -y some-server`, { env: { PATH: path.dirname(process.execPath), HOME: tmp }, loginShell: false }),
      (e: unknown) => e instanceof CommandNotFoundError
        && e.message.includes(`set \`command\` to \`${path.basename(process.execPath)}\` and \`args\` to ["-y","some-server"]`));
  });

  it('H10: the advice keeps a quoted argument with spaces whole', async () => {
    await assert.rejects(resolveCommand(`${process.execPath} "/srv/My Servers/weather.js" --stdio`, { env: { PATH: '' }, loginShell: false }),
      (e: unknown) => e instanceof CommandNotFoundError && e.message.includes('and `args` to ["/srv/My Servers/weather.js","--stdio"]'));
  });

  it('H10: an absolute whole command line gets the same advice', async () => {
    await assert.rejects(resolveCommand(`${process.execPath} server.js --stdio`, { env: { PATH: '' }, loginShell: false }),
      (e: unknown) => e instanceof CommandNotFoundError && e.message.includes('and `args` to ["server.js","--stdio"]'));
  });

  it('H10: expands ~/ in `command` to the home directory', async function () {
    if (!posix) this.skip();
    const exe = writeTool(path.join(tmp, 'bin', 'home-tool'));
    const r = await resolveCommand('~/bin/home-tool', { env: { PATH: '', HOME: tmp }, loginShell: false });
    assert.equal(r.path, exe);
    assert.equal(r.via, 'absolute');
  });

  it('withPathPrefix puts the command\'s directory first on PATH once', () => {
    const env = withPathPrefix({ PATH: ['/a', '/b'].join(path.delimiter), X: '1' }, '/c');
    assert.equal(env.PATH, ['/c', '/a', '/b'].join(path.delimiter));
    assert.equal(env.X, '1');
    assert.equal(withPathPrefix(env, '/a').PATH, env.PATH);
  });
});
