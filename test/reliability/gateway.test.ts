/**
 * Reliability: the gateway into VS Code's chat, end to end in plain Node. The real host runs fixture servers (the
 * bystander echo.mjs, gateway-claims.mjs, hostile.mjs); the gateway's loopback HTTP listener (src/mcp/gateway/http.ts,
 * issue 41) with a GatewayServer per session serves it in this process, and an SDK v2 client speaks MCP to it over
 * Streamable HTTP with the window's secret, as VS Code does.
 */
import * as assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { GatewayHttpListener } from '../../src/mcp/gateway/http';
import { gatewaySession } from '../../src/mcp/gateway/httpSession';
import type { GatewayServer } from '../../src/mcp/gateway/server';
import { newSecret } from '../../src/mcp/gateway/wire';
import { BYSTANDER, marked, startHost, textOf, until, type TestHost } from './helpers';

interface Editor { client: Client; transport: StreamableHTTPClientTransport }

describe('Reliability: the gateway into VS Code\'s chat', function () {
  this.timeout(60_000);
  let t: TestHost | undefined;
  let listener: GatewayHttpListener | undefined;
  let secret: string;
  const allowed = new Set<string>();
  const disabled = new Set<string>();
  const denied = new Set<string>();
  const gateways: GatewayServer[] = [];
  const logs: string[] = [];
  const editors: Editor[] = [];

  beforeEach(async () => {
    allowed.clear();
    disabled.clear();
    denied.clear();
    gateways.length = 0;
    logs.length = 0;
    t = await startHost([marked('claims', 'gateway-claims'), marked('hostile', 'hostile')], { limits: { maxMessageBytes: 1024 * 1024 } });
    secret = newSecret();
    listener = new GatewayHttpListener({
      secret: () => secret,
      log: m => logs.push(m),
      // Four calls waiting at once, plus the client's event stream.
      maxRequests: 5,
      newSession: max => gatewaySession({
        host: t!.host, version: 'test',
        allowedWithoutAsking: (s, tool) => allowed.has(`${s}/${tool.name}`),
        gate: { enabled: (s, tool) => !disabled.has(`${s}/${tool}`), allowed: s => !denied.has(s) },
      }, max, g => gateways.push(g)),
    });
    await listener.listen();
  });
  afterEach(async () => {
    for (const e of editors.splice(0)) await e.client.close().catch(() => undefined);
    listener?.close();
    listener = undefined;
    await t?.close();
    t = undefined;
  });

  function transportFor(withSecret: string | null = secret): StreamableHTTPClientTransport {
    return new StreamableHTTPClientTransport(new URL(listener!.url!), { requestInit: { headers: withSecret === null ? {} : { Authorization: `Bearer ${withSecret}` } } });
  }

  async function connectEditor(): Promise<Editor> {
    const transport = transportFor();
    const client = new Client({ name: 'vscode-stand-in', version: '1.0.0' });
    await client.connect(transport);
    const e = { client, transport };
    editors.push(e);
    return e;
  }

  it('H97: offers every running server\'s tools under unique names in the tool-name charset, none only for app views', async () => {
    const { client } = await connectEditor();
    const { tools } = await client.listTools();
    const names = tools.map(x => x.name);
    for (const n of ['bystander_echo', 'claims_echo', 'claims_read_notes', 'claims_delete_all', 'claims_weird_name_', 'hostile_echo']) assert.ok(names.includes(n), `${n} in ${names.join(', ')}`);
    assert.ok(!names.some(n => /app_only/.test(n)), 'an app-only tool is never offered to a model');
    assert.equal(new Set(names.map(n => n.toLowerCase())).size, names.length, 'unique');
    for (const n of names) assert.match(n, /^[A-Za-z0-9_-]{1,48}$/);
    assert.ok(names.some(n => n.startsWith('claims_long_x') && n.length === 48), 'the long name is cut to 48');
    // The renamed weird tool still reaches the server under its own name.
    assert.equal(textOf(await client.callTool({ name: 'claims_weird_name_', arguments: { text: 'ok' } }) as { content: unknown }), 'weird name/ü: ok');
  });

  it('H98: never forwards a server\'s readOnlyHint; forwards it only for a tool the user allowed always in MCP Host', async () => {
    const { client } = await connectEditor();
    const find = async (n: string) => (await client.listTools()).tools.find(x => x.name === n)!;
    assert.equal((await find('claims_read_notes')).annotations?.readOnlyHint, undefined, 'the claim is not forwarded');
    assert.equal((await find('claims_delete_all')).annotations?.readOnlyHint, undefined);
    assert.equal((await find('claims_delete_all')).annotations?.destructiveHint, true, 'other hints are display only and pass');
    allowed.add('claims/read_notes');
    assert.equal((await find('claims_read_notes')).annotations?.readOnlyHint, true, 'allowed always in MCP Host: VS Code need not ask');
    assert.equal((await find('claims_delete_all')).annotations?.readOnlyHint, undefined);
  });

  it('H99: tool calls, prompts and resources reach the servers through the host, and History records them', async () => {
    const { client } = await connectEditor();
    const r = await client.callTool({ name: 'claims_echo', arguments: { text: 'through the host' } });
    assert.equal(textOf(r as { content: unknown }), 'echo: through the host');
    const last = t!.get('claims').history.at(-1)!;
    assert.equal(last.method, 'tools/call');
    assert.equal(last.target, 'echo');
    assert.equal(last.by, 'model');
    const { prompts } = await client.listPrompts();
    assert.ok(prompts.some(p => p.name === 'claims_greet'));
    const p = await client.getPrompt({ name: 'claims_greet', arguments: { who: 'Ada' } });
    assert.match(JSON.stringify(p.messages), /Hello, Ada/);
    const { resources } = await client.listResources();
    const note = resources.find(x => x.name === 'one')!;
    assert.equal(note.uri, 'mcp-host-gateway://claims/note%3A%2F%2Fone');
    const read = await client.readResource({ uri: note.uri });
    assert.deepEqual(read.contents.map(c => [c.uri, 'text' in c ? c.text : '']), [[note.uri, 'one']]);
    const unknown = await client.callTool({ name: 'claims_nope', arguments: {} });
    assert.equal(unknown.isError, true);
  });

  it('H100: follows a server\'s list_changed with its own', async () => {
    const { client } = await connectEditor();
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => { changed++; });
    await client.callTool({ name: 'claims_add_tool', arguments: { name: 'fresh' } });
    await until(() => changed > 0, 'the gateway sends tools/list_changed', 10_000);
    await until(async () => (await client.listTools()).tools.some(x => x.name === 'claims_fresh'), 'the new tool is listed', 10_000);
  });

  it('H521: the one model-tool gate, as the gateway is given it: a tool turned off for models, then a denied server, is neither listed nor callable, and each change is announced', async () => {
    const { client } = await connectEditor();
    let changed = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => { changed++; });
    disabled.add('claims/echo');
    gateways[0].listsChanged();
    await until(() => changed > 0, 'list_changed after the switch', 10_000);
    const names = (await client.listTools()).tools.map(x => x.name);
    assert.ok(!names.includes('claims_echo') && names.includes('bystander_echo'), names.join(', '));
    const refused = await client.callTool({ name: 'claims_echo', arguments: { text: 'x' } });
    assert.equal(refused.isError, true);
    assert.ok(!t!.get('claims').history.some(h => h.target === 'echo'), 'nothing reached the server');
    const before = changed;
    denied.add('claims');
    gateways[0].listsChanged();
    await until(() => changed > before, 'list_changed after the denial', 10_000);
    const left = (await client.listTools()).tools.map(x => x.name);
    assert.ok(!left.some(n => n.startsWith('claims_')) && left.includes('bystander_echo'), left.join(', '));
    assert.equal((await client.callTool({ name: 'claims_add_tool', arguments: { name: 'x' } })).isError, true);
  });

  it('H101/H576: refuses a client without the secret or with a wrong one (403, no session); the good one keeps working', async () => {
    const good = await connectEditor();
    for (const bad of ['not-the-secret', `${secret}x`, null]) {
      const client = new Client({ name: 'intruder', version: '1.0.0' });
      await assert.rejects(client.connect(transportFor(bad)), /403|secret/);
      await client.close().catch(() => undefined);
    }
    assert.equal(gateways.length, 1, 'only the client with the secret got a session');
    assert.equal(listener!.connections, 1);
    assert.ok(listener!.refused.secret >= 3);
    assert.equal(textOf(await good.client.callTool({ name: 'bystander_echo', arguments: { text: 'fine' } }) as { content: unknown }), 'fine');
  });

  it('H102/H579: bounds the requests answered at once (cancelled ones no longer count)', async () => {
    const { client } = await connectEditor();
    const aborts = [1, 2, 3, 4].map(() => new AbortController());
    const hanging = aborts.map(ac => client.callTool({ name: 'claims_hang', arguments: {} }, { signal: ac.signal }).catch(e => e as Error));
    await until(() => listener!.requests === 5, 'four calls wait (and the event stream is open)', 10_000);
    await assert.rejects(client.callTool({ name: 'bystander_echo', arguments: { text: 'x' } }), /503|already being answered/);
    for (const ac of aborts) ac.abort();
    await Promise.all(hanging);
    await until(() => listener!.requests <= 1, 'cancelled calls no longer count', 10_000);
    assert.equal(textOf(await client.callTool({ name: 'bystander_echo', arguments: { text: 'after' } }) as { content: unknown }), 'after');
  });

  it('H103: a hostile server behind the gateway fails alone: an answer over the host\'s cap is an error, the others keep working', async () => {
    const { client } = await connectEditor();
    const huge = await client.callTool({ name: 'hostile_huge', arguments: { mb: 3 } });
    assert.equal(huge.isError, true);
    assert.match(textOf(huge as { content: unknown }), /The tool call failed/);
    assert.equal(textOf(await client.callTool({ name: 'bystander_echo', arguments: { text: 'still here' } }) as { content: unknown }), 'still here');
    await t!.assertBystanderUndisturbed();
    void BYSTANDER;
  });

  it('H104/H581: closing the listener ends the sessions; the client\'s next request fails', async () => {
    const e = await connectEditor();
    listener!.close();
    assert.equal(listener!.connections, 0);
    assert.equal(gateways.length, 1);
    await assert.rejects(e.client.callTool({ name: 'bystander_echo', arguments: { text: 'x' } }));
  });
});
