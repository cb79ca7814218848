/**
 * Text made in the core is localisable (issue 40, H561): with a bundle configured (the extension gives
 * `@vscode/l10n` VS Code's bundle at activation), a core problem, a policy verdict, a start error and a task notice
 * come out in the bundle's language; with none (the CLI's view), they are the English source text, unchanged.
 * The static check that every such text goes through `l10n.t` is test/unit/lint.l10n.test.ts (H560).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as l10n from '@vscode/l10n';
import { parseServers } from '../../src/mcp/config';
import { describeError, McpHostError } from '../../src/mcp/errors';
import { policyVerdict, type OrgPolicy } from '../../src/mcp/policy/orgPolicy';
import { TaskEndNotices } from '../../src/mcp/tasks/taskNotices';
import type { ServerDefinition } from '../../src/mcp/types';
import type { TaskInfo } from '../../src/mcp/tasks/tasks';
import { failureNotice } from '../../src/extension/ui/failureNotice';
import { limitMessage, nestingMessage } from '../../src/mcp/limits';
import { sandboxUnavailable } from '../../src/mcp/launch/sandboxRuntime';
import { externalUrlPrompt, parseExternalUrl, type ExternalUrl } from '../../src/mcp/features/externalUrl';
import { describeValue, typeName } from '../../src/mcp/config/paths';
import type { ErrorObject } from 'ajv';
import { compileSchema } from '../../src/mcp/catalogue/toolSchemas';
import { describeAjvErrors, schemaProblem } from '../../src/mcp/schema/ajvErrors';
import { configureDisplayLanguage, countOf, formatBytes } from '../../src/mcp/logging/humanText';
import * as os from 'node:os';
import { BoundedReadError, readBoundedText, readRefusal } from '../../src/mcp/boundedRead';
import { envFileError } from '../../src/mcp/config/envFile';
import { SchemaCompiler, SchemaRefusedError } from '../../src/mcp/schema/compiler';
import { SkillError } from '../../src/mcp/skills/skills';
import { SKILL_LIMITS } from '@modelcontextprotocol/client/ext/skills';
import { StdioMessageError, StdoutReader } from '../../src/mcp/process/stdoutReader';
import { CommandNotFoundError, resolveCommand } from '../../src/mcp/process/resolveCommand';
import { parsePolicy, policyBreakMessage } from '../../src/mcp/policy/orgPolicy';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';

const ROOT = path.resolve(__dirname, '../../..');
/** A pseudo bundle from the shipped English one: every message marked, its placeholders kept (as generate-pseudo does). */
function pseudoBundle(): Record<string, string> {
  const english = JSON.parse(fs.readFileSync(path.join(ROOT, 'l10n/bundle.l10n.json'), 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(english).map(([k, v]) => [k, `⟦${v.replace(/[aeiou]/g, c => ({ a: 'á', e: 'é', i: 'í', o: 'ó', u: 'ú' })[c]!)}⟧`]));
}

/** Four kinds of text the core makes for people, made now (in whatever language l10n is configured for). */
function coreTexts(): Record<string, string> {
  const problem = parseServers({ broken: null }).errors[0].message;
  const policy: OrgPolicy = { access: 'all', denied: [], allowed: [{ serverName: 'other' }], source: '/etc/policy.json' };
  const def = { name: 'weather', type: 'stdio', command: 'node', args: [] } as unknown as ServerDefinition;
  const verdict = policyVerdict(policy, def);
  const start = describeError('weather', 'tools/call', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  const notices = new TaskEndNotices();
  const task = { server: 'weather', taskId: 't1', tool: 'forecast', status: 'working', hasResult: true } as unknown as TaskInfo;
  notices.changed(task);
  const notice = notices.changed({ ...task, status: 'completed' })?.text ?? '';
  return { problem, reason: verdict.allowed ? '' : verdict.reason, start, notice };
}

describe('Localisation of text made in the core (issue 40)', () => {
  afterEach(() => { l10n.config({ contents: {} }); configureDisplayLanguage('en-US'); });

  it('H561: with a bundle configured the core\'s problems, reasons, errors and notices are translated; with none (the CLI) they are English', () => {
    const english = coreTexts();
    assert.equal(english.problem, 'Server "broken" (mcpHost.servers.broken) is `null` (null); expected an object such as { "command": "npx", "args": [...] } or { "url": "https://…" }. To turn a server off, keep its definition and add "disabled": true.');
    assert.equal(english.reason, 'blocked by your organisation\'s policy (/etc/policy.json): allowedMcpServers does not list it');
    assert.equal(english.start, 'cannot reach server `weather`: connection refused (is it running, and is the url right?)');
    assert.equal(english.notice, 'The task of forecast on weather has completed.');

    l10n.config({ contents: pseudoBundle() });
    const pseudo = coreTexts();
    for (const [what, text] of Object.entries(pseudo)) {
      assert.ok(text.startsWith('⟦'), `${what} is translated: ${text}`);
      assert.notEqual(text, english[what as keyof typeof english]);
    }
    // the values (server names, paths) go in untranslated
    assert.match(pseudo.problem, /"broken" \(mcpHost\.servers\.broken\)/);
    assert.match(pseudo.reason, /\(\/etc\/policy\.json\)/);
    assert.match(pseudo.start, /`weather`/);
    assert.match(pseudo.notice, /forecast/);

    l10n.config({ contents: {} });
    assert.deepEqual(coreTexts(), english, 'with no bundle again, the English is back (what the CLI prints)');
  });

  it('H561: an error the core throws for people (McpHostError) passes describeError unchanged, in the configured language', () => {
    l10n.config({ contents: pseudoBundle() });
    const e = new McpHostError(l10n.t('server `{0}` is not running', 'weather'));
    assert.equal(describeError('weather', 'tools/list', e), e.message);
    assert.ok(e.message.startsWith('⟦'), e.message);
  });

  it('H561: a failure from the settings offers Open Settings by the core\'s word (fromSettings), not by English words in a translated message', () => {
    l10n.config({ contents: pseudoBundle() });
    const message = l10n.t('command `{0}` not found on PATH {1}; {2}', 'no-such', '(PATH=/usr/bin)', l10n.t('install {0} or set `command` to an absolute path', '`no-such`'));
    assert.ok(!/not found on PATH/.test(message), message);
    assert.equal(failureNotice('x', message, false, true).kind, 'settings');
    assert.equal(failureNotice('x', message, false, false).kind, 'crash', 'without the flag, a translated message is not recognised');
    assert.equal(failureNotice('x', message, true, true).kind, 'crash', 'a crash loop stays a crash');
    l10n.config({ contents: {} });
    // English (the words still work as before, flag or not)
    assert.equal(failureNotice('x', 'command `no-such` not found on PATH (PATH=/usr/bin); install it', false).kind, 'settings');
  });

  it('H561, H600: a limit message is one whole message: translated with a bundle (the server, limit and setting untouched), the same English as before without', () => {
    const make = () => limitMessage('weather', 3, { kind: 'tooManyTasks' });
    const english = make();
    assert.equal(english, 'server `weather` has too many running tasks: over the limit of 3 tasks per server (raise it with the setting `mcpHost.limits.maxTasksPerServer`); cancel one (MCP: Cancel Task) or wait');
    // bystander: a byte limit of another situation, English too
    assert.equal(limitMessage('weather', 1024, { kind: 'httpBody' }), 'server `weather` sent an HTTP body: over the limit of 1 KiB (raise it with the setting `mcpHost.limits.maxMessageBytes`)');
    l10n.config({ contents: pseudoBundle() });
    const pseudo = make();
    assert.ok(pseudo.startsWith('⟦') && pseudo.endsWith('⟧'), `one translated message, not a translated fragment inside English: ${pseudo}`);
    assert.ok(!/has too many running tasks|cancel one/.test(pseudo), pseudo);
    assert.match(pseudo, /`weather`.*3.*`mcpHost\.limits\.maxTasksPerServer`/);
    l10n.config({ contents: {} });
    assert.equal(make(), english, 'with no bundle again, the English is back (what the CLI prints)');
  });

  it('H601: why the sandbox cannot run is translated with a bundle and English without', async () => {
    const deps = () => ({ errors: [], warnings: ['seccomp not available - unix socket access not restricted'] });
    const english = await sandboxUnavailable({ checkDependencies: deps });
    assert.match(english ?? '', /^the sandbox (needs|cannot start)/);
    l10n.config({ contents: pseudoBundle() });
    const pseudo = await sandboxUnavailable({ checkDependencies: deps });
    assert.ok(pseudo?.startsWith('⟦'), `translated: ${pseudo}`);
    assert.ok(!/^the sandbox/.test(pseudo ?? ''), pseudo);
    l10n.config({ contents: {} });
    assert.equal(await sandboxUnavailable({ checkDependencies: deps }), english);
  });

  it('H602: why an external URL is refused and the sign-in question are translated with a bundle and English without', () => {
    const texts = () => {
      const refused = parseExternalUrl('http://example.com/x');
      const ok = parseExternalUrl('https://example.com/login') as ExternalUrl;
      return {
        refused: refused instanceof Error ? refused.message : '',
        signIn: externalUrlPrompt('MCP server "weather"', ok, { purpose: 'signIn' }).question,
        open: externalUrlPrompt('MCP server "weather"', ok).question,
      };
    };
    const english = texts();
    assert.deepEqual(english, {
      refused: 'an http: URL of another machine (http://example.com); only https: URLs (and http: on this machine) are opened',
      signIn: 'MCP server "weather" asks you to sign in at https://example.com',
      open: 'MCP server "weather" wants to open https://example.com',
    });
    l10n.config({ contents: pseudoBundle() });
    const pseudo = texts();
    for (const [what, text] of Object.entries(pseudo)) assert.ok(text.startsWith('⟦'), `${what}: ${text}`);
    assert.ok(pseudo.refused.startsWith('⟦') && pseudo.refused.includes('(http://example.com)'), pseudo.refused);
    assert.ok(!/asks you to sign in/.test(pseudo.signIn) && pseudo.signIn.includes('https://example.com'), pseudo.signIn);
    l10n.config({ contents: {} });
    assert.deepEqual(texts(), english);
  });

  it('H627: counts and sizes are whole messages per form and unit, their numbers in the display language; English (the CLI) unchanged', () => {
    const texts = () => ({
      one: countOf(1, 'request'), many: countOf(12345, 'byte'), servers: countOf(0, 'server'),
      bytes: formatBytes(1023), kib: formatBytes(1536), over: formatBytes(16 * 1024 * 1024 + 1), gib: formatBytes(3 * 1024 ** 3),
    });
    const english = texts();
    assert.deepEqual(english, { one: '1 request', many: '12345 bytes', servers: '0 servers', bytes: '1023 B', kib: '1.5 KiB', over: '16.0 MiB', gib: '3 GiB' });
    l10n.config({ contents: pseudoBundle() });
    const pseudo = texts();
    for (const [what, text] of Object.entries(pseudo)) assert.ok(text.startsWith('⟦') && text.endsWith('⟧'), `${what} is one translated message: ${text}`);
    assert.notEqual(pseudo.one.replace(/[⟦⟧]/g, ''), pseudo.many.replace(/[⟦⟧]/g, '').replace('12345', '1'), 'one and many are different messages');
    l10n.config({ contents: {} });
    configureDisplayLanguage('de');
    assert.equal(formatBytes(1536), '1,5 KiB', 'the decimal comma of German');
    assert.equal(countOf(12345, 'byte'), '12345 bytes', 'no digit grouping: the same digits in every language');
    assert.match(limitMessage('weather', 10_000, { kind: 'pendingRequests', method: 'ping' }), /over the limit of 10\.000 pending/, 'a limit is grouped the German way');
    assert.match(nestingMessage('weather', { kind: 'tool', name: 'deep' }), /deeper than 1\.000 levels/);
    configureDisplayLanguage('not a language tag');
    assert.deepEqual(texts(), english, 'an unknown language writes numbers the en-US way');
    configureDisplayLanguage('en-US');
    assert.deepEqual(texts(), english);
    assert.equal(nestingMessage('edges', { kind: 'tool', name: 'deep' }), 'server `edges`, tool `deep`: the result nests deeper than 1,000 levels; the host does not take it');
  });

  it('H628: the words describing a value in a problem ("a string", "nothing", "the value of …") are translated; the value itself is not', () => {
    const texts = () => ({
      str: typeName('x'), int: typeName(3), num: typeName(1.5), arr: typeName([]), obj: typeName({}), bool: typeName(true),
      nothing: describeValue('command', undefined), secret: describeValue('env.API_TOKEN', 'hunter2'),
      wrongType: parseServers({ weather: { command: 42 } }).errors[0]?.message ?? '',
    });
    const english = texts();
    assert.deepEqual({ ...english, wrongType: undefined }, {
      str: 'a string', int: 'an integer', num: 'a number', arr: 'an array', obj: 'an object', bool: 'a boolean',
      nothing: 'nothing', secret: 'the value of env.API_TOKEN', wrongType: undefined,
    });
    assert.match(english.wrongType, /is `42`, an integer; expected a string/, english.wrongType);
    // bystanders: null and a value stay as they are
    assert.equal(typeName(null), 'null');
    assert.equal(describeValue('command', 'npx'), '`"npx"`');
    l10n.config({ contents: pseudoBundle() });
    const pseudo = texts();
    for (const [what, text] of Object.entries(pseudo)) assert.ok(text.startsWith('⟦'), `${what}: ${text}`);
    assert.match(pseudo.secret, /env\.API_TOKEN/);
    assert.ok(!/hunter2/.test(pseudo.secret));
    assert.ok(!/an integer|a string/.test(pseudo.wrongType), pseudo.wrongType);
    assert.equal(describeValue('command', 'npx'), '`"npx"`', 'the value is not translated');
    l10n.config({ contents: {} });
    assert.deepEqual(texts(), english);
  });

  it('H626: schema errors (forms, tool arguments) are written from the keyword and its params: ajv\'s English without a bundle, translated with one', () => {
    const schema = {
      type: 'object', required: ['name'],
      properties: {
        n: { type: 'number' }, i: { type: 'integer', minimum: 1 }, max: { type: 'number', maximum: 9 }, gt: { type: 'number', exclusiveMinimum: 0 },
        short: { type: 'string', minLength: 2 }, long: { type: 'string', maxLength: 3 }, code: { type: 'string', pattern: '^[a-z]+$' },
        color: { enum: ['red', 'blue'] }, mail: { type: 'string', format: 'email' }, maybe: { type: ['string', 'null'] }, flag: { type: 'boolean' },
        name: { type: 'string' },
      },
    };
    const v = compileSchema(schema, 'l10n');
    assert.ok(!(v instanceof Error), String(v));
    const bad = { n: 'x', i: 0, max: 10, gt: 0, short: 'a', long: 'abcd', code: 'A1', color: 'green', mail: 'not-mail', maybe: 1, flag: 'yes' };
    assert.equal(v(bad), false);
    const errors = v.errors as ErrorObject[];
    const keywords = new Set(errors.map(e => e.keyword));
    for (const k of ['required', 'type', 'minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'maxLength', 'pattern', 'enum', 'format']) assert.ok(keywords.has(k), `${k} in ${[...keywords].join(', ')}`);
    // English: exactly ajv's own text for every keyword (what the reliability tests and the CLI pin)
    for (const e of errors) assert.equal(schemaProblem(e), e.message, `${e.keyword} ${e.instancePath}`);
    const words = Object.fromEntries(errors.filter(e => e.keyword === 'type').map(e => [e.instancePath, schemaProblem(e, 'words')]));
    assert.deepEqual(words, { '/n': 'must be a number', '/maybe': 'must be a string or null', '/flag': 'must be true or false' });
    const english = describeAjvErrors(errors);
    assert.match(english, /^`arguments\.name` is required; `arguments\.n` must be number; /);

    l10n.config({ contents: pseudoBundle() });
    for (const e of errors) {
      const text = schemaProblem(e, 'words');
      assert.ok(text.startsWith('⟦') && !/must/.test(text), `${e.keyword}: ${text}`);
    }
    const pattern = errors.find(e => e.keyword === 'pattern')!;
    assert.ok(schemaProblem(pattern).includes('^[a-z]+$'), 'the pattern itself is not translated');
    assert.ok(!/is required|must be/.test(describeAjvErrors(errors)), describeAjvErrors(errors));
    // bystander: a keyword outside the list keeps ajv's text
    const other = { keyword: 'multipleOf', instancePath: '/n', schemaPath: '#', params: { multipleOf: 2 }, message: 'must be multiple of 2' } as ErrorObject;
    assert.equal(schemaProblem(other), 'must be multiple of 2');
    l10n.config({ contents: {} });
    assert.equal(describeAjvErrors(errors), english);
  });

  it('H657: why a bounded read was refused and why a schema is refused are whole messages from the error\'s facts: translated with a bundle, the same English without', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'l10n-bounded-'));
    try {
      const big = path.join(dir, 'big.env');
      fs.writeFileSync(big, 'A=1234567890\n');
      const ok = path.join(dir, 'ok.env');
      fs.writeFileSync(ok, 'A=1\n');
      const refused = async () => {
        const e = await readBoundedText(big, { maxBytes: 8, what: 'envFile' }).then(() => assert.fail('read'), (err: unknown) => err);
        assert.ok(e instanceof BoundedReadError && e.kind === 'too-large' && e.facts.kind === 'too-large' && e.facts.size === 13 && e.facts.maxBytes === 8, String(e));
        const dirErr = await readBoundedText(dir, { maxBytes: 8 }).then(() => assert.fail('read'), (err: unknown) => err as BoundedReadError);
        const schema = new SchemaCompiler('srv').compile({ type: 'string', pattern: '(a)\\1' }, 'tool `t` inputSchema');
        assert.ok(schema instanceof SchemaRefusedError && schema.refusal.kind === 'pattern' && schema.server === 'srv', String(schema));
        return {
          why: e.why, it: readRefusal(e.facts, 'it'), dir: dirErr.why,
          env: envFileError('weather', 'mcpHost.servers.weather.envFile', big, e),
          schema: schema.message,
          // the bystander: a file within the cap reads whole in either language
          ok: await readBoundedText(ok, { maxBytes: 8, what: 'envFile' }),
        };
      };
      const english = await refused();
      assert.deepEqual(english, {
        why: 'which is 13 B, more than the 8 B an envFile may hold',
        it: 'it is 13 B, more than the 8 B an envFile may hold',
        dir: 'which is a directory',
        env: `Server "weather": mcpHost.servers.weather.envFile is "${big}", which is 13 B, more than the 8 B an envFile may hold; point it at a dotenv file of KEY=value lines, or split it.`,
        schema: 'server `srv` tool `t` inputSchema: pattern `(a)\\1` uses a backreference, which the host\'s linear-time regular expression engine does not run',
        ok: 'A=1\n',
      });

      l10n.config({ contents: pseudoBundle() });
      const pseudo = await refused();
      for (const k of ['why', 'it', 'dir', 'env', 'schema'] as const) assert.ok(pseudo[k].startsWith('⟦') && pseudo[k] !== english[k], `${k} is translated: ${pseudo[k]}`);
      assert.ok(pseudo.env.includes(big) && pseudo.env.includes('mcpHost.servers.weather.envFile'), pseudo.env);
      assert.match(pseudo.schema, /`srv`.*`\(a\)\\1`/);
      assert.equal(pseudo.ok, 'A=1\n');

      l10n.config({ contents: {} });
      assert.deepEqual(await refused(), english, 'with no bundle again, the English is back (what the CLI prints)');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('H661: a refused skill, a dropped stdout line, a command not found and a broken policy file are whole messages from facts: translated with a bundle, the same English without; a well-formed line, command and policy pass in either', async () => {
    const def = { name: 'weather', type: 'stdio', command: 'node', args: [] } as unknown as ServerDefinition;
    const made = async () => {
      const skill = new SkillError('evil', { reason: 'oversize', skill: 'too-big', file: 'SKILL.md', files: 2, bytes: 300 });
      assert.ok(skill instanceof McpHostError && skill.reason === 'oversize' && skill.server === 'evil');
      // a real reader: a JSON array is dropped (facts), a well-formed notification goes through
      const dropped: StdioMessageError[] = [];
      const delivered: JSONRPCMessage[] = [];
      const reader = new StdoutReader('files', 1024 * 1024, { message: m => delivered.push(m), dropped: e => dropped.push(e), pause() {}, resume() {} });
      reader.push(Buffer.from('[1]\n{"jsonrpc":"2.0","method":"notifications/ping"}\n'));
      assert.equal(dropped.length, 1);
      assert.ok(dropped[0] instanceof StdioMessageError && dropped[0].dropped.kind === 'invalid' && dropped[0].server === 'files');
      // a real search: nothing on PATH; the bystander `sh` is found
      const missing = await resolveCommand('mcp-host-no-such-tool', { env: { PATH: '/nonexistent-dir' }, loginShell: false }).then(() => assert.fail('found'), (e: unknown) => e);
      assert.ok(missing instanceof CommandNotFoundError && missing.fix.kind === 'install', String(missing));
      const found = await resolveCommand('sh', { env: { PATH: '/usr/bin:/bin' }, loginShell: false });
      const broken = parsePolicy('[]', '/etc/p.json');
      assert.equal(broken.broken?.kind, 'notObject');
      const verdict = policyVerdict(broken, def);
      return {
        skill: skill.message,
        stdio: dropped[0].message,
        command: missing.message,
        fix: missing.hint,
        policy: policyBreakMessage(broken.broken!),
        verdict: verdict.allowed ? '' : verdict.reason,
        // the bystanders
        delivered: delivered.map(m => 'method' in m ? m.method : ''),
        found: path.basename(found.path),
        allowed: policyVerdict(parsePolicy('{"allowedMcpServers": [{"serverName": "weather"}]}', '/etc/p.json'), def).allowed,
      };
    };
    const english = await made();
    assert.deepEqual(english, {
      skill: `server \`evil\`, skill \`too-big\`, file \`SKILL.md\`: refused, the skill lists 2 files of 300 bytes (a host loads skills up to ${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes)`,
      stdio: 'ignored a message that is not valid JSON-RPC: a JSON array (batches are not part of MCP): "[1]"',
      command: 'command `mcp-host-no-such-tool` not found on PATH (PATH=/nonexistent-dir); install `mcp-host-no-such-tool` or set `command` to an absolute path',
      fix: 'install `mcp-host-no-such-tool` or set `command` to an absolute path',
      policy: '/etc/p.json does not hold an object; ask your administrator to correct it; until then no MCP server may run',
      verdict: 'blocked: /etc/p.json does not hold an object; ask your administrator to correct it; until then no MCP server may run',
      delivered: ['notifications/ping'], found: 'sh', allowed: true,
    });

    l10n.config({ contents: pseudoBundle() });
    const pseudo = await made();
    for (const k of ['skill', 'stdio', 'command', 'fix', 'policy', 'verdict'] as const) assert.ok(pseudo[k].startsWith('⟦') && pseudo[k] !== english[k], `${k} is translated: ${pseudo[k]}`);
    assert.match(pseudo.skill, /`evil`.*`too-big`.*`SKILL\.md`/);
    assert.match(pseudo.stdio, /"\[1\]"/);
    assert.ok(pseudo.command.includes('(PATH=/nonexistent-dir)'), pseudo.command);
    assert.ok(pseudo.verdict.includes('/etc/p.json'), pseudo.verdict);
    assert.deepEqual([pseudo.delivered, pseudo.found, pseudo.allowed], [['notifications/ping'], 'sh', true]);

    l10n.config({ contents: {} });
    assert.deepEqual(await made(), english, 'with no bundle again, the English is back (what the CLI prints)');
  });
});
