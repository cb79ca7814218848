// Code mode in the real editor (issue 42, H476–H478), on the production VSIX, with the scripted fake model and a
// real server-everything: with mcpHost.codeMode on, `@mcp` offers the model one tool, mcp_host_run_program; a program
// calling two tools returns its value and History shows both calls under the program; a tool turned off for models is
// refused inside the program, a declined one ends it, while a bystander's direct call (the language-model tool) works;
// a hostile endless loop is stopped and the extension host keeps answering.
import * as assert from 'assert';
import * as fs from 'fs';
import { monitorEventLoopDelay } from 'perf_hooks';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import { activateHost, EVERYTHING, textOf, until } from './helpers';

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
    api = await activateHost<Api>();
    api.setConsentPrompt(async () => 'allow');
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
    api.chat.setUi(undefined);
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
    api.chat.setUi({ approveTool: async a => { asked.push(a.tool); return 'session'; } });
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
    api.chat.setUi({ approveTool: async () => 'session' });
    const off = programAnswer(await ask('try { return await mcp.cm.get_sum({ a: 1, b: 1 }); } catch (e) { return e.message; }'));
    assert.match(String(off.value), /tool "get-sum" of MCP server "cm" is not available to models/);
    await api.chat.chat.resetGrants();
    api.chat.setUi({ approveTool: async () => 'deny' });
    const before = api.host.get('cm')!.history.length;
    const denied = await ask('try { await mcp.cm.echo({ message: "no" }); } catch { } return await mcp.cm.echo({ message: "again" });');
    assert.match(denied.markdown, /You declined the call of/);
    assert.match(denied.markdown, /Stopped: you declined a tool call/);
    assert.strictEqual(api.host.get('cm')!.history.length, before, 'nothing ran after the decline');
    // The bystander: a direct call of a model through the language-model tool, next to it.
    api.chat.setUi({ approveTool: async () => 'once' });
    const direct = textOf(await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'cm', tool: 'echo', arguments: { message: 'bystander' } }, toolInvocationToken: undefined }));
    assert.match(direct, /Echo: bystander/);
  });

  it('H478: a hostile endless loop is stopped (slice, then CPU time) while the extension host keeps answering; a program after it works', async () => {
    await config().update('codeModeLimits.cpuMs', 1000, vscode.ConfigurationTarget.Global);
    api.chat.setUi({ approveTool: async () => 'session' });
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
