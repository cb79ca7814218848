/**
 * The check that finds a literal user-facing string (issue 40; test/unit/lint.l10n.test.ts, H490/H491): walks a
 * TypeScript source with the compiler API and reports a string or template literal with words in it that goes straight
 * to a user-facing sink instead of through `vscode.l10n.t` / `@vscode/l10n`'s `t`:
 *  - the message and buttons of window.show{Information,Warning,Error}Message and of dialogs.ts `notify`;
 *  - the text of a chat response stream (`markdown`, `progress`, `warning`), of a MarkdownString (`new`,
 *    `appendMarkdown`, `appendText`), a TreeItem's label (`new TreeItem(label)`), a webview panel's title;
 *  - a property with a user-facing name (`message`, `detail`, `title`, `label`, `description`, `tooltip`,
 *    `placeHolder`, `prompt`, `text`, `reason`, …) in an object literal (dialogs, quick pick items and options, input
 *    boxes, withProgress, chat buttons and results; in the core a problem's `message`, a verdict's `reason`) or assigned
 *    (`item.tooltip = …`, `quickPick.title = …`);
 *  - the message of the core's error for people, `new McpHostError(message)` (src/mcp/errors.ts: "an error whose
 *    message is already meant for a person"; it reaches rows, notifications and chat);
 *  - with `plainErrors` (the core, H625): the message of a plain `new Error(message)` too: an error a person reads is
 *    an `McpHostError` with a `t(...)` message; a plain one is for a server, a model, the log or a programmer, and the
 *    caller's allow-list says which;
 *  - (H656) the core's typed errors made localisable in issue 40 (`TYPED_ERRORS`), in the core and in the extension
 *    (which makes a BoundedReadError for a remote workspace file): a literal passed to `new BoundedReadError(…)` (any
 *    argument) or to `super(…)` in such a class's constructor; such an error carries facts and makes its sentence
 *    with `t(...)`. (H660) SkillError, StdioMessageError and CommandNotFoundError joined them; and `broken` (why an
 *    organisation's policy file is broken, src/mcp/policy/orgPolicy.ts `PolicyBreak`) is a property of facts: a
 *    literal there is a finding.
 * Not text, so allowed: a string with no letters outside codicons `$(name)` and `${…}` placeholders, a lower-case
 * identifier (`stdio`, `mcpHost.servers`) and a path. A string inside a `t(...)` call is the message itself and is fine.
 */
import * as ts from 'typescript';

export interface Finding { line: number; text: string; sink: string }

const MESSAGE_CALLS = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);
const TEXT_CALLS = new Set(['markdown', 'progress', 'warning', 'appendMarkdown', 'appendText']);
const TEXT_PROPS = new Set(['message', 'detail', 'title', 'label', 'description', 'tooltip', 'placeHolder', 'placeholder',
  'prompt', 'validationMessage', 'text', 'contextualTitle', 'errorMessage', 'statusText', 'invalidMessage', 'reason',
  // (H660) a policy's `broken` is a PolicyBreak of facts; policyBreakMessage makes its sentence
  'broken']);

/** True when the literal text reads as words (not a codicon, punctuation, or an identifier). */
export function isWords(text: string): boolean {
  const rest = text.replace(/\$\([\w~-]+\)/g, '').replace(/\$\{[^}]*\}/g, '');
  if (!/[A-Za-z]/.test(rest)) return false;
  if (/^\s*\S*\/\S*\s*$/.test(rest)) return false; // a path or URL (`~/.copilot/mcp-config.json`)
  return !/^\s*[a-z][\w.:/@-]*\s*$/.test(rest);
}

function literalText(e: ts.Expression): string | undefined {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e)) return literalText(e.expression);
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return isWords(e.text) ? e.text : undefined;
  if (ts.isTemplateExpression(e)) {
    const text = e.head.text + e.templateSpans.map(s => '${…}' + s.literal.text).join('');
    return isWords(text) ? text : undefined;
  }
  if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) return literalText(e.left) ?? literalText(e.right);
  if (ts.isConditionalExpression(e)) return literalText(e.whenTrue) ?? literalText(e.whenFalse);
  if (ts.isBinaryExpression(e) && (e.operatorToken.kind === ts.SyntaxKind.BarBarToken || e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)) return literalText(e.right);
  if (ts.isArrayLiteralExpression(e)) { for (const x of e.elements) { const t = literalText(x); if (t) return t; } }
  return undefined;
}

