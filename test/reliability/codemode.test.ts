/**
 * Reliability: code mode through the gateway into VS Code's chat (issue 42, H473–H475), end to end in plain Node. The
 * real host runs @modelcontextprotocol/server-filesystem on a temporary root and the bystander (echo.mjs); the
 * gateway's MCP server (GatewayServer, as the extension builds it, with `mcpHost.codeMode` on) is reached by an SDK v2
 * client over the SDK's in-memory transport, as VS Code reaches it over the gateway's loopback HTTP. MCP Host's confirmation
 * of a program's calls is a scripted stand-in for the extension's governor turn.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, InMemoryTransport, type Tool } from '@modelcontextprotocol/client';
import { GatewayServer } from '../../src/mcp/gateway/server';
import { DEFAULT_CODE_MODE_LIMITS, type CodeModeLimits } from '../../src/mcp/codemode/codeModeLimits';
import { CODE_MODE_TOOL_NAME } from '../../src/mcp/codemode/codeModeTool';
import { BYSTANDER, MARK, MARK_NAME, startHost, stdio, textOf, tmpDir, type TestHost } from './helpers';

const FILESYSTEM = path.resolve(__dirname, '../../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

describe('Reliability: code mode through the gateway (issue 42)', function () {
  this.timeout(60_000);
  let t: TestHost | undefined;
  let root: string;
  let client: Client | undefined;
  let gateway: GatewayServer | undefined;
  const disabled = new Set<string>();
  /** What MCP Host's confirmation answers per tool (default: allowed), and every question asked. */
  const answers = new Map<string, 'allowed' | 'declined'>();
  const asked: string[] = [];
  let limits: CodeModeLimits = { ...DEFAULT_CODE_MODE_LIMITS, sliceMs: 2_000 };

  beforeEach(async () => {
    disabled.clear();
    answers.clear();
    asked.length = 0;
    limits = { ...DEFAULT_CODE_MODE_LIMITS, sliceMs: 2_000 };
    root = tmpDir('mcp-host-codemode-');
    for (const n of ['a', 'b', 'c', 'd']) fs.writeFileSync(path.join(root, `${n}.txt`), `file ${n}\n`.repeat(20));
    t = await startHost([stdio('files', process.execPath, [FILESYSTEM, root], { env: { [MARK_NAME]: MARK } })]);
    gateway = new GatewayServer({
      host: t.host, version: 'test',
      gate: { enabled: (s: string, tool: string) => !disabled.has(`${s}/${tool}`) },
      codeMode: () => limits,
      programApproval: () => {
        const once = new Set<string>();
        return {
          approve: async (server: string, tool: Tool) => {
            const k = `${server}/${tool.name}`;
            if (!once.has(k)) { once.add(k); asked.push(k); }
            return answers.get(k) ?? 'allowed';
          },
          end: () => undefined,
        };
      },
    });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await gateway.connect(a);
    client = new Client({ name: 'vscode-stand-in', version: '1.0.0' });
    await client.connect(b);
  });
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    gateway?.dispose();
    await t?.close();
    t = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  const run = async (program: string) => {
    const r = await client!.callTool({ name: CODE_MODE_TOOL_NAME, arguments: { program } });
    return { isError: r.isError === true, body: JSON.parse(textOf(r)) as { value?: unknown; error?: string; console: string[]; toolCalls: number } };
  };
  const bystanderProgram = async () => {
    const r = await run(`return await mcp.${BYSTANDER}.echo({ text: "bystander" });`);
    assert.deepEqual(r.body.value, 'bystander');
  };

  it('H473: with code mode on the gateway lists the program tool alone; a program lists, reads three files and writes one; History shows each call under the program', async () => {
    const { tools } = await client!.listTools();
    assert.deepEqual(tools.map(x => x.name), [CODE_MODE_TOOL_NAME]);
    assert.match(tools[0].description ?? '', /mcp\.files: .*list_directory.*read_text_file/);
    const r = await run(`
      const listing = await mcp.files.list_directory({ path: ${JSON.stringify(root)} });
      const names = String(listing.content ?? listing).match(/\\w\\.txt/g).slice(0, 3);
      const texts = [];
      for (const n of names) texts.push(await mcp.files.read_text_file({ path: ${JSON.stringify(root)} + "/" + n }));
      const summary = names.map((n, i) => n + ": " + String(texts[i].content ?? texts[i]).split("\\n").length + " lines").join("; ");
      await mcp.files.write_file({ path: ${JSON.stringify(root)} + "/summary.txt", content: summary });
      return summary;`);
    assert.equal(r.isError, false, JSON.stringify(r.body));
    assert.equal(r.body.value, 'a.txt: 21 lines; b.txt: 21 lines; c.txt: 21 lines');
    assert.equal(fs.readFileSync(path.join(root, 'summary.txt'), 'utf8'), r.body.value);
    assert.equal(r.body.toolCalls, 5);
    const calls = t!.get('files').history.filter(e => e.method === 'tools/call');
    assert.deepEqual(calls.map(e => e.target), ['list_directory', 'read_text_file', 'read_text_file', 'read_text_file', 'write_file']);
    assert.ok(calls.every(e => e.by === 'model' && /^program-[0-9a-f]{8}$/.test(e.program ?? '') && e.program === calls[0].program), JSON.stringify(calls.map(e => [e.by, e.program])));
    assert.deepEqual(asked, ['files/list_directory', 'files/read_text_file', 'files/write_file'], 'MCP Host asked once per tool of the program');
    await t!.assertBystanderUndisturbed();
  });

  it('H474: a tool turned off for models is refused inside the program; a declined tool ends the program, caught or not; the bystander\'s program works', async () => {
    disabled.add('files/write_file');
    const off = await run('try { await mcp.files.write_file({ path: "x", content: "y" }); return "written"; } catch (e) { return e.message; }');
    assert.match(String(off.body.value), /tool "write_file" of MCP server "files" is not available to models/);
    assert.ok(!fs.existsSync(path.join(root, 'x')));
    answers.set('files/read_text_file', 'declined');
    const declined = await run(`try { await mcp.files.read_text_file({ path: ${JSON.stringify(path.join(root, 'a.txt'))} }); } catch { } return await mcp.files.list_directory({ path: ${JSON.stringify(root)} });`);
    assert.equal(declined.isError, true);
    assert.match(declined.body.error ?? '', /^The program was stopped: the user declined to run tool "read_text_file" of MCP server "files"/);
    assert.ok(!t!.get('files').history.some(e => e.target === 'list_directory'), 'nothing ran after the decline');
    await bystanderProgram();
    await t!.assertBystanderUndisturbed();
  });

  it('H475: an endless loop is stopped by its limits with the setting named (a synchronous one by the slice, one that awaits by CPU time), the event loop never held long; then the bystander\'s program works', async () => {
    limits = { ...DEFAULT_CODE_MODE_LIMITS, cpuMs: 500 };
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const sync = await run('for (;;) {}');
    const awaiting = await run('for (;;) { await null; }');
    h.disable();
    assert.equal(sync.isError, true);
    assert.match(sync.body.error ?? '', /ran 50 ms without awaiting.*mcpHost\.codeModeLimits\.sliceMs/);
    assert.equal(awaiting.isError, true);
    assert.match(awaiting.body.error ?? '', /more than 500 ms of CPU time.*mcpHost\.codeModeLimits\.cpuMs/);
    // The slice limit (50 ms) bounds each hold; a loaded two-core machine adds its own delay on top.
    assert.ok(h.max / 1e6 < 400, `longest event-loop delay ${Math.round(h.max / 1e6)} ms`);
    await bystanderProgram();
    await t!.assertBystanderUndisturbed();
  });
});
