// Forms in the real editor: a tool with several arguments and a server's elicitation with several fields open as
// one webview form (not a string of quick inputs), checked with the host's ajv rules before they are accepted, with a
// Raw JSON mode; the form is driven here through its message handler, as the page sends.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import { EVERYTHING, until } from './helpers';

describe('Forms for several fields (tool arguments, elicitation)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await vscode.extensions.getExtension<McpHostExtensionApi>('mcp-host.mcp-host')!.activate();
    api.setConsentPrompt(async () => 'allow');
    api.sampling.setElicitUi(undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', { formy: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] } }, vscode.ConfigurationTarget.Workspace);
    await until(api, 'formy running', () => (api.host.get('formy')?.catalogue.tools.length ?? 0) > 0);
  });
  after(async () => {
    api.forms.active?.end({ action: 'cancel' });
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(api, 'no servers left', () => api.host.servers.length === 0);
  });

  const formOpen = () => until(api, 'a form on screen', () => !!api.forms.active, 20000);

  it('Call Tool without arguments on get-sum (a, b) opens one form; wrong values are refused per field; Raw JSON works', async () => {
    const call = vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'formy', 'get-sum');
    await formOpen();
    const form = api.forms.active!;
    assert.strictEqual(form.panel.viewType, 'mcpHost.form');
    assert.deepStrictEqual(Object.keys(form.request.schema.properties ?? {}).sort(), ['a', 'b']);
    form.receive({ type: 'submit', value: { a: 'one' } });
    assert.match(form.lastErrors.a ?? '', /must be number/);
    assert.strictEqual(form.lastErrors.b, 'Required.');
    form.receive({ type: 'raw', text: '{"a": 1, "b":' });
    assert.match(form.lastErrors[''] ?? '', /^Not JSON/);
    assert.strictEqual(api.forms.active, form, 'the form stays open until the value is valid');
    form.receive({ type: 'raw', text: '{"a": 2, "b": 40}' });
    const result = await call;
    assert.match(result?.content[0]?.text ?? '', /42/);
    assert.strictEqual(api.forms.active, undefined);
  });

  it('an elicitation with several fields opens one form with Decline; an accepted value reaches the server', async () => {
    const h = api.host.get('formy')!;
    const declined = h.callTool('trigger-elicitation-request', {});
    await formOpen();
    assert.strictEqual(api.forms.active!.request.decline, true);
    api.forms.active!.receive({ type: 'decline' });
    assert.match(JSON.stringify((await declined).content), /declined/i);
    const accepted = h.callTool('trigger-elicitation-request', {});
    await formOpen();
    const form = api.forms.active!;
    // A value for every required field, from the requested schema (defaults, first choice, or a sample).
    const props = form.request.schema.properties as Record<string, { type?: string; default?: unknown; enum?: unknown[]; oneOf?: { const: unknown }[]; items?: { enum?: unknown[]; anyOf?: { const: unknown }[] }; minimum?: number; format?: string }>;
    const value: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(props)) {
      if (!(form.request.schema.required ?? []).includes(k)) continue;
      value[k] = p.default ?? p.enum?.[0] ?? p.oneOf?.[0]?.const
        ?? (p.type === 'array' ? [p.items?.enum?.[0] ?? p.items?.anyOf?.[0]?.const] : p.type === 'boolean' ? true : p.type === 'number' || p.type === 'integer' ? (p.minimum ?? 1)
          : p.format === 'email' ? 'a@example.com' : p.format === 'date' ? '2026-11-24' : p.format === 'uri' ? 'https://example.com' : 'Ada');
    }
    form.receive({ type: 'submit', value });
    assert.deepStrictEqual(form.lastErrors, {}, JSON.stringify(form.lastErrors));
    const text = JSON.stringify((await accepted).content);
    assert.match(text, /accept/i);
  });
});
