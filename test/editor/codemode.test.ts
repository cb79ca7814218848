// Code mode in the real editor (issue 42, H476–H478), on the production VSIX, with the scripted fake model and a
// real server-everything: with mcpHost.codeMode on, `@mcp` offers the model one tool, mcp_host_run_program; a program
// calling two tools returns its value and History shows both calls under the program; a tool turned off for models is
// refused inside the program, a declined one ends it, while a bystander's direct call (the language-model tool) works;
// a hostile endless loop is stopped and the extension host keeps answering.
import * as assert from 'assert';
import Mocha from 'mocha';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { monitorEventLoopDelay } from 'perf_hooks';
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import { CHARS_PER_TOKEN, estimateToolTokens } from '../../src/mcp/catalogue/toolPolicy';
import { fiveStepProgram, summarise } from '../../bench/fiveStepTask';
import { activateHost, EVERYTHING, FILESYSTEM, textOf, until, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration };
const PROGRAM_TOOL = 'mcp_host_run_program';

/** The tools the fake model was offered in each request since `from` (from $FAKE_LM_LOG). */
function offeredTools(from = 0): string[][] {
  const file = process.env.FAKE_LM_LOG;
  if (!file || !fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l) as { call: string; tools?: string[] })
    .filter(e => e.call === 'provideLanguageModelChatResponse').slice(from).map(e => e.tools ?? []);
}

/** The program's answer as the model got it (the fake model echoes tool results after `fake-reply-to:tool-result:`). */
function programAnswer(t: { markdown: string; result: vscode.ChatResult }): { value?: unknown; error?: string; console: string[]; toolCalls: number } {
  const m = /fake-reply-to:tool-result:(\{.*\})/.exec(t.markdown);
  assert.ok(m, `no tool result in the answer:\n${t.markdown}\n${JSON.stringify(t.result)}`);
  return JSON.parse(m[1]);
}

