/**
 * The gateway into VS Code's chat, its plain parts: the names it gives tools and prompts, the resource URIs and the
 * secret comparison. Its HTTP listener: test/unit/gateway.http.test.ts.
 */
import * as assert from 'node:assert/strict';
import { GatewayNames, gatewayName, MAX_GATEWAY_NAME, sanitiseName } from '../../src/mcp/gateway/names';
import { parseResourceUri, resourceUri } from '../../src/mcp/gateway/gatewayUris';
import { newSecret, secretsEqual } from '../../src/mcp/gateway/wire';

describe('Gateway: names, URIs, secret', () => {
  it('H97: names are <server>_<name> in the tool-name charset, at most 48 characters, unique across servers', () => {
    assert.equal(gatewayName('files', 'read_file'), 'files_read_file');
    assert.equal(sanitiseName('weird name/ü.x'), 'weird_name_x');
    const long = gatewayName('server', 'x'.repeat(100));
    assert.equal(long.length, MAX_GATEWAY_NAME);
    assert.match(long, /^server_x+_[0-9a-f]{6}$/);
    assert.notEqual(gatewayName('server', `${'x'.repeat(100)}a`), long, 'two long names cut alike stay apart (hash)');
    const names = new GatewayNames();
    const a = names.assign('a_b', 'c');
    const b = names.assign('a', 'b_c');
    const c = names.assign('a', 'b.c');
    assert.deepEqual([a, b, c], ['a_b_c', 'a_b_c_2', 'a_b_c_3']);
    assert.deepEqual(names.lookup('a_b_c_2'), { server: 'a', name: 'b_c' });
    assert.deepEqual(names.lookup('A_B_C_3'), { server: 'a', name: 'b.c' }, 'case-insensitive lookup');
    for (const n of [a, b, c, long]) assert.match(n, /^[A-Za-z0-9_-]{1,48}$/);
  });

  it('H97: resource URIs name their server and survive any original URI', () => {
    for (const [server, uri] of [['files', 'file:///a b/c?d#e'], ['x/y', 'note://one'], ['ü', 'mcp-host-gateway://z/w']]) {
      assert.deepEqual(parseResourceUri(resourceUri(server, uri)), { server, uri });
    }
    assert.equal(parseResourceUri('file:///etc/passwd'), undefined);
    assert.equal(parseResourceUri('mcp-host-gateway://%E0%A4%A/x'), undefined, 'a malformed escape is no resource');
  });

  it('H101: the secret is compared in constant time over digests', () => {
    const s = newSecret();
    assert.ok(s.length >= 40);
    assert.ok(secretsEqual(s, s));
    assert.ok(!secretsEqual(s, `${s}x`));
    assert.ok(!secretsEqual(s, ''));
  });
});
