/**
 * Connection over stdio against real servers (server-everything, server-memory) and small real
 * node processes for the failure modes.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { Connection } from '../../src/mcp/server/connection';
import { isAlive, listDescendants } from '../../src/mcp/process/processTree';
import type { CreateMessageResult } from '@modelcontextprotocol/client';
import type { SamplingContext } from '../../src/mcp/types';
import { FAST_STOP, bin, collectLogs, stdio, tmpDir, waitForState, ROOT } from '../support/connection';
import { until } from '../support/wait';

const everything = (name = 'everything', extra = {}) => stdio(name, bin('mcp-server-everything'), ['stdio'], extra);
/** A real node process running an inline script (cwd = repo, so the SDK resolves). */
const inline = (name: string, script: string, extra = {}) => stdio(name, process.execPath, ['-e', script], { cwd: ROOT, ...extra });

describe('Connection (stdio, server-everything)', function () {
  this.timeout(60_000);
  let c: Connection;
  before(async () => {
    c = new Connection(everything(), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
  });
  after(async () => { await c?.dispose(); });

  it('H5/H7: is running only after initialize, with the negotiated protocol version, serverInfo and capabilities', () => {
    assert.equal(c.state.kind, 'running');
    if (c.state.kind !== 'running') return;
    assert.equal(c.state.protocolVersion, LATEST_PROTOCOL_VERSION);
    assert.equal(c.state.era, 'legacy', 'server-everything speaks the 2025-11-25 revision: the probe fell back to initialize');
    assert.match(c.state.serverInfo.name, /everything/);
    assert.ok(c.state.capabilities.tools, 'tools capability recorded');
    assert.ok(c.state.capabilities.resources?.subscribe, 'resources.subscribe recorded');
    assert.equal(c.transportKind, 'stdio');
    assert.ok(c.pid && isAlive(c.pid));
  });

  it('H8: declares no sampling capability when no sample/listModels are given', () => {
    const names = c.catalogue.tools.map(t => t.name);
    assert.ok(names.includes('echo'));
    assert.ok(!names.includes('trigger-sampling-request'), 'server saw no sampling capability');
  });

  it('H20: the catalogue holds tools, prompts, resources and templates', () => {
    assert.ok(c.catalogue.tools.length >= 10);
    assert.ok(c.catalogue.prompts.length >= 1);
    assert.ok(c.catalogue.resources.length >= 1);
    assert.ok(c.catalogue.resourceTemplates.length >= 1);
  });

  it('H24: calls a tool and validates arguments against inputSchema before sending (names the field)', async () => {
    const r = await c.callTool('echo', { message: 'hello' });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: hello' }]);
    await assert.rejects(c.callTool('echo', {}), /`arguments\.message` is required/);
    await assert.rejects(c.callTool('echo', { message: 5 }), /arguments\.message.*must be string/);
  });

  it('H25: validates structuredContent against the outputSchema', async () => {
    const r = await c.callTool('get-structured-content', { location: 'New York' });
    assert.equal(typeof (r.structuredContent as { temperature: unknown }).temperature, 'number');
  });

  it('H22: reads text and blob resources', async () => {
    const text = c.catalogue.resources.find(r => r.mimeType?.startsWith('text/'));
    assert.ok(text, 'a text resource exists');
    const r = await c.readResource(text!.uri);
    assert.ok(r.contents.length >= 1);
    assert.equal(typeof (r.contents[0] as { text?: unknown }).text, 'string');
    const tpl = c.catalogue.resourceTemplates.find(t => /blob/i.test(t.uriTemplate));
    if (tpl) {
      const blob = await c.readResource(tpl.uriTemplate.replace(/\{[^}]+\}/, '1'));
      assert.equal(typeof (blob.contents[0] as { blob?: unknown }).blob, 'string');
    }
  });

  it('H23: gets a prompt with arguments and completes an argument (at most 100 values)', async () => {
    const p = c.catalogue.prompts.find(x => (x.arguments ?? []).some(a => a.required));
    assert.ok(p, 'a prompt with required arguments');
    const args = Object.fromEntries((p!.arguments ?? []).map(a => [a.name, 'x']));
    const got = await c.getPrompt(p!.name, args);
    assert.ok(got.messages.length >= 1);
    const withCompletion = c.catalogue.prompts.find(x => /complet/i.test(x.name)) ?? p!;
    const arg = (withCompletion.arguments ?? [])[0];
    const completion = await c.complete({ type: 'ref/prompt', name: withCompletion.name }, { name: arg.name, value: '' });
    assert.ok(Array.isArray(completion.values));
    assert.ok(completion.values.length <= 100);
  });

  it('H22: subscribes and receives resources/updated', async () => {
    const uri = c.catalogue.resources[0].uri;
    const updated = new Promise<string>(resolve => { const d = c.onDidUpdateResource(u => { d.dispose(); resolve(u); }); });
    await c.subscribe(uri);
    await c.callTool('toggle-subscriber-updates', {});
    assert.equal(await updated, uri);
    await c.callTool('toggle-subscriber-updates', {});
    await c.unsubscribe(uri);
  });

  it('H29: sends logging/setLevel and shows notifications/message with level and logger', async () => {
    const logs = collectLogs(c);
    await c.setLogLevel('debug');
    await c.callTool('toggle-simulated-logging', {});
    await until(() => logs.some(l => l.source === 'server'), 'a server log message', 10_000);
    const entry = logs.find(l => l.source === 'server')!;
    assert.ok(entry.mcpLevel, 'keeps the MCP level');
    assert.ok(['debug', 'info', 'warning', 'error'].includes(entry.level));
    await c.callTool('toggle-simulated-logging', {});
  });

  it('H28: progress callbacks, and progress extends the timeout where a plain timeout fails', async () => {
    const progress: number[] = [];
    const r = await c.callTool('trigger-long-running-operation', { duration: 2, steps: 5 }, {
      timeout: 1000, onProgress: p => progress.push(p.progress),
    });
    assert.ok(!r.isError);
    assert.ok(progress.length >= 3, `saw progress ${progress.join(',')}`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] > progress[i - 1], 'progress increases');
    await assert.rejects(
      c.callTool('trigger-long-running-operation', { duration: 2, steps: 5 }, { timeout: 1000 }),
      /did not answer tools\/call within 1 s/,
    );
    assert.equal(c.state.kind, 'running', 'a timeout does not break the connection');
  });

  it('H27: cancels through an AbortSignal and sends notifications/cancelled', async () => {
    const logs = collectLogs(c);
    c.setTrace(true);
    const ac = new AbortController();
    const call = c.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, {
      signal: ac.signal, onProgress: () => ac.abort('user cancelled'),
    });
    await assert.rejects(call, /cancelled/);
    c.setTrace(false);
    await until(() => logs.some(l => l.source === 'trace' && /notifications\/cancelled/.test(l.message)), 'cancel in trace', 5000);
    assert.ok(logs.some(l => l.source === 'trace' && l.message.startsWith('←')), 'incoming messages traced');
    assert.ok(logs.every(l => l.source !== 'trace' || l.level === 'trace'));
    await c.ping();
  });
});

