/**
 * Localisation (issue 40): the extension's user-facing text is localisable. Checked here, without the editor:
 *  - H490: the check (test/support/l10nCheck.ts, the TypeScript compiler API) finds a literal string at each
 *    user-facing sink and accepts what is not text (codicons, identifiers, paths) and text passed through `t(...)`;
 *  - H491: src/extension and src/views pass no literal user-facing string to a sink (but the short allow-list below);
 *  - H492: every user-facing string of package.json is a `%key%` of package.nls.json, and every key is used;
 *  - H493: l10n/bundle.l10n.json (`npx vscode-l10n-dev export -o l10n src/extension src/views src/mcp`) holds exactly
 *    the messages of the `l10n.t` calls, each a literal (so the exporter and translators see it);
 *  - H560: the core (src/mcp) passes the text it makes for people (a problem's `message`, a verdict's `reason`,
 *    `new McpHostError(…)`, labels and tooltips) through `@vscode/l10n`'s `t` too; the CLI configures no bundle, so it
 *    stays English. Text for models, servers, App views and logs is on the reasoned allow-list below.
 *    The behaviour (translated with a bundle, English without) is test/unit/l10n.core.test.ts (H561);
 *  - H625: in the core a plain `new Error('…')` with words is a finding too: an error a person reads is an
 *    McpHostError with an l10n.t message; each plain one left is on CORE_ALLOWED with why (a server, a model, the log,
 *    a programmer error, a lazy bundle).
 *  - H656: the core's typed errors that are not McpHostError and were English (BoundedReadError, SchemaRefusedError,
 *    UnsupportedPatternError: TYPED_ERRORS) are checked the same way: a literal passed to `new BoundedReadError(…)` or to
 *    `super(…)` in such a class is a finding; they carry facts and make their sentence with l10n.t.
 *  - H660: SkillError, StdioMessageError and CommandNotFoundError joined TYPED_ERRORS, and a policy's `broken` (a
 *    PolicyBreak of facts) is a sink: a literal there is a finding.
 *  - H670: the nested schema of the settings (`mcpHost.servers`, `mcpHost.inputs`, generated from
 *    src/mcp/config/schema.ts by scripts/sync-schema.mjs) is in package.nls.json too: every text at any depth is a
 *    `%key%` whose English is the schema's, and server-schema.json (the mcp.json schema) stays English;
 *  - H671: `node scripts/sync-schema.mjs --check` finds a changed nested text; the sync writes its English into
 *    package.nls.json under the same key and drops the key of a text that is gone.
 * The pseudo-locale run in the real editor is test/editor/pseudoLocale.test.ts (H494, H672).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';
import { l10nMessages, literalUserStrings, TYPED_ERRORS } from '../support/l10nCheck';

const ROOT = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const DIRS = ['src/extension', 'src/views'];
/** The core: its people-facing text is localised too (issue 40, H560); the bundle is exported from all three. */
const CORE = 'src/mcp';

function sources(dirs: string[] = DIRS): string[] {
  return dirs.flatMap(d => (fs.readdirSync(path.join(ROOT, d), { recursive: true }) as string[])
    .filter(f => f.endsWith('.ts')).map(f => path.join(d, f).split(path.sep).join('/'))).sort();
}

/** Literal strings at a sink that are not for a person, each with why (file → the text's start). */
const ALLOWED: Record<string, { starts: string; why: string }[]> = {
  'src/extension/chat/skills.ts': [
    { starts: 'Loads the instructions', why: 'the skill tool\'s description, read by the language model' },
    { starts: 'The MCP server name', why: 'input-schema description, for the model' },
    { starts: 'The skill name', why: 'input-schema description, for the model' },
    { starts: 'MCP server "', why: 'the skill tool\'s answer, for the model' },
    { starts: 'The skill was not loaded', why: 'the skill tool\'s answer, for the model' },
  ],
  'src/extension/chat/toolLoop.ts': [{ starts: '${…} (MCP server "', why: 'a tool description sent to the model' }],
  'src/extension/apps/transport.ts': [
    { starts: 'dropped: the view sent', why: 'a JSON-RPC error to the app view (protocol text)' },
    { starts: 'the view was closed', why: 'a JSON-RPC error to the app view (protocol text)' },
  ],
};

