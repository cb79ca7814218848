/**
 * The handlers of mcp-host's one-server commands over the core's HostApi (the commands themselves are the rows of
 * `commandTable.ts`): `inspect`, `call`, `read`, `prompt`, `skills`, `skill`. Each one starts only the server it names
 * and always shuts the host down (commandHost.ts); `doctor` is in doctor.ts, `run` in codeModeRun.ts.
 */
import { ProtocolErrorCode } from '@modelcontextprotocol/client';
import { McpHostError, claimsReadOnly, hasOwn, readOnlyNote, toolUi, visibleToModel, shownName, SkillError } from '../mcp';
import { ElicitFromFlag, parseElicitContent } from './elicit';
import { FailureError, UsageError, parsePromptArgs, parseToolArgs, type ParsedArgs } from './args';
import { formatPrompt, formatResource, formatToolResult } from './format';
import { jsonText } from './output';
import { cancelRunningTasks, taskReporter } from './tasks';
import { catalogueOf, failed, serverWords, withServer, type CliRuntime } from './commandHost';

export async function inspect(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name] = args.positionals;
  if (!name) throw new UsageError('inspect needs a server name: mcp-host inspect <server>', { help: true });
  const report = await withServer(rt, args, name, async handle => {
    const s = handle.state;
    if (s.kind !== 'running') throw new FailureError(`server "${name}" is not running`);
    const cat = await catalogueOf(handle);
    return {
      serverInfo: s.serverInfo,
      protocolVersion: s.protocolVersion,
      era: s.era,
      capabilities: s.capabilities,
      ...(s.instructions ? { instructions: s.instructions } : {}),
      tools: cat.tools,
      prompts: cat.prompts,
      resources: cat.resources,
      resourceTemplates: cat.resourceTemplates,
      // MCP Apps: the tools that come with a view, and its ui:// resource; app-only tools are marked.
      apps: cat.tools.filter(t => toolUi(t) || !visibleToModel(t)).map(t => ({ tool: t.name, ...(toolUi(t) ? { resourceUri: toolUi(t) } : {}), visibility: visibleToModel(t) ? ['model', 'app'] : ['app'] })),
      // The tools whose server says they only read (src/mcp/catalogue/toolClaims.ts, as the Tools view says it): a claim.
      ...(cat.tools.some(claimsReadOnly) ? { readOnly: { note: readOnlyNote(), tools: cat.tools.filter(claimsReadOnly).map(t => t.name) } } : {}),
    };
  });
  rt.out(jsonText(report));
  return 0;
}

/** What `taskBound`'s `expired` rejects with. */
const TASK_TIMED_OUT = new Error('task timed out');

/** A timer started with the call's task (once): `expired` rejects with TASK_TIMED_OUT `ms` later. */
function taskBound(ms: number): { start(): void; expired: Promise<never>; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let fire!: () => void;
  const expired = new Promise<never>((_, reject) => { fire = () => reject(TASK_TIMED_OUT); });
  expired.catch(() => undefined);
  return {
    start: () => { timer ??= setTimeout(fire, ms); },
    expired,
    dispose: () => clearTimeout(timer),
  };
}

export async function call(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, tool] = args.positionals;
  if (!name || !tool) throw new UsageError(`call needs a server and a tool: mcp-host call <server> <tool> --args '{"key":"value"}'`, { help: true });
  const toolArgs = parseToolArgs(args.args);
  // --elicit: checked before any server starts; then the answer to every form the server asks for.
  const answers = args.elicit === undefined ? undefined : new ElicitFromFlag(parseElicitContent(args.elicit, name), rt.err);
  let ui: string | undefined;
  const result = await withServer(rt, args, name, async handle => {
    ui = toolUi(handle.catalogue.tools.find(t => t.name === tool));
    if (!handle.catalogue.tools.some(t => t.name === tool) && handle.catalogue.tools.length) {
      throw new UsageError(`server "${name}" has no tool "${tool}"; tools: ${handle.catalogue.tools.map(t => t.name).join(', ')}`);
    }
    // --timeout bounds a task's wait too: from the task's creation, at most that long (then tasks/cancel).
    const bound = args.timeout === undefined ? undefined : taskBound(args.timeout);
    const report = taskReporter(rt.err);
    const running = handle.callTool(tool, toolArgs, { userStarted: true, onTask: t => { bound?.start(); report(t); }, ...(args.task ? { task: args.task } : {}) });
    try {
      // Content that does not fit a form ends the call at once (the servers then stop), task or not.
      return await Promise.race([running, ...(answers ? [answers.failed] : []), ...(bound ? [bound.expired] : [])]);
    } catch (err) {
      if ((answers && err instanceof UsageError) || err === TASK_TIMED_OUT) {
        running.catch(() => undefined);
        await cancelRunningTasks([{ servers: [handle] }], rt.err);
        if (err === TASK_TIMED_OUT) {
          throw new FailureError(`server "${name}": the task of tool "${tool}" did not end within --timeout ${args.timeout} ms, so it was cancelled (tasks/cancel); give a larger --timeout, or none to wait until the task ends (Ctrl+C cancels it)`);
        }
        throw err;
      }
      throw failed(name, `tools/call ${tool}`, err);
    } finally {
      bound?.dispose();
    }
  }, answers ? { elicit: (server, params) => answers.elicit(server, params) } : rt.askElicitation && { elicit: rt.askElicitation },
  (server, t) => server === name && t === tool);
  if (args.json) rt.out(jsonText(result));
  else rt.out(formatToolResult(result));
  // The editor renders this result in the tool's MCP App view; the command line names it.
  if (ui) rt.err(`ui: ${ui} (an MCP App view; the editor renders it, mcp-host read ${name} ${ui} prints its HTML)`);
  if (result.isError) {
    rt.err(`mcp-host: tool "${tool}" on server "${name}" reported an error (isError: true)`);
    return 1;
  }
  return 0;
}