const calleeName = (c: ts.CallExpression | ts.NewExpression): string | undefined => {
  const e = c.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
};
const propName = (n: ts.PropertyName | ts.MemberName): string | undefined =>
  ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : undefined;

/**
 * The core's typed errors (not McpHostError, or an McpHostError subclass made from facts) whose messages are checked
 * (H656, H660): each carries facts (a kind, sizes, a limit) and makes its one sentence with `t(...)`
 * (src/mcp/boundedRead.ts `readRefusal`, src/mcp/schema/compiler.ts `schemaRefusalMessage`, src/mcp/schema/regexp.ts
 * `patternRefusal`, src/mcp/skills/skills.ts `skillRefusal`, src/mcp/process/stdoutReader.ts `droppedMessage`,
 * src/mcp/process/resolveCommand.ts `commandFix`).
 */
export const TYPED_ERRORS: ReadonlySet<string> = new Set(['BoundedReadError', 'SchemaRefusedError', 'UnsupportedPatternError',
  'SkillError', 'StdioMessageError', 'CommandNotFoundError']);

/** True when `node` (a `super(…)` call) is in the constructor of one of TYPED_ERRORS. */
function inTypedError(node: ts.Node): boolean {
  let c: ts.Node | undefined = node.parent;
  while (c && !ts.isClassLike(c)) c = c.parent;
  return !!c?.name && TYPED_ERRORS.has(c.name.text);
}

/** Every literal user-facing string of `source` (file name for positions only). */
export function literalUserStrings(fileName: string, source: string, opts: { plainErrors?: boolean } = {}): Finding[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Finding[] = [];
  const report = (node: ts.Node, text: string, sink: string) => out.push({ line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, text, sink });
  const check = (e: ts.Expression | undefined, sink: string) => {
    if (!e) return;
    const t = literalText(e);
    if (t !== undefined) report(e, t, sink);
  };
  const visit = (node: ts.Node): void => {
    // the message of t(...) / l10n.t(...) is the English source text: not a finding, and nothing inside it is
    if (ts.isCallExpression(node) && calleeName(node) === 't') return;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const name = calleeName(node);
      const args = node.arguments ?? ts.factory.createNodeArray();
      if (name && MESSAGE_CALLS.has(name)) args.forEach(a => check(a, name));
      else if (name === 'notify') args.slice(1).forEach(a => check(a, name));
      else if (name && TEXT_CALLS.has(name) && ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) check(args[0], name);
      else if (name === 'MarkdownString' && ts.isNewExpression(node)) check(args[0], 'new MarkdownString');
      else if (name === 'TreeItem' && ts.isNewExpression(node)) check(args[0], 'new TreeItem');
      else if (name === 'createWebviewPanel') check(args[1], name);
      else if (name === 'McpHostError' && ts.isNewExpression(node)) check(args[0], 'new McpHostError');
      else if (opts.plainErrors && name === 'Error' && ts.isNewExpression(node)) check(args[0], 'new Error');
      else if (name && TYPED_ERRORS.has(name) && ts.isNewExpression(node)) args.forEach(a => check(a, `new ${name}`));
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.SuperKeyword && inTypedError(node)) check(args[0], 'super');
    }
    if (ts.isPropertyAssignment(node)) {
      const p = propName(node.name);
      if (p && TEXT_PROPS.has(p)) check(node.initializer, p);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left)) {
      const p = node.left.name.text;
      if (TEXT_PROPS.has(p)) check(node.right, `.${p} =`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The message of every `t(...)` / `l10n.t(...)` / `vscode.l10n.t(...)` call, and the calls whose message is not a literal (it could not be exported). */
export function l10nMessages(fileName: string, source: string): { messages: string[]; notLiteral: number[] } {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const messages: string[] = [];
  const notLiteral: number[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 't'
      && /(^|\.)l10n$/.test(node.expression.expression.getText(sf))) {
      const m = node.arguments[0];
      if (m && (ts.isStringLiteral(m) || ts.isNoSubstitutionTemplateLiteral(m))) messages.push(m.text);
      else notLiteral.push(sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { messages, notLiteral };
}
