/**
 * H192: a start failure's reason is the line that explains it, not the lines runtimes print after the cause. The
 * Node case is a real Node process that throws at start (its stderr, Node's own trailer included); npm's footer is
 * the text npm 10 prints for a package that does not exist (a local stand-in: no network); Python's is a traceback.
 * Each hostile tail sits beside a bystander tail whose last line is already the reason.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startFailureReason } from '../../src/mcp/process/startReason';

describe('Start failure reason (H192)', () => {
  it('a Node server that throws at start: the exception line, not "Node.js v…"', () => {
    const r = spawnSync(process.execPath, ['-e', "const e = new Error('getaddrinfo ENOTFOUND svelte.dev'); e.code = 'ENOTFOUND'; throw e;"], { encoding: 'utf8' });
    const tail = r.stderr.split('\n');
    assert.match(tail.filter(l => l.trim()).at(-1)!, /^Node\.js v\d+/, 'Node prints its version line last');
    assert.equal(startFailureReason(tail), 'Error: getaddrinfo ENOTFOUND svelte.dev');
  });

  it('npx of a package that does not exist: npm\'s error line, not its "complete log" footer', () => {
    const tail = [
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.invalid/no-such-mcp-server-xyz - Not found',
      'npm error 404',
      "npm error 404  'no-such-mcp-server-xyz@*' is not in this registry.",
      'npm error 404',
      'npm error 404 Note that you can also install from a',
      'npm error 404 tarball, folder, http url, or git url.',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-28T17_00_00_000Z-debug-0.log',
    ];
    assert.equal(startFailureReason(tail), 'npm error 404 Not Found - GET https://registry.invalid/no-such-mcp-server-xyz - Not found');
    assert.equal(startFailureReason(['npm ERR! code ENOENT', 'npm ERR! syscall spawn x', 'npm ERR! enoent spawn x ENOENT', '', 'npm ERR! A complete log of this run can be found in:', 'npm ERR!     /root/.npm/_logs/x.log']), 'npm ERR! enoent spawn x ENOENT');
  });

  it('a Python traceback: the exception line', () => {
    const tail = ['Traceback (most recent call last):', '  File "/srv/server.py", line 3, in <module>', '    import psycopg', "ModuleNotFoundError: No module named 'psycopg'"];
    assert.equal(startFailureReason(tail), "ModuleNotFoundError: No module named 'psycopg'");
    assert.equal(startFailureReason(['Traceback (most recent call last):', '  File "/srv/server.py", line 3, in <module>']), '  File "/srv/server.py", line 3, in <module>');
  });

  it('bystanders: a plain last line stays the reason; an empty tail has none', () => {
    assert.equal(startFailureReason(['starting', 'fatal: DATABASE_URL is not set']), 'fatal: DATABASE_URL is not set');
    assert.equal(startFailureReason([]), undefined);
  });
});
