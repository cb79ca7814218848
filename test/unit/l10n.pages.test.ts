/**
 * Issue 40: the two pages that are not code of the extension host are localisable too.
 *  - H631: the walkthrough's pages. A step names its page through a `%key%` of package.nls.json; a translation ships
 *    `<page>.<lang>.md` beside the English page and names it in its package.nls.<lang>.json. The pseudo-locale pass
 *    makes such pages (scripts/l10n/pseudoPages.mjs) in its copy of the VSIX only.
 *  - H632: the MCP App host page (media/apps/host.js) writes no text a person reads: what it may say comes from the
 *    extension (src/extension/apps/appPage.ts `pageStrings`, made with vscode.l10n.t, in the page's markup).
 * The editor's pseudo-locale pass (test/editor/pseudoLocale.test.ts) shows both in the real editor.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as ts from 'typescript';
import { isWords } from '../support/l10nCheck';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

type PagesModule = {
  pseudoPage: (markdown: string) => string;
  localePagePath: (page: string, locale: string) => string;
  writePseudoPages: (extensionDir: string, locale: string) => string[];
};
const pages = () => import(path.join(ROOT, 'scripts/l10n/pseudoPages.mjs')) as Promise<PagesModule>;

/**
 * The literals of host.js that read as words (test/support/l10nCheck.ts `isWords`) and are not text for a person,
 * each with why.
 */
const HOST_ALLOWED: Record<string, string> = {
  'use strict': 'the script directive',
  'meta[http-equiv="Content-Security-Policy"]': 'a selector (the page\'s policy, reported to the tests)',
};

/** A CSS custom property's name (`--vscode-editor-background`): an identifier, not text. */
const CSS_VARIABLE = /^--[\w-]+$/;

/** Every string and template literal of a JavaScript source that reads as words, with its line. */
function wordsIn(file: string, source: string): { line: number; text: string }[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const out: { line: number; text: string }[] = [];
  const visit = (n: ts.Node) => {
    let text: string | undefined;
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) text = n.text;
    else if (ts.isTemplateExpression(n)) text = n.head.text + n.templateSpans.map(s => '${…}' + s.literal.text).join('');
    if (text !== undefined && isWords(text) && !CSS_VARIABLE.test(text)) out.push({ line: sf.getLineAndCharacterOfPosition(n.getStart()).line + 1, text });
    if (!ts.isTemplateExpression(n)) ts.forEachChild(n, visit);
    else n.templateSpans.forEach(s => visit(s.expression));
  };
  visit(sf);
  return out;
}

