/** Server text made safe for each renderer (src/mcp/logging/humanText.ts): dialogs, markdown, terminals. */
import * as assert from 'node:assert/strict';
import { dialogText, escapeControls, firstLine, formatBytes, jsonText, markdownCode, markdownText, quoted, shownName } from '../../src/mcp/logging/humanText';

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
    assert.equal(markdownCode('x\n\n[a](command:y)'), '`x [a] (command:y)`');
  });

  it('escapeControls shows ESC, C1 and other controls, keeping newline and tab', () => {
    assert.equal(escapeControls('a\x1b]52;c;AAAA\x07b\x9b2J\r\n\tz'), 'a\\x1b]52;c;AAAA\\x07b\\x9b2J\\r\n\tz');
  });

  it('H54: shownName and dialogText leave no [label](command:…) link for a notification or dialog to make clickable', () => {
    const link = 'x [run](command:workbench.action.chat.open?%5B%5D) [site]  (https://evil.example)';
    for (const out of [shownName(link, 500), dialogText(link)]) {
      assert.ok(!/\]\(/.test(out), out);
      assert.ok(out.includes('[run] (command:workbench.action.chat.open?%5B%5D)'), out);
    }
    assert.equal(shownName('plain-name'), 'plain-name');
  });

  it('H54: dialogText keeps lines, shows controls and invisible characters as escapes, and cuts', () => {
    assert.equal(dialogText('line one\nline\ttwo \x1b[2J \u202egnp.exe \u200b\x9b'), 'line one\nline\ttwo \\x1b[2J \\u202egnp.exe \\u200b\\x9b');
    const long = dialogText('y'.repeat(10_000));
    assert.equal(Array.from(long).length, 4000);
    assert.ok(long.endsWith('…'));
    assert.equal(dialogText('{\n  "message": "hi"\n}'), '{\n  "message": "hi"\n}', 'well-behaved text is unchanged');
  });

  it('H57: jsonText escapes what JSON.stringify leaves raw (DEL, C1, U+2028/9, bidi) and parses back to the same value', () => {
    const value = { text: 'a\x1b[2J\x7f\x9b31m\x85\u2028\u2029\u202e', n: 1 };
    const out = jsonText(value);
    assert.ok(!/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]/.test(out), out);
    assert.ok(out.includes('\\u001b[2J\\u007f\\u009b31m\\u0085\\u2028\\u2029\\u202e'), out);
    assert.deepEqual(JSON.parse(out), value);
    assert.equal(jsonText({ a: 'plain' }), JSON.stringify({ a: 'plain' }, null, 2), 'plain data is JSON.stringify\'s');
  });

  it('firstLine: the first line, trimmed, cut with an ellipsis at the limit', () => {
    assert.equal(firstLine('  one  \ntwo', 80), 'one');
    assert.equal(firstLine('x'.repeat(120), 100), `${'x'.repeat(99)}…`);
    assert.equal(firstLine(undefined, 80), undefined);
    assert.equal(firstLine('', 80), '');
  });

  it('formatBytes: one formatter of sizes, binary units, whole units without decimals', () => {
    assert.equal(formatBytes(0), '0 B');
    assert.equal(formatBytes(1023), '1023 B');
    assert.equal(formatBytes(1024), '1 KiB');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(64 * 1024 * 1024), '64 MiB');
    assert.equal(formatBytes(20.25 * 1024 * 1024), '20.3 MiB');
    assert.equal(formatBytes(16 * 1024 * 1024 + 1), '16.0 MiB', 'just over a limit does not read as the limit');
    assert.equal(formatBytes(3 * 1024 ** 3), '3 GiB');
  });
});
