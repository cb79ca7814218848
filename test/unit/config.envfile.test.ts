import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadEnvironment, parseDotenv } from '../../src/mcp/config';
import type { StdioServerDefinition } from '../../src/mcp/types';

const FIXTURES = path.resolve(__dirname, '../../../test/fixtures/config');

describe('config envFile (parseDotenv, loadEnvironment)', () => {
  it('parses KEY=VALUE, export, comments, quotes, escapes and multi-line values', () => {
    const { vars, problems } = parseDotenv(fs.readFileSync(path.join(FIXTURES, 'sample.env'), 'utf8'));
    assert.deepEqual(vars, {
      PLAIN: 'value',
      EXPORTED: 'yes',
      SPACED: 'around equals',
      INLINE: 'kept',
      HASH: 'a#b',
      EMPTY: '',
      SINGLE: 'single $HOME \\n raw',
      DOUBLE: 'line1\nline2\ttab "quoted" \\ backslash',
      BACKTICK: 'back tick',
      MULTI: 'first\nsecond',
      QUOTED_COMMENT: 'x',
      OVERRIDE: 'second',
    });
    assert.deepEqual(problems.map(p => p.line), [16, 17]);
    assert.match(problems[0].message, /line 16 has no `=`/);
    assert.match(problems[1].message, /not a valid variable name/);
    assert.doesNotMatch(problems.map(p => p.message).join(' '), /valid line|1BAD/, 'problems never quote the line');
  });

  it('handles CRLF, a BOM, no trailing newline and an unclosed quote (reported; the lines after it still count)', () => {
    assert.deepEqual(parseDotenv('\uFEFFA=1\r\nB="2"\r\nC=3').vars, { A: '1', B: '2', C: '3' });
    const r = parseDotenv('A=1\nB="never closed\nC=3\nD=\'x\'\n');
    assert.deepEqual(r.vars, { A: '1', C: '3', D: 'x' });
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0].message, /line 2: the value of B opens a double quote that is never closed/);
    assert.deepEqual(parseDotenv('').vars, {});
  });

  describe('loadEnvironment', () => {
    let dir: string;
    before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-envfile-')); });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const def = (over: Partial<StdioServerDefinition>): StdioServerDefinition => ({ name: 'srv', type: 'stdio', command: 'x', args: [], env: {}, ...over });

    it('layers the user environment, then envFile, then env (null deletes)', async () => {
      const file = path.join(dir, '.env');
      fs.writeFileSync(file, 'FROM_FILE=file\nSHARED=file\nDROP_ME=file\n');
      const r = await loadEnvironment(def({ envFile: file, env: { SHARED: 'env', FROM_ENV: 'env', DROP_ME: null, HOME: null } }),
        { PATH: '/usr/bin', HOME: '/home/me', SHARED: 'base', UNDEF: undefined });
      assert.equal(r.error, undefined);
      assert.deepEqual(r.env, { PATH: '/usr/bin', SHARED: 'env', FROM_FILE: 'file', FROM_ENV: 'env' });
    });

    it('defaults to this process\'s environment', async () => {
      const r = await loadEnvironment(def({ env: { EXTRA: '1' } }));
      assert.equal(r.env!.PATH, process.env.PATH);
      assert.equal(r.env!.EXTRA, '1');
    });

    it('on Windows, names match case-insensitively', async () => {
      const r = await loadEnvironment(def({ env: { PATH: 'C:\\bin', temp: null } }), { Path: 'C:\\old', TEMP: 'C:\\tmp', X: '1' }, { platform: 'win32' });
      assert.deepEqual(r.env, { PATH: 'C:\\bin', X: '1' });
    });

    it('a missing envFile is an error naming the setting; its content is never shown', async () => {
      const missing = path.join(dir, 'nope.env');
      const r = await loadEnvironment(def({ envFile: missing }), {}, { settingPrefix: 'servers' });
      assert.ok(r.error);
      assert.equal(r.error.server, 'srv');
      assert.equal(r.error.path, 'servers.srv.envFile');
      assert.match(r.error.message, /servers\.srv\.envFile is ".*nope\.env", which does not exist; create it or fix the path/);
      const isDir = await loadEnvironment(def({ envFile: dir }), {});
      assert.match(isDir.error!.message, /is a directory/);
    });

    it('bad lines in the envFile are warnings; the rest loads', async () => {
      const file = path.join(dir, 'bad.env');
      fs.writeFileSync(file, 'GOOD=1\nSECRET_LINE_WITHOUT_EQUALS\n');
      const r = await loadEnvironment(def({ envFile: file }), {});
      assert.deepEqual(r.env, { GOOD: '1' });
      assert.equal(r.warnings.length, 1);
      assert.equal(r.warnings[0].path, 'mcpHost.servers.srv.envFile');
      assert.match(r.warnings[0].message, /line 2 has no `=`/);
      assert.doesNotMatch(r.warnings[0].message, /SECRET_LINE/);
    });

    it('http servers get the base environment unchanged', async () => {
      const r = await loadEnvironment({ name: 'h', type: 'http', url: 'https://x', headers: {} }, { A: '1' });
      assert.deepEqual(r.env, { A: '1' });
    });
  });
});