describe('Code mode in the editor: @mcp runs a program (fake model, server-everything)', function () {
  this.timeout(90000);
  let api: Api;
  let fake: vscode.LanguageModelChat;
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  /** `CALL_TOOL:` makes the fake model call the program tool with this program. */
  const ask = (program: string, token?: vscode.CancellationToken) => api.chat.run(`CALL_TOOL:${PROGRAM_TOOL} ${JSON.stringify({ program })}`, { model: fake, token });

  before(async () => {
    api = await activateAllowing<Api>();
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await config().update('servers', { cm: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await config().update('codeMode', true, vscode.ConfigurationTarget.Workspace);
    await until(() => {
      const h = api.host.get('cm');
      return h?.state.kind === 'running' && ['echo', 'get-sum'].every(n => h.catalogue.tools.some(t => t.name === n));
    }, 'cm running with echo and get-sum');
  });
  afterEach(async () => {
    testSupport(api).setChatUi(undefined);
    await api.chat.chat.resetGrants();
    // A tool turned off is written where the setting is set (user settings when the workspace has none): both go.
    await config().update('disabledTools', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('disabledTools', undefined, vscode.ConfigurationTarget.Global);
    await config().update('codeModeLimits.cpuMs', undefined, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    await config().update('codeMode', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('H476: @mcp offers the program tool instead of the servers\' tools; a program calling two tools returns the value; History shows both calls under the program', async () => {
    const asked: string[] = [];
    testSupport(api).setChatUi({ approveTool: async a => { asked.push(a.tool); return 'session'; } });
    const from = offeredTools().length;
    const r = await ask('const a = await mcp.cm.echo({ message: "hi" }); const b = await mcp.cm.get_sum({ a: 2, b: 3 }); console.log("two calls"); return [a, b];');
    const tools = offeredTools(from)[0];
    assert.ok(tools.includes(PROGRAM_TOOL) && !tools.some(n => n.startsWith('cm_')), tools.join(', '));
    const answer = programAnswer(r);
    assert.deepStrictEqual(answer.value, ['Echo: hi', 'The sum of 2 and 3 is 5.']);
    assert.deepStrictEqual(answer.console, ['two calls']);
    assert.deepStrictEqual(asked, ['echo', 'get-sum'], 'each tool asked once, as a direct call is');
    const history = api.host.get('cm')!.history.filter(e => e.method === 'tools/call').slice(-2);
    assert.deepStrictEqual(history.map(e => [e.target, e.by]), [['echo', 'model'], ['get-sum', 'model']]);
    assert.ok(history[0].program && history[0].program === history[1].program, JSON.stringify(history.map(e => e.program)));
    assert.match(r.markdown, new RegExp(`Ran the program \`${history[0].program}\`: 2 tool call\\(s\\)`));
  });

  it('H477: a tool turned off for models is refused inside the program and a declined one ends it; the bystander\'s direct call works', async () => {
    await api.toolEnablement.set('cm', 'get-sum', false);
    await until(() => !api.toolEnablement.enabled('cm', 'get-sum'), 'get-sum off');
    testSupport(api).setChatUi({ approveTool: async () => 'session' });
    const off = programAnswer(await ask('try { return await mcp.cm.get_sum({ a: 1, b: 1 }); } catch (e) { return e.message; }'));
    assert.match(String(off.value), /tool "get-sum" of MCP server "cm" is not available to models/);
    await api.chat.chat.resetGrants();
    testSupport(api).setChatUi({ approveTool: async () => 'deny' });
    const before = api.host.get('cm')!.history.length;
    const denied = await ask('try { await mcp.cm.echo({ message: "no" }); } catch { } return await mcp.cm.echo({ message: "again" });');
    assert.match(denied.markdown, /You declined the call of/);
    assert.match(denied.markdown, /Stopped: you declined a tool call/);
    assert.strictEqual(api.host.get('cm')!.history.length, before, 'nothing ran after the decline');
    // The bystander: a direct call of a model through the language-model tool, next to it.
    testSupport(api).setChatUi({ approveTool: async () => 'once' });
    const direct = textOf(await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'cm', tool: 'echo', arguments: { message: 'bystander' } }, toolInvocationToken: undefined }));
    assert.match(direct, /Echo: bystander/);
  });

  it('H478: a hostile endless loop is stopped (slice, then CPU time) while the extension host keeps answering; a program after it works', async () => {
    await config().update('codeModeLimits.cpuMs', 1000, vscode.ConfigurationTarget.Global);
    testSupport(api).setChatUi({ approveTool: async () => 'session' });
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const sync = programAnswer(await ask('for (;;) {}'));
    const awaiting = programAnswer(await ask('for (;;) { await null; }'));
    h.disable();
    assert.match(sync.error ?? '', /ran 50 ms without awaiting.*mcpHost\.codeModeLimits\.sliceMs/);
    assert.match(awaiting.error ?? '', /more than 1000 ms of CPU time.*mcpHost\.codeModeLimits\.cpuMs/);
    // The extension host (where these tests run) was never held long: the slice bound plus a loaded machine's delay.
    assert.ok(h.max / 1e6 < 500, `longest extension-host delay ${Math.round(h.max / 1e6)} ms`);
    assert.ok(api.host.get('cm')?.state.kind === 'running');
    const after = programAnswer(await ask('return await mcp.cm.echo({ message: "after" });'));
    assert.strictEqual(after.value, 'Echo: after');
  });
});

describe('Code mode in Restricted Mode (untrusted workspace): off', function () {
  this.timeout(60000);
  before(function () {
    // The untrusted pass of the harness runs this (KEEP_WORKSPACE_TRUST=1); the trusted pass leaves it out by grep.
    assert.strictEqual(vscode.workspace.isTrusted, false, 'Restricted Mode tests ran in a trusted window: run them in the untrusted pass');
  });

  it('H470: with mcpHost.codeMode on in user settings, code mode is off in Restricted Mode (@mcp gets no code-mode limits, so it offers no program tool)', async () => {
    const api = await activateHost<Api>();
    const config = vscode.workspace.getConfiguration('mcpHost');
    await config.update('codeMode', true, vscode.ConfigurationTarget.Global);
    try {
      assert.strictEqual(vscode.workspace.getConfiguration('mcpHost').get('codeMode'), true);
      // The one reader (settings.ts codeMode()) as @mcp and the gateway read it; the fake model is not there to ask in
      // Restricted Mode (an untrusted window does not run it).
      assert.strictEqual(api.chat.chat.codeMode(), undefined);
    } finally {
      await config.update('codeMode', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

/** One request the fake model received (from $FAKE_LM_LOG), with what the token count needs. */
interface ModelRequest { messages: { text: string }[]; toolResults: string[]; toolCalls: string[]; toolCallInputs?: string[]; toolDefs?: Pick<Tool, 'name' | 'description' | 'inputSchema'>[] }
function modelRequests(from = 0): ModelRequest[] {
  const file = process.env.FAKE_LM_LOG;
  if (!file || !fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l) as ModelRequest & { call: string })
    .filter(e => e.call === 'provideLanguageModelChatResponse').slice(from);
}
/**
 * The tokens the model saw in `requests`, with the tool budget's estimate (src/mcp/catalogue/toolPolicy.ts): every
 * request's tool definitions (estimateToolTokens) plus its messages — texts, earlier calls, tool results — at
 * CHARS_PER_TOKEN characters a token. The test's script (`SCRIPT_TOOLS:…`, standing for the model's own choices) is
 * left out; the calls it makes are counted as the model's output sent back.
 */
function tokensSeen(requests: ModelRequest[]): number {
  let seen = 0;
  for (const r of requests) {
    const texts = r.messages.map(m => m.text.replace(/SCRIPT_TOOLS:\[[\s\S]*\]/, '')).join('');
    const calls = r.toolCalls.join('') + (r.toolCallInputs ?? []).join('');
    seen += estimateToolTokens(r.toolDefs ?? []) + Math.ceil((texts + calls + r.toolResults.join('')).length / CHARS_PER_TOKEN);
  }
  return seen;
}

describe('Code mode: the five-step task in the editor (direct calls vs one program, server-filesystem)', function () {
  this.timeout(120000);
  let api: Api;
  let fake: vscode.LanguageModelChat;
  let root: string;
  const config = () => vscode.workspace.getConfiguration('mcpHost');
  const files = ['alpha.txt', 'bravo.txt', 'charlie.txt', 'delta.txt'];
  const textOfFile = (name: string, i: number) => `${name} is file ${i + 1} of the five-step task\n${'a line of its text\n'.repeat(6 + i)}`;
  const PROMPT = 'List the files in the folder, read the first three, summarise each in one line (its line count and first line), and write the summary to summary.txt.';

  before(async () => {
    api = await activateAllowing<Api>();
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    // Inside the workspace folder: MCP Host gives server-filesystem the window's folders as its roots, which replace
    // the folders of its command line.
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? os.tmpdir();
    root = fs.realpathSync(fs.mkdtempSync(path.join(folder, 'mcp-host-fivestep-')));
    files.forEach((f, i) => fs.writeFileSync(path.join(root, f), textOfFile(f, i)));
    await config().update('servers', { files: { type: 'stdio', command: process.execPath, args: [FILESYSTEM, root] } }, vscode.ConfigurationTarget.Workspace);
    await until(() => {
      const h = api.host.get('files');
      return h?.state.kind === 'running' && ['list_directory', 'read_text_file', 'write_file'].every(n => h.catalogue.tools.some(t => t.name === n));
    }, 'files running with list_directory, read_text_file and write_file');
  });
  afterEach(async () => {
    testSupport(api).setChatUi(undefined);
    await api.chat.chat.resetGrants();
    await config().update('codeMode', undefined, vscode.ConfigurationTarget.Workspace);
  });
  after(async () => {
    await config().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('H536: the same five steps by direct calls and by one program write the same summary; the model sees fewer tokens with the program; History shows the program\'s calls under it', async () => {
    testSupport(api).setChatUi({ approveTool: async () => 'session' });
    const expected = summarise(files.slice(0, 3).map((name, i) => ({ name, text: textOfFile(name, i) })));
    const summaryFile = path.join(root, 'summary.txt');
    const historyCalls = () => api.host.get('files')!.history.filter(e => e.method === 'tools/call');

    // (a) Direct: list → three reads in one response → write the summary (the model's own text) → answer.
    assert.ok(!api.chat.chat.codeMode(), 'code mode is off for the direct way');
    const script = [
      [['*list_directory', { path: root }]],
      files.slice(0, 3).map(f => ['*read_text_file', { path: path.join(root, f) }]),
      [['*write_file', { path: summaryFile, content: expected }]],
    ];
    let from = modelRequests().length;
    let t0 = performance.now();
    const direct = await api.chat.run(`${PROMPT} SCRIPT_TOOLS:${JSON.stringify(script)}`, { model: fake });
    const directMs = performance.now() - t0;
    const directRequests = modelRequests(from);
    assert.strictEqual(fs.readFileSync(summaryFile, 'utf8'), expected, direct.markdown);
    assert.strictEqual(directRequests.length, 4, 'four requests: list, reads, write, answer');
    assert.ok(directRequests[0].toolDefs!.some(t => t.name.endsWith('read_text_file')), 'the direct way offers the server\'s tools');
    assert.deepStrictEqual(historyCalls().slice(-5).map(e => [e.target, e.by, e.program]),
      [['list_directory', 'model', undefined], ...files.slice(0, 3).map(() => ['read_text_file', 'model', undefined]), ['write_file', 'model', undefined]]);
    fs.rmSync(summaryFile);

    // (b) One program: code mode on, the program tool alone; its five calls run in the program, its value comes back.
    await config().update('codeMode', true, vscode.ConfigurationTarget.Workspace);
    await until(() => api.chat.chat.codeMode(), 'code mode on');
    from = modelRequests().length;
    t0 = performance.now();
    const program = await api.chat.run(`${PROMPT} SCRIPT_TOOLS:${JSON.stringify([[[PROGRAM_TOOL, { program: fiveStepProgram(root) }]]])}`, { model: fake });
    const programMs = performance.now() - t0;
    const programRequests = modelRequests(from);
    assert.strictEqual(programAnswer(program).value, expected);
    assert.strictEqual(fs.readFileSync(summaryFile, 'utf8'), expected, program.markdown);
    assert.strictEqual(programRequests.length, 2, 'two requests: the program, the answer');
    assert.deepStrictEqual(programRequests[0].toolDefs!.map(t => t.name), [PROGRAM_TOOL]);
    const calls = historyCalls().slice(-5);
    assert.deepStrictEqual(calls.map(e => [e.target, e.by]).sort(),
      [['list_directory', 'model'], ['read_text_file', 'model'], ['read_text_file', 'model'], ['read_text_file', 'model'], ['write_file', 'model']]);
    assert.ok(calls[0].program && calls.every(e => e.program === calls[0].program), JSON.stringify(calls.map(e => e.program)));
    assert.match(program.markdown, new RegExp(`Ran the program \`${calls[0].program}\`: 5 tool call\\(s\\)`));

    // The figures (for bench/codemodeTokens.ts and the report): tokens the model saw and the wall time, both ways.
    const tokens = { direct: tokensSeen(directRequests), program: tokensSeen(programRequests) };
    // Through mocha's reporter output (test/editor/index.ts routes it to the runner's log; a plain console.log in the
    // extension host goes to the workbench only).
    (Mocha.reporters.Base as unknown as { consoleLog: (...a: unknown[]) => void }).consoleLog(`      FIVESTEP_EDITOR ${JSON.stringify({ directTokens: tokens.direct, programTokens: tokens.program, ratio: Math.round(tokens.program / tokens.direct * 1000) / 1000, directMs: Math.round(directMs), programMs: Math.round(programMs), directRequests: directRequests.length, programRequests: programRequests.length })}`);
    assert.ok(tokens.program < tokens.direct, `the program's way: ${tokens.program} tokens, direct: ${tokens.direct}`);
  });
});
