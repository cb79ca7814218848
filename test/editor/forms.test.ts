// Forms in the real editor: a tool with several arguments and a server's elicitation with several fields open as
// one webview form (not a string of quick inputs), checked with the host's ajv rules before they are accepted, with a
// Raw JSON mode; the form is driven here through its message handler, as the page sends. The page itself (what it
// sends for typed text, where it shows errors, server text as text) is driven in Chromium by test/e2e/forms.mjs.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import * as path from 'path';
import { EVERYTHING, ROOT, until, testSupport, activateAllowing } from './helpers';

const MEDIA = path.join(ROOT, 'test/fixtures/servers/media.mjs');
const HOSTILE_TITLE = '<img src=x onerror="document.title=\'pwned\'"><b>Label</b>';

describe('Forms for several fields (tool arguments, elicitation)', function () {
  this.timeout(60000);
  let api: McpHostExtensionApi;

  before(async () => {
    api = await activateAllowing<McpHostExtensionApi>();
    testSupport(api).setElicitUi(undefined);
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      formy: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
      forms2: { type: 'stdio', command: process.execPath, args: [MEDIA] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(() => (api.host.get('formy')?.catalogue.tools.length ?? 0) > 0 && (api.host.get('forms2')?.catalogue.tools.length ?? 0) > 0, 'formy and forms2 running');
  });
  after(async () => {
    api.forms.active?.end({ action: 'cancel' });
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(() => api.host.servers.length === 0, 'no servers left');
  });

  // A test that fails with its form open must not hand that form to the next one.
  afterEach(() => api.forms.active?.end({ action: 'cancel' }));

  const formOpen = () => until(() => !!api.forms.active, 'a form on screen', 20000);

  it('Call Tool without arguments on get-sum (a, b) opens one form; wrong values are refused per field; Raw JSON works', async () => {
    const call = vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'formy', 'get-sum');
    await formOpen();
    const form = api.forms.active!;
    assert.strictEqual(form.panel.viewType, 'mcpHost.form');
    assert.deepStrictEqual(Object.keys(form.request.schema.properties ?? {}).sort(), ['a', 'b']);
    form.receive({ type: 'submit', value: { a: 'one' } });
    assert.strictEqual(form.lastErrors.a, 'Enter a number.');
    assert.strictEqual(form.lastErrors.b, 'Required.');
    form.receive({ type: 'raw', text: '{"a": 1, "b":' });
    assert.match(form.lastErrors[''] ?? '', /^Not JSON/);
    assert.strictEqual(api.forms.active, form, 'the form stays open until the value is valid');
    form.receive({ type: 'raw', text: '{"a": 2, "b": 40}' });
    const result = await call;
    assert.match(result?.content[0]?.text ?? '', /42/);
    assert.strictEqual(api.forms.active, undefined);
  });

  it('H85: text that is not a number in a number field says "Enter a number." ("Enter a whole number." for an integer); "Required." only for an empty required field', async () => {
    const call = vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'forms2', 'order');
    await formOpen();
    const form = api.forms.active!;
    // What the page sends for "abc" typed into Count and "1.5" into Size, with Label left empty (form.js readers).
    form.receive({ type: 'submit', value: { count: 'abc', size: 1.5 } });
    assert.deepStrictEqual(form.lastErrors, { count: 'Enter a number.', size: 'Enter a whole number.', label: 'Required.' });
    form.receive({ type: 'submit', value: { label: 'x' } });
    assert.deepStrictEqual(form.lastErrors, { count: 'Required.' });
    // The bystander: a well-formed value goes through and reaches the server.
    form.receive({ type: 'submit', value: { count: 3, size: 2, label: 'ok' } });
    assert.match((await call)?.content[0]?.text ?? '', /order: \{"count":3,"size":2,"label":"ok"\}/);
  });

  it('H84: in Raw JSON mode every error is listed with its path (the fields and their error lines are hidden there)', async () => {
    const call = vscode.commands.executeCommand<{ content: { text?: string }[] }>('mcpHost.callTool', 'forms2', 'order');
    await formOpen();
    const form = api.forms.active!;
    form.receive({ type: 'raw', text: '{"count": "abc", "size": 2.5, "color": "green"}' });
    const byPath = (a: { path: string }, b: { path: string }) => a.path.localeCompare(b.path);
    assert.deepStrictEqual([...form.lastErrorList].sort(byPath), [
      { path: 'color', message: 'must be equal to one of the allowed values' },
      { path: 'count', message: 'must be a number' },
      { path: 'label', message: 'Required.' },
      { path: 'size', message: 'must be an integer' },
    ]);
    form.receive({ type: 'raw', text: '[1, 2]' });
    assert.deepStrictEqual(form.lastErrorList, [{ path: '', message: 'Expected a JSON object.' }]);
    assert.strictEqual(api.forms.active, form, 'the form stays open until the value is valid');
    form.receive({ type: 'raw', text: '{"count": 1, "label": "raw"}' });
    assert.match((await call)?.content[0]?.text ?? '', /order: \{"count":1,"label":"raw"\}/);
  });

  it('H86: server text (titles, descriptions, choice labels) reaches the page only as JSON data under a strict CSP, never as markup', async () => {
    const call = vscode.commands.executeCommand('mcpHost.callTool', 'forms2', 'order');
    await formOpen();
    const form = api.forms.active!;
    const html = form.panel.webview.html;
    // The CSP: nothing but the extension's own script and style; no inline code, no network.
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
    const own = form.panel.webview.cspSource;
    assert.strictEqual(csp, `default-src 'none'; script-src ${own}; style-src ${own}; img-src ${own};`);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|data:|blob:/);
    // The server's HTML is in the page only inside the JSON data element, with every "<" escaped.
    assert.ok(!html.includes('<img') && !html.includes('<b>') && !html.includes('<script>document') && !html.includes('<u>'), html);
    const spec = JSON.parse(/<script type="application\/json" id="spec">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}') as { schema: { properties: { label: { title: string } } } };
    assert.strictEqual(spec.schema.properties.label.title, HOSTILE_TITLE);
    assert.deepStrictEqual(form.request.schema.required, ['count', 'label']);
    form.receive({ type: 'cancel' });
    assert.strictEqual(await call, undefined);
  });

  it('an elicitation with several fields opens one form with Decline; an accepted value reaches the server', async () => {
    const h = api.host.get('formy')!;
    const declined = h.callTool('trigger-elicitation-request', {});
    await formOpen();
    assert.strictEqual(api.forms.active!.request.decline, true);
    api.forms.active!.receive({ type: 'decline' });
    assert.match(JSON.stringify((await declined).content), /declined/i);
    // H381: after a Decline the server's next request is declined without a form (this session, until grants are reset).
    assert.match(JSON.stringify((await h.callTool('trigger-elicitation-request', {})).content), /declined/i);
    assert.strictEqual(api.forms.active, undefined, 'no form for a server the user declined');
    await api.sampling.resetGrants();
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
