/**
 * `mcp-host call … --elicit '<json object>'` (H111/H112) on the production dist/cli.js against the reference
 * server-everything: its form elicitation answered for a plain call (`trigger-elicitation-request`) and for a
 * 2025-11-25 task that asks for input (`simulate-research-query` with an ambiguous topic), with no terminal.
 * Bad JSON, or content that does not fit the requested schema, fails with a message naming the server, the
 * flag and the fix, exit 2, and no server process is left (a task is cancelled first). Without the flag, on a
 * terminal, the form is asked field by field; without a terminal no elicitation is offered, as before.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { processesIn, useShippedCli } from '../support/cli';

const ROOT = path.resolve(__dirname, '../../..');

describe('mcp-host call --elicit (dist/cli.js, server-everything)', function () {
  this.timeout(120_000);
  const ws = useShippedCli('mcp-host-cli-elicit-', ({ serverCwd }) => ({
    everything: { type: 'stdio', command: path.join(ROOT, 'node_modules/.bin/mcp-server-everything'), args: ['stdio'], cwd: serverCwd },
  }));
  const cli = (args: string[]) => ws.run(args);

  it('H111: answers a plain call\'s form with the given fields and the schema\'s defaults for the rest', async () => {
    const r = await cli(['call', 'everything', 'trigger-elicitation-request', '--elicit', '{"name":"Ada","check":true,"email":"ada@example.com","notAField":1}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /User provided the requested information/);
    assert.match(r.stdout, /- Name: Ada/);
    assert.match(r.stdout, /- Agreed to terms: true/);
    assert.match(r.stdout, /- Favorite Integer: 42/, 'a default the form showed is sent');
    assert.doesNotMatch(r.stdout, /notAField/, 'only the fields the form names are sent');
    assert.match(r.stderr, /mcp-host: server "everything" asked: Please provide inputs for the following fields: — answered from --elicit \(name, check/);
  });

  it('H111: answers the input a task asks for (input_required) and the task completes with it', async () => {
    const r = await cli(['call', 'everything', 'simulate-research-query', '--args', '{"topic":"python","ambiguous":true}', '--elicit', '{"interpretation":"snake"}']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /\(simulate-research-query\): input required/);
    assert.match(r.stderr, /answered from --elicit \(interpretation\)/);
    assert.match(r.stdout, /Research Report: python \(snake\)/);
    assert.match(r.stderr, /\(simulate-research-query\): completed/);
  });

  it('H112: --elicit that is not a JSON object fails before any server starts, naming the server, the flag and the fix', async () => {
    const bad = await cli(['call', 'everything', 'trigger-elicitation-request', '--elicit', '{"name":']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--elicit \(the answer to server "everything"'s elicitation\) is not valid JSON .*; pass an object, e.g\. --elicit '\{"name":"Ada"\}'/);
    const arr = await cli(['call', 'everything', 'trigger-elicitation-request', '--elicit', '["Ada"]']);
    assert.equal(arr.code, 2);
    assert.match(arr.stderr, /--elicit .* must be a JSON object of the form's fields, .* not an array/);
    assert.deepEqual(processesIn(ws.serverCwd), []);
  });

  it('H112: content that does not fit the form cancels it, fails (exit 2) with what is wrong and an example, and stops the server', async () => {
    const r = await cli(['call', 'everything', 'trigger-elicitation-request', '--elicit', '{"check":"yes","integer":500}']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.equal(r.stdout, '', 'no result is printed');
    assert.match(r.stderr, /--elicit does not answer server "everything"'s elicitation "Please provide inputs for the following fields:": the required field "name" is missing; "check" must be boolean; "integer" must be <= 100; pass the fields it asks for, e.g\. --elicit '\{"name":"…","check":true/);
  });

  it('H112: in a task, a choice that is not offered names the choices, cancels the task (tasks/cancel) and stops the server', async () => {
    const r = await cli(['call', 'everything', 'simulate-research-query', '--args', '{"topic":"python","ambiguous":true}', '--elicit', '{"interpretation":"snakes-on-a-plane"}']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /"interpretation" must be one of "programming", "snake", "comedy"; pass the fields it asks for, e.g\. --elicit '\{"interpretation":"programming"\}'/);
    assert.match(r.stderr, /mcp-host: cancelling task \S+ \(simulate-research-query\) on server "everything"/);
    assert.doesNotMatch(r.stdout, /Research Report/);
  });

  it('without --elicit, on a terminal (a pty through script(1)), asks the form field by field; an answer that does not fit is asked again', async function () {
    if (!fs.existsSync('/usr/bin/script')) this.skip();
    const cmd = [process.execPath, ws.cli, 'call', 'everything', 'trigger-elicitation-request', '--config', ws.config].map(a => `'${a}'`).join(' ');
    const child = spawn('/usr/bin/script', ['-qfec', cmd, '/dev/null'], { cwd: ws.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let typed = false;
    child.stdout.on('data', d => {
      out += d;
      // First try: no name, "maybe" for the boolean, the rest kept (Enter); second: a name and "y".
      if (!typed && /asks: Please provide inputs/.test(out)) {
        typed = true;
        child.stdin.write(`\nmaybe\n${'\n'.repeat(11)}Ada\ny\n${'\n'.repeat(11)}`);
      }
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no end:\n${out}`)); }, 60_000);
      child.on('close', c => { clearTimeout(timer); resolve(c); });
    });
    const text = out.replace(/\r/g, '');
    assert.equal(code, 0, text);
    assert.match(text, /the required field "name" is missing; "check" must be boolean; try again/);
    assert.match(text, /- Name: Ada/);
    assert.match(text, /- Agreed to terms: true/);
    assert.match(text, /- Favorite Integer: 42/);
  });

  it('bystander: without --elicit and without a terminal a call works as before, and no elicitation is offered to the server', async () => {
    const r = await cli(['call', 'everything', 'echo', '--args', '{"message":"still here"}']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /still here/);
    const no = await cli(['call', 'everything', 'trigger-elicitation-request']);
    assert.notEqual(no.code, 0);
    assert.match(no.stderr, /has no tool "trigger-elicitation-request"/, 'server-everything offers the tool only to clients that declare elicitation');
  });
});
