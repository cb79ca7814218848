/**
 * The documentation a user meets (issue 38): the README is the marketplace page, read in five minutes, and points into
 * docs/ for depth; its pictures come from the UI tests (media/screens, `readmePicture` in scripts/editor/workbench.mjs).
 * Nothing here may cite a file the repository does not contain, and the Getting Started walkthrough may only name
 * commands and files that exist.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

/** Markdown links and images `[text](target)` / `![alt](target)` outside code spans and fenced blocks. */
function relativeTargets(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const out: string[] = [];
  for (const m of text.matchAll(/!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1];
    if (/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target)) continue; // https:, command:, mailto:, an anchor in the same page
    out.push(target.replace(/#.*$/, ''));
  }
  return out;
}

const pages = () => ['README.md', 'CHANGELOG.md', ...fs.readdirSync(path.join(ROOT, 'docs')).filter(f => f.endsWith('.md')).map(f => `docs/${f}`),
  ...fs.readdirSync(path.join(ROOT, 'media/walkthrough')).map(f => `media/walkthrough/${f}`)];

describe('Documentation (issue 38)', () => {
  it('H410: the README is a user guide of at most 300 lines, with the two-command quick start and a picture of each main surface', () => {
    const readme = read('README.md');
    assert.ok(readme.split('\n').length <= 300, `README.md has ${readme.split('\n').length} lines`);
    const quick = readme.match(/## Quick start[\s\S]*?```sh\n([\s\S]*?)```/);
    assert.ok(quick, 'a Quick start with a sh block');
    assert.deepEqual(quick[1].trim().split('\n').map(l => l.replace(/#.*$/, '').trim()), ['npm start', 'npm test']);
    const pictures = [...readme.matchAll(/!\[[^\]]+\]\((media\/screens\/[^)]+)\)/g)].map(m => m[1]);
    for (const surface of ['servers', 'tool-call', 'chat-prompts', 'app']) {
      assert.ok(pictures.includes(`media/screens/${surface}.jpg`), `README shows media/screens/${surface}.jpg`);
    }
  });

  it('H411: every relative link and picture in README.md, CHANGELOG.md, docs/ and the walkthrough resolves to a file of the repository', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      for (const target of relativeTargets(read(page))) {
        if (!target) continue;
        const abs = path.resolve(path.dirname(path.join(ROOT, page)), decodeURIComponent(target));
        if (!abs.startsWith(ROOT + path.sep) || !fs.existsSync(abs)) broken.push(`${page} → ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('H412: the Getting Started walkthrough names only files that exist and commands the extension contributes', () => {
    const pkg = JSON.parse(read('package.json')) as {
      contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]>; walkthroughs: { steps: { id: string; description: string; media: { markdown?: string; image?: string } }[] }[] };
    };
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const commands = new Set(pkg.contributes.commands.map(c => c.command));
    for (const view of Object.values(pkg.contributes.views).flat()) commands.add(`${view.id}.focus`); // a view's own focus command
    const [walk] = pkg.contributes.walkthroughs;
    assert.deepEqual(walk.steps.map(s => s.id), ['addServer', 'seeServers', 'callTool', 'chatPrompt']);
    // package.nls.json (issue 40): a `%key%` names the English text or page
    const english = (v: string | undefined) => v?.replace(/^%([\w.-]+)%$/, (_, key: string) => nls[key] ?? '');
    for (const step of walk.steps) {
      const file = english(step.media.markdown ?? step.media.image);
      assert.ok(file && fs.existsSync(path.join(ROOT, file)), `${step.id}: ${file} exists`);
      const description = english(step.description);
      assert.ok(description, `${step.id}: has a description`);
      for (const m of description.matchAll(/\(command:([\w.]+)/g)) assert.ok(commands.has(m[1]), `${step.id}: command ${m[1]} is contributed`);
    }
  });
});