/**
 * Literal strings at a sink in the core that are not for a person (file → text start, or `*` for the whole file).
 * Rule (docs/DEVELOPMENT.md "Localisation"): text a person reads in the editor is localised; text for a language
 * model, for a server or an App view (JSON-RPC), for the log, and the JSON schema stays English.
 */
const CORE_ALLOWED: Record<string, { starts: string; why: string }[]> = {
  'src/mcp/config/validators.generated.ts': [{ starts: '*', why: 'generated by ajv (scripts); its raw messages are read through configErrors.ts, which says them in words' }],
  'src/mcp/config/schema.ts': [
    { starts: 'stdio server', why: 'a JSON-schema title of mcpHost.servers (also the mcp.json schema of other tools)' },
    { starts: 'http server', why: 'a JSON-schema title' },
    { starts: 'token file', why: 'a JSON-schema title' },
    { starts: 'token in an environment variable', why: 'a JSON-schema title' },
    { starts: 'MCP Host servers and inputs', why: 'the JSON schema\'s title' },
  ],
  'src/mcp/config/import.ts': [
    { starts: 'Claude Desktop', why: 'a product name' },
    { starts: 'Windsurf', why: 'a product name' },
    { starts: 'GitHub Copilot CLI', why: 'a product name' },
  ],
  'src/mcp/catalogue/modelTools.ts': [{ starts: '*', why: 'tool and input-schema descriptions read by the language model' }],
  'src/mcp/codemode/codeModeTool.ts': [{ starts: '*', why: 'the code-mode tool\'s descriptions and answers, read by the language model' }],
  'src/mcp/http/responseBodies.ts': [{ starts: 'server `${…}` answered request', why: 'a JSON-RPC error put in place of a forbidden response (protocol text)' }],
  'src/mcp/spec.ts': [{ starts: 'the result is not an object', why: 'a Standard Schema issue inside the SDK\'s result check (described by describeError)' }],
  'src/mcp/host.ts': [{ starts: 'ignored root', why: 'a log line (the host\'s log event)' }],
  'src/mcp/catalogue/icons.ts': [{ starts: '*', why: 'why an icon is not shown: a log line (src/views/icons.ts "icon not shown")' }],
  'src/mcp/logging/redact.ts': [{ starts: '${…}… (${…} more bytes)', why: 'a log line\'s cut' }],
  'src/mcp/process/stderrLines.ts': [{ starts: '${…} (${…} more bytes)', why: 'a stderr log line\'s cut' }],
  'src/mcp/tasks/taskPolicy.ts': [
    { starts: '${…} cannot run as a task', why: 'reached only through the CLI\'s --task / --no-task (the CLI stays English)' },
    { starts: '${…}: --no-task applies', why: 'the CLI\'s --no-task' },
    { starts: '${…} must run as a task', why: 'the CLI\'s --no-task' },
  ],
  // Plain `new Error('…')` in the core (H625): each one here is not for a person, or reaches one only wrapped.
  'src/mcp/apps/files.ts': [{ starts: 'ui/download-file:', why: 'a JSON-RPC error answered to the App view (protocol text)' }],
  'src/mcp/codemode/codeModeEngine.ts': [
    { starts: 'code mode\'s engine is missing', why: 'in the lazy bundle dist/codemode.js, which has its own module copies: an McpHostError or @vscode/l10n there would be a second class and an unconfigured bundle; the code-mode tool reports it to the model' },
    { starts: 'code mode\'s engine stopped unexpectedly', why: 'the same bundle; the code-mode tool reports it to the model as the program\'s error' },
    { starts: 'code mode\'s worker sent an unknown message', why: 'an internal protocol check between the engine and its worker; reported to the model as the program\'s error' },
  ],
  'src/mcp/codemode/codeModeInterpreter.ts': [
    { starts: 'code mode\'s interpreter is missing', why: 'in the worker bundle dist/codemode-worker.js (its own module copies, no l10n bundle); the code-mode tool reports it to the model' },
    { starts: 'mcp.${…}.${…} is not a tool', why: 'thrown into the model\'s program (code mode): read by the model' },
    { starts: 'not an object', why: 'an internal parse check inside the program\'s bridge, caught there' },
  ],
  'src/mcp/codemode/codeModeResult.ts': [{ starts: 'tool "${…}" on server', why: 'thrown into the model\'s program (code mode): read by the model' }],
  'src/mcp/events.ts': [{ starts: 'unexpected ${…}', why: 'assertNever: a programmer error (a state the types rule out)' }],
  'src/mcp/gateway/server.ts': [
    { starts: 'MCP Host', why: 'the product name, as the gateway\'s server info' },
    { starts: 'MCP Host gateway:', why: 'a JSON-RPC error to the gateway\'s client (another program; protocol text)' },
    { starts: 'not run: the user allowed', why: 'a tool error to the gateway\'s client, read by its model' },
    { starts: 'MCP server "${…}" is not', why: 'a JSON-RPC error to the gateway\'s client (protocol text)' },
  ],
  'src/mcp/process/readBuffer.ts': [{ starts: 'ReadBuffer exceeded', why: 'the SDK ReadBuffer\'s own error, kept word for word (the bench baseline and fixture harness only)' }],
  'src/mcp/process/slicedJson.ts': [{ starts: 'the JSON text is not parsed yet', why: 'a programmer error (a result read before parsing)' }],
  'src/mcp/process/stdioTransport.ts': [
    { starts: 'the stdio transport of server', why: 'a programmer error (start called twice)' },
    { starts: 'Not connected', why: 'the SDK transport\'s own wording for a send after close; describeError wraps it with the server and method' },
  ],
  'src/mcp/server/session.ts': [{ starts: 'server `${…}` asked for sampling', why: 'the error answered to the server\'s task input request (JSON-RPC, protocol text)' }],
  'src/mcp/tasks/extTaskSession.ts': [{ starts: 'the tool result is not an object', why: 'a Standard Schema issue inside ext-tasks\' result check (described by describeError)' }],
  'src/mcp/tasks/extTaskTracker.ts': [{ starts: 'no answer within', why: 'a tasks/cancel that timed out: a log line (the cancel itself already ended the task)' }],
};

