// First tests inside the real extension host (code-server = VS Code 1.139): the extension is there, activates,
// and everything its package.json contributes (commands, view containers) is registered.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'mcp-host.mcp-host';

interface Contributes {
  commands?: { command: string; title: string }[];
  viewsContainers?: Record<string, { id: string; title: string }[]>;
  views?: Record<string, { id: string; name: string }[]>;
}

function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the extension host`);
  return ext;
}

function contributes(): Contributes {
  return (extension().packageJSON as { contributes?: Contributes }).contributes ?? {};
}

describe('Extension activation (real extension host)', () => {
  it('is present in the extension host under its id', () => {
    const ext = extension();
    assert.strictEqual(ext.id, EXTENSION_ID);
    assert.strictEqual((ext.packageJSON as { displayName: string }).displayName, 'MCP Host');
  });

  it('activates without throwing', async () => {
    const ext = extension();
    await ext.activate();
    assert.strictEqual(ext.isActive, true);
  });

  it('decides what starts before it builds what the first sync does not need (views, chat, gateway, commands); the API is whole', async () => {
    const ext = extension();
    const api = await ext.activate() as { activationSteps(): Record<string, number>; firstReconcileMs: Promise<number>; views?: unknown; chat?: unknown; gateway?: unknown; forms?: unknown };
    // Bystander: what is built after the first sync is all there once activation is over.
    for (const k of ['views', 'chat', 'gateway', 'forms'] as const) assert.ok(api[k], `the API has no ${k}`);
    await api.firstReconcileMs;
    const steps = api.activationSteps();
    for (const k of ['host', 'reconciled', 'views', 'chat', 'gateway', 'commands', 'activated', 'reconcile']) assert.strictEqual(typeof steps[k], 'number', `no step ${k}: ${JSON.stringify(steps)}`);
    assert.ok(steps.host <= steps.reconciled && steps.reconciled <= steps.views && steps.views <= steps.commands, `out of order: ${JSON.stringify(steps)}`);
    // Trusted, the first sync needs no I/O: reconcile is called before activation goes on. In Restricted Mode it reads
    // the workspace's settings first, and activation goes on without waiting for it.
    if (vscode.workspace.isTrusted) assert.ok(steps.reconcile <= steps.reconciled, `reconcile came after the views began: ${JSON.stringify(steps)}`);
  });

  it('H485, H642: reads the installation key from SecretStorage while it builds the host; the first settings sync does not wait for it, what is keyed (views, chat, the gateway) is built after it', async () => {
    const api = await extension().activate() as { activationSteps(): Record<string, number>; firstReconcileMs: Promise<number>; host?: unknown };
    await api.firstReconcileMs;
    const steps = api.activationSteps();
    assert.strictEqual(typeof steps.key, 'number', `no step key: ${JSON.stringify(steps)}`);
    // The host and its parts exist before the key has arrived, and the first sync begins in activate()'s own turn,
    // before the SecretStorage round trip can answer (issue 41); the views read keyed state, so they follow the key.
    assert.ok(steps.host <= steps.began && steps.began <= steps.key && steps.key <= steps.views, `out of order: ${JSON.stringify(steps)}`);
    // Bystander: the host the API hands out is the one built.
    assert.ok(api.host, 'the API has no host');
  });

  it('runs with a workspace folder opened, trusted unless KEEP_WORKSPACE_TRUST=1 (a fresh copy of test/editor/workspace)', () => {
    assert.ok(vscode.workspace.workspaceFolders?.length, 'no workspace folder is open');
    assert.strictEqual(vscode.workspace.isTrusted, !process.env.KEEP_WORKSPACE_TRUST);
  });

  it('registers every command that package.json contributes', async function () {
    const declared = (contributes().commands ?? []).map(c => c.command);
    assert.ok(declared.length > 0, 'package.json contributes no command');
    await extension().activate();
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter(c => !registered.has(c));
    assert.ok(missing.length === 0, `contributed but not registered: ${missing.join(', ')}`);
  });

  it('contributes at least one command, each with a category', function () {
    const commands = contributes().commands ?? [];
    assert.ok(commands.length > 0, 'package.json contributes no command');
    const uncategorised = commands.filter(c => !(c as { category?: string }).category).map(c => c.command);
    assert.ok(uncategorised.length === 0, `commands without a category: ${uncategorised.join(', ')}`);
  });

  it('has its view container in the workbench', async function () {
    const containers = Object.values(contributes().viewsContainers ?? {}).flat();
    assert.ok(containers.length > 0, 'package.json contributes no view container');
    const registered = new Set(await vscode.commands.getCommands(true));
    for (const c of containers) {
      const open = `workbench.view.extension.${c.id}`;
      assert.ok(registered.has(open), `view container ${c.id} has no ${open} command`);
      await vscode.commands.executeCommand(open); // opening it must not throw
    }
  });

  it('is the shipped build: the production VSIX, unpacked, minified, no source map (issue 11)', function () {
    const ext = extension();
    const expected = process.env.MCP_HOST_EXPECT_SHIPPED;
    assert.ok(expected, 'the harness did not say which extension folder it loaded (MCP_HOST_EXPECT_SHIPPED)');
    assert.strictEqual(fs.realpathSync(ext.extensionPath), fs.realpathSync(expected));
    const main = path.join(ext.extensionPath, 'dist', 'extension.js');
    const code = fs.readFileSync(main, 'utf8');
    assert.ok(!/\/\/# sourceMappingURL=/.test(code), `${main} has a source map: a development build`);
    assert.ok(!fs.existsSync(path.join(ext.extensionPath, 'src')), 'the extension folder has sources: not the VSIX');
    assert.ok(!fs.existsSync(main + '.map'), 'the extension folder has a source map file: not the VSIX');
    // minified: few, long lines
    const perLine = code.length / code.split('\n').length;
    assert.ok(perLine > 500, `${main} averages ${Math.round(perLine)} characters a line: not minified`);
  });
});

describe('Fake language model (test/fixtures/fake-lm, installed by the harness)', () => {
  async function fakeModel(): Promise<vscode.LanguageModelChat> {
    // the provider activates on onStartupFinished: wait for it rather than race it
    for (let i = 0; i < 50; i++) {
      const [model] = await vscode.lm.selectChatModels({ vendor: 'fakelm', id: 'fake-1' });
      if (model) return model;
      await new Promise(r => setTimeout(r, 200));
    }
    throw new Error('the fakelm model never became available');
  }

  it('answers deterministically with fake-reply-to:<last message> and records the call', async () => {
    const model = await fakeModel();
    assert.strictEqual(model.family, 'fake');
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping 42')], {});
    let text = '';
    for await (const part of response.text) text += part;
    assert.strictEqual(text, 'fake-reply-to:ping 42');
    const logFile = process.env.FAKE_LM_LOG;
    assert.ok(logFile, 'the harness sets FAKE_LM_LOG');
    const calls = fs.readFileSync(logFile, 'utf8').trim().split('\n').map(l => JSON.parse(l) as { call: string; messages?: { text: string }[] });
    const last = calls.filter(c => c.call === 'provideLanguageModelChatResponse').pop();
    assert.deepStrictEqual(last?.messages?.map(m => m.text), ['ping 42']);
  });
});
