// Chat and language models in the real extension host (code-server) with the fake model (vendor `fakelm`) and a
// real server-everything: sampling after confirmation (allow, deny, queueing, edit, review), elicitation forms,
// `@mcp` prompts with arguments and completion, and tool calls from chat that ask first.
import * as assert from 'assert';
import * as fs from 'fs';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration, ToolAsk, ArgumentAsk } from '../../src/extension/chat/mcpChat';
import type { SamplingAsk, SamplingFeatures } from '../../src/extension/sampling/clientFeatures';
import type { ElicitField } from '../../src/extension/elicitation/elicitation';
import { EVERYTHING, until, textOf, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration; sampling: SamplingFeatures };


/** The fake model's answered requests so far (from $FAKE_LM_LOG). */
function modelCalls(): { messages: { role: string; text: string }[]; modelOptions: Record<string, unknown> }[] {
  const file = process.env.FAKE_LM_LOG;
  if (!file || !fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l))
    .filter(e => e.call === 'provideLanguageModelChatResponse');
}

/** A tool call whose failure (protocol error or isError result) is returned as text. */
async function callText(api: Api, tool: string, args: Record<string, unknown>): Promise<string> {
  try {
    return textOf(await api.host.get('everything')!.callTool(tool, args), '\n');
  } catch (err) {
    return `error: ${err instanceof Error ? err.message : String(err)}`;
  }
}

