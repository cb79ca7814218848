/**
 * Reliability: the gateway into VS Code's chat, end to end in plain Node. The real host runs fixture servers (the
 * bystander echo.mjs, gateway-claims.mjs, hostile.mjs); the extension's end of the channel (GatewayChannel +
 * GatewayServer) serves it; the gateway process (the compiled src/mcp/gateway/main.ts) is started as VS Code's MCP
 * support starts it, with only its own variables, and an SDK v2 client speaks MCP to it over stdio as VS Code does.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { GatewayChannel, type GatewayTransport } from '../../src/mcp/gateway/channel';
import { GatewayServer } from '../../src/mcp/gateway/server';
import { GATEWAY_ENV, helloLine, newSecret } from '../../src/mcp/gateway/wire';
import { isAlive } from '../../src/mcp/process/processTree';
import { BYSTANDER, MARK, MARK_NAME, marked, startHost, textOf, until, type TestHost } from './helpers';

/** The compiled gateway process (out/src/mcp/gateway/main.js). */
const GATEWAY_MAIN = path.join(__dirname, '..', '..', 'src', 'mcp', 'gateway', 'main.js');

interface Editor { client: Client; transport: StdioClientTransport; pid: number; stderr(): string }

describe('Reliability: the gateway into VS Code\'s chat', function () {
  this.timeout(60_000);
  let t: TestHost | undefined;
  let channel: GatewayChannel | undefined;
  let secret: string;
  const allowed = new Set<string>();
  const disabled = new Set<string>();
  const denied = new Set<string>();
  const gateways: GatewayServer[] = [];
  const sessions: GatewayTransport[] = [];
  const logs: string[] = [];
  const editors: Editor[] = [];

  beforeEach(async () => {
    allowed.clear();
    disabled.clear();
    denied.clear();
    gateways.length = 0;
    sessions.length = 0;
    logs.length = 0;
    t = await startHost([marked('claims', 'gateway-claims'), marked('hostile', 'hostile')], { limits: { maxMessageBytes: 1024 * 1024 } });
    secret = newSecret();
    channel = new GatewayChannel({
      secret: () => secret,
      log: m => logs.push(m),
      maxPending: 4,
      helloTimeoutMs: 500,
      onConnection: tr => {
        sessions.push(tr);
        const g = new GatewayServer({
          host: t!.host, version: 'test',
          allowedWithoutAsking: (s, tool) => allowed.has(`${s}/${tool.name}`),
          gate: { enabled: (s, tool) => !disabled.has(`${s}/${tool}`), allowed: s => !denied.has(s) },
        });
        gateways.push(g);
        void g.connect(tr);
      },
    });
    await channel.listen();
  });
  afterEach(async () => {
    for (const e of editors.splice(0)) await e.client.close().catch(() => undefined);
    channel?.close();
    channel = undefined;
    await t?.close();
    t = undefined;
  });

  /** Starts the gateway process as VS Code's MCP would, with only the channel's variables (and the test's marker). */
  function spawnGateway(withSecret = secret): StdioClientTransport & { err: string[] } {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [GATEWAY_MAIN],
      env: { [GATEWAY_ENV.socket]: channel!.path!, [GATEWAY_ENV.secret]: withSecret, [MARK_NAME]: MARK },
      stderr: 'pipe',
    }) as StdioClientTransport & { err: string[] };
    transport.err = [];
    transport.stderr?.on('data', (c: Buffer) => transport.err.push(c.toString()));
    return transport;
  }

  async function connectEditor(): Promise<Editor> {
    const transport = spawnGateway();
    const client = new Client({ name: 'vscode-stand-in', version: '1.0.0' });
    await client.connect(transport);
    const e = { client, transport, pid: transport.pid!, stderr: () => (transport as unknown as { err: string[] }).err.join('') };
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

  it('H101: refuses a gateway without the secret, a hello that never comes, and a hello that is not one', async () => {
    const good = await connectEditor();
    const bad = spawnGateway('not-the-secret');
    const client = new Client({ name: 'intruder', version: '1.0.0' });
    await assert.rejects(client.connect(bad));
    await until(() => bad.err.join('').includes('MCP Host refused the connection'), `the refused gateway says so: ${bad.err.join('')}`, 10_000);
    await client.close().catch(() => undefined);
    // A raw socket: no hello (closed after the timeout), a request instead of a hello.
    const closedAfter = async (write?: string) => {
      const s = net.createConnection(channel!.path!);
      const got: string[] = [];
      s.on('data', d => got.push(String(d)));
      if (write) s.write(write);
      await new Promise<void>(r => s.once('close', () => r()));
      return got.join('');
    };
    assert.equal(await closedAfter(), '');
    assert.equal(await closedAfter('{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n'), '');
    assert.equal(await closedAfter(helloLine(`${secret}x`)), '');
    assert.equal(sessions.length, 1, 'only the gateway with the secret got a session');
    assert.ok(logs.filter(l => /refused a connection/.test(l)).length >= 4, logs.join('\n'));
    // The good one still works.
    assert.equal(textOf(await good.client.callTool({ name: 'bystander_echo', arguments: { text: 'fine' } }) as { content: unknown }), 'fine');
  });

  it('H102: bounds the requests waiting at once per connection (cancelled ones no longer count)', async () => {
    const { client } = await connectEditor();
    const aborts = [1, 2, 3, 4].map(() => new AbortController());
    const hanging = aborts.map(ac => client.callTool({ name: 'claims_hang', arguments: {} }, { signal: ac.signal }).catch(e => e as Error));
    await until(() => sessions[0].pendingRequests === 4, 'four calls wait', 10_000);
    await assert.rejects(client.callTool({ name: 'bystander_echo', arguments: { text: 'x' } }), /4 requests are already waiting/);
    for (const ac of aborts) ac.abort();
    await Promise.all(hanging);
    await until(() => sessions[0].pendingRequests === 0, 'cancelled calls no longer count', 10_000);
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

  it('H104: the gateway process exits when the extension\'s channel closes', async () => {
    const e = await connectEditor();
    assert.ok(isAlive(e.pid));
    let exited = false;
    e.transport.onclose = () => { exited = true; };
    channel!.close();
    await until(() => exited && !isAlive(e.pid), 'the gateway process exits', 10_000);
    assert.match(e.stderr(), /MCP Host closed the channel/);
  });
});
