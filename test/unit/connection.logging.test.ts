/** Log helpers: level mapping, redaction in the trace, readable errors (H29, H30). */
import * as assert from 'node:assert/strict';
import { ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { mapMcpLevel } from '../../src/mcp/logging/logging';
import { Redactor } from '../../src/mcp/logging/redact';
import { describeError } from '../../src/mcp/errors';

describe('Logging and errors', () => {
  it('H29: maps the eight MCP levels onto five', () => {
    assert.equal(mapMcpLevel('debug'), 'debug');
    assert.equal(mapMcpLevel('notice'), 'info');
    assert.equal(mapMcpLevel('warning'), 'warning');
    assert.equal(mapMcpLevel('emergency'), 'error');
  });

  it('redacts env values, headers and bearer tokens; truncates big messages', () => {
    const text = Redactor.none.value({ params: { env: { API_KEY: 'abc123' }, headers: { Authorization: 'Bearer xyz' }, note: 'token Bearer eyJhbGciOi.x.y here' } });
    assert.doesNotMatch(text, /abc123|xyz|eyJhbGciOi/);
    assert.match(text, /API_KEY/);
    assert.equal(Redactor.none.text('Authorization: Bearer s3cr3t'), 'Authorization: Bearer ***');
    const big = Redactor.none.cap(Redactor.none.value({ data: 'x'.repeat(100_000) }), 4096);
    assert.ok(big.cut && big.text.length < 4200);
    assert.match(big.text, /\(\d+ more bytes\)$/);
  });

  it('H30: JSON-RPC errors read as sentences', () => {
    assert.match(describeError('s', 'tools/call', new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')), /does not implement this method \(-32601\)/);
    assert.match(describeError('s', 'tools/call', new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad')), /rejected the arguments \(-32602\)/);
    assert.match(describeError('s', 'resources/read', new ProtocolError(-32002, 'Resource not found')), /resource not found \(-32002\)/);
    assert.match(describeError('s', 'x', new ProtocolError(ProtocolErrorCode.ParseError, 'p')), /could not parse/);
    assert.match(describeError('s', 'x', new ProtocolError(ProtocolErrorCode.InternalError, 'i')), /internal error \(-32603\)/);
    assert.match(describeError('s', 'x', new ProtocolError(ProtocolErrorCode.InvalidRequest, 'r')), /invalid \(-32600\)/);
    assert.match(describeError('s', 'tools/call', new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: 5000 }), 5000), /did not answer tools\/call within 5 s/);
  });
});