describe('Chat and language models (fake model, server-everything)', function () {
  this.timeout(60000);
  let api: Api;
  let fake: vscode.LanguageModelChat;

  before(async function () {
    const ext = vscode.extensions.getExtension<Api>('mcp-host.mcp-host')!;
    api = await ext.activate();
    assert.ok(api.sampling && api.chat, 'activate() does not expose the sampling and chat wiring');
    testSupport(api).setConsentPrompt(async () => 'allow');
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'], sampling: { maxRequestsPerMinute: 100 } },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => {
      const h = api.host.get('everything');
      return h?.state.kind === 'running' && h.catalogue.tools.some(t => t.name === 'trigger-sampling-request');
    }, 'everything running with its sampling tool');
  });

  afterEach(async () => {
    if (!api?.sampling) return;
    testSupport(api).setSamplingUi(undefined);
    testSupport(api).setElicitUi(undefined);
    testSupport(api).setChatUi(undefined);
    await api.sampling.resetGrants();
    await api.chat.chat.resetGrants();
  });

  after(async () => {
    if (!api?.sampling) return;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H18: lists vscode.lm models for sampling, the fake model among them', async () => {
    const models = await api.sampling.listModels();
    assert.ok(models.some(m => m.id === fake.id && m.vendor === 'fakelm' && m.name === 'Fake Model 1'), JSON.stringify(models));
  });

  it('H18 H19: "allow" shows the request, runs the fake model, reviews, and returns its answer to the server', async () => {
    const asked: SamplingAsk[] = [];
    const reviewed: string[] = [];
    testSupport(api).setSamplingUi({
      approve: async ask => { asked.push(ask); return { grant: 'once' }; },
      review: async (_s, _m, answer) => { reviewed.push(answer); return { action: 'send', text: answer }; },
    });
    const before = modelCalls().length;
    const out = await callText(api, 'trigger-sampling-request', { prompt: 'hello sampling', maxTokens: 50 });
    assert.ok(out.includes('fake-reply-to:Resource trigger-sampling-request context: hello sampling'), out);
    assert.ok(out.includes('"model": "fake-1"') && out.includes('"role": "assistant"') && out.includes('"stopReason": "endTurn"'), out);
    assert.equal(asked.length, 1);
    for (const part of ['Server: everything', 'Model: Fake Model 1 (fake-1) from fakelm', 'System prompt: You are a helpful test server.',
      'user: Resource trigger-sampling-request context: hello sampling', 'Max tokens: 50', 'Temperature: 0.7']) {
      assert.ok(asked[0].summary.includes(part), `dialog lacks "${part}":\n${asked[0].summary}`);
    }
    assert.deepEqual(reviewed, ['fake-reply-to:Resource trigger-sampling-request context: hello sampling']);
    const calls = modelCalls().slice(before);
    assert.equal(calls.length, 1);
    assert.equal(calls[0].modelOptions.maxTokens, 50);
    assert.equal(calls[0].modelOptions.temperature, 0.7);
  });

  it('H18: "deny" returns the rejection to the server and never calls the model', async () => {
    testSupport(api).setSamplingUi({ approve: async () => ({ grant: 'deny' }), review: async () => assert.fail('no review after deny') });
    const before = modelCalls().length;
    const out = await callText(api, 'trigger-sampling-request', { prompt: 'do not run', maxTokens: 10 });
    assert.match(out, /rejected the sampling request/, out);
    assert.equal(modelCalls().length, before, 'the fake model was called');
  });

  it('H18: concurrent requests from one server wait behind one dialog; a session grant lets the queued ones through', async () => {
    let dialogs = 0;
    let open = 0;
    let maxOpen = 0;
    testSupport(api).setSamplingUi({
      approve: async () => {
        dialogs++; open++; maxOpen = Math.max(maxOpen, open);
        await new Promise(r => setTimeout(r, 300));
        open--;
        return { grant: 'session' };
      },
      review: async (_s, _m, answer) => ({ action: 'send', text: answer }),
    });
    const outs = await Promise.all(['one', 'two', 'three'].map(p => callText(api, 'trigger-sampling-request', { prompt: p, maxTokens: 10 })));
    assert.equal(dialogs, 1, 'one dialog for three requests');
    assert.equal(maxOpen, 1);
    for (const [i, p] of ['one', 'two', 'three'].entries()) assert.ok(outs[i].includes(`fake-reply-to:Resource trigger-sampling-request context: ${p}`), outs[i]);
  });

  it('H18: "Edit…" changes the message the model gets; "always" skips the review and later dialogs', async () => {
    let approvals = 0;
    let reviews = 0;
    testSupport(api).setSamplingUi({
      approve: async ask => { approvals++; assert.equal(ask.lastUserText, 'Resource trigger-sampling-request context: original'); return { grant: 'always', editedText: 'edited by the user' }; },
      review: async (_s, _m, answer) => { reviews++; return { action: 'send', text: answer }; },
    });
    const first = await callText(api, 'trigger-sampling-request', { prompt: 'original', maxTokens: 10 });
    assert.ok(first.includes('fake-reply-to:edited by the user'), first);
    const second = await callText(api, 'trigger-sampling-request', { prompt: 'again', maxTokens: 10 });
    assert.ok(second.includes('fake-reply-to:Resource trigger-sampling-request context: again'), second);
    assert.equal(approvals, 1);
    assert.equal(reviews, 0);
  });

  it('H18: cancelling the review withholds the answer: the server gets a rejection', async () => {
    testSupport(api).setSamplingUi({ approve: async () => ({ grant: 'once' }), review: async () => ({ action: 'cancel' }) });
    const out = await callText(api, 'trigger-sampling-request', { prompt: 'review me', maxTokens: 10 });
    assert.match(out, /rejected the sampling result after review/, out);
    assert.ok(!out.includes('fake-reply-to:'), out);
  });

  it('a failing model is a clear error to the server, not a hang', async () => {
    testSupport(api).setSamplingUi({ approve: async () => ({ grant: 'once' }), review: async () => assert.fail('no review without an answer') });
    const out = await callText(api, 'trigger-sampling-request', { prompt: 'FAKE_LM_FAIL', maxTokens: 10 });
    assert.match(out, /Sampling with "Fake Model 1" failed/, out);
  });

  it('a pinned model that is not available is a clear error to the server, and the user is never asked', async () => {
    let asked = 0;
    testSupport(api).setSamplingUi({ approve: async () => { asked++; return { grant: 'once' }; }, review: async (_s, _m, a) => ({ action: 'send', text: a }) });
    const cfg = vscode.workspace.getConfiguration('mcpHost');
    const servers = cfg.get<Record<string, Record<string, unknown>>>('servers')!;
    await cfg.update('servers', { everything: { ...servers.everything, sampling: { model: 'no-such-model', maxRequestsPerMinute: 100 } } }, vscode.ConfigurationTarget.Workspace);
    try {
      await until(() => api.host.get('everything')?.definition.sampling?.model === 'no-such-model' && api.host.get('everything')?.state.kind === 'running', 'the pinned model setting applied');
      const out = await callText(api, 'trigger-sampling-request', { prompt: 'pinned', maxTokens: 10 });
      assert.match(out, /pinned sampling model "no-such-model" is not available/, out);
      assert.equal(asked, 0);
    } finally {
      await cfg.update('servers', servers, vscode.ConfigurationTarget.Workspace);
      await until(() => api.host.get('everything')?.definition.sampling?.model === undefined && api.host.get('everything')?.state.kind === 'running', 'the pin removed');
    }
  });

  it('elicitation: a form from the requested schema, invalid answers asked again, accept returns the values', async () => {
    const seen: string[] = [];
    let integerTries = 0;
    testSupport(api).setElicitUi({
      start: async (server, message) => { seen.push(`${server}: ${message}`); return 'respond'; },
      ask: async (_s, f: ElicitField, _i, _n, error) => {
        if (f.name === 'integer') { integerTries++; return integerTries === 1 ? '0.5' : (assert.equal(error, 'Enter a whole number'), '7'); }
        if (f.name === 'name') return 'Ada Lovelace';
        if (f.kind === 'boolean') return 'true';
        if (f.kind === 'enum') return f.options![0].value;
        if (f.kind === 'multi') return [f.options![0].value];
        if (f.format === 'email') return 'ada@example.org';
        if (f.format === 'uri') return 'https://example.org';
        if (f.format === 'date') return '1815-12-10';
        if (f.kind === 'number') return '3.5';
        return '';
      },
    });
    const out = await callText(api, 'trigger-elicitation-request', {});
    assert.deepEqual(seen, ['everything: Please provide inputs for the following fields:']);
    assert.equal(integerTries, 2);
    for (const part of ['User provided the requested information', '- Name: Ada Lovelace', '- Agreed to terms: true', '- Email: ada@example.org',
      '- Favorite Integer: 7', '- Favorite Number: 3.5', '"untitledMultipleSelectEnum": [']) {
      assert.ok(out.includes(part), `missing ${part} in\n${out}`);
    }
  });

  it('elicitation: decline and cancel reach the server as such; H381: after a Decline the server\'s next request is declined without asking', async () => {
    testSupport(api).setElicitUi({ start: async () => 'decline', ask: async () => assert.fail('no fields after decline') });
    assert.match(await callText(api, 'trigger-elicitation-request', {}), /declined/);
    testSupport(api).setElicitUi({ start: async () => assert.fail('not asked again after a Decline this session'), ask: async () => assert.fail('no fields') });
    assert.match(await callText(api, 'trigger-elicitation-request', {}), /declined/);
    await api.sampling.resetGrants();
    testSupport(api).setElicitUi({ start: async () => 'respond', ask: async () => undefined });
    assert.match(await callText(api, 'trigger-elicitation-request', {}), /cancelled/);
  });

  it('H23: @mcp /everything.args-prompt with an inline quoted argument streams the fake model\'s answer', async () => {
    const t = await api.chat.run('/everything.args-prompt city="New York"', { model: fake });
    assert.ok(t.markdown.includes("fake-reply-to:What's weather in New York?"), t.markdown);
    assert.equal(t.result.errorDetails, undefined);
  });

  it('H23: @mcp asks missing arguments step by step with completion values in context', async () => {
    const asks: { argument: string; suggestions: string[]; context: Record<string, string> }[] = [];
    testSupport(api).setChatUi({
      askArgument: async (a: ArgumentAsk) => {
        const suggestions = await a.suggestions();
        asks.push({ argument: a.argument, suggestions, context: a.context });
        return suggestions[0];
      },
    });
    const t = await api.chat.run('/everything.completable-prompt', { model: fake });
    assert.deepEqual(asks.map(a => a.argument), ['department', 'name']);
    assert.deepEqual(asks[0].suggestions, ['Engineering', 'Sales', 'Marketing', 'Support']);
    assert.deepEqual(asks[1].suggestions, ['Alice', 'Bob', 'Charlie']);
    assert.deepEqual(asks[1].context, { department: 'Engineering' });
    assert.ok(t.markdown.includes('fake-reply-to:Please promote Alice to the head of the Engineering team.'), t.markdown);
  });

  it('H23: a prompt\'s embedded resource reaches the model as text after the prompt\'s own message', async () => {
    const before = modelCalls().length;
    const t = await api.chat.run('/everything.resource-prompt resourceType=Text resourceId=3', { model: fake });
    assert.equal(t.result.errorDetails, undefined, t.markdown);
    const call = modelCalls().slice(before)[0];
    assert.ok(call, 'the model was not called');
    const texts = call.messages.map(m => `${m.role}: ${m.text}`);
    assert.equal(texts.length, 2, JSON.stringify(texts));
    assert.match(texts[0], /^user: This prompt includes the Text resource with id: 3/);
    assert.match(texts[1], /^user: Resource demo:\/\/resource\/dynamic\/text\/3/);
  });

  it('@mcp passes the user\'s #file attachments to the model as context', async () => {
    const file = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'chat-context.txt');
    await vscode.workspace.fs.writeFile(file, Buffer.from('the secret word is artichoke'));
    try {
      const before = modelCalls().length;
      const t = await api.chat.run('what is the secret word?', { model: fake, references: [{ id: 'vscode.file', value: file }] });
      assert.ok(t.markdown.includes('fake-reply-to:what is the secret word?'), t.markdown);
      const call = modelCalls().slice(before)[0];
      assert.ok(call.messages.some(m => m.text.startsWith('Context: the file chat-context.txt:\nthe secret word is artichoke')), JSON.stringify(call.messages));
    } finally {
      await vscode.workspace.fs.delete(file);
    }
  });

  it('@mcp with an unknown server says there is no such prompt', async () => {
    const t = await api.chat.run('/nosuchserver.prompt', { model: fake });
    assert.match(t.markdown, /There is no prompt `\/nosuchserver.prompt`/);
  });

  it('H23: a follow-up turn carries the prompt\'s messages and the model\'s earlier answer as history', async () => {
    const first = await api.chat.run('/everything.args-prompt city=Rome', { model: fake });
    const RequestTurn = vscode.ChatRequestTurn as unknown as new (...a: unknown[]) => vscode.ChatRequestTurn;
    const ResponseTurn = vscode.ChatResponseTurn as unknown as new (...a: unknown[]) => vscode.ChatResponseTurn;
    const history = [
      new RequestTurn('/everything.args-prompt city=Rome', undefined, [], 'mcpHost.mcp', []),
      new ResponseTurn([new vscode.ChatResponseMarkdownPart(first.markdown)], first.result, 'mcpHost.mcp', undefined),
      new RequestTurn('an unrelated question to another participant', undefined, [], 'other.participant', []),
    ];
    const before = modelCalls().length;
    const t = await api.chat.run('and tomorrow?', { model: fake, history });
    assert.ok(t.markdown.includes('fake-reply-to:and tomorrow?'), t.markdown);
    assert.deepEqual(modelCalls().slice(before)[0].messages, [
      { role: 'user', text: "What's weather in Rome?" },
      { role: 'assistant', text: "fake-reply-to:What's weather in Rome?" },
      { role: 'user', text: 'and tomorrow?' },
    ]);
  });

  it('@mcp /prompts and @mcp alone list every prompt in one untrusted block, one button for a quick pick of them, plus follow-ups that run one', async () => {
    for (const [prompt, command] of [['', 'prompts'], ['', undefined]] as const) {
      const t = await api.chat.run(prompt, { model: fake, command });
      const names = api.host.get('everything')!.catalogue.prompts.map(p => `/everything.${p.name}`);
      assert.ok(names.includes('/everything.args-prompt') && names.includes('/everything.simple-prompt'), names.join(', '));
      for (const name of names) assert.ok(t.markdown.includes(`- \`${name}\``), `${name} in ${t.markdown}`);
      assert.ok(t.parts.every(p => p.isTrusted === false), 'no trusted markdown');
      assert.deepEqual(t.buttons, [{ command: 'mcpHost.runPromptInChat', title: 'Run a Prompt…' }], 'one button (the chat view folds a run of them)');
      assert.deepEqual((t.result.metadata as { prompts: string[] }).prompts, names);
      assert.deepEqual(api.chat.followups(t.result).map(f => [f.prompt, f.command]), names.slice(0, 6).map(n => [n, '']));
    }
  });

  it('a model that is not available yet (the first request after start-up) is waited for and asked again, visibly', async () => {
    let failures = 0;
    // The fake model's identity, whose request fails as a model that has not arrived yet would (the API object is frozen).
    const flaky = {
      id: fake.id, name: fake.name, vendor: fake.vendor, family: fake.family, version: fake.version, maxInputTokens: fake.maxInputTokens,
      countTokens: (text: string | vscode.LanguageModelChatMessage, token?: vscode.CancellationToken) => fake.countTokens(text, token),
      sendRequest: () => { failures++; return Promise.reject(vscode.LanguageModelError.NotFound('Language model unavailable')); },
    } as unknown as vscode.LanguageModelChat;
    const t = await api.chat.run('hello after start-up', { model: flaky });
    assert.equal(failures, 1);
    assert.ok(t.progress.some(p => /Waiting for the language model "Fake Model 1" to become available/.test(p)), t.progress.join(' | '));
    assert.ok(t.markdown.includes('fake-reply-to:hello after start-up'), t.markdown);
    assert.equal(t.result.errorDetails, undefined);
  });

  it('tools for every agent: vscode.lm.tools has the MCP Host gateway tools; calling one goes through the same confirmation', async () => {
    const ids = vscode.lm.tools.map(t => t.name);
    assert.ok(ids.includes('mcpHost_listTools') && ids.includes('mcpHost_callTool'), ids.join(', '));
    const listed = JSON.parse(textOf(await vscode.lm.invokeTool('mcpHost_listTools', { input: {}, toolInvocationToken: undefined })));
    const everything = listed.find((s: { server: string }) => s.server === 'everything');
    assert.ok(everything.tools.some((t: { name: string; inputSchema: unknown }) => t.name === 'echo' && t.inputSchema), JSON.stringify(listed).slice(0, 300));
    const asked: string[] = [];
    testSupport(api).setChatUi({ approveTool: async ask => { asked.push(`${ask.server}/${ask.tool}`); return 'once'; } });
    const r = await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'everything', tool: 'echo', arguments: { message: 'from another agent' } }, toolInvocationToken: undefined });
    assert.match(textOf(r), /Echo: from another agent/);
    assert.deepStrictEqual(asked, ['everything/echo']);
    testSupport(api).setChatUi({ approveTool: async () => 'deny' });
    const denied = await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'everything', tool: 'echo', arguments: { message: 'x' } }, toolInvocationToken: undefined });
    assert.strictEqual(textOf(denied), 'The user declined to run this tool.');
    const unknown = await vscode.lm.invokeTool('mcpHost_callTool', { input: { server: 'nope', tool: 'echo' }, toolInvocationToken: undefined });
    assert.match(textOf(unknown), /MCP server "nope" is not running/);
  });

  it('@mcp with an unknown prompt says so and offers the list', async () => {
    const t = await api.chat.run('/everything.no-such-prompt', { model: fake });
    assert.match(t.markdown, /There is no prompt `\/everything.no-such-prompt`/);
    assert.match(t.markdown, /- `\/everything.args-prompt`/);
  });

  it('@mcp /resource attaches a resource\'s text as context for the question', async () => {
    const h = api.host.get('everything')!;
    const res = h.catalogue.resources.find(r => r.mimeType?.startsWith('text/')) ?? h.catalogue.resources[0];
    assert.ok(res, 'server-everything lists resources');
    const before = modelCalls().length;
    const t = await api.chat.run(`${'everything'} ${res.uri} what is in it?`, { model: fake, command: 'resource' });
    assert.match(t.markdown, /Attached `.*` from `everything`/);
    assert.ok(t.markdown.includes('fake-reply-to:what is in it?'), t.markdown);
    const call = modelCalls().slice(before)[0];
    assert.ok(call.messages.some(m => m.text.startsWith(`Context: the resource ${res.uri}`)), JSON.stringify(call.messages));
  });

  it('H24: a tool call from chat shows tool, server and arguments and asks first; the result goes back to the model', async () => {
    const asks: ToolAsk[] = [];
    testSupport(api).setChatUi({ approveTool: async a => { asks.push(a); return 'once'; } });
    const t = await api.chat.run('CALL_TOOL:everything_echo {"message":"hi from chat"}', { model: fake });
    assert.deepEqual(asks.map(a => [a.server, a.tool, a.args]), [['everything', 'echo', { message: 'hi from chat' }]]);
    assert.ok(t.markdown.includes('fake-reply-to:tool-result:Echo: hi from chat'), t.markdown);
    assert.match(t.markdown, /Called `echo` \(everything\)/);
  });

  it('H24: a denied tool call is not made; the model hears that the user declined; a session grant asks once', async () => {
    testSupport(api).setChatUi({ approveTool: async () => 'deny' });
    const denied = await api.chat.run('CALL_TOOL:everything_echo {"message":"nope"}', { model: fake });
    // A Deny ends the model's turn (H353): the loop stops and says so, the model is not asked again.
    assert.match(denied.markdown, /You declined the call of `echo`[\s\S]*Stopped: you declined a tool call/, denied.markdown);
    assert.ok(!denied.markdown.includes('Echo: nope'));
    let asked = 0;
    testSupport(api).setChatUi({ approveTool: async () => { asked++; return 'session'; } });
    for (const m of ['a', 'b']) {
      const t = await api.chat.run(`CALL_TOOL:everything_echo {"message":"${m}"}`, { model: fake });
      assert.ok(t.markdown.includes(`fake-reply-to:tool-result:Echo: ${m}`), t.markdown);
    }
    assert.equal(asked, 1);
  });

  it('@mcp /tools lists the running servers\' tools under unique model-safe names', async () => {
    const t = await api.chat.run('', { model: fake, command: 'tools' });
    assert.ok(t.markdown.includes('`everything_echo` — **echo** of `everything`'), t.markdown);
    assert.ok(t.markdown.includes('`everything_get-sum`'), t.markdown);
  });

  it('H23: a prompt sent through the real chat view (workbench.action.chat.open) reaches @mcp and the model', async () => {
    const before = modelCalls().length;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@mcp /everything.args-prompt city=Lisbon' });
    const deadline = Date.now() + 20000;
    let hit: ReturnType<typeof modelCalls>[number] | undefined;
    while (!hit && Date.now() < deadline) {
      hit = modelCalls().slice(before).find(c => c.messages.some(m => m.text === "What's weather in Lisbon?"));
      if (!hit) await new Promise(r => setTimeout(r, 250));
    }
    assert.ok(hit, 'the fake model never got the prompt from the chat view');
  });

  it('MCP Host: Run Prompt in Chat sends a prompt without arguments to @mcp in the chat view', async () => {
    const before = modelCalls().length;
    await vscode.commands.executeCommand('mcpHost.runPromptInChat', { kind: 'prompt', server: 'everything', prompt: { name: 'simple-prompt' } });
    const deadline = Date.now() + 20000;
    let hit = false;
    while (!hit && Date.now() < deadline) {
      hit = modelCalls().slice(before).some(c => c.messages.some(m => m.text.includes('This is a simple prompt without arguments.')));
      if (!hit) await new Promise(r => setTimeout(r, 250));
    }
    assert.ok(hit, 'the fake model never got simple-prompt from the chat view');
  });

  after(async () => {
    // Leave the layout as found: the chat view opened in the secondary side bar.
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
  });
});

