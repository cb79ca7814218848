/** The repository documents what its code and tests cite: every requirement id and every document named exists here. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCANNED = ['src', 'test', 'scripts', 'bench', 'media', 'esbuild.mjs', 'eslint.config.mjs', '.ci'];

function files(rel: string): string[] {
  const abs = path.join(ROOT, rel);
  if (!fs.existsSync(abs)) return [];
  if (fs.statSync(abs).isFile()) return [abs];
  return fs.readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .map(f => path.join(abs, f))
    .filter(f => /\.(ts|mjs|js|sh|json|md)$|\/run$/.test(f) && !f.includes(`${path.sep}node_modules${path.sep}`) && fs.statSync(f).isFile());
}

const sources = SCANNED.flatMap(files).map(f => ({ file: path.relative(ROOT, f), text: fs.readFileSync(f, 'utf8') }));

describe('docs: nothing cites what the repository lacks', () => {
  it('every requirement id (H1…) named in code or tests is defined in docs/REQUIREMENTS.md', () => {
    const defined = new Set(Array.from(fs.readFileSync(path.join(ROOT, 'docs/REQUIREMENTS.md'), 'utf8').matchAll(/^\| (H\d+) \|/gm), m => m[1]));
    assert.ok(defined.size >= 40, `docs/REQUIREMENTS.md defines ${defined.size} ids`);
    const missing = new Set<string>();
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/\bH(\d{1,2})\b/g)) if (!defined.has(`H${m[1]}`)) missing.add(`H${m[1]} (${file})`);
    }
    assert.deepEqual([...missing], []);
  });

  it('every Markdown document named in code or tests exists in the repository', () => {
    const missing: string[] = [];
    for (const { file, text } of sources) {
      for (const m of text.matchAll(/(?<![\w/:.-])((?:[\w.-]+\/)*[A-Z][A-Z-]*\.md)\b/g)) {
        const name = m[1];
        // A skill's files (SEP-2640: `SKILL.md`, `references/…`) are a server's, named by the protocol, not documents here.
        if (path.basename(name) === 'SKILL.md' || name.startsWith('references/')) continue;
        const candidates = [path.join(ROOT, name), path.join(ROOT, 'docs', path.basename(name)), path.join(path.dirname(path.join(ROOT, file)), name)];
        if (!candidates.some(c => fs.existsSync(c))) missing.push(`${name} (${file})`);
      }
    }
    assert.deepEqual(missing, []);
  });
});
