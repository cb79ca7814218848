/**
 * Localisation (issue 40): the extension's user-facing text is localisable. Checked here, without the editor:
 *  - H490: the check (test/support/l10nCheck.ts, the TypeScript compiler API) finds a literal string at each
 *    user-facing sink and accepts what is not text (codicons, identifiers, paths) and text passed through `t(...)`;
 *  - H491: src/extension and src/views pass no literal user-facing string to a sink (but the short allow-list below);
 *  - H492: every user-facing string of package.json is a `%key%` of package.nls.json, and every key is used;
 *  - H493: l10n/bundle.l10n.json (`npx vscode-l10n-dev export -o l10n src/extension src/views`) holds exactly the
 *    messages of the `l10n.t` calls, each a literal (so the exporter and translators see it).
 * The pseudo-locale run in the real editor is test/editor/pseudoLocale.test.ts (H494).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { l10nMessages, literalUserStrings } from '../support/l10nCheck';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const DIRS = ['src/extension', 'src/views'];

function sources(): string[] {
  return DIRS.flatMap(d => (fs.readdirSync(path.join(ROOT, d), { recursive: true }) as string[])
    .filter(f => f.endsWith('.ts')).map(f => path.join(d, f).split(path.sep).join('/'))).sort();
}

/** Literal strings at a sink that are not for a person, each with why (file → the text's start). */
const ALLOWED: Record<string, { starts: string; why: string }[]> = {
  'src/extension/chat/skills.ts': [
    { starts: 'Loads the instructions', why: 'the skill tool\'s description, read by the language model' },
    { starts: 'The MCP server name', why: 'input-schema description, for the model' },
    { starts: 'The skill name', why: 'input-schema description, for the model' },
    { starts: 'MCP server "', why: 'the skill tool\'s answer, for the model' },
    { starts: 'The skill was not loaded', why: 'the skill tool\'s answer, for the model' },
  ],
  'src/extension/chat/toolLoop.ts': [{ starts: '${…} (MCP server "', why: 'a tool description sent to the model' }],
  'src/extension/apps/transport.ts': [
    { starts: 'dropped: the view sent', why: 'a JSON-RPC error to the app view (protocol text)' },
    { starts: 'the view was closed', why: 'a JSON-RPC error to the app view (protocol text)' },
  ],
};

