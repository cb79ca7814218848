/**
 * The mcp-host CLI, run as a user runs it (`node dist/cli.js …`) against real servers from
 * node_modules/.bin (server-everything, server-memory) and a few one-line broken ones.
 * Every server is started with its cwd in a fresh temp folder, so "no process left behind" is
 * checked by looking for any process whose cwd is still inside it.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { copyShippedCli } from '../support/shipped';
import { assertNoProcessesIn, processesIn, runCli, type CliRun as Run } from '../support/cli';
import { readOnlyNote } from '../../src/mcp';

const ROOT = path.resolve(__dirname, '../../..');
/** A private copy of the production dist/cli.js (test/support/shipped.ts): what ships is what is tested. */
let CLI = '';
const BIN = path.join(ROOT, 'node_modules/.bin');


/** Runs the CLI to completion (no TTY: inputs come from the environment). */
function cli(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return runCli(CLI, args, opts);
}

function write(file: string, value: unknown): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
  return file;
}

describe('mcp-host CLI (dist/cli.js against real servers)', function () {
  this.timeout(120_000);
  let work: string;
  /** cwd of every server: the processes-left-behind check looks here. */
  let serverCwd: string;
  let mcpJson: string;

  const everything = () => ({ type: 'stdio', command: path.join(BIN, 'mcp-server-everything'), args: ['stdio'], cwd: serverCwd });
  const memory = () => ({ type: 'stdio', command: path.join(BIN, 'mcp-server-memory'), env: { MEMORY_FILE_PATH: '${input:memoryFile}' }, cwd: serverCwd });

  before(function () {
    this.timeout(120_000);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-cli-'));
    CLI = path.join(work, 'cli.js');
    copyShippedCli(CLI);
    serverCwd = path.join(work, 'servers');
    fs.mkdirSync(serverCwd);
    mcpJson = write(path.join(work, 'mcp.json'), {
      inputs: [{ id: 'memoryFile', type: 'promptString', description: 'Memory file' }],
      servers: { everything: everything(), memory: memory() },
    });
  });

  afterEach(async () => { await assertNoProcessesIn(serverCwd); });
  after(() => { fs.rmSync(work, { recursive: true, force: true }); });

  const memEnv = () => ({ MCP_HOST_INPUT_MEMORYFILE: path.join(work, 'memory.jsonl') });

  it('H5/H42: doctor starts every server and prints path, protocol version, capabilities and counts (exit 0)', async () => {
    const r = await cli(['doctor', '--config', mcpJson], { cwd: work, env: memEnv() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /✓ everything \(stdio\) .*mcp-server-everything \(via absolute\)/);
    assert.match(r.stdout, /✓ memory \(stdio\)/);
    // H42/H83: both are 2025-11-25 servers: reported with their protocol revision, never as "legacy"
    assert.match(r.stdout, /✓ everything \(stdio\)[^\n]*\n\s+server [^\n]*, MCP 2025-11-25\n/);
    assert.match(r.stdout, /✓ memory \(stdio\)[^\n]*\n\s+server [^\n]*, MCP 2025-11-25\n/);
    assert.doesNotMatch(r.stdout, /legacy/i);
    assert.match(r.stdout, /capabilities: .*tools/);
    assert.match(r.stdout, /\d+ tools, \d+ prompts, \d+ resources, \d+ templates/);
    assert.match(r.stdout, /2 of 2 servers OK/);
  });

  it('doctor reports a broken server by name with its stderr tail and exits 1; the others still start', async () => {
    const cfg = write(path.join(work, 'broken.json'), {
      servers: {
        everything: everything(),
        crasher: { type: 'stdio', command: process.execPath, args: ['-e', 'process.stderr.write("kaboom: missing API key\\n"); process.exit(3)'], cwd: serverCwd },
        missing: { type: 'stdio', command: 'mcp-host-no-such-command', cwd: serverCwd },
      },
    });
    const r = await cli(['doctor', '--config', cfg, '--timeout', '20000'], { cwd: work });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /✓ everything/);
    assert.match(r.stdout, /✗ crasher/);
    assert.equal(r.stdout.match(/kaboom: missing API key/g)?.length, 2, 'in the message and once in the stderr tail');
    assert.match(r.stdout, /✗ missing .*not found on PATH/);
    assert.match(r.stdout, /1 of 3 servers OK/);
  });

  it('H20: inspect prints serverInfo, protocolVersion, capabilities and every list as JSON', async () => {
    const r = await cli(['inspect', 'everything', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j).filter(k => k !== 'instructions').sort(),
      ['apps', 'capabilities', 'era', 'prompts', 'protocolVersion', 'readOnly', 'resourceTemplates', 'resources', 'serverInfo', 'tools']);
    // H618: the tools server-everything says only read, in the words of the Tools view (src/mcp/catalogue/toolClaims.ts).
    assert.equal(j.readOnly.note, readOnlyNote());
    assert.deepEqual(j.readOnly.tools, j.tools.filter((t: { annotations?: { readOnlyHint?: unknown } }) => t.annotations?.readOnlyHint === true).map((t: { name: string }) => t.name));
    assert.equal(typeof j.serverInfo.name, 'string');
    assert.match(j.protocolVersion, /^\d{4}-\d\d-\d\d$/);
    assert.equal(j.era, 'legacy', 'H42: server-everything is a 2025-11-25 server');
    assert.ok(j.tools.some((t: { name: string }) => t.name === 'echo'), 'echo tool listed');
    assert.ok(j.prompts.some((p: { name: string }) => p.name === 'args-prompt'), 'args-prompt listed');
    assert.ok(j.resources.length > 0, 'resources listed');
    assert.ok(j.resourceTemplates.length > 0, 'templates listed');
  });

  it('call echo prints the tool result (exit 0)', async () => {
    const r = await cli(['call', 'everything', 'echo', '--args', '{"message":"hello from the cli"}', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /hello from the cli/);
  });

  it('H24: call validates arguments against the input schema before sending (exit 2 names the field)', async () => {
    const r = await cli(['call', 'everything', 'echo', '--args', '{"message":42}', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /message/);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'one line');
  });

  it('call with --args that are not JSON is a usage error (exit 2)', async () => {
    const r = await cli(['call', 'everything', 'echo', '--args', '{message:', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--args is not valid JSON/);
  });

  it('read prints a resource\'s text', async () => {
    const listed = JSON.parse((await cli(['inspect', 'everything', '--config', mcpJson], { cwd: work })).stdout);
    const text = listed.resources.find((x: { mimeType?: string }) => x.mimeType?.startsWith('text/')) ?? listed.resources[0];
    const r = await cli(['read', 'everything', text.uri, '--config', mcpJson, '--json'], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.contents[0].uri, text.uri);
    const plain = await cli(['read', 'everything', text.uri, '--config', mcpJson], { cwd: work });
    assert.equal(plain.code, 0, plain.stderr);
    if (typeof j.contents[0].text === 'string') assert.ok(plain.stdout.includes(j.contents[0].text.slice(0, 40)));
  });

  it('H23: prompt sends --arg values and prints the messages', async () => {
    const r = await cli(['prompt', 'everything', 'args-prompt', '--arg', 'city=Paris', '--arg', 'state=Île-de-France', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[user\]/);
    assert.match(r.stdout, /Paris, Île-de-France/);
  });

  it('prompt without a required argument says which one (exit 2)', async () => {
    const r = await cli(['prompt', 'everything', 'args-prompt', '--config', mcpJson], { cwd: work });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--arg city=/);
  });

  it('server-memory: ${input:…} comes from MCP_HOST_INPUT_<ID>; tools work end to end', async () => {
    const entity = { entities: [{ name: 'cli-test', entityType: 'thing', observations: ['made by the CLI test'] }] };
    const made = await cli(['call', 'memory', 'create_entities', '--args', JSON.stringify(entity), '--config', mcpJson], { cwd: work, env: memEnv() });
    assert.equal(made.code, 0, made.stderr);
    const graph = await cli(['call', 'memory', 'read_graph', '--config', mcpJson], { cwd: work, env: memEnv() });
    assert.equal(graph.code, 0, graph.stderr);
    assert.match(graph.stdout, /made by the CLI test/);
    assert.ok(fs.existsSync(path.join(work, 'memory.jsonl')), 'memory file written where the input said');
  });

  it('an ${input:…} with no value and no terminal is a config error naming the variable (exit 2)', async () => {
    const r = await cli(['inspect', 'memory', '--config', mcpJson], { cwd: work, env: { MCP_HOST_INPUT_MEMORYFILE: undefined } });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /MCP_HOST_INPUT_MEMORYFILE/);
  });

  it('reads ./.vscode/settings.json (mcpHost.servers, with comments) from the current folder by default', async () => {
    const ws = path.join(work, 'ws');
    write(path.join(ws, '.vscode/settings.json'), `{
      // the CLI reads JSONC like the editor does
      "mcpHost.servers": { "everything": ${JSON.stringify({ ...everything(), command: '${workspaceFolder}/' + path.relative(ws, path.join(BIN, 'mcp-server-everything')) })} },
    }`);
    const r = await cli(['call', 'everything', 'echo', '--args', '{"message":"from settings"}'], { cwd: ws });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /from settings/);
  });

  it('a bad config exits 2 with one line naming the file, the setting path and the value', async () => {
    const bad = write(path.join(work, 'bad.json'), { servers: { everything: everything(), oops: { type: 'stdio', command: 'x', args: 'not-a-list' } } });
    const r = await cli(['call', 'oops', 'echo', '--config', bad], { cwd: work });
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /bad\.json/);
    assert.match(r.stderr, /oops\.args/);
    const d = await cli(['doctor', '--config', bad], { cwd: work });
    assert.equal(d.code, 2, d.stdout + d.stderr);
    assert.match(d.stdout, /oops\.args/);
    assert.match(d.stdout, /✓ everything/, 'one bad server does not block the others');
  });

  it('unknown server, unreadable config, missing arguments and unknown options are usage errors (exit 2)', async () => {
    const cases: [string[], RegExp][] = [
      [['inspect', 'nope', '--config', mcpJson], /no server named "nope".*everything, memory/],
      [['inspect', 'everything', '--config', path.join(work, 'missing.json')], /missing\.json/],
      [['call', 'everything'], /call needs a server and a tool/],
      [['inspect', 'everything', '--frobnicate'], /unknown option --frobnicate/],
      [['frobnicate'], /unknown command/],
    ];
    for (const [args, re] of cases) {
      const r = await cli(args, { cwd: work });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, re);
    }
  });

  it('--help works for every command', async () => {
    for (const cmd of ['doctor', 'inspect', 'call', 'read', 'prompt', 'skills', 'skill', 'conformance']) {
      const r = await cli([cmd, '--help'], { cwd: work });
      assert.equal(r.code, 0, cmd);
      assert.match(r.stdout, new RegExp(`usage: mcp-host ${cmd}`));
    }
  });

  it('H12/H15: doctor and call over Streamable HTTP, with a bearer token from an ${input:…} header', async () => {
    const server = spawn(process.execPath, [path.join(ROOT, 'test/fixtures/servers/http-fixture.mjs'), '--token', 's3cret-token-value'],
      { cwd: serverCwd, stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let buf = '';
        server.stdout.on('data', d => { buf += d; const m = /LISTENING (\d+)/.exec(buf); if (m) resolve(Number(m[1])); });
        server.once('exit', code => reject(new Error(`http fixture exited (${code})`)));
      });
      const cfg = write(path.join(work, 'http.json'), {
        inputs: [{ id: 'token', type: 'promptString', password: true }],
        servers: {
          remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${input:token}' } },
          nokey: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
        },
      });
      const env = { MCP_HOST_INPUT_TOKEN: 's3cret-token-value' };
      const d = await cli(['doctor', '--config', cfg], { cwd: work, env });
      assert.equal(d.code, 1, d.stdout + d.stderr);
      assert.match(d.stdout, /✓ remote \(http\) http:\/\/127\.0\.0\.1:\d+\/mcp/);
      assert.match(d.stdout, /✗ nokey \(http\)[^\n]*\n\s+.*(401|authoriz)/i);
      assert.doesNotMatch(d.stdout + d.stderr, /s3cret-token-value/, 'the token is never printed');
      const c = await cli(['call', 'remote', 'echo', '--args', '{"text":"over http"}', '--config', cfg], { cwd: work, env });
      assert.equal(c.code, 0, c.stderr);
      assert.match(c.stdout, /over http/);
    } finally {
      server.kill('SIGTERM');
      await new Promise(r => server.once('exit', r));
    }
  });

  it('reads a Claude Desktop config (mcpServers) given with --config', async () => {
    const cfg = write(path.join(work, 'claude_desktop_config.json'), {
      mcpServers: { everything: { command: path.join(BIN, 'mcp-server-everything'), args: ['stdio'], cwd: serverCwd } },
      globalShortcut: 'Ctrl+Space',
    });
    const r = await cli(['call', 'everything', 'echo', '--args', '{"message":"from claude config"}', '--config', cfg], { cwd: work });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /from claude config/);
  });

  it('asks for ${input:…} on the terminal, without echoing a password', async function () {
    // `script` (util-linux) gives the CLI a real pseudo-terminal.
    if (spawnSync('script', ['--version']).status !== 0) this.skip();
    const cfg = write(path.join(work, 'tty.json'), {
      inputs: [{ id: 'apiKey', type: 'promptString', description: 'API key for everything', password: true }],
      servers: { everything: { ...everything(), env: { API_KEY: '${input:apiKey}' } } },
    });
    const command = `${process.execPath} ${CLI} call everything echo --args '{"message":"tty ok"}' --config ${cfg}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', d => {
      out += d;
      if (out.includes('API key for everything:') && child.stdin.writable) child.stdin.end('hunter2-very-secret\n');
    });
    const code = await new Promise<number | null>(resolve => child.on('close', c => resolve(c)));
    assert.equal(code, 0, out);
    assert.match(out, /API key for everything:/);
    assert.match(out, /tty ok/);
    assert.doesNotMatch(out, /hunter2/, 'the password is not echoed');
  });

  it('H11: Ctrl+C while a server hangs in initialize stops it (whole tree) and exits 130', async () => {
    const hang = write(path.join(work, 'hang.json'), {
      servers: { hang: { type: 'stdio', command: process.execPath, args: ['-e', 'require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" }); setInterval(() => {}, 1000)'], cwd: serverCwd } },
    });
    const child = spawn(process.execPath, [CLI, 'doctor', '--config', hang, '--timeout', '60000'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', d => { stderr += d; });
    // Wait until the server and its grandchild are up.
    for (let i = 0; i < 100 && processesIn(serverCwd).length < 2; i++) await new Promise(r => setTimeout(r, 100));
    assert.ok(processesIn(serverCwd).length >= 2, 'server and grandchild started');
    child.kill('SIGINT');
    const code = await new Promise<number | null>(resolve => child.on('close', c => resolve(c)));
    assert.equal(code, 130, stderr);
  });
});
