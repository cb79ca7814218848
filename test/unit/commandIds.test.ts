/** Command ids live in one module (src/views/commandIds.ts), and package.json contributes exactly those commands. */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CommandIds, ContextKeys, ViewIds } from '../../src/views/commandIds';

const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]> };
};

describe('command ids: one module, the same as package.json', () => {
  it('package.json contributes every command id of CommandIds, and no other', () => {
    const declared = pkg.contributes.commands.map(c => c.command).sort();
    assert.deepEqual(declared, Object.values(CommandIds).sort());
  });

  it('package.json declares every view id of ViewIds', () => {
    const views = Object.values(pkg.contributes.views).flat().map(v => v.id).sort();
    assert.deepEqual(views, Object.values(ViewIds).sort());
  });

  it('no source file outside commandIds.ts spells a command id or context key as a string literal', () => {
    const ids = new Set<string>([...Object.values(CommandIds), ...Object.values(ContextKeys)]);
    const offenders: string[] = [];
    for (const rel of fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (!rel.endsWith('.ts') || rel.endsWith('commandIds.ts')) continue;
      const text = fs.readFileSync(path.join(ROOT, 'src', rel), 'utf8');
      for (const m of text.matchAll(/['"](mcpHost\.[A-Za-z.]+)['"]/g)) if (ids.has(m[1])) offenders.push(`src/${rel}: ${m[1]}`);
    }
    assert.deepEqual(offenders, []);
  });
});
