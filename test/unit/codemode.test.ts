/**
 * Code mode's engine (issue 42, H440–H446): a program runs in a fresh QuickJS context, reaches servers only through
 * the injected callTool, and every limit stops a hostile program with a clear error while a well-behaved bystander
 * program (run right after, on the same module) still works.
 */
import * as assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/client';
import { CodeModeError, runProgram, type RunOptions } from '../../src/mcp/codemode/codeModeEngine';
import { codeModeNames, safeIdentifier, type CodeModeServer } from '../../src/mcp/codemode/codeModeNames';
import { describeTools, schemaType } from '../../src/mcp/codemode/codeModeTypes';

const tool = (name: string, inputSchema: Record<string, unknown> = { type: 'object' }, extra: Partial<Tool> = {}): Tool =>
  ({ name, inputSchema, ...extra }) as Tool;
const servers: CodeModeServer[] = [{ name: 'echo', tools: [tool('echo', { type: 'object', properties: { text: { type: 'string' } } })] }];
const echoCall: RunOptions['callTool'] = async (_s, _t, args) => ({ echoed: args.text });
/** A generous slice limit where slicing is not the subject: on a loaded 2-core machine 50 ms of wall time is little. */
const opts = (extra: Partial<RunOptions> = {}): RunOptions => ({ servers, callTool: echoCall, ...extra, limits: { sliceMs: 2_000, ...extra.limits } });

