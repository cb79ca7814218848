/** The CLI's small parts: argument parsing, input variable names, elicitation defaults, the headless browser step. */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs, parsePromptArgs, parseToolArgs, UsageError } from '../../src/cli/args';
import { applyElicitDefaults } from '../../src/cli/conformance/client';
import { fetchAuthorizationCode } from '../../src/cli/conformance/oauth';
import { inputEnvName } from '../../src/cli/inputs';

describe('mcp-host CLI parts', () => {
  it('parses positionals, value options (both spellings), repeated --arg and flags', () => {
    const a = parseArgs(['call', 'srv', '--config=x.json', '--args', '{"a":1}', '--arg', 'k=v', '--arg', 'q=a=b', '--json', '-v', '--timeout', '500']);
    assert.deepEqual(a.positionals, ['call', 'srv']);
    assert.equal(a.config, 'x.json');
    assert.equal(a.args, '{"a":1}');
    assert.deepEqual(a.arg, ['k=v', 'q=a=b']);
    assert.equal(a.json, true);
    assert.equal(a.verbose, true);
    assert.equal(a.timeout, 500);
    assert.deepEqual(parseArgs(['x', '--', '--not-an-option']).positionals, ['x', '--not-an-option']);
  });

  it('rejects unknown options, missing values and bad numbers as usage errors', () => {
    for (const argv of [['--nope'], ['--config'], ['--timeout', 'soon'], ['--timeout', '-5']]) {
      assert.throws(() => parseArgs(argv), (e: unknown) => e instanceof UsageError && e.exitCode === 2, argv.join(' '));
    }
  });

  it('tool arguments must be a JSON object; prompt arguments split at the first =', () => {
    assert.deepEqual(parseToolArgs(undefined), {});
    assert.deepEqual(parseToolArgs('{"message":"hi"}'), { message: 'hi' });
    assert.throws(() => parseToolArgs('[1]'), /must be a JSON object/);
    assert.throws(() => parseToolArgs('{oops'), /not valid JSON/);
    assert.deepEqual(parsePromptArgs(['city=Paris', 'q=a=b', 'empty=']), { city: 'Paris', q: 'a=b', empty: '' });
    assert.throws(() => parsePromptArgs(['novalue']), /name=value/);
  });

  it('names the environment variable of an input', () => {
    assert.equal(inputEnvName('api-token'), 'MCP_HOST_INPUT_API_TOKEN');
    assert.equal(inputEnvName('memoryFile'), 'MCP_HOST_INPUT_MEMORYFILE');
  });

  it('fills elicitation defaults only for fields left out (SEP-1034)', () => {
    const params = {
      message: 'm',
      requestedSchema: {
        type: 'object' as const,
        properties: {
          name: { type: 'string' as const, default: 'John' },
          age: { type: 'integer' as const, default: 30 },
          note: { type: 'string' as const },
        },
      },
    };
    assert.deepEqual(applyElicitDefaults(params, { name: 'Ann' }), { name: 'Ann', age: 30 });
  });

  it('the headless browser step takes the code and the RFC 9207 iss from the redirect and checks state', async () => {
    let mode: 'ok' | 'iss' | 'wrong-state' | 'error' = 'ok';
    const server = http.createServer((req, res) => {
      const q = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
      const back = new URL(q.get('redirect_uri') ?? '');
      if (mode === 'error') back.searchParams.set('error', 'access_denied');
      else {
        back.searchParams.set('code', 'the-code');
        back.searchParams.set('state', mode === 'wrong-state' ? 'forged' : q.get('state') ?? '');
        if (mode === 'iss') back.searchParams.set('iss', 'https://as.example/');
      }
      res.writeHead(302, { Location: back.href }).end();
    });
    await new Promise<void>(r => server.listen(0, '127.0.0.1', () => r()));
    try {
      const { port } = server.address() as AddressInfo;
      const url = new URL(`http://127.0.0.1:${port}/authorize?redirect_uri=${encodeURIComponent('http://127.0.0.1:1/cb')}&state=st4te`);
      assert.deepEqual(await fetchAuthorizationCode(url), { code: 'the-code' });
      mode = 'iss';
      assert.deepEqual(await fetchAuthorizationCode(url), { code: 'the-code', iss: 'https://as.example/' });
      mode = 'wrong-state';
      await assert.rejects(fetchAuthorizationCode(url), /different state/);
      mode = 'error';
      await assert.rejects(fetchAuthorizationCode(url), /access_denied/);
    } finally {
      server.close();
    }
  });
});
