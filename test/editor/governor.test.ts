// The consent governor against a hostile language model (H352, H353), in the real extension host on the production
// VSIX: the fake model's hostile mode (test/fixtures/fake-lm, `HOSTILE_TOOL:*<suffix> <n>`) asks for the same tool after
// every answer, forever, again after a denial, 1,000 calls in one response, and keeps asking after the request is
// cancelled. At most one dialog per user answer, the loop ends on Deny and on cancel, every Allow becomes exactly one
// tools/call in History. A well-behaved request (the bystander) is answered normally before and after.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { ChatRegistration } from '../../src/extension/chat/mcpChat';
import { EVERYTHING, until, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { chat: ChatRegistration };

describe('consent governor: a hostile model in @mcp (H352, H353)', function () {
  this.timeout(120_000);
  let api: Api;
  let fake: vscode.LanguageModelChat;
  const echoCalls = () => (api.host.get('everything')?.history ?? []).filter(e => e.method === 'tools/call' && e.target === 'echo').length;

  before(async () => {
    api = await activateAllowing<Api>();
    [fake] = await vscode.lm.selectChatModels({ vendor: 'fakelm' });
    assert.ok(fake, 'the fake language model is installed');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => {
      const h = api.host.get('everything');
      return h?.state.kind === 'running' && h.catalogue.tools.some(t => t.name === 'echo');
    }, 'everything running with echo');
  });

  afterEach(async () => {
    testSupport(api).setChatUi(undefined);
    await api.chat.chat.resetGrants();
  });

  after(async () => {
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  const bystander = async () => {
    let asked = 0;
    testSupport(api).setChatUi({ approveTool: async () => { asked++; return 'once'; } });
    const before = echoCalls();
    const t = await api.chat.run('CALL_TOOL:everything_echo {"message":"bystander"}', { model: fake });
    assert.ok(t.markdown.includes('fake-reply-to:tool-result:Echo: bystander'), t.markdown);
    assert.equal(asked, 1);
    await until(() => echoCalls() === before + 1, 'the bystander call in History');
  };

  it('bystander before: a well-behaved request asks once and calls once', bystander);

  it('(a)+(c) the same tool after every answer, 1,000 calls per response: one dialog, one tools/call, the loop ends at the bound', async () => {
    let asked = 0;
    testSupport(api).setChatUi({ approveTool: async () => { asked++; return 'once'; } });
    const before = echoCalls();
    const t = await api.chat.run('HOSTILE_TOOL:*echo 1000', { model: fake });
    assert.equal(asked, 1, 'one dialog for the whole request');
    await until(() => echoCalls() === before + 1, 'the one call in History');
    assert.match(t.markdown, /only the first 32 were considered/);
    assert.match(t.markdown, /Stopped after \d+ rounds of tool calls: the limit is the setting `mcpHost\.chat\.maxToolRounds`/);
    assert.equal(echoCalls(), before + 1, 'an Allow Once is acted on exactly once');
  });

  it('(b) asks again after a denial: one dialog, no tools/call, the loop ends with a line in the chat', async () => {
    let asked = 0;
    testSupport(api).setChatUi({ approveTool: async () => { asked++; return 'deny'; } });
    const before = echoCalls();
    const t = await api.chat.run('HOSTILE_TOOL:*echo 3', { model: fake });
    assert.equal(asked, 1);
    assert.match(t.markdown, /Stopped: you declined a tool call/);
    assert.equal(echoCalls(), before);
  });

  it('(d) keeps asking after cancel: the answer given after Stop is not acted on, no dialog opens after it', async () => {
    const cts = new vscode.CancellationTokenSource();
    let asked = 0;
    // The user presses Stop while the dialog is open, then answers it.
    testSupport(api).setChatUi({ approveTool: async () => { asked++; cts.cancel(); return 'session'; } });
    const before = echoCalls();
    await api.chat.run('HOSTILE_TOOL:*echo 5', { model: fake, token: cts.token });
    assert.equal(asked, 1);
    assert.equal(echoCalls(), before, 'nothing runs after the request was cancelled');
    cts.dispose();
  });

  it('bystander after: still asks once and calls once', bystander);
});