async function rejects(p: Promise<unknown>, kind: string, re: RegExp): Promise<CodeModeError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof CodeModeError, `not a CodeModeError: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, re);
    return err;
  }
  assert.fail('the program was not stopped');
}

/** The bystander: an ordinary program that calls a tool and returns. */
async function bystander(): Promise<void> {
  const r = await runProgram('const a = await mcp.echo.echo({ text: "hi" }); console.log("got", a); return { a, n: 1 + 1 };', opts());
  assert.deepEqual(r.value, { a: { echoed: 'hi' }, n: 2 });
  assert.deepEqual(r.console, ['got {"echoed":"hi"}']);
  assert.deepEqual(r.calls, [{ server: 'echo', tool: 'echo', ok: true }]);
}

describe('code mode engine (issue 42)', function () {
  this.timeout(60_000);

  it('H440: runs a program that calls a tool, logs and returns a value; each run is a fresh context', async () => {
    await bystander();
    await runProgram('globalThis.leak = 42; return 1;', opts());
    const r = await runProgram('return typeof globalThis.leak;', opts());
    assert.equal(r.value, 'undefined');
  });

  it('H441: an endless loop is stopped by the CPU limit (and a synchronous stretch by the slice limit); the bystander works', async () => {
    const started = Date.now();
    await rejects(runProgram('for (;;) {}', opts({ limits: { cpuMs: 300, sliceMs: 10_000 } })), 'cpu', /more than 300 ms of CPU.*mcpHost\.codeModeLimits\.cpuMs/);
    assert.ok(Date.now() - started < 5_000);
    await rejects(runProgram('for (;;) {}', opts({ limits: { sliceMs: 100 } })), 'slice', /100 ms without awaiting.*sliceMs/);
    // CPU time adds up across slices: a loop that awaits between stretches still ends.
    await rejects(runProgram('for (;;) { await mcp.echo.echo({}); for (let i = 0; i < 1e5; i++); }', opts({ limits: { cpuMs: 300, maxToolCalls: 1e9 } })), 'cpu', /CPU/);
    await bystander();
  });

  it('H441: the program runs in slices: the event loop turns between its awaits, even without a tool call', async () => {
    let turns = 0;
    let ticking = true;
    const tick = () => { turns++; if (ticking) setImmediate(tick); };
    setImmediate(tick);
    try {
      // 10 parts of ~20 ms each, 200 ms in all: over the 50 ms slice limit together, under it one by one.
      const r = await runProgram(`
        for (let part = 0; part < 10; part++) { const t = Date.now(); while (Date.now() - t < 20); await null; }
        return await mcp.echo.echo({ text: "end" });`,
      opts({ callTool: async () => ({ turnsSeen: turns }), limits: { sliceMs: 50 } }));
      assert.ok((r.value as { turnsSeen: number }).turnsSeen >= 5, JSON.stringify(r.value));
    } finally {
      ticking = false;
    }
  });

  it('H441: a memory bomb and deep recursion are stopped by the memory and stack limits; the bystander works', async () => {
    await rejects(runProgram('const a = []; for (;;) a.push(new Array(1e5).fill(a.length));', opts({ limits: { memoryBytes: 16 * 1024 * 1024, sliceMs: 5_000 } })), 'memory', /out of memory.*memoryBytes/);
    await rejects(runProgram('const f = (n) => f(n + 1) + 1; return f(0);', opts()), 'stack', /stack.*stackBytes/);
    await bystander();
  });

  it('H442: 10,000 tool calls are stopped at the cap, even when the program catches the error; the bystander works', async () => {
    let served = 0;
    const callTool: RunOptions['callTool'] = async () => ({ n: ++served });
    const err = await rejects(
      runProgram('for (let i = 0; i < 10000; i++) { try { await mcp.echo.echo({}); } catch {} } return "done";', opts({ callTool, limits: { maxToolCalls: 20 } })),
      'toolCalls', /more than 20 tool calls.*maxToolCalls/);
    assert.equal(served, 20);
    assert.equal(err.calls.length, 20);
    await bystander();
  });

  it('H443: a huge return value is refused and console output is bounded; the bystander works', async () => {
    await rejects(runProgram('return "x".repeat(200000);', opts({ limits: { outputBytes: 1000 } })), 'output', /return value is 200002 bytes, over 1000/);
    const r = await runProgram('for (let i = 0; i < 1000; i++) console.log("line " + i); return 1;', opts({ limits: { outputBytes: 100 } }));
    assert.ok(r.console.length < 20);
    assert.match(r.console[r.console.length - 1], /console output cut at 100 bytes/);
    await bystander();
  });

  it('H444: no host object is reachable: require, process, globalThis escapes, prototype tricks; the bystander works', async () => {
    const r = await runProgram(`
      const out = {};
      out.require = typeof require; out.process = typeof process; out.module = typeof module; out.Buffer = typeof Buffer;
      out.fetch = typeof fetch; out.setTimeout = typeof setTimeout; out.hostCall = typeof globalThis.__mcpHostCall;
      out.ctorProcess = (() => { try { return (function(){}).constructor('return typeof process')(); } catch (e) { return 'threw'; } })();
      out.protoMcp = Object.getPrototypeOf(mcp); out.protoServer = Object.getPrototypeOf(mcp.echo);
      out.ctorOfTool = await mcp.echo.echo.constructor('return typeof require')();
      out.globals = Object.getOwnPropertyNames(globalThis).filter(n => /require|process|host|__/i.test(n));
      try { mcp.echo.evil = 1; } catch {} out.frozen = 'evil' in mcp.echo;
      try { globalThis.mcp = 1; } catch {} out.mcpKept = typeof mcp;
      return out;`, opts());
    assert.deepEqual(r.value, {
      require: 'undefined', process: 'undefined', module: 'undefined', Buffer: 'undefined', fetch: 'undefined', setTimeout: 'undefined',
      hostCall: 'undefined', ctorProcess: 'undefined', protoMcp: null, protoServer: null, ctorOfTool: 'undefined', globals: [],
      frozen: false, mcpKept: 'object',
    });
    // Poisoning the guest's JSON or Object.prototype changes nothing on the host side: the encoder was captured first.
    const p = await runProgram('JSON.stringify = () => "{\\"pwned\\":1}"; Object.prototype.polluted = 1; return { ok: ({}).polluted };', opts());
    assert.deepEqual(p.value, { ok: 1 });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    await rejects(runProgram('await new Promise(() => {});', opts()), 'stalled', /never settles/);
    await rejects(runProgram('throw new TypeError("mine")', opts()), 'program', /TypeError: mine/);
    await rejects(runProgram('this is not javascript', opts()), 'program', /SyntaxError/);
    await bystander();
  });

  it('H445: a tool denied by the caller\'s gate ends the program with an error the model sees; the bystander works', async () => {
    const gated: RunOptions['callTool'] = async (server, name, args, signal) => {
      if (name === 'secret') throw new Error(`${server}/${name} is not allowed: grant it with --allow ${server}/${name}`);
      return echoCall(server, name, args, signal);
    };
    const s: CodeModeServer[] = [{ name: 'echo', tools: [tool('echo'), tool('secret')] }];
    const err = await rejects(runProgram('await mcp.echo.echo({ text: "a" }); return await mcp.echo.secret({});', { servers: s, callTool: gated, limits: { sliceMs: 2_000 } }), 'program',
      /mcp\.echo\.secret: echo\/secret is not allowed: grant it with --allow echo\/secret/);
    assert.deepEqual(err.calls, [{ server: 'echo', tool: 'echo', ok: true }, { server: 'echo', tool: 'secret', ok: false }]);
    await bystander();
  });

  it('H446: names are mangled deterministically; a path-like or colliding tool name maps back to its real (server, tool)', async () => {
    assert.equal(safeIdentifier('../../etc/passwd'), '______etc_passwd');
    assert.equal(safeIdentifier('9lives'), '_9lives');
    assert.equal(safeIdentifier('__proto__'), '___proto__');
    assert.equal(safeIdentifier('constructor'), '_constructor');
    const s: CodeModeServer[] = [{ name: 'my-server', tools: [tool('a.b'), tool('a-b'), tool('../x'), tool('__proto__')] }, { name: 'my_server', tools: [tool('t')] }];
    const table = codeModeNames(s);
    const flat = [...table.servers].map(([sid, e]) => [sid, e.server, [...e.tools].map(([tid, t]) => [tid, t.name])]);
    assert.deepEqual(flat, [
      ['my_server', 'my-server', [['___x', '../x'], ['___proto__', '__proto__'], ['a_b', 'a-b'], ['a_b_2', 'a.b']]],
      ['my_server_2', 'my_server', [['t', 't']]],
    ]);
    assert.deepEqual(codeModeNames([...s].reverse()), table);
    const seen: string[] = [];
    const r = await runProgram('await mcp.my_server.___x({}); await mcp.my_server.a_b_2({}); await mcp.my_server_2.t({}); return Object.keys(mcp.my_server);',
      { servers: s, callTool: async (server, name) => { seen.push(`${server}/${name}`); return null; }, limits: { sliceMs: 2_000 } });
    assert.deepEqual(seen, ['my-server/../x', 'my-server/a.b', 'my_server/t']);
    assert.deepEqual(r.value, ['___x', '___proto__', 'a_b', 'a_b_2']);
  });

  it('H447: generates TypeScript-like types for each schema keyword', () => {
    const cases: [unknown, string][] = [
      [{ type: 'string' }, 'string'], [{ type: 'number' }, 'number'], [{ type: 'integer' }, 'number'], [{ type: 'boolean' }, 'boolean'],
      [{ type: 'null' }, 'null'], [{ enum: ['a', 1, null] }, '"a" | 1 | null'], [{ const: 'x' }, '"x"'],
      [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'string | number'], [{ oneOf: [{ type: 'boolean' }, { type: 'null' }] }, 'boolean | null'],
      [{ type: 'array', items: { type: 'string' } }, 'string[]'], [{ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, '(string | number)[]'],
      [{ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] }, '[string, number]'],
      [{ type: 'object', properties: { a: { type: 'string' }, 'b-c': { type: 'number' } }, required: ['a'] }, '{ a: string; "b-c"?: number }'],
      [{ type: 'object', properties: { o: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } } }, '{ o?: { x: number } }'],
      [{ type: 'object', additionalProperties: { type: 'boolean' } }, '{ [key: string]: boolean }'], [{ type: 'object' }, 'Record<string, unknown>'],
      [{ type: ['string', 'null'] }, 'string | null'], [{ $ref: '#/defs/x' }, 'unknown'], [undefined, 'unknown'], [{}, 'unknown'],
    ];
    for (const [schema, expected] of cases) assert.equal(schemaType(schema), expected, JSON.stringify(schema));
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 50; i++) deep = { type: 'array', items: deep };
    assert.match(schemaType(deep), /^unknown(\[\])+$/);
    const text = describeTools([{ name: 'files', tools: [tool('read-file', { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      { description: 'Reads a file. */ evil', outputSchema: { type: 'object', properties: { text: { type: 'string' } } } })] }]);
    assert.equal(text, [
      'declare const mcp: {', '  /** Server "files" */', '  files: {', '    /** Reads a file. * / evil */',
      '    read_file(args: { path: string }): Promise<{ text?: string }>;', '  };', '};',
    ].join('\n'));
  });
});

describe('code mode runs in a worker, off the caller\'s thread (issue 41)', function () {
  this.timeout(60_000);

  it('H646: a runaway program is stopped by the slice limit with the same error while a main-thread timer keeps firing and a bystander program finishes', async () => {
    let looping = false;
    let ticksWhileLooping = 0;
    const timer = setInterval(() => { if (looping) ticksWhileLooping++; }, 5);
    try {
      // The loop starts once its tool call is answered, and holds its thread for 1 s of CPU time: before issue 41 that
      // thread was this one, and the timer could not fire until the slice limit stopped it.
      const runaway = runProgram('await mcp.echo.echo({}); for (;;) {}', opts({ callTool: async () => { looping = true; return {}; }, limits: { sliceMs: 1_000 } }))
        .finally(() => { looping = false; });
      const bystanding = bystander();
      await rejects(runaway, 'slice', /^The program ran 1000 ms without awaiting and was stopped \(setting mcpHost\.codeModeLimits\.sliceMs\)\. Split long work with `await null` between parts\.$/);
      await bystanding;
      assert.ok(ticksWhileLooping >= 10, `the main thread's timer fired ${ticksWhileLooping} times while the program looped`);
    } finally {
      clearInterval(timer);
    }
    // The default limit's wording, as before.
    await rejects(runProgram('for (;;) {}', opts({ limits: { sliceMs: 50 } })), 'slice', /^The program ran 50 ms without awaiting and was stopped \(setting mcpHost\.codeModeLimits\.sliceMs\)/);
    await bystander();
  });

  it('H647: cancelling a run stops a program inside a long synchronous stretch (not at its limit) with "cancelled"; the bystander works', async () => {
    const stop = new AbortController();
    const err = await rejects(runProgram('await mcp.echo.echo({}); for (;;) {}', opts({
      callTool: async () => { setTimeout(() => stop.abort(), 50); return {}; },
      limits: { sliceMs: 30_000, cpuMs: 30_000 }, signal: stop.signal,
    })), 'aborted', /^The program was cancelled\.$/);
    assert.deepEqual(err.calls, [{ server: 'echo', tool: 'echo', ok: true }]);
    await bystander();
  });
});
