/** The CLI's output rules (src/cli/output.ts): redaction of every line, escaping and cutting of its own lines. */
import * as assert from 'node:assert/strict';
import { cliRedactor, dataText, escapeControls, hideSecretsOf, ownText } from '../../src/cli/output';

describe('CLI output', () => {
  it('escapes control characters but newline and tab', () => {
    assert.equal(escapeControls('a\x1b[2Jb\rc\x07d\te\nf\x7fg\u2028'), 'a\\x1b[2Jb\\rc\\x07d\te\nf\\x7fg\\u2028');
  });

  it('H402: own lines are redacted, escaped and cut; data is escaped unless raw (--raw) and never redacted', () => {
    hideSecretsOf([{ name: 's', type: 'http', url: 'https://h/mcp?key=cli-Secret-1', headers: {} }]);
    assert.ok(cliRedactor().needles.includes('cli-Secret-1'));
    assert.equal(ownText('key cli-Secret-1 \x1b[31m'), 'key *** \\x1b[31m');
    const long = ownText(`${'x'.repeat(600)}\nshort`);
    assert.match(long, /^x{500}… \(100 more bytes\)\nshort$/);
    assert.equal(dataText('cli-Secret-1 \x1b'), 'cli-Secret-1 \\x1b', 'what the server sent is not the host\'s to rewrite');
    assert.equal(dataText('cli-Secret-1 Bearer abc123 \x1b\x9b', true), 'cli-Secret-1 Bearer abc123 \x1b\x9b', '--raw: exactly as sent');
    assert.equal(dataText('line one\r\nline two\rover'), 'line one\r\nline two\\rover', 'CRLF line ends stay; a lone CR is shown');
  });
});
