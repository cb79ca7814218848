/**
 * `mcp-host call … --elicit '<json object>'`: the answer to the server's form elicitation(s), given up front so
 * an unattended run needs no terminal. Each form request gets the fields of that object its requested schema
 * names, with the schema's defaults for the rest (SEP-1034), checked with the host's ajv rules (the same
 * compiler as tool arguments) before it is sent. Content that does not fit ends the run: the elicitation is
 * cancelled, the call fails with a message naming the server, the flag and the fix, and the servers stop.
 * A URL-mode elicitation cannot be answered with content: it is declined, with a line saying so.
 * Without the flag, on a terminal, the form is asked field by field (`terminalElicit`).
 */
import * as readline from 'node:readline';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/client';
import { SchemaCompiler, setOwn } from '../mcp';
import { UsageError } from './args';
import { ownText } from './output';

/** `--elicit '<json>'` → the object; bad JSON or anything but an object is a usage error naming the server. */
export function parseElicitContent(json: string, server: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch (err) {
    throw new UsageError(`--elicit (the answer to server "${server}"'s elicitation) is not valid JSON (${(err as Error).message}); pass an object, e.g. --elicit '{"name":"Ada"}'`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new UsageError(`--elicit (the answer to server "${server}"'s elicitation) must be a JSON object of the form's fields, e.g. --elicit '{"name":"Ada"}', not ${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v}`);
  }
  return v as Record<string, unknown>;
}

type Prop = { default?: unknown; type?: unknown; enum?: unknown[]; oneOf?: unknown[]; anyOf?: unknown[]; items?: Prop };
type Schema = { properties?: Record<string, Prop>; required?: string[] };

/** The values a choice field accepts (enum, or oneOf/anyOf of consts; for arrays, of its items), if it is one. */
function choicesOf(p: Prop | undefined): unknown[] | undefined {
  if (!p || typeof p !== 'object') return undefined;
  if (p.type === 'array' && p.items) return choicesOf(p.items);
  if (Array.isArray(p.enum)) return p.enum;
  const alt = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  const consts = alt?.filter((o): o is { const: unknown } => !!o && typeof o === 'object' && 'const' in o).map(o => o.const);
  return consts?.length ? consts : undefined;
}

/** One phrase per field that does not fit, in the words of the form (required fields, choices), not ajv's. */
function problems(schema: Schema, errors: readonly { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[]): string {
  const out = new Map<string, string>();
  for (const e of errors) {
    if (e.keyword === 'required' && e.instancePath === '') {
      const missing = String(e.params.missingProperty);
      out.set(missing, `the required field ${JSON.stringify(missing)} is missing`);
      continue;
    }
    const field = e.instancePath.split('/')[1];
    if (field === undefined) { out.set('', `the answer ${e.message ?? 'is invalid'}`); continue; }
    if (out.has(field)) continue;
    const choices = choicesOf(schema.properties?.[field]);
    const list = choices?.slice(0, 10).map(c => JSON.stringify(c)).join(', ');
    out.set(field, choices && ['const', 'enum', 'oneOf', 'anyOf'].includes(e.keyword)
      ? `${JSON.stringify(field)} must be ${schema.properties?.[field]?.type === 'array' ? 'a list of' : 'one of'} ${list}`
      : `${JSON.stringify(field)}${e.instancePath.split('/').length > 2 ? ` (item ${e.instancePath.split('/')[2]})` : ''} ${e.message ?? 'is invalid'}`);
  }
  return [...out.values()].slice(0, 6).join('; ');
}

/** What a form should get: the fields of `content` the schema names, then the schema's defaults for the others. */
export function elicitAnswer(schema: Schema, content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (Object.hasOwn(content, key)) setOwn(out, key, content[key]);
    else if (prop && typeof prop === 'object' && prop.default !== undefined) setOwn(out, key, prop.default);
  }
  return out;
}

/** A short example of the object a schema asks for, for the fix in a message. */
function exampleOf(schema: Schema): string {
  const fields = Object.entries(schema.properties ?? {}).slice(0, 6).map(([k, p]) => {
    const t = p && typeof p === 'object' ? p.type : undefined;
    const first = choicesOf(p)?.[0];
    const v = first !== undefined ? (t === 'array' ? [first] : first) : t === 'boolean' ? true : t === 'number' || t === 'integer' ? 1 : '…';
    return `${JSON.stringify(k)}:${JSON.stringify(v)}`;
  });
  return `{${fields.join(',')}}`;
}

/** The elicitation handler of one `call --elicit` run, and how it failed (if it did). */
export class ElicitFromFlag {
  private fail!: (err: Error) => void;
  /** Rejects with a UsageError when content did not fit a form; never resolves. */
  readonly failed: Promise<never>;
  private readonly compilers = new Map<string, SchemaCompiler>();

  constructor(private readonly content: Record<string, unknown>, private readonly err: (line: string) => void) {
    this.failed = new Promise<never>((_, reject) => { this.fail = reject; });
    this.failed.catch(() => undefined);
  }

  readonly elicit = async (server: string, params: ElicitRequest['params']): Promise<ElicitResult> => {
    if (params.mode === 'url') {
      this.err(ownText(`mcp-host: server "${server}" asked you to open a URL (URL-mode elicitation); --elicit answers forms only, so it was declined`));
      return { action: 'decline' };
    }
    const schema = (params as { requestedSchema?: Schema }).requestedSchema ?? {};
    const answer = elicitAnswer(schema, this.content);
    let compiler = this.compilers.get(server);
    if (!compiler) this.compilers.set(server, compiler = new SchemaCompiler(server));
    const validate = compiler.compile(schema, 'elicitation requestedSchema');
    const problem = typeof validate !== 'function'
      ? validate.message
      : validate(answer) ? undefined : problems(schema, validate.errors ?? []);
    if (problem !== undefined) {
      this.fail(new UsageError(`--elicit does not answer server "${server}"'s elicitation ${JSON.stringify(String(params.message ?? '').slice(0, 200))}: ${problem}; pass the fields it asks for, e.g. --elicit '${exampleOf(schema)}'; the server was told the form was cancelled`));
      return { action: 'cancel' };
    }
    const fields = Object.keys(answer);
    this.err(ownText(`mcp-host: server "${server}" asked: ${String(params.message ?? '').slice(0, 200)} — answered from --elicit (${fields.length ? fields.join(', ') : 'no fields'})`));
    return { action: 'accept', content: answer as ElicitResult['content'] };
  };
}

/**
 * Without `--elicit`, on a terminal: the form asked field by field on stderr/stdin (Enter keeps the default,
 * `!decline` declines, Ctrl+C cancels), the answer checked like `--elicit` content and asked again (three
 * tries) while it does not fit. Several forms at once are asked one after the other.
 */
export function terminalElicit(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): (server: string, params: ElicitRequest['params']) => Promise<ElicitResult> {
  let queue: Promise<unknown> = Promise.resolve();
  const compilers = new Map<string, SchemaCompiler>();
  const askOne = async (server: string, params: ElicitRequest['params']): Promise<ElicitResult> => {
    if (params.mode === 'url') {
      output.write(ownText(`mcp-host: server "${server}" asked you to open a URL (URL-mode elicitation); the command line answers forms only, so it was declined\n`));
      return { action: 'decline' };
    }
    const schema = (params as { requestedSchema?: Schema }).requestedSchema ?? {};
    let compiler = compilers.get(server);
    if (!compiler) compilers.set(server, compiler = new SchemaCompiler(server));
    const validate = compiler.compile(schema, 'elicitation requestedSchema');
    if (typeof validate !== 'function') {
      output.write(ownText(`mcp-host: server "${server}" asked for a form the host cannot check (${validate.message}); declined\n`));
      return { action: 'decline' };
    }
    output.write(ownText(`mcp-host: server "${server}" asks: ${String(params.message ?? '').slice(0, 2000)}\n  (Enter keeps the [default]; type !decline to decline, Ctrl+C to cancel)\n`));
    const rl = readline.createInterface({ input, output, terminal: true });
    let cancelled = false;
    rl.once('SIGINT', () => { cancelled = true; rl.close(); });
    // Lines typed ahead (or pasted at once) are kept for the next field, not dropped.
    const lines = rl[Symbol.asyncIterator]();
    const question = async (label: string): Promise<string | undefined> => {
      rl.setPrompt(label);
      rl.prompt();
      const next = await lines.next();
      return next.done ? undefined : next.value;
    };
    try {
      const required = new Set(schema.required ?? []);
      for (let attempt = 1; attempt <= 3; attempt++) {
        const content: Record<string, unknown> = {};
        for (const [key, prop] of Object.entries(schema.properties ?? {})) {
          const p = prop && typeof prop === 'object' ? prop as Prop & { title?: unknown } : {};
          const choices = choicesOf(p);
          const hint = choices ? ` (${p.type === 'array' ? 'comma-separated: ' : ''}${choices.map(c => String(c)).join(' | ')})` : p.type === 'boolean' ? ' (y/n)' : '';
          const dflt = p.default !== undefined ? ` [${Array.isArray(p.default) ? p.default.join(', ') : String(p.default)}]` : '';
          const answer = await question(ownText(`  ${typeof p.title === 'string' ? p.title : key}${required.has(key) ? ' *' : ''}${hint}${dflt}: `));
          if (answer === undefined || cancelled) return { action: 'cancel' };
          if (answer.trim() === '!decline') return { action: 'decline' };
          if (answer === '') continue;
          setOwn(content, key, p.type === 'array' ? answer.split(',').map(s => s.trim()).filter(Boolean)
            : p.type === 'boolean' ? (/^(y|yes|true)$/i.test(answer.trim()) ? true : /^(n|no|false)$/i.test(answer.trim()) ? false : answer)
              : (p.type === 'number' || p.type === 'integer') && answer.trim() !== '' && Number.isFinite(Number(answer)) ? Number(answer) : answer);
        }
        const result = elicitAnswer(schema, content);
        if (validate(result)) return { action: 'accept', content: result as ElicitResult['content'] };
        output.write(ownText(`  ${problems(schema, validate.errors ?? [])}${attempt < 3 ? '; try again' : '; cancelled'}\n`));
      }
      return { action: 'cancel' };
    } finally {
      rl.close();
    }
  };
  return (server, params) => {
    const next = queue.then(() => askOne(server, params));
    queue = next.catch(() => undefined);
    return next;
  };
}