describe('Connection (stdio, features)', function () {
  this.timeout(60_000);

  it('H18/H19: sampling reaches the injected callback with a chosen model, and the server gets role/content/model/stopReason', async () => {
    const seen: SamplingContext[] = [];
    const c = new Connection(everything('sampler'), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
      features: {
        listModels: async () => [{ id: 'small-1', name: 'Small' }, { id: 'big-2', name: 'Big', intelligence: 1 }],
        sample: async ctx => {
          seen.push(ctx);
          return { role: 'assistant', content: { type: 'text', text: 'sampled answer' }, model: ctx.model.id, stopReason: 'endTurn' } as CreateMessageResult;
        },
      },
    });
    try {
      await c.start();
      assert.ok(c.catalogue.tools.some(t => t.name === 'trigger-sampling-request'), 'H8: sampling declared');
      const r = await c.callTool('trigger-sampling-request', { prompt: 'hi', maxTokens: 20 });
      const text = (r.content[0] as { text: string }).text;
      assert.match(text, /sampled answer/);
      assert.match(text, /"model": "small-1"/);
      assert.match(text, /"stopReason": "endTurn"/);
      assert.equal(seen.length, 1);
      assert.equal(seen[0].server, 'sampler');
    } finally {
      await c.dispose();
    }
  });

  it('H18: a refused sampling request reaches the server as an error', async () => {
    const c = new Connection(everything('denier'), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
      features: {
        listModels: async () => [{ id: 'm', name: 'M' }],
        sample: async () => { throw new Error('User rejected sampling request'); },
      },
    });
    try {
      await c.start();
      const r = await c.callTool('trigger-sampling-request', { prompt: 'hi', maxTokens: 20 }).then(
        res => JSON.stringify(res), (err: Error) => err.message);
      assert.match(r, /rejected/i);
      assert.equal(c.state.kind, 'running');
    } finally {
      await c.dispose();
    }
  });

  it('elicitation reaches the injected callback; its answer goes back to the server', async () => {
    const asked: string[] = [];
    const c = new Connection(everything('elicit'), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
      features: { elicit: async (server, req) => { asked.push(`${server}: ${req.message}`); return { action: 'decline' }; } },
    });
    try {
      await c.start();
      assert.ok(c.catalogue.tools.some(t => t.name === 'trigger-elicitation-request'), 'H8: elicitation declared');
      const r = await c.callTool('trigger-elicitation-request', {});
      assert.match(JSON.stringify(r.content), /decline/i);
      assert.equal(asked.length, 1);
      assert.match(asked[0], /^elicit: /);
    } finally {
      await c.dispose();
    }
  });

  it('gives the child the user environment, envFile and env (null removes)', async () => {
    const dir = tmpDir('mcp-env-');
    const envFile = path.join(dir, '.env');
    fs.writeFileSync(envFile, 'FROM_FILE=file-value\n# comment\nOVERRIDDEN=file\n');
    const c = new Connection(everything('env', { envFile, env: { OVERRIDDEN: 'env', FROM_ENV: 'env-value', REMOVED: null } }), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
      baseEnv: { ...process.env, FROM_USER: 'user-value', REMOVED: 'should-go' },
    });
    try {
      await c.start();
      const r = await c.callTool('get-env', {});
      const text = (r.content[0] as { text: string }).text;
      const env = JSON.parse(text) as Record<string, string>;
      assert.equal(env.FROM_USER, 'user-value');
      assert.equal(env.FROM_FILE, 'file-value');
      assert.equal(env.FROM_ENV, 'env-value');
      assert.equal(env.OVERRIDDEN, 'env');
      assert.equal(env.REMOVED, undefined);
    } finally {
      await c.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('secret env values never appear in logs (stderr, trace)', async () => {
    const script = `console.error('my key is ' + process.env.MY_API_KEY); process.exit(1)`;
    const c = new Connection(inline('leaky', script, { env: { MY_API_KEY: 'sk-very-secret-123' } }), { pingIntervalMs: 0 });
    const logs = collectLogs(c);
    await assert.rejects(c.start());
    assert.ok(logs.some(l => l.source === 'stderr' && l.message === 'my key is ***'));
    assert.ok(logs.every(l => !l.message.includes('sk-very-secret-123')));
    assert.ok(c.state.kind === 'error' && !c.state.message.includes('sk-very-secret-123') && c.state.stderrTail.includes('my key is ***'));
  });

  it('H42: server-memory runs on the legacy era with its protocol version; creates and reads entities', async () => {
    const dir = tmpDir('mcp-memory-');
    const c = new Connection(stdio('memory', bin('mcp-server-memory'), [], { env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') } }), {
      pingIntervalMs: 0, stopGrace: FAST_STOP,
    });
    try {
      await c.start();
      assert.ok(c.state.kind === 'running' && c.state.era === 'legacy' && c.state.protocolVersion === '2025-11-25', JSON.stringify(c.state));
      await c.callTool('create_entities', { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] });
      const r = await c.callTool('read_graph', {});
      assert.match(JSON.stringify(r), /Ada/);
      assert.match(JSON.stringify(r), /wrote the first program/);
    } finally {
      await c.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Connection (stdio, failures)', function () {
  this.timeout(60_000);

  it('a command that is not on PATH becomes a readable error state', async () => {
    const c = new Connection(stdio('missing', 'definitely-not-a-real-command-xyz'), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /command `definitely-not-a-real-command-xyz` not found on PATH/);
    assert.equal(c.state.kind, 'error');
    if (c.state.kind === 'error') assert.match(c.state.message, /not found on PATH/);
  });

  it('crash at start: the error state carries the stderr message', async () => {
    const c = new Connection(inline('crasher', "console.error('fatal: missing API key'); process.exit(3)"), { pingIntervalMs: 0 });
    await assert.rejects(c.start(), /exited during startup \(exit code 3\): fatal: missing API key/);
    assert.equal(c.state.kind, 'error');
    if (c.state.kind === 'error') {
      assert.ok(c.state.stderrTail.includes('fatal: missing API key'));
      assert.equal(c.state.crashLoop, false);
    }
  });

  it('H9: a server that never answers initialize fails the start after timeout.startup, and its process is gone', async () => {
    const c = new Connection(inline('mute', 'setInterval(() => {}, 1000)', { timeout: { startup: 800 } }), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    const logs = collectLogs(c);
    c.setTrace(true);
    await assert.rejects(c.start(), /did not answer initialize within 800 ms/);
    assert.equal(c.state.kind, 'error');
    assert.ok(!logs.some(l => /notifications\/cancelled/.test(l.message)), 'H27: initialize is never cancelled');
    const stopped = logs.find(l => /^process tree [\d, ]+ stopped/.test(l.message));
    assert.ok(stopped, 'the half-started process tree was stopped');
    for (const pid of stopped!.message.match(/\d+/g)!.map(Number)) assert.equal(isAlive(pid), false);
  });

  it('H7: a server answering an unsupported protocol version is a clear error', async () => {
    const script = `
      const rl = require('readline').createInterface({ input: process.stdin });
      rl.on('line', l => { const m = JSON.parse(l); if (m.method === 'initialize')
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '1999-01-01', capabilities: {}, serverInfo: { name: 'old', version: '1' } } }) + '\\n'); });`;
    const c = new Connection(inline('old', script), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await assert.rejects(c.start(), /protocol version 1999-01-01, which this host does not support/);
    assert.equal(c.state.kind, 'error');
  });

  it('garbage on stdout is skipped with a warning and the session survives', async () => {
    const script = `
      process.stdout.write('this is not json\\n');
      const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      const s = new McpServer({ name: 'noisy', version: '1' });
      s.registerTool('hi', { description: 'hi' }, async () => { process.stdout.write('{not json either\\n'); return { content: [{ type: 'text', text: 'hello' }] }; });
      s.connect(new StdioServerTransport());`;
    const c = new Connection(inline('noisy', script), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    const logs = collectLogs(c);
    try {
      await c.start();
      const r = await c.callTool('hi', {});
      assert.deepEqual(r.content, [{ type: 'text', text: 'hello' }]);
      assert.ok(logs.some(l => /not valid JSON-RPC/.test(l.message)), 'garbage reported');
      assert.equal(c.state.kind, 'running');
    } finally {
      await c.dispose();
    }
  });

  it('a server\'s own JSON-RPC error -32000 is said as its error, not as "exited before answering" (the SDK\'s ConnectionClosed code)', async () => {
    const script = `
      const { Server } = require('@modelcontextprotocol/sdk/server/index.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      const t = require('@modelcontextprotocol/sdk/types.js');
      const s = new Server({ name: 'own', version: '1' }, { capabilities: { tools: {} } });
      s.setRequestHandler(t.ListToolsRequestSchema, () => ({ tools: [{ name: 'quota', inputSchema: { type: 'object' } }] }));
      s.setRequestHandler(t.CallToolRequestSchema, () => { throw new t.McpError(-32000, 'quota exceeded for today'); });
      s.connect(new StdioServerTransport());`;
    const c = new Connection(inline('own', script), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    try {
      await c.start();
      await assert.rejects(c.callTool('quota', {}), (err: Error) => {
        assert.match(err.message, /tools\/call on server `own` failed \(error -32000\): quota exceeded for today/);
        assert.doesNotMatch(err.message, /exited|closed the connection/);
        return true;
      });
      assert.equal(c.state.kind, 'running');
    } finally {
      await c.dispose();
    }
  });

  it('crash loop: restarts with backoff, then stops after N crashes with crashLoop and the stderr tail', async () => {
    const script = `
      console.error('about to crash');
      const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      const s = new McpServer({ name: 'crashy', version: '1' });
      s.connect(new StdioServerTransport()).then(() => setTimeout(() => process.exit(7), 150));`;
    const c = new Connection(inline('crashy', script), {
      pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { initialDelayMs: 20, maxDelayMs: 100, maxCrashes: 3, windowMs: 60_000 },
    });
    const kinds: string[] = [];
    c.onDidChangeState(s => kinds.push(s.kind));
    await c.start();
    const final = await waitForState(c, s => s.kind === 'error' && s.crashLoop, 20_000);
    assert.ok(final.kind === 'error');
    if (final.kind === 'error') {
      assert.match(final.message, /exit code 7/);
      assert.match(final.message, /crashed 3 times/);
      assert.ok(final.stderrTail.includes('about to crash'));
      assert.equal(final.retryAt, undefined);
    }
    assert.ok(kinds.filter(k => k === 'running').length >= 3, `restarted: ${kinds.join(',')}`);
    await c.stop();
    assert.equal(c.state.kind, 'stopped');
  });

  it('a crash during a request rejects it readably, then the server restarts', async () => {
    const script = `
      const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      const s = new McpServer({ name: 'dies', version: '1' });
      s.registerTool('die', { description: 'exits mid-call' }, async () => { setTimeout(() => process.exit(4), 50); return new Promise(() => {}); });
      s.connect(new StdioServerTransport());`;
    const c = new Connection(inline('dies', script), { pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { initialDelayMs: 50 } });
    try {
      await c.start();
      await assert.rejects(c.callTool('die', {}), /server `dies` exited before answering tools\/call/);
      const s = await waitForState(c, x => x.kind === 'error');
      assert.ok(s.kind === 'error' && /exited unexpectedly \(exit code 4\); restarting in 50 ms/.test(s.message), s.kind === 'error' ? s.message : s.kind);
      await waitForState(c, x => x.kind === 'running', 10_000);
    } finally {
      await c.dispose();
    }
  });

  it('stop() during the backoff cancels the scheduled restart', async () => {
    const script = `
      const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      new McpServer({ name: 'c', version: '1' }).connect(new StdioServerTransport()).then(() => setTimeout(() => process.exit(1), 100));`;
    const c = new Connection(inline('backoff', script), { pingIntervalMs: 0, stopGrace: FAST_STOP, restart: { initialDelayMs: 400 } });
    await c.start();
    const s = await waitForState(c, x => x.kind === 'error');
    assert.ok(s.kind === 'error' && s.retryAt !== undefined);
    await c.stop();
    await new Promise(r => setTimeout(r, 600));
    assert.equal(c.state.kind, 'stopped');
  });

  it('H26: the periodic ping marks a server that stopped answering as dead and restarts it', async () => {
    const script = `
      const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
      const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
      const { PingRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
      const s = new McpServer({ name: 'deaf', version: '1' });
      s.connect(new StdioServerTransport()).then(() => setTimeout(() => s.server.setRequestHandler(PingRequestSchema, () => new Promise(() => {})), 100));`;
    const c = new Connection(inline('deaf', script), { pingIntervalMs: 150, stopGrace: FAST_STOP, restart: { initialDelayMs: 5000 } });
    const logs = collectLogs(c);
    try {
      await c.start();
      const s = await waitForState(c, x => x.kind === 'error', 10_000);
      assert.ok(s.kind === 'error' && /stopped answering ping/.test(s.message) && s.retryAt !== undefined);
      assert.equal(logs.filter(l => /ping failed/.test(l.message)).length, 2);
    } finally {
      await c.dispose();
    }
  });

  it('stop() during a start abandons it at once and stops the process', async () => {
    const c = new Connection(inline('slowstart', 'setInterval(() => {}, 1000)', { timeout: { startup: 20_000 } }), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    const logs = collectLogs(c);
    const starting = c.start();
    await waitForState(c, s => s.kind === 'starting');
    await until(() => logs.some(l => /starting/.test(l.message)), 'a "starting" log line', 5000);
    await new Promise(r => setTimeout(r, 300));
    await c.stop();
    await assert.rejects(starting, /was stopped while starting/);
    assert.equal(c.state.kind, 'stopped');
    const stopped = logs.find(l => /^process tree [\d, ]+ stopped/.test(l.message));
    assert.ok(stopped, 'the process was stopped');
    for (const pid of stopped!.message.match(/\d+/g)!.map(Number)) assert.equal(isAlive(pid), false);
  });

  it('closing rejects pending requests with a readable error', async () => {
    const c = new Connection(everything('closer'), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    const pending = c.callTool('trigger-long-running-operation', { duration: 10, steps: 2 });
    await new Promise(r => setTimeout(r, 200));
    await c.stop();
    await assert.rejects(pending, /server `closer` was stopped before answering tools\/call/);
  });

  it('H11: stop ends the whole process tree (a shell wrapper and its child)', async () => {
    const c = new Connection(stdio('wrapped', '/bin/sh', ['-c', `${JSON.stringify(bin('mcp-server-everything'))} stdio`]), { pingIntervalMs: 0, stopGrace: FAST_STOP });
    await c.start();
    const root = c.pid!;
    const kids = await listDescendants(root);
    await c.stop();
    for (const p of [root, ...kids]) assert.equal(isAlive(p), false, `pid ${p} is gone`);
  });
});