// Issue 38 item 5: `@mcp` with no language model. VS Code refuses a chat request whose chat view has no model selected
// (and no Copilot default) before any participant sees it ("Language model unavailable"); the fake model (installed by
// `npm start` and by this harness) makes itself `chat.defaultModel` through its configurationDefaults, so a new chat has
// it selected. Inside `@mcp`, listing and asking a prompt's arguments need no model; a request that needs one and has
// none says how to pick one.
describe('Chat without a language model (issue 38)', function () {
  this.timeout(90000);
  let api: Api;

  before(async () => {
    api = await activateAllowing<Api>();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => {
      const h = api.host.get('everything');
      return h?.state.kind === 'running' && h.catalogue.prompts.some(p => p.name === 'args-prompt');
    }, 'everything running with its prompts');
  });
  afterEach(() => api && testSupport(api).setChatUi(undefined));
  after(async () => {
    if (!api) return;
    await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('H420: @mcp, @mcp /prompts and a prompt\'s argument questions answer with no language model', async () => {
    const before = modelCalls().length;
    const alone = await api.chat.run('', { model: null });
    assert.equal(alone.result.errorDetails, undefined, alone.result.errorDetails?.message);
    assert.ok(alone.markdown.includes('/everything.args-prompt'), alone.markdown);
    const listed = await api.chat.run('', { command: 'prompts', model: null });
    assert.equal(listed.result.errorDetails, undefined, listed.result.errorDetails?.message);
    assert.ok(listed.markdown.includes('/everything.simple-prompt'), listed.markdown);
    const asked: string[] = [];
    testSupport(api).setChatUi({ askArgument: async (a: ArgumentAsk) => { asked.push(a.argument); return a.argument === 'city' ? 'Oslo' : ''; } });
    const run = await api.chat.run('/everything.args-prompt', { model: null });
    assert.deepEqual(asked, ['city', 'state'], 'every argument asked, with no model');
    assert.ok(run.markdown.includes('Oslo'), `the prompt was fetched with its arguments: ${run.markdown}`);
    // Only then, to send the prompt's messages, is a model needed.
    assert.match(run.result.errorDetails?.message ?? '', /needs a language model/);
    assert.equal(modelCalls().length, before, 'no model was called');
  });

  it('H421: only a request that needs a model says there is none, and how to pick one (the model picker, chat.defaultModel)', async () => {
    const t = await api.chat.run('/everything.args-prompt city=Oslo', { model: null });
    // Shown as escaped markdown (errorMarkdown): compared as the user reads it.
    const message = (t.result.errorDetails?.message ?? '').replace(/\\(.)/g, '$1');
    assert.match(message, /needs a language model/, message);
    assert.match(message, /model picker/, message);
    assert.match(message, /chat\.defaultModel/, message);
    assert.ok(!/Language model unavailable/.test(message), message);
  });

  it('H422: the fake model npm start installs is VS Code\'s default chat model, and a real chat request reaches @mcp', async () => {
    const setting = vscode.workspace.getConfiguration('chat').inspect<string>('defaultModel');
    assert.equal(setting?.defaultValue, 'fake-1', 'the fake model contributes chat.defaultModel');
    const [model] = await vscode.lm.selectChatModels({ id: 'fake-1' });
    assert.ok(model, 'the default model is there');
    // A new chat, with no model picked by anyone: the request reaches the participant (not "Language model unavailable").
    await vscode.commands.executeCommand('workbench.action.chat.newChat').then(undefined, () => undefined);
    const result = await vscode.commands.executeCommand<vscode.ChatResult | undefined>('workbench.action.chat.open', { query: '@mcp /prompts', blockOnResponse: true });
    assert.ok(result, 'the chat view returned the request\'s result');
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    const prompts = (result.metadata as { prompts?: string[] } | undefined)?.prompts ?? [];
    assert.ok(prompts.includes('/everything.args-prompt'), `@mcp listed the prompts: ${JSON.stringify(result)}`);
  });
});
