// The 2025-11-25 client features in the real extension host, driven from the server side by
// test/fixtures/servers/client-features.mjs: elicitation defaults preselected in the real quick inputs (SEP-1034),
// server and tool icons in the Servers view, URL-mode elicitation (consent before opening, completion,
// URLElicitationRequiredError), sampling requests that carry tools (the fake model's tool call returned as tool_use).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { SamplingFeatures } from '../../src/extension/sampling/clientFeatures';
import type { McpNode } from '../../src/views/nodes';
import type { ElicitationTarget } from '../../src/mcp/features/urlElicitation';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { EVERYTHING, ROOT, until, testSupport, activateAllowing } from './helpers';

type Api = McpHostExtensionApi & { sampling: SamplingFeatures };
const FIXTURE = path.join(ROOT, 'test/fixtures/servers/client-features.mjs');

function json(result: CallToolResult | undefined): Record<string, unknown> {
  const t = (result?.content ?? []).find(c => c.type === 'text') as { text: string } | undefined;
  return JSON.parse(t?.text ?? 'null') as Record<string, unknown>;
}

/** Presses Enter in whatever quick input is open until `work` settles (the user accepting every field as shown). */
async function acceptEachInput<T>(work: Promise<T>): Promise<T> {
  let done = false;
  const settled = work.finally(() => { done = true; });
  for (let i = 0; i < 100 && !done; i++) {
    await new Promise(r => setTimeout(r, 200));
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return settled;
}

describe('Client features of 2025-11-25 (client-features fixture)', function () {
  this.timeout(60000);
  let api: Api;

  before(async function () {
    api = await activateAllowing<Api>();
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      features: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
      everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.get('features')?.state.kind === 'running'
      && (api.host.get('features')?.catalogue.tools.length ?? 0) > 0
      && (api.host.get('everything')?.catalogue.tools.some(t => t.name === 'trigger-url-elicitation') ?? false), 'the client-features fixture and server-everything running');
  });

  afterEach(async () => {
    if (api) {
      testSupport(api).setElicitUi(undefined);
      testSupport(api).setUrlElicitUi(undefined);
      testSupport(api).setSamplingUi(undefined);
    }
    await api?.sampling.resetGrants();
  });

  after(async () => {
    if (!api) return;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  it('SEP-1034: the real quick inputs preselect every default; Enter on each field returns the defaults', async () => {
    // Only the "Respond / Decline" modal is answered by the test; every field is the real quick input, accepted as shown.
    testSupport(api).setElicitUi({ start: async () => 'respond' });
    const out = json(await acceptEachInput(api.host.get('features')!.callTool('elicit_defaults', {})));
    assert.deepStrictEqual(out, {
      action: 'accept',
      content: {
        subscribe: false, friend: 'Joey', hero: 'hero-3', pet: 'pet-2', instruments: ['Piano', 'Drums'], fish: ['fish-3'],
        line: 'It was a dark and stormy night.', ratio: 2.5, count: 7,
      },
    });
  });

  it('icons: the server\'s and a tool\'s data: icons show from the cache (light and dark); a stdio server\'s https icon is never fetched', async () => {
    const tree = api.views.servers;
    const serverNode = (tree.getChildren() as McpNode[]).find(n => n.kind === 'server' && n.server === 'features')!;
    const toolsGroup = (tree.getChildren(serverNode) as McpNode[]).find(g => g.kind === 'group' && g.group === 'tools')!;
    const toolNode = (name: string) => (tree.getChildren(toolsGroup) as McpNode[]).find(t => t.kind === 'tool' && t.tool.name === name)!;
    tree.getTreeItem(serverNode);
    tree.getTreeItem(toolNode('elicit_defaults'));
    await until(() => tree.getTreeItem(serverNode).iconPath instanceof vscode.Uri
      && !(tree.getTreeItem(toolNode('elicit_defaults')).iconPath instanceof vscode.ThemeIcon), 'the icons cached');
    const serverIcon = tree.getTreeItem(serverNode).iconPath as vscode.Uri;
    assert.deepStrictEqual(fs.readFileSync(serverIcon.fsPath), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64'));
    assert.match(String(tree.getTreeItem(serverNode).description), /^running · /, 'the state is still shown');
    const toolIcon = tree.getTreeItem(toolNode('elicit_defaults')).iconPath as { light: vscode.Uri; dark: vscode.Uri };
    assert.match(fs.readFileSync(toolIcon.light.fsPath, 'utf8'), /fill="black"/);
    assert.match(fs.readFileSync(toolIcon.dark.fsPath, 'utf8'), /fill="white"/);
    for (const f of [serverIcon, toolIcon.light, toolIcon.dark]) assert.ok(f.fsPath.includes('mcp-host.mcp-host'), `${f.fsPath} is under the extension's globalStorage`);
    const remote = tree.getTreeItem(toolNode('elicit_url')).iconPath;
    assert.ok(remote instanceof vscode.ThemeIcon && remote.id === 'tools', 'the codicon stays');
  });

  const call = (tool: string, args: Record<string, unknown>) => api.host.get('features')!.callTool(tool, args);

  it('URL mode: the consent shows the message and the decoded origin (ASCII beside it); the URL opens only after "open"', async () => {
    const seen: { server: string; message: string; target: ElicitationTarget }[] = [];
    const opened: string[] = [];
    testSupport(api).setUrlElicitUi({
      consent: async (server, message, target) => { seen.push({ server, message, target }); return 'open'; },
      open: async url => { opened.push(url); return true; },
    });
    const out = json(await call('elicit_url', { url: 'https://xn--pple-43d.com/connect?state=1', id: 'u1' }));
    assert.deepStrictEqual(out, { action: 'accept' });
    assert.deepStrictEqual(seen, [{
      server: 'features', message: 'Connect your account',
      target: { url: 'https://xn--pple-43d.com/connect?state=1', origin: 'https://аpple.com', asciiOrigin: 'https://xn--pple-43d.com' },
    }]);
    assert.deepStrictEqual(opened, ['https://xn--pple-43d.com/connect?state=1']);
  });

  it('URL mode: decline and cancel reach the server as such and open nothing; a non-http(s) URL is refused unseen', async () => {
    const opened: string[] = [];
    let asked = 0;
    testSupport(api).setUrlElicitUi({ consent: async () => { asked++; return 'decline'; }, open: async url => { opened.push(url); return true; } });
    assert.deepStrictEqual(json(await call('elicit_url', { url: 'https://example.com/a', id: 'u2' })), { action: 'decline' });
    testSupport(api).setUrlElicitUi({ consent: async () => { asked++; return 'cancel'; }, open: async url => { opened.push(url); return true; } });
    assert.deepStrictEqual(json(await call('elicit_url', { url: 'https://example.com/a', id: 'u3' })), { action: 'cancel' });
    assert.equal(asked, 2);
    const refused = await call('elicit_url', { url: 'javascript:alert(1)', id: 'u4' }).then(r => JSON.stringify(r), (e: unknown) => String(e));
    assert.match(refused, /`javascript:` URL; only https: URLs \(and http: on this machine\) are opened/);
    assert.equal(asked, 2, 'no consent asked for it');
    assert.deepStrictEqual(opened, []);
  });

  it('URL mode: notifications/elicitation/complete closes a pending consent (answered cancel, nothing opened)', async () => {
    const opened: string[] = [];
    testSupport(api).setUrlElicitUi({
      consent: async (_s, _m, _t, closed) => {
        void call('complete', { id: 'u5' });
        await new Promise(resolve => closed.addEventListener('abort', resolve, { once: true }));
        return 'open';
      },
      open: async url => { opened.push(url); return true; },
    });
    assert.deepStrictEqual(json(await call('elicit_url', { url: 'https://example.com/b', id: 'u5' })), { action: 'cancel' });
    assert.deepStrictEqual(opened, []);
  });

  it('URLElicitationRequiredError (-32042): the same consent, the link opened, the call retried once the server reports completion', async () => {
    const seen: string[] = [];
    testSupport(api).setUrlElicitUi({
      consent: async (_s, message, target) => { seen.push(`${message} @ ${target.origin}`); return 'open'; },
      // The "browser" finishes the step: the server then sends notifications/elicitation/complete for n1.
      open: async () => { void call('complete', { id: 'n1' }); return true; },
    });
    assert.deepStrictEqual(json(await call('needs_url', { url: 'https://auth.example.com/grant', id: 'n1' })), { connected: 'n1' });
    assert.deepStrictEqual(seen, ['Authorize access first @ https://auth.example.com']);
    testSupport(api).setUrlElicitUi({ consent: async () => 'decline', open: async () => assert.fail('must not open after decline') });
    await assert.rejects(call('needs_url', { url: 'https://auth.example.com/grant', id: 'n2' }), /declined opening the link/);
  });

  it('server-everything trigger-url-elicitation: the request path, and the error path retried from the real waiting pick ("Retry Now")', async () => {
    const origins: string[] = [];
    const opened: string[] = [];
    testSupport(api).setUrlElicitUi({
      consent: async (_s, _m, target) => { origins.push(target.origin); return 'open'; },
      open: async url => { opened.push(url); return true; },
    });
    const everything = api.host.get('everything')!;
    const text = (r: { content?: unknown[] }) => (r.content ?? []).map(c => (c as { text?: string }).text ?? '').join('\n');
    assert.match(text(await everything.callTool('trigger-url-elicitation', { url: 'https://example.com/sign-in', message: 'Sign in' })), /User completed the URL elicitation flow/);
    // Error path: -32042 names a prerequisite on modelcontextprotocol.io; server-everything never reports completion,
    // so the user picks "Retry Now" in the real waiting pick; the retry goes down the request path.
    const out = await acceptEachInput(Promise.resolve(everything.callTool('trigger-url-elicitation', { url: 'https://example.com/grant', errorPath: true })));
    assert.match(text(out), /User completed the URL elicitation flow/);
    assert.deepStrictEqual(origins, ['https://example.com', 'https://modelcontextprotocol.io', 'https://example.com']);
    assert.deepStrictEqual(opened, ['https://example.com/sign-in', 'https://modelcontextprotocol.io/', 'https://example.com/grant']);
  });

  it('sampling with tools: offered to the model via vscode.lm, its tool call returned as tool_use, the tool_result round answered; behind the same confirmation', async () => {
    const asks: string[] = [];
    const reviews: { text: string; calls?: readonly string[] }[] = [];
    testSupport(api).setSamplingUi({
      approve: async ask => { asks.push(ask.summary); return { grant: 'once' }; },
      review: async (_s, _m, text, calls) => { reviews.push({ text, calls }); return { action: 'send', text }; },
    });
    const before = modelCalls().length;
    const out = json(await call('sample_tools', {})) as { first: Record<string, unknown>; second: Record<string, unknown> };
    assert.deepStrictEqual(out.first.content, [{ type: 'tool_use', id: 'fake-call-1', name: 'get_weather', input: { city: 'Paris' } }]);
    assert.equal(out.first.stopReason, 'toolUse');
    assert.deepStrictEqual(out.second.content, { type: 'text', text: 'fake-reply-to:tool-result:sunny' });
    assert.equal(asks.length, 2, 'each request was confirmed');
    assert.ok(asks[0].includes('Tools offered to the model: get_weather (tool choice: auto'), asks[0]);
    assert.ok(asks[1].includes('[tool result: sunny]'), asks[1]);
    assert.deepStrictEqual(reviews[0].calls, ['get_weather {"city":"Paris"}']);
    const calls = modelCalls().slice(before);
    assert.equal(calls.length, 2);
    assert.deepStrictEqual(calls[0].tools, ['get_weather']);
    assert.deepStrictEqual(calls[1].toolCalls, ['get_weather']);
    assert.deepStrictEqual(calls[1].toolResults, ['sunny']);
  });
});

/** The fake model's answered requests so far (from $FAKE_LM_LOG). */
function modelCalls(): { tools?: string[]; toolCalls?: string[]; toolResults?: string[] }[] {
  const file = process.env.FAKE_LM_LOG;
  if (!file || !fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l) as { call: string; tools?: string[]; toolCalls?: string[]; toolResults?: string[] })
    .filter(e => e.call === 'provideLanguageModelChatResponse');
}
