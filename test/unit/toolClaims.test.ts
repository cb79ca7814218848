/**
 * H618 (issue 39): how a tool's `readOnlyHint` is shown to people is decided once (src/mcp/catalogue/toolClaims.ts) and
 * used by the Tools view (`toolItem`, src/views/items.ts), `mcp-host inspect` (src/cli/commands.ts) and the `@mcp`
 * tool-call confirmation (src/extension/chat/ui.ts, toolLoop.ts): the predicate, the words, and no other reader of the
 * annotation for display. `inspect` runs on the production dist/cli.js against a fixture that claims read-only tools,
 * beside a bystander server that claims nothing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { claimsReadOnly, readOnlyNote, readOnlyNoteOf } from '../../src/mcp';
import { useShippedCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const NOTE = 'The server says this tool only reads (not verified).';

/** Every .ts file under src (relative to the repository). */
function srcFiles(): string[] {
  return (fs.readdirSync(path.join(ROOT, 'src'), { recursive: true }) as string[])
    .filter(f => f.endsWith('.ts')).map(f => path.join('src', f).split(path.sep).join('/'));
}

describe('readOnlyHint shown to people: one predicate, one wording (issue 39)', function () {
  this.timeout(60_000);

  it('H618: claimsReadOnly is true only for readOnlyHint === true; the note says it is the server\'s claim, not verified', () => {
    assert.equal(claimsReadOnly({ annotations: { readOnlyHint: true } }), true);
    assert.equal(claimsReadOnly({ annotations: { readOnlyHint: true, destructiveHint: true } }), true, 'a contradictory claim is still shown as the server\'s claim');
    // The bystanders: no claim, a false claim, a claim that is not a boolean, no tool.
    for (const tool of [{}, { annotations: {} }, { annotations: { readOnlyHint: false } }, { annotations: { readOnlyHint: 'true' } } as never, { annotations: { title: 'x' } }, undefined]) {
      assert.equal(claimsReadOnly(tool), false, JSON.stringify(tool));
      assert.equal(readOnlyNoteOf(tool), undefined, JSON.stringify(tool));
    }
    assert.equal(readOnlyNote(), NOTE, 'the text is unchanged (the @mcp confirmation said exactly this)');
    assert.equal(readOnlyNoteOf({ annotations: { readOnlyHint: true } }), NOTE);
  });

  it('H618: the Tools view, inspect and @mcp use it, and nothing else in src reads readOnlyHint to show it', () => {
    assert.match(read('src/views/items.ts'), /readOnlyNoteOf\(tool\)/, 'toolItem');
    assert.match(read('src/cli/commands.ts'), /claimsReadOnly/, 'inspect');
    assert.match(read('src/extension/chat/toolLoop.ts'), /readOnly: claimsReadOnly\(tool\)/, '@mcp approval');
    assert.match(read('src/extension/chat/ui.ts'), /readOnlyNote\(\)/, '@mcp dialog');
    // The other readers of the annotation are not display: the shape check, and the gateway's forwarding rule (H98).
    const readers = srcFiles().filter(f => /readOnlyHint/.test(read(f).replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '')));
    assert.deepEqual(readers.sort(), ['src/mcp/catalogue/toolClaims.ts', 'src/mcp/catalogue/toolShape.ts', 'src/mcp/gateway/server.ts']);
    assert.ok(!srcFiles().some(f => f !== 'src/mcp/catalogue/toolClaims.ts' && read(f).includes(`'${NOTE}'`)), 'the words are written once');
  });

  describe('mcp-host inspect (dist/cli.js)', () => {
    const fixture = (f: string) => path.join(ROOT, 'test/fixtures/servers', f);
    const cli = useShippedCli('mcp-host-cli-claims-', ({ serverCwd }) => ({
      claims: { type: 'stdio', command: process.execPath, args: [fixture('gateway-claims.mjs')], cwd: serverCwd },
      echo: { type: 'stdio', command: process.execPath, args: [fixture('echo.mjs')], cwd: serverCwd },
    }));

    it('H618: lists the tools whose server says they only read, with the note; the bystander claims none', async () => {
      const claims = await cli.run(['inspect', 'claims']);
      assert.equal(claims.code, 0, claims.stderr);
      assert.deepEqual(JSON.parse(claims.stdout).readOnly, { note: NOTE, tools: ['read_notes', 'delete_all'] });
      const echo = await cli.run(['inspect', 'echo']);
      assert.equal(echo.code, 0, echo.stderr);
      const report = JSON.parse(echo.stdout) as Record<string, unknown>;
      assert.ok(!('readOnly' in report), 'a server that claims nothing gets no readOnly entry');
      assert.deepEqual((report.tools as { name: string }[]).map(t => t.name), ['echo']);
    });
  });
});