export async function read(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, uri] = args.positionals;
  if (!name || !uri) throw new UsageError('read needs a server and a resource URI: mcp-host read <server> <uri>', { help: true });
  const result = await withServer(rt, args, name, async handle => {
    try {
      return await handle.readResource(uri);
    } catch (err) {
      // Not the user's mistake in a tool's arguments (no inputSchema hint, no usage exit): the server has no such
      // resource (-32002, or -32602 as 2025-11-25 servers say it) or failed to read it; its words, escaped, exit 1.
      const code = err instanceof McpHostError ? err.code : undefined;
      if (code === ProtocolErrorCode.ResourceNotFound || code === ProtocolErrorCode.InvalidParams) {
        throw new FailureError(`server "${name}" has no resource ${JSON.stringify(uri)}: ${serverWords(err)}`);
      }
      throw failed(name, `resources/read ${uri}`, err);
    }
  });
  rt.out(args.json ? jsonText(result) : formatResource(result));
  return 0;
}

export async function prompt(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, promptName] = args.positionals;
  if (!name || !promptName) throw new UsageError('prompt needs a server and a prompt name: mcp-host prompt <server> <name> --arg key=value', { help: true });
  const promptArgs = parsePromptArgs(args.arg);
  const result = await withServer(rt, args, name, async handle => {
    const known = handle.catalogue.prompts.find(p => p.name === promptName);
    if (!known && handle.catalogue.prompts.length) {
      throw new UsageError(`server "${name}" has no prompt "${promptName}"; prompts: ${handle.catalogue.prompts.map(p => p.name).join(', ')}`);
    }
    const missing = (known?.arguments ?? []).filter(a => a.required && !hasOwn(promptArgs, a.name)).map(a => a.name);
    if (missing.length) throw new UsageError(`prompt "${promptName}" on server "${name}" needs ${missing.map(m => `--arg ${m}=…`).join(' ')}`);
    try {
      return await handle.getPrompt(promptName, promptArgs);
    } catch (err) {
      throw failed(name, `prompts/get ${promptName}`, err);
    }
  });
  rt.out(args.json ? jsonText(result) : formatPrompt(result));
  return 0;
}

/** `mcp-host skills <server>`: the server's skills (SEP-2640), one per line: name, then description (H119). */
export async function skills(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name] = args.positionals;
  if (!name) throw new UsageError('skills needs a server: mcp-host skills <server>', { help: true });
  const list = await withServer(rt, args, name, async handle => handle.skills.map(s => ({ ...s })));
  if (args.json) {
    rt.out(jsonText({ skills: list }));
    return 0;
  }
  if (!list.length) {
    rt.out(`server "${name}" lists no skills`);
    return 0;
  }
  // Server text on one line each: controls, bidi and line breaks folded (humanText.ts), then escaped by rt.out.
  const width = Math.min(40, Math.max(...list.map(s => shownName(s.name).length)));
  for (const s of list) rt.out(`${shownName(s.name).padEnd(width)}  ${shownName(s.description, 200)}`);
  return 0;
}

/** `mcp-host skill <server> <name> [file]`: a skill's SKILL.md (or one of its files), verified before it is printed (H121). */
export async function skill(rt: CliRuntime, args: ParsedArgs): Promise<number> {
  const [name, skillName, file] = args.positionals;
  if (!name || !skillName) throw new UsageError('skill needs a server and a skill name: mcp-host skill <server> <name> [file]', { help: true });
  const loaded = await withServer(rt, args, name, async handle => {
    try {
      return await handle.loadSkill(skillName, file);
    } catch (err) {
      if (err instanceof SkillError) throw new FailureError(err.message);
      throw failed(name, `loading skill ${JSON.stringify(skillName)}`, err);
    }
  });
  rt.out(args.json ? jsonText(loaded) : loaded.text);
  return 0;
}
