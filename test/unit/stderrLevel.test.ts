/** The level of a server's stderr line: info unless it looks like a warning or an error; the server's own tag wins. */
import * as assert from 'node:assert/strict';
import { stderrLevel } from '../../src/mcp/logging/stderrLevel';

describe('stderrLevel', () => {
  it('ordinary lines (banners, progress) are info', () => {
    for (const l of ['Secure MCP Filesystem Server running on stdio', 'Allowed directories: [ "/tmp" ]', 'Starting default (STDIO) server...', 'processed 12 items'])
      assert.equal(stderrLevel(l), 'info', l);
  });
  it('errors, stack frames and tracebacks are errors; warnings and deprecations are warnings', () => {
    for (const l of ['Error: ENOENT: no such file', 'npm ERR! code E404', 'Traceback (most recent call last):', '    at Server.connect (/x/index.js:12:7)', 'FATAL: cannot bind', 'UnhandledPromiseRejection: boom', 'panic: runtime error'])
      assert.equal(stderrLevel(l), 'error', l);
    for (const l of ['(node:123) [DEP0040] DeprecationWarning: The punycode module is deprecated', 'Warning: config file not found, using defaults', 'WARN low disk'])
      assert.equal(stderrLevel(l), 'warning', l);
  });
  it("the server's own level tag wins", () => {
    assert.equal(stderrLevel('[INFO] 0 errors so far'), 'info');
    assert.equal(stderrLevel('2026-11-24 12:00:00 DEBUG: failed cache probe (expected)'), 'debug');
    assert.equal(stderrLevel('[error] bad thing'), 'error');
    assert.equal(stderrLevel('WARNING: slow'), 'warning');
  });
});
