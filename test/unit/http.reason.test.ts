/**
 * H193: an HTTP error quotes the server's own reason. RFC 9110 §15.5.4: "The 403 (Forbidden) status code indicates
 * that the server understood the request but refuses to fulfill it … a server that wishes to make public why the
 * request has been forbidden can describe that reason in the response content". Only a 401 (or a WWW-Authenticate
 * challenge) blames credentials. Fixtures on 127.0.0.1: a 403 with a body (as Playwright MCP answers when reached at
 * 127.0.0.1), a hostile 403 whose body is huge and full of control characters, and a 401 bystander.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describeError } from '../../src/mcp/errors';

async function answer(status: number, body: string): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(status, { 'content-type': 'text/plain' }); res.end(body); });
  });
  await new Promise<void>(r => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const client = new Client({ name: 't', version: '0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)), { timeout: 5000 });
    return 'connected';
  } catch (err) {
    return describeError('pw', 'initialize', err);
  } finally {
    await client.close().catch(() => undefined);
    server.closeAllConnections();
    await new Promise(r => server.close(r));
  }
}

describe('HTTP errors quote the server\'s reason (H193)', () => {
  it('a 403 with a body shows that body and does not blame credentials', async () => {
    const msg = await answer(403, 'Access is only allowed at localhost:47521');
    assert.match(msg, /HTTP 403 Forbidden: "Access is only allowed at localhost:47521"/);
    assert.doesNotMatch(msg, /credentials|sign-in/);
  });

  it('a hostile 403 body is bounded and escaped', async () => {
    const msg = await answer(403, `\u001b[31mdenied\r\nforged line\u0007${'x'.repeat(100_000)}`);
    assert.match(msg, /"\\u001b\[31mdenied\\r\\nforged line\\u0007x+" … \(\d+ more characters\)/);
    assert.ok(msg.length < 1000, `${msg.length} characters`);
    assert.doesNotMatch(msg, /[\r\n\u0007\u001b]/);
  });

  it('bystander: a 401 still says authorization is required', async () => {
    assert.match(await answer(401, 'no'), /requires authorization \(HTTP 401\)/);
  });
});
