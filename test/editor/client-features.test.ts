// The 2025-11-25 client features in the real extension host, driven from the server side by
// test/fixtures/servers/client-features.mjs: elicitation defaults preselected in the real quick inputs (SEP-1034).
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { SamplingFeatures } from '../../src/extension/sampling';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ROOT, until } from './helpers';

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
    api = await vscode.extensions.getExtension<Api>('mcp-host.mcp-host')!.activate();
    api.setConsentPrompt(async () => 'allow');
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {
      features: { type: 'stdio', command: process.execPath, args: [FIXTURE] },
    }, vscode.ConfigurationTarget.Workspace);
    await until(api, 'the client-features fixture running', () => api.host.get('features')?.state.kind === 'running'
      && (api.host.get('features')?.catalogue.tools.length ?? 0) > 0);
  });

  afterEach(() => {
    api?.sampling.setElicitUi(undefined);
  });

  after(async () => {
    if (!api) return;
    await vscode.workspace.getConfiguration('mcpHost').update('servers', {}, vscode.ConfigurationTarget.Workspace);
    await until(api, 'no servers left', () => api.host.servers.length === 0);
  });

  it('SEP-1034: the real quick inputs preselect every default; Enter on each field returns the defaults', async () => {
    // Only the "Respond / Decline" modal is answered by the test; every field is the real quick input, accepted as shown.
    api.sampling.setElicitUi({ start: async () => 'respond' });
    const out = json(await acceptEachInput(api.host.get('features')!.callTool('elicit_defaults', {})));
    assert.deepStrictEqual(out, {
      action: 'accept',
      content: {
        subscribe: false, friend: 'Joey', hero: 'hero-3', pet: 'pet-2', instruments: ['Piano', 'Drums'], fish: ['fish-3'],
        line: 'It was a dark and stormy night.', ratio: 2.5, count: 7,
      },
    });
  });
});
