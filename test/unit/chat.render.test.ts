/**
 * Server text in the markdown MCP Host writes (threat model: "server text is data in every renderer"): the `@mcp`
 * listings and notes (src/extension/chat/render.ts), the History tooltip (src/views/historyText.ts), and ajv's
 * warnings (src/mcp/schema/compiler.ts). Hostile names next to well-behaved ones, which must render as before.
 */
import * as assert from 'node:assert/strict';
import { chipLabel, errorMarkdown, progressText, promptListing, toolCallNote, toolListing, typeable } from '../../src/extension/chat/render';
import { codeBlock, historyLabel, historyTooltip } from '../../src/views/historyText';
import { SchemaCompiler } from '../../src/mcp/schema/compiler';

const LINK = '[run it](command:workbench.action.chat.open?%5B%7B%22query%22%3A%22%40workspace%20pwned%22%7D%5D)';
const EVIL_PROMPT = `evil\n\n- ${LINK} \`\`x\`\` \u202egnp.exe`;
const EVIL_TOOL = `evil"\u202e\n\n${LINK} \`tick\` \u2066x`;
const EVIL_DESCRIPTION = `desc\n\n${LINK} <img src=x onerror=alert(1)> \u202eevil`;

/** What markdown would make of `md` that server text must never make: a link, an image, HTML, a new block. */
function assertInert(md: string, lines: number): void {
  assert.ok(!/(^|[^\\])\]\(/.test(md), `a link in:\n${md}`);
  assert.ok(!/(^|[^\\])<[a-z]/i.test(md), `HTML in:\n${md}`);
  assert.ok(!/[\u202a-\u202e\u2066-\u2069\u200b]/.test(md), `a bidi or invisible character in:\n${md}`);
  assert.equal(md.split('\n').filter(l => l.trim()).length, lines, `lines of:\n${md}`);
}

describe('server text in markdown: @mcp listings, notes, the History tooltip', () => {
  it('H55: the /prompts listing escapes a hostile prompt name, description and argument; a plain prompt reads as before', () => {
    const md = promptListing([
      { name: 'hostile', prompts: [{ name: EVIL_PROMPT, description: EVIL_DESCRIPTION, arguments: [{ name: 'a`b\n\n[x](command:y)' }] }] },
      { name: 'everything', prompts: [{ name: 'simple-prompt', description: 'A prompt without arguments' }, { name: 'args-prompt', arguments: [{ name: 'city', required: true }, { name: 'state' }] }] },
    ], false);
    // Intro, two server headings, three items: nothing else became a block of its own.
    assertInert(md, 6);
    assert.ok(md.includes('- `/everything.simple-prompt` — A prompt without arguments\n'), md);
    assert.ok(md.includes('- `/everything.args-prompt` city \\[state\\]\n'), md);
    assert.ok(md.includes('- ```/hostile.evil - [run it] (command:'), md);
    assert.ok(md.includes('— desc\n'), 'only the description\'s first line');
    const oneLine = promptListing([{ name: 'h', prompts: [{ name: 'p', description: `desc ${LINK} <img src=x>` }] }], false);
    assertInert(oneLine, 3);
    assert.ok(oneLine.includes('— desc \\[run it\\] \\(command\\:workbench'), oneLine);
  });

  it('H55: follow-up chips are escaped (they render as markdown), and only typeable prompts get one', () => {
    assert.equal(chipLabel('/everything.simple-prompt'), '/everything\\.simple\\-prompt');
    assert.ok(!/(^|[^\\])\]\(/.test(chipLabel(`/hostile.${EVIL_PROMPT}`)));
    assert.equal(typeable('hostile', EVIL_PROMPT), false);
    assert.equal(typeable('everything', 'simple-prompt'), true);
  });

  it('H56: the /tools listing escapes a hostile tool name and description; a plain tool reads as before', () => {
    const md = toolListing([
      ['hostile_evil_____run_it__command_workbench_action_chat_open__5B', { server: 'hostile', tool: EVIL_TOOL, description: EVIL_DESCRIPTION }],
      ['everything_echo', { server: 'everything', tool: 'echo', description: 'Echoes back the input\nsecond line' }],
    ]);
    assertInert(md, 3);
    assert.ok(md.includes('- `everything_echo` — **echo** of `everything`: Echoes back the input\n'), md);
  });

  it('H56: notes, progress and errors in chat escape tool names, server names and error text', () => {
    assert.equal(toolCallNote('called', 'echo', 'everything'), '\n\n_Called `echo` (everything)._\n\n');
    assertInert(toolCallNote('failed', EVIL_TOOL, 'hostile', `boom\n\n${LINK}`), 1);
    assertInert(toolCallNote('declined', EVIL_TOOL, 'hostile'), 1);
    assertInert(progressText`Calling ${EVIL_TOOL} of ${'hostile'}…`, 1);
    assert.equal(progressText`Calling ${'echo'} of ${'everything'}…`, 'Calling echo of everything…');
    assertInert(errorMarkdown(`MCP error -32603: ${LINK}\n\n<img src=x>`), 1);
  });

  it('H56: the History tooltip keeps a target with backticks inside its code span, and the label is one line', () => {
    const md = historyTooltip({ method: 'tools/call', target: 'x` [a](command:y) `', by: 'model', error: `failed\n\n${LINK}`, args: { text: '```\n[b](command:z)' } }, '1/1/2026');
    assert.ok(md.startsWith('**tools/call** `` x` [a] (command:y) ` `` (model)'), md);
    assert.ok(!/(^|[^\\])\]\(command:y/.test(md) && !/(^|[^\\])\]\(command:workbench/.test(md), md);
    assert.ok(md.includes(codeBlock(JSON.stringify({ text: '```\n[b](command:z)' }, null, 2), 'json')), md);
    assert.ok(md.includes('````json\n'), 'the fence is longer than the arguments\' backtick runs');
    assert.equal(historyLabel({ method: 'tools/call', target: EVIL_TOOL }).includes('\n'), false);
    assert.equal(historyLabel({ method: 'tools/call', target: 'echo' }), 'tools/call echo');
    assert.equal(historyTooltip({ method: 'tools/call', target: 'echo', by: 'user' }, 'now'), '**tools/call** `echo` (user) — now\n\n');
  });

  it('H58: ajv\'s warning about an unknown format goes to the server\'s log, naming the tool, escaped, once; never to the console', () => {
    const warnings: string[] = [];
    const console_ = console.warn;
    const consoleLines: unknown[] = [];
    console.warn = (...a: unknown[]) => { consoleLines.push(a); };
    try {
      const compiler = new SchemaCompiler('hostile', {}, undefined, m => warnings.push(m));
      const v = compiler.compile({ type: 'object', properties: { a: { type: 'string', format: 'no-such\x1b[2J\u009b-format' } } }, 'tool `formats` inputSchema');
      assert.equal(typeof v, 'function');
      const plain = compiler.compile({ type: 'object', properties: { d: { type: 'string', format: 'date' } } }, 'tool `echo` inputSchema');
      assert.equal(typeof plain, 'function');
      new SchemaCompiler('quiet').compile({ type: 'string', format: 'another-unknown' }, 'schema');
    } finally {
      console.warn = console_;
    }
    assert.deepEqual(warnings, ['tool `formats` inputSchema: unknown format "no-such\\x1b[2J\\x9b-format" ignored in schema at path "#/properties/a"']);
    assert.deepEqual(consoleLines, []);
  });
});
