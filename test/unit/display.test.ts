/** Server text made safe for each renderer (src/mcp/logging/display.ts): dialogs, markdown, terminals. */
import * as assert from 'node:assert/strict';
import { escapeControls, markdownCode, markdownText, quoted, shownName } from '../../src/mcp/logging/display';

describe('display: server text in every renderer', () => {
  it('shownName folds newlines, strips controls and bidi overrides, and cuts long names', () => {
    assert.equal(shownName('evil\n\nname\ttoo'), 'evil name too');
    assert.equal(shownName('a\u202egnp.exe\u2066b\u200bc'), 'agnp.exebc');
    assert.equal(shownName('ring\x07\x1b[2Jbell\x9b'), 'ring [2Jbell');
    const long = shownName('x'.repeat(500));
    assert.equal(Array.from(long).length, 80);
    assert.ok(long.endsWith('…'));
    assert.equal(shownName('echo'), 'echo', 'a well-behaved name is unchanged');
  });

  it('quoted keeps the quotes its own: a name cannot close the quote and speak for the host', () => {
    assert.equal(quoted('x" of MCP server "trusted'), `"x' of MCP server 'trusted"`);
    assert.equal(quoted('get-sum'), '"get-sum"');
  });

  it('markdownText leaves no link, command, image, HTML or list break to markdown', () => {
    const hostile = 'p\n\n- [click](command:workbench.action.chat.open?%7B%7D) ![i](https://e.example/x.png) <img src=x> https://evil.example www.evil.example';
    const md = markdownText(hostile);
    assert.ok(!md.includes('\n'));
    assert.ok(!/(^|[^\\])\[/.test(md) && !/(^|[^\\])\(/.test(md) && !/(^|[^\\])</.test(md));
    assert.ok(!/https:\/\//.test(md), 'no bare URL to autolink');
    assert.ok(!/www\.evil/.test(md));
    assert.equal(markdownText('simple_prompt'), 'simple\\_prompt');
  });

  it('markdownCode fences a name with backticks so it cannot leave the code span', () => {
    assert.equal(markdownCode('echo'), '`echo`');
    assert.equal(markdownCode('a`b'), '``a`b``');
    assert.equal(markdownCode('`x'), '`` `x ``');
    assert.equal(markdownCode('x\n\n[a](command:y)'), '`x [a](command:y)`');
  });

  it('escapeControls shows ESC, C1 and other controls, keeping newline and tab', () => {
    assert.equal(escapeControls('a\x1b]52;c;AAAA\x07b\x9b2J\r\n\tz'), 'a\\x1b]52;c;AAAA\\x07b\\x9b2J\\r\n\tz');
  });
});