describe('Localisable pages: the walkthrough and the MCP App host page (issue 40)', () => {
  it('H632: media/apps/host.js has no literal text a person reads (but the reasoned allow-list)', () => {
    const found = wordsIn('host.js', read('media/apps/host.js')).filter(f => !(f.text in HOST_ALLOWED));
    assert.deepStrictEqual(found, [], 'give the page the text from the extension: src/extension/apps/appPage.ts pageStrings (vscode.l10n.t), read with say(key)');
    const all = new Set(wordsIn('host.js', read('media/apps/host.js')).map(f => f.text));
    assert.deepStrictEqual(Object.keys(HOST_ALLOWED).filter(k => !all.has(k)), [], 'allow-list entries no longer in host.js');
  });

  it('H632: the check finds a literal sentence written into the page (a refusal, a banner)', () => {
    const bad = `refuse(data, 'Refused: too fast'); banner.textContent = \`Server \${name} stopped\`; frame.title = 'app';`;
    assert.deepStrictEqual(wordsIn('bad.js', bad).map(f => f.text), ['Refused: too fast', 'Server ${…} stopped']);
  });

  it('H632: every string host.js says is one appPage.ts gives it, made with vscode.l10n.t, and the bundle has it', () => {
    const said = [...read('media/apps/host.js').matchAll(/\bsay\('(\w+)'\)/g)].map(m => m[1]).sort();
    assert.ok(said.length >= 3, `host.js says ${said.join(', ')}`);
    const page = read('src/extension/apps/appPage.ts');
    const body = /export function pageStrings\(\)[^{]*\{([\s\S]*?)\n\}/.exec(page)?.[1] ?? '';
    const given = [...body.matchAll(/^\s*(\w+): vscode\.l10n\.t\('((?:[^'\\]|\\.)*)'/gm)];
    assert.deepStrictEqual(given.map(m => m[1]).sort(), [...new Set(said)], 'the keys host.js says and appPage.ts pageStrings gives are the same');
    const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, string>;
    for (const [, key, message] of given) assert.ok(message in bundle, `${key}: ${message} is in l10n/bundle.l10n.json`);
    assert.match(page, /data-strings="\$\{esc\(JSON\.stringify\(pageStrings\(\)\)\)\}"/, 'the page carries them, escaped for the attribute');
  });

  it('H631: each walkthrough step names its page through a %key% whose English value is the English page', () => {
    const pkg = JSON.parse(read('package.json')) as { contributes: { walkthroughs: { id: string; steps: { id: string; media: { markdown: string } }[] }[] } };
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    for (const w of pkg.contributes.walkthroughs) {
      for (const s of w.steps) {
        const key = `walkthrough.${w.id}.${s.id}.media.markdown`;
        assert.strictEqual(s.media.markdown, `%${key}%`);
        assert.match(nls[key], /^media\/walkthrough\/[\w-]+\.md$/);
        assert.ok(fs.existsSync(path.join(ROOT, nls[key])), nls[key]);
      }
    }
    // only English ships: no page of another language in the repository
    assert.deepStrictEqual(fs.readdirSync(path.join(ROOT, 'media/walkthrough')).filter(f => /\.[\w-]+\.md$/.test(f)), []);
  });

  it('H631: a pseudo page: every letter of the prose replaced; code, code spans and link targets kept', async () => {
    const { pseudoPage, localePagePath } = await pages();
    const page = '# Add a server\n\nRun `mcpHost.servers` or see [the docs](docs/USAGE.md).\n\n```jsonc\n"mcpHost.servers": {}\n```\n';
    const out = pseudoPage(page);
    assert.ok(out.includes('`mcpHost.servers`') && out.includes('](docs/USAGE.md)') && out.includes('```jsonc\n"mcpHost.servers": {}\n```'), out);
    const prose = out.replace(/```[\s\S]*?```|`[^`\n]*`|\]\([^)\n]*\)/g, '');
    assert.ok(!/[A-Za-z]/.test(prose), `no ASCII letter left in the prose: ${prose}`);
    assert.match(out, /^# \S/);
    assert.strictEqual(localePagePath('media/walkthrough/add-server.md', 'qps-ploc'), 'media/walkthrough/add-server.qps-ploc.md');
  });

  it('H631: the pseudo-locale pass\'s copy gets a pseudo page per step, named in its package.nls.qps-ploc.json', async () => {
    const { writePseudoPages } = await pages();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-pages-'));
    try {
      fs.cpSync(path.join(ROOT, 'media/walkthrough'), path.join(dir, 'media/walkthrough'), { recursive: true });
      for (const f of ['package.json', 'package.nls.json']) fs.copyFileSync(path.join(ROOT, f), path.join(dir, f));
      // as `vscode-l10n-dev generate-pseudo` leaves it: the paths themselves pseudo-localised (names of no file)
      fs.writeFileSync(path.join(dir, 'package.nls.qps-ploc.json'), JSON.stringify({ 'walkthrough.getStarted.addServer.media.markdown': 'ḿḗḗḓīȧȧ/ẇȧȧŀķ.md' }));
      const written = writePseudoPages(dir, 'qps-ploc');
      assert.deepStrictEqual(written, ['add-server', 'servers-view', 'call-tool', 'chat-prompt'].map(n => `media/walkthrough/${n}.qps-ploc.md`));
      const nls = JSON.parse(fs.readFileSync(path.join(dir, 'package.nls.qps-ploc.json'), 'utf8')) as Record<string, string>;
      assert.strictEqual(nls['walkthrough.getStarted.addServer.media.markdown'], 'media/walkthrough/add-server.qps-ploc.md');
      const heading = /^# (.+)$/m.exec(fs.readFileSync(path.join(dir, written[0]), 'utf8'))?.[1] ?? '';
      assert.ok(heading && !/[A-Za-z]/.test(heading), heading);
      assert.strictEqual(fs.readFileSync(path.join(dir, 'media/walkthrough/add-server.md'), 'utf8'), read('media/walkthrough/add-server.md'), 'the English page unchanged');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