/** In the core a plain `new Error('…')` is a sink too (H625): what a person reads is an McpHostError with an l10n.t message. */
const CORE_CHECK = { plainErrors: true };

/** Each class of TYPED_ERRORS and the file that declares it (H656, H660). */
const TYPED_ERROR_FILES: Record<string, string> = {
  BoundedReadError: 'src/mcp/boundedRead.ts', SchemaRefusedError: 'src/mcp/schema/compiler.ts', UnsupportedPatternError: 'src/mcp/schema/regexp.ts',
  SkillError: 'src/mcp/skills/skills.ts', StdioMessageError: 'src/mcp/process/stdoutReader.ts', CommandNotFoundError: 'src/mcp/process/resolveCommand.ts',
};

const allowedIn = (list: Record<string, { starts: string }[]>, rel: string, text: string) =>
  list[rel]?.some(a => a.starts === '*' || text.startsWith(a.starts)) ?? false;

describe('Localisation: no literal user-facing string (issue 40)', function () {
  this.timeout(60_000);

  it('H490: the check finds a literal at each user-facing sink and accepts t(), codicons, identifiers and paths', () => {
    const probe = `import * as vscode from 'vscode';
void vscode.window.showInformationMessage('Server started.');
void vscode.window.showWarningMessage(\`Stop \${name}?\`, 'Stop');
void vscode.window.showQuickPick(items, { placeHolder: 'Pick a server', title: 'Servers' });
void vscode.window.showInputBox({ prompt: 'Server name' });
item.tooltip = 'Click to list them';
const node = new vscode.TreeItem('Load more…');
stream.markdown('No server runs.');
stream.progress(\`Calling \${tool}…\`);
void vscode.window.withProgress({ title: 'Searching…' }, run);
const md = new vscode.MarkdownString('**Hello** there');
panel = vscode.window.createWebviewPanel('id', 'App view', 1);
void notify('warning', 'Not trusted', 'Manage Trust');
const d = { message: ok ? 'Allow it?' : 'Deny it?' };
// not findings:
void vscode.window.showInformationMessage(vscode.l10n.t('Server {0} started.', name));
void vscode.window.showErrorMessage(l10n.t('Failed'), vscode.l10n.t('Retry'));
item.description = \`$(sync~spin) \${count}\`;
const type = { label: 'stdio', description: 'mcpHost.servers' };
const where = { label: '~/.copilot/mcp-config.json' };
const f = { text: \`\${a} · \${b}\` };
`;
    const found = literalUserStrings('probe.ts', probe);
    assert.deepEqual([...new Set(found.map(f => f.line))], [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14], JSON.stringify(found, null, 1));
    assert.deepEqual(found.filter(f => f.line === 3).map(f => f.text), ['Stop ${…}?', 'Stop']);
    assert.deepEqual(found.filter(f => f.line === 4).map(f => f.sink), ['placeHolder', 'title']);
  });

  it('H491: src/extension and src/views pass every user-facing string through vscode.l10n.t or @vscode/l10n', () => {
    const left: string[] = [];
    let files = 0;
    for (const rel of sources()) {
      files++;
      for (const f of literalUserStrings(rel, read(rel))) {
        if (ALLOWED[rel]?.some(a => f.text.startsWith(a.starts))) continue;
        left.push(`${rel}:${f.line} (${f.sink}): ${JSON.stringify(f.text.slice(0, 80))}`);
      }
    }
    assert.ok(files > 80, `walked ${files} files`);
    assert.deepEqual(left, [], 'wrap these in vscode.l10n.t(...) (or l10n.t from @vscode/l10n in a file that does not import vscode); see docs/DEVELOPMENT.md "Localisation"');
  });

  it('H491: the allow-list names only literals that are still there', () => {
    for (const [rel, list] of Object.entries(ALLOWED)) {
      const found = literalUserStrings(rel, read(rel));
      for (const a of list) assert.ok(found.some(f => f.text.startsWith(a.starts)), `${rel}: "${a.starts}" is no longer found: drop it from ALLOWED`);
    }
  });

  it('H560: src/mcp passes the text it makes for people through @vscode/l10n (the CLI configures no bundle: English)', () => {
    const left: string[] = [];
    const files = sources([CORE]);
    for (const rel of files) {
      const src = read(rel);
      for (const f of literalUserStrings(rel, src, CORE_CHECK)) {
        if (allowedIn(CORE_ALLOWED, rel, f.text)) continue;
        left.push(`${rel}:${f.line} (${f.sink}): ${JSON.stringify(f.text.slice(0, 80))}`);
      }
      // @vscode/l10n only: the core must not import vscode (its own lint), and not the extension's helpers
      if (/l10n\.t\(/.test(src)) assert.match(src, /import \* as l10n from '@vscode\/l10n';/, `${rel}: import * as l10n from '@vscode/l10n'`);
    }
    assert.ok(files.length > 100, `walked ${files.length} files`);
    assert.deepEqual(left, [], 'wrap these in l10n.t(...) from @vscode/l10n (text for a model, a server, a view or the log: add it to CORE_ALLOWED with why); see docs/DEVELOPMENT.md "Localisation"');
  });

  it('H625: in the core a plain new Error with words is a finding (an error for people is an McpHostError with an l10n.t message); outside the core it is not', () => {
    const probe = `import * as l10n from '@vscode/l10n';
throw new Error('the registry did not answer');
void Promise.reject(new Error(\`server \${name} is gone\`));
// not findings:
throw new McpHostError(l10n.t('server {0} is gone', name));
throw new Error(l10n.t('server {0} asked to open {1}', name, url));
throw new Error(err.message);
throw new Error(\`\${a}: \${b}\`);
`;
    const core = literalUserStrings('probe.ts', probe, { plainErrors: true });
    assert.deepEqual(core.map(f => [f.line, f.sink, f.text]), [[2, 'new Error', 'the registry did not answer'], [3, 'new Error', 'server ${…} is gone']]);
    assert.deepEqual(literalUserStrings('probe.ts', probe), [], 'src/extension and src/views: errors there are shown through their own sinks');
    // bystander: the same check still finds an McpHostError with a literal
    assert.equal(literalUserStrings('p.ts', "throw new McpHostError('the server is gone');", { plainErrors: true }).length, 1);
  });

  it('H656: the core\'s typed errors (BoundedReadError, SchemaRefusedError, UnsupportedPatternError) are checked too: a literal at new or super', () => {
    const probe = `import * as l10n from '@vscode/l10n';
class UnsupportedPatternError extends Error { constructor(p: string) { super(\`pattern \${p} uses a lookahead\`); } }
throw new SchemaRefusedError(server, label, 'its refs loop');
throw new BoundedReadError(file, 'too-large', \`which is more than the \${cap} an envFile may hold\`);
// not findings:
class BoundedReadError extends Error { constructor(readonly file: string, facts: Facts) { super(\`\${file}: \${readRefusal(facts)}\`); } }
class Plain extends Base { constructor() { super('not a checked class'); } }
throw new BoundedReadError(file, { kind: 'not-file', type: 'fifo' });
throw new SchemaRefusedError(server, label, { kind: 'refLoop' });
throw new UnsupportedPatternError(pattern, { kind: 'engine', detail });
throw new SchemaRefusedError(server, l10n.t('tool {0}', name), r);
`;
    const core = literalUserStrings('probe.ts', probe, CORE_CHECK);
    assert.deepEqual(core.map(f => [f.line, f.sink]), [[2, 'super'], [3, 'new SchemaRefusedError'], [4, 'new BoundedReadError']]);
    assert.deepEqual(literalUserStrings('probe.ts', probe), core, 'the same in src/extension (workspaceFiles.ts makes a BoundedReadError)');
    // the classes themselves: each is still a class of the core, carries facts, and has no literal left at it
    // (H560 walks every file of the core with the same check)
    assert.deepEqual([...TYPED_ERRORS].sort(), Object.keys(TYPED_ERROR_FILES).sort());
    for (const [name, rel] of [...Object.entries(TYPED_ERROR_FILES), ['BoundedReadError', 'src/extension/documents/workspaceFiles.ts']]) {
      if (rel.startsWith('src/mcp/')) assert.match(read(rel), new RegExp(`export class ${name} extends (Error|McpHostError)`), rel);
      else assert.match(read(rel), new RegExp(`new ${name}\\(`), rel);
      assert.deepEqual(literalUserStrings(rel, read(rel), CORE_CHECK), [], rel);
      assert.ok(!(rel in CORE_ALLOWED), `${rel} is on CORE_ALLOWED`);
    }
  });

  it('H660: SkillError, StdioMessageError, CommandNotFoundError and a policy\'s `broken` are checked too: facts at new, super and broken, never a literal', () => {
    const probe = `class SkillError extends McpHostError { constructor(m: string) { super(\`server \${m} offers no skills\`); } }
throw new SkillError(\`server \\\`\${server}\\\` offers no skills\`, 'unsupported');
throw new StdioMessageError('ignored a message that is not valid JSON-RPC');
throw new CommandNotFoundError(command, pathValue, 'set \`command\` to the program that starts the server');
return { source, denied: [], broken: \`\${source} does not hold an object\` };
// not findings:
throw new SkillError(server, { reason: 'unsupported' });
throw new StdioMessageError(this.server, { kind: 'unknownId', id });
throw new CommandNotFoundError(command, pathValue, { kind: 'install', what: 'Node.js' }, true);
return { source, denied: [], broken: { kind: 'notObject', file: source } };
`;
    const core = literalUserStrings('probe.ts', probe, CORE_CHECK);
    assert.deepEqual(core.map(f => [f.line, f.sink]), [[1, 'super'], [2, 'new SkillError'], [3, 'new StdioMessageError'], [4, 'new CommandNotFoundError'], [5, 'broken']]);
    // the four files themselves: nothing left at these sinks, and none of them on CORE_ALLOWED (H560 walks them too)
    for (const rel of ['src/mcp/skills/skills.ts', 'src/mcp/process/stdoutReader.ts', 'src/mcp/process/jsonrpcShape.ts', 'src/mcp/process/resolveCommand.ts', 'src/mcp/policy/orgPolicy.ts']) {
      assert.deepEqual(literalUserStrings(rel, read(rel), CORE_CHECK), [], rel);
      assert.ok(!(rel in CORE_ALLOWED), `${rel} is on CORE_ALLOWED`);
    }
    assert.match(read('src/mcp/policy/orgPolicy.ts'), /broken\?: PolicyBreak;/, 'the policy\'s broken is facts');
    // bystander: an McpHostError with a literal is still found, a t(...) message at broken is not
    assert.equal(literalUserStrings('p.ts', "throw new McpHostError('the server is gone');", CORE_CHECK).length, 1);
    assert.deepEqual(literalUserStrings('p.ts', "const p = { broken: l10n.t('the file is broken') };", CORE_CHECK), []);
  });

  it('H560: the core allow-list names only literals that are still there', () => {
    for (const [rel, list] of Object.entries(CORE_ALLOWED)) {
      const found = literalUserStrings(rel, read(rel), CORE_CHECK);
      for (const a of list) assert.ok(found.some(f => a.starts === '*' || f.text.startsWith(a.starts)), `${rel}: "${a.starts}" is no longer found: drop it from CORE_ALLOWED`);
    }
  });

  it('H560: a message made in the core at module load would stay English: no l10n.t outside a function in src/mcp', () => {
    const moduleLevel: string[] = [];
    for (const rel of sources([CORE])) {
      const src = read(rel);
      if (!src.includes('l10n.t(')) continue;
      const sf = ts.createSourceFile(rel, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      const visit = (n: ts.Node, inFn: boolean): void => {
        const fn = inFn || ts.isFunctionLike(n) || ts.isClassDeclaration(n) || ts.isClassExpression(n);
        if (!fn && ts.isCallExpression(n) && /(^|\.)l10n\.t$/.test(n.expression.getText(sf))) moduleLevel.push(`${rel}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
        ts.forEachChild(n, c => visit(c, fn));
      };
      visit(sf, false);
    }
    assert.deepEqual(moduleLevel, [], 'make the text inside a function: activation configures the bundle after the modules load');
  });

  it('H492: every user-facing string of package.json is a %key% of package.nls.json, and every key is used', async () => {
    const { manifestStrings } = await import(path.join(ROOT, 'scripts/l10n/manifestStrings.mjs')) as { manifestStrings: (pkg: unknown) => { key: string; value: string }[] };
    const pkg = JSON.parse(read('package.json')) as unknown;
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const strings = manifestStrings(pkg);
    assert.ok(strings.length > 100, `${strings.length} user-facing strings in package.json`);
    const literal = strings.filter(s => !/^%[\w.-]+%$/.test(s.value)).map(s => `${s.key}: ${s.value.slice(0, 60)}`);
    assert.deepEqual(literal, [], 'move these into package.nls.json: node scripts/l10n/extract-nls.mjs');
    const keys = new Set(strings.map(s => s.value.slice(1, -1)));
    assert.deepEqual([...keys].filter(k => typeof nls[k] !== 'string'), [], 'keys package.json uses that package.nls.json lacks');
    // every %key% anywhere in package.json (sync-schema writes some) counts as used
    const used = new Set([...read('package.json').matchAll(/"%([\w.-]+)%"/g)].map(m => m[1]));
    assert.deepEqual(Object.keys(nls).filter(k => !used.has(k)), [], 'package.nls.json keys nothing uses');
    assert.equal((JSON.parse(read('package.json')) as { l10n?: string }).l10n, './l10n');
    // Only English ships: the VSIX allow-list names the English files and no other locale (the pseudo-locale is
    // generated into the editor test's copy only).
    const shipped = read('.vscodeignore').split('\n').filter(l => l.startsWith('!') && /nls|l10n/.test(l));
    assert.deepEqual(shipped, ['!package.nls.json', '!l10n/bundle.l10n.json']);
  });

  it('H670: every text of the settings\' schemas, nested ones included (mcpHost.servers, mcpHost.inputs), is a %key% whose English is the schema\'s', async () => {
    type Strings = { manifestStrings: (pkg: unknown) => { key: string; value: string }[]; SCHEMA_TEXT_FIELDS: string[] };
    const { manifestStrings, SCHEMA_TEXT_FIELDS } = await import(path.join(ROOT, 'scripts/l10n/manifestStrings.mjs')) as Strings;
    type Schema = Record<string, unknown>;
    const pkg = JSON.parse(read('package.json')) as { contributes: { configuration: { properties: Record<string, Schema> } } };
    const nls = JSON.parse(read('package.nls.json')) as Record<string, string>;
    const props = pkg.contributes.configuration.properties;
    // A walk of its own, by keyword at any depth (whatever the keywords between: properties, items, anyOf …; a
    // snippet's description too): the texts outside values (default, examples, enum, const, a snippet's body).
    const texts: string[] = [];
    const literal: string[] = [];
    const walk = (node: unknown, at: string, names: boolean): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) { node.forEach((c, i) => walk(c, `${at}/${i}`, false)); return; }
      for (const [k, v] of Object.entries(node as Schema)) {
        if (!names && SCHEMA_TEXT_FIELDS.includes(k)) {
          for (const t of ([] as unknown[]).concat(v)) {
            texts.push(`${at}/${k}`);
            if (typeof t !== 'string' || !/^%[\w.-]+%$/.test(t) || typeof nls[t.slice(1, -1)] !== 'string') literal.push(`${at}/${k}: ${String(t).slice(0, 60)}`);
          }
        } else if (names || !['default', 'examples', 'enum', 'const', 'body'].includes(k)) {
          walk(v, `${at}/${k}`, !names && (k === 'properties' || k === 'patternProperties'));
        }
      }
    };
    for (const [name, schema] of Object.entries(props)) walk(schema, name, false);
    assert.deepEqual(literal, [], 'not a %key% of package.nls.json: node scripts/sync-schema.mjs (mcpHost.servers/inputs) or node scripts/l10n/extract-nls.mjs');
    // the scripts' list (extract-nls, sync-schema, H492) sees each of them
    const listed = manifestStrings(pkg).filter(s => s.key.startsWith('config.'));
    assert.equal(listed.length, texts.length, 'manifestStrings finds every text of the settings');
    const nested = listed.filter(s => /^config\.mcpHost\.(servers|inputs)\./.test(s.key) && !/^config\.mcpHost\.(servers|inputs)\.markdownDescription$/.test(s.key));
    assert.ok(nested.length >= 40, `${nested.length} nested texts of mcpHost.servers / mcpHost.inputs`);
    assert.ok(nested.some(s => s.key === 'config.mcpHost.inputs.items.id.patternErrorMessage'), 'a pattern error is a key too');
    // Read in English through package.nls.json, package.json's nested schema is server-schema.json's, word for word;
    // server-schema.json itself (the mcp.json schema other tools and the CLI read) holds no key.
    const english = (node: unknown) => JSON.parse(JSON.stringify(node), (_k, v: unknown) =>
      typeof v === 'string' ? v.replace(/^%([\w.-]+)%$/, (m, key: string) => nls[key] ?? m) : v) as unknown;
    const generated = read('src/mcp/config/server-schema.json');
    assert.doesNotMatch(generated, /"%[\w.-]+%"/);
    const schema = JSON.parse(generated) as { properties: { servers: Schema; inputs: Schema } };
    assert.deepEqual(english(props['mcpHost.servers'].additionalProperties), schema.properties.servers.additionalProperties);
    assert.deepEqual(english(props['mcpHost.inputs'].items), schema.properties.inputs.items);
    // and no key of package.nls.json is left unused (a text gone from the schema takes its key with it)
    const used = new Set([...read('package.json').matchAll(/"%([\w.-]+)%"/g)].map(m => m[1]));
    assert.deepEqual(Object.keys(nls).filter(k => !used.has(k)), [], 'package.nls.json keys nothing uses');
  });

  it('H671: sync-schema --check finds a changed nested text; the sync writes its English under the same key and drops a removed text\'s key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-host-sync-schema-'));
    try {
      // a copy of what the script reads and writes, in the repository's layout
      for (const rel of ['scripts/sync-schema.mjs', 'scripts/l10n/manifestStrings.mjs', 'src/mcp/config/server-schema.json', 'package.json', 'package.nls.json']) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.copyFileSync(path.join(ROOT, rel), path.join(dir, rel));
      }
      const sync = (...args: string[]) => spawnSync(process.execPath, [path.join(dir, 'scripts/sync-schema.mjs'), ...args], { encoding: 'utf8' });
      const json = (rel: string) => JSON.parse(fs.readFileSync(path.join(dir, rel), 'utf8')) as Record<string, unknown>;
      assert.equal(sync('--check').status, 0, 'the repository is in sync');
      const nlsBefore = json('package.nls.json') as Record<string, string>;
      const schemaFile = path.join(dir, 'src/mcp/config/server-schema.json');
      const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8')) as { properties: { servers: { additionalProperties: { properties: Record<string, { markdownDescription?: string }> } } } };
      const fields = schema.properties.servers.additionalProperties.properties;
      fields.command.markdownDescription = 'The program to start (changed).';
      delete fields.disabled;
      fs.writeFileSync(schemaFile, JSON.stringify(schema, null, 2) + '\n');

      const check = sync('--check');
      assert.equal(check.status, 1, 'drift found');
      assert.match(check.stderr, /package\.nls\.json out of date .*run node scripts\/sync-schema\.mjs/);
      assert.equal(sync().status, 0);
      const KEY = 'config.mcpHost.servers.additionalProperties';
      const nls = json('package.nls.json') as Record<string, string>;
      assert.equal(nls[`${KEY}.command.markdownDescription`], 'The program to start (changed).');
      assert.equal(nls[`${KEY}.disabled.markdownDescription`], undefined, 'the removed field\'s key is gone');
      assert.ok(nlsBefore[`${KEY}.disabled.markdownDescription`], 'it was there before');
      type Pkg = { contributes: { configuration: { properties: Record<string, { additionalProperties: { properties: Record<string, { markdownDescription?: string }> } }> } } };
      const servers = (json('package.json') as Pkg).contributes.configuration.properties['mcpHost.servers'].additionalProperties.properties;
      assert.equal(servers.command.markdownDescription, `%${KEY}.command.markdownDescription%`, 'package.json keeps the key');
      assert.equal(servers.disabled, undefined);
      // bystanders: another setting's text and the rest of the nested schema are as they were
      for (const k of ['config.mcpHost.autoStart.markdownDescription', `${KEY}.url.markdownDescription`, 'config.mcpHost.inputs.items.id.patternErrorMessage']) {
        assert.equal(nls[k], nlsBefore[k], k);
      }
      assert.doesNotMatch(fs.readFileSync(schemaFile, 'utf8'), /"%[\w.-]+%"/, 'server-schema.json stays English');
      assert.equal(sync('--check').status, 0, 'in sync again');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('H493: l10n/bundle.l10n.json is the export of every l10n.t message, each a literal', () => {
    const all = new Set<string>();
    const notLiteral: string[] = [];
    for (const rel of sources([...DIRS, CORE])) {
      const { messages, notLiteral: lines } = l10nMessages(rel, read(rel));
      messages.forEach(m => all.add(m));
      notLiteral.push(...lines.map(l => `${rel}:${l}`));
    }
    assert.deepEqual(notLiteral, [], 'the message of l10n.t must be a literal (values go in as {0}, {1} …)');
    const bundle = JSON.parse(read('l10n/bundle.l10n.json')) as Record<string, string>;
    const missing = [...all].filter(m => !(m in bundle));
    const stale = Object.keys(bundle).filter(m => !all.has(m));
    assert.deepEqual({ missing, stale }, { missing: [], stale: [] }, 'run: npx vscode-l10n-dev export -o l10n src/extension src/views src/mcp');
    for (const [k, v] of Object.entries(bundle)) assert.equal(v, k, 'the English bundle maps each message to itself');
    // l10n.t's format takes `{…}` up to the first `}` as a placeholder: a brace around one (`${input:{0}}`) leaves it
    // unformatted, so a message may hold `{` only as `{0}`, `{1}` … or in text with no placeholder at all.
    const broken = Object.keys(bundle).filter(k => /\{\d+\}/.test(k) && /\{(?!\d+\})/.test(k));
    assert.deepEqual(broken, [], 'a `{` that is not a placeholder in a message with placeholders: pass that text in as a value');
  });
});