describe('Localisation: no literal user-facing string (issue 40)', function () {
  this.timeout(60_000);

  it('H490: the check finds a literal at each user-facing sink and accepts t(), codicons, identifiers and paths', () => {
    const probe = `import * as vscode from 'vscode';
void vscode.window.showInformationMessage('Server started.');
void vscode.window.showWarningMessage(\`Stop \${name}?\`, 'Stop');
void vscode.window.showQuickPick(items, { placeHolder: 'Pick a server', title: 'Servers' });
void vscode.window.showInputBox({ prompt: 'Server name' });
item.tooltip = 'Click to list them';
const node = new vscode.TreeItem('Load more…');
stream.markdown('No server runs.');
stream.progress(\`Calling \${tool}…\`);
void vscode.window.withProgress({ title: 'Searching…' }, run);
const md = new vscode.MarkdownString('**Hello** there');
panel = vscode.window.createWebviewPanel('id', 'App view', 1);
void notify('warning', 'Not trusted', 'Manage Trust');
const d = { message: ok ? 'Allow it?' : 'Deny it?' };
// not findings:
void vscode.window.showInformationMessage(vscode.l10n.t('Server {0} started.', name));
void vscode.window.showErrorMessage(l10n.t('Failed'), vscode.l10n.t('Retry'));
item.description = \`$(sync~spin) \${count}\`;
const type = { label: 'stdio', description: 'mcpHost.servers' };
const where = { label: '~/.copilot/mcp-config.json' };
const f = { text: \`\${a} · \${b}\` };
`;
    const found = literalUserStrings('probe.ts', probe);
    assert.deepEqual([...new Set(found.map(f => f.line))], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], JSON.stringify(found, null, 1));
    assert.deepEqual(found.filter(f => f.line === 3).map(f => f.text), ['Stop ${…}?', 'Stop']);
    assert.deepEqual(found.filter(f => f.line === 4).map(f => f.sink), ['placeHolder', 'title']);
  });

  it('H491: src/extension and src/views pass every user-facing string through vscode.l10n.t or @vscode/l10n', () => {
    const left: string[] = [];
    let files = 0;
    for (const rel of sources()) {
      files++;
      for (const f of literalUserStrings(rel, read(rel))) {
        if (ALLOWED[rel]?.some(a => f.text.startsWith(a.starts))) continue;
        left.push(`${rel}:${f.line} (${f.sink}): ${JSON.stringify(f.text.slice(0, 80))}`);
      }
    }
    assert.ok(files > 80, `walked ${files} files`);
    assert.deepEqual(left, [], 'wrap these in vscode.l10n.t(...) (or l10n.t from @vscode/l10n in a file that does not import vscode); see docs/DEVELOPMENT.md "Localisation"');
  });

  it('H491: the allow-list names only literals that are still there', () => {
    for (const [rel, list] of Object.entries(ALLOWED)) {
      const found = literalUserStrings(rel, read(rel));
      for (const a of list) assert.ok(found.some(f => f.text.startsWith(a.starts)), `${rel}: "${a.starts}" is no longer found: drop it from ALLOWED`);
    }
  });

  it('H492: every user-facing string of package.json is a %key% of package.nls.json, and every key is used', async () => {
    const { manifestStrings } = await import(path.join(ROOT, 'scripts/l10n/manifestStrings.mjs')) as { manifestStrings: (pkg: unknown) => { key: string; value: string }[] };
    const pkg = JSON.parse(read('package.json')) as unknown;
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const strings = manifestStrings(pkg);
    assert.ok(strings.length > 100, `${strings.length} user-facing strings in package.json`);
    const literal = strings.filter(s => !/^%[\w.-]+%$/.test(s.value)).map(s => `${s.key}: ${s.value.slice(0, 60)}`);
    assert.deepEqual(literal, [], 'move these into package.nls.json: node scripts/l10n/extract-nls.mjs');
    const keys = new Set(strings.map(s => s.value.slice(1, -1)));
    assert.deepEqual([...keys].filter(k => typeof nls[k] !== 'string'), [], 'keys package.json uses that package.nls.json lacks');
    // every %key% anywhere in package.json (sync-schema writes some) counts as used
    const used = new Set([...read('package.json').matchAll(/"%([\w.-]+)%"/g)].map(m => m[1]));
    assert.deepEqual(Object.keys(nls).filter(k => !used.has(k)), [], 'package.nls.json keys nothing uses');
    assert.equal((JSON.parse(read('package.json')) as { l10n?: string }).l10n, './l10n');
    // Only English ships: the VSIX allow-list names the English files and no other locale (the pseudo-locale is
    // generated into the editor test's copy only).
    const shipped = read('.vscodeignore').split('\n').filter(l => l.startsWith('!') && /nls|l10n/.test(l));
    assert.deepEqual(shipped, ['!package.nls.json', '!l10n/bundle.l10n.json']);
  });

  it('H493: l10n/bundle.l10n.json is the export of every l10n.t message, each a literal', () => {
    const all = new Set<string>();
    const notLiteral: string[] = [];
    for (const rel of sources()) {
      const { messages, notLiteral: lines } = l10nMessages(rel, read(rel));
      messages.forEach(m => all.add(m));
      notLiteral.push(...lines.map(l => `${rel}:${l}`));
    }
    assert.deepEqual(notLiteral, [], 'the message of l10n.t must be a literal (values go in as {0}, {1} …)');
    const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, string>;
    const missing = [...all].filter(m => !(m in bundle));
    const stale = Object.keys(bundle).filter(m => !all.has(m));
    assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, 'run: npx vscode-l10n-dev export -o l10n src/extension src/views');
    for (const [k, v] of Object.entries(bundle)) assert.equal(v, k, 'the English bundle maps each message to itself');
    // l10n.t's format takes `{…}` up to the first `}` as a placeholder: a brace around one (`${input:{0}}`) leaves it
    // unformatted, so a message may hold `{` only as `{0}`, `{1}` … or in text with no placeholder at all.
    const broken = Object.keys(bundle).filter(k => /\{\d+\}/.test(k) && /\{(?!\d+\})/.test(k));
    assert.deepEqual(broken, [], 'a `{` that is not a placeholder in a message with placeholders: pass that text in as a value');
  });
});
