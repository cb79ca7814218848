/**
 * Issue 39: the lint rules that keep the rooms' doors are themselves under test, so they cannot quietly go away.
 * H525: outside src/mcp (src/extension, src/views, src/cli) an import names the core's barrel (`../mcp`), never a file
 * inside it (src/mcp/index.ts is the core's public surface); inside src/mcp any relative import is fine.
 * H526: every file under src/extension and src/views that the unit suite loads (value imports, followed from test/unit
 * and test/support with the TypeScript parser) is one eslint.config.mjs keeps free of `vscode`: a value import of
 * `vscode` there is an error, a type import is not.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ESLint } from 'eslint';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../../..');

const DEEP = `import { shownName } from '../mcp/logging/humanText';
import { Redactor } from '../mcp';
export const a = [shownName, Redactor];
`;

/** The src/extension and src/views files the unit suite loads at run time (type-only imports are erased). */
function loadedByUnitSuite(): string[] {
  const seen = new Set<string>();
  const queue: string[] = [];
  for (const d of ['test/unit', 'test/support']) {
    for (const f of fs.readdirSync(path.join(ROOT, d))) if (f.endsWith('.ts')) queue.push(path.join(ROOT, d, f));
  }
  const opts: ts.CompilerOptions = { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 };
  while (queue.length) {
    const f = queue.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    const sf = ts.createSourceFile(f, fs.readFileSync(f, 'utf8'), ts.ScriptTarget.Latest, true);
    const specs: string[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier)) {
        const c = n.importClause;
        const typesOnly = !!c && (c.isTypeOnly || !c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every(e => e.isTypeOnly));
        if (!typesOnly) specs.push(n.moduleSpecifier.text);
      } else if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier) && !n.isTypeOnly) {
        specs.push(n.moduleSpecifier.text);
      } else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword || ts.isIdentifier(n.expression) && n.expression.text === 'require') && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) {
        specs.push(n.arguments[0].text);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
    for (const s of specs) {
      if (!s.startsWith('.')) continue;
      const r = ts.resolveModuleName(s, f, opts, ts.sys).resolvedModule?.resolvedFileName;
      if (r && r.endsWith('.ts') && !r.endsWith('.d.ts') && path.resolve(r).startsWith(path.join(ROOT, 'src') + path.sep)) queue.push(path.resolve(r));
    }
  }
  return [...seen].map(f => path.relative(ROOT, f).split(path.sep).join('/')).filter(f => /^src\/(extension|views)\//.test(f)).sort();
}

describe('lint: the rooms of src (issue 39)', function () {
  this.timeout(60_000);

  for (const dir of ['src/extension', 'src/extension/chat', 'src/views', 'src/cli']) {
    it(`H525: ${dir}: an import of a file inside src/mcp is an error; the barrel is not`, async () => {
      const eslint = new ESLint({ cwd: ROOT });
      const depth = dir.split('/').length - 1;
      const text = DEEP.replace(/'\.\.\/mcp/g, `'${'../'.repeat(depth)}mcp`);
      const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, dir, 'probe.ts') });
      const lines = result.messages.filter(m => m.ruleId === 'no-restricted-imports' && /barrel/.test(m.message)).map(m => m.line);
      assert.deepEqual(lines, [1], JSON.stringify(result.messages, null, 1));
    });
  }

  it('H525: inside src/mcp a file imports its neighbours directly (a well-behaved bystander of the rule)', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const text = `import { shownName } from '../logging/humanText';\nexport const a = shownName;\n`;
    const [result] = await eslint.lintText(text, { filePath: path.join(ROOT, 'src/mcp/server/probe.ts') });
    assert.deepEqual(result.messages.filter(m => m.ruleId === 'no-restricted-imports'), []);
  });

  it('H526: every src/extension and src/views file the unit suite loads may import vscode only as types', async () => {
    const files = loadedByUnitSuite();
    assert.ok(files.length >= 10, `the unit suite loads editor-layer files: ${files.join(', ')}`);
    const eslint = new ESLint({ cwd: ROOT });
    const missing: string[] = [];
    for (const f of files) {
      const [value] = await eslint.lintText(`import * as vscode from 'vscode';\nexport const a = vscode.version;\n`, { filePath: path.join(ROOT, f) });
      if (!value.messages.some(m => m.ruleId === '@typescript-eslint/no-restricted-imports' && m.line === 1)) missing.push(f);
      const [type] = await eslint.lintText(`import type * as vscode from 'vscode';\nexport type A = vscode.Disposable;\n`, { filePath: path.join(ROOT, f) });
      assert.deepEqual(type.messages.filter(m => m.ruleId === '@typescript-eslint/no-restricted-imports'), [], f);
    }
    assert.deepEqual(missing, [], 'add these to VSCODE_FREE in eslint.config.mjs (the unit suite loads them without an editor)');
  });

  it('H526: a file the unit suite does not load may import vscode (the bystander: src/extension/extension.ts)', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const [result] = await eslint.lintText(`import * as vscode from 'vscode';\nexport const a = vscode.version;\n`, { filePath: path.join(ROOT, 'src/extension/extension.ts') });
    assert.deepEqual(result.messages.filter(m => m.ruleId === '@typescript-eslint/no-restricted-imports'), []);
  });

  it('H669: no hand-written file under src is over 450 lines (generated code aside): a file that grows past it is split along its jobs', () => {
    const files = (fs.readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
      .filter(f => f.endsWith('.ts') && !f.endsWith('.generated.ts'));
    assert.ok(files.length > 100, 'the src tree was read');
    const over = files
      .map(f => ({ f: path.join('src', f).split(path.sep).join('/'), lines: fs.readFileSync(path.join(ROOT, 'src', f), 'utf8').split('\n').length - 1 }))
      .filter(x => x.lines > 450).map(x => `${x.f}: ${x.lines}`);
    assert.deepEqual(over, []);
  });
});
