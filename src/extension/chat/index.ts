/**
 * The `@mcp` chat participant. `/prompts` lists every running server's prompts; `/<server>.<prompt>
 * key=value "quoted"…` runs one (missing arguments asked step by step with completion values);
 * `/resource <server> <uri> [question]` attaches a resource as context; `/tools` lists the tools the
 * model may call. Every model request carries the running servers' tools; each tool call is shown
 * and confirmed (once / session / always for this tool / deny) before it runs.
 *
 * VS Code 1.138 has no finalized API to add slash commands at run time (only the static
 * `chatParticipants[].commands`), so `/<server>.<prompt>` is parsed from `request.prompt` here.
 */
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import { visibleToModel, type HostApi, type ServerHandle } from '../../mcp';
import { askWithCompletion } from '../commands/complete';
import { ScopedGrants, type Grant } from '../sampling/queue';
import { grantKey, type ServerIdentityLookup } from '../identity';
import { promptToChatMessages, promptToTranscript, resourceText, toolResultText } from './messages';
import { bindArguments, parseInvocation, resolveTarget, tokenize, uniqueToolNames } from './parse';
import { setOwn } from '../../mcp/schema/own';
import type { AppViews } from '../apps';
import { chatModels, isModelUnavailable, MODEL_WAIT_MS } from './models';
import { CommandIds } from '../../views/commandIds';
import {
  buttonTitle, chipLabel, errorMarkdown, progressText, promptCommand, promptListing, toolCallNote, toolListing, toolRef, typeable,
} from './render';
import { dialogText, jsonText, markdownCode, markdownText, quoted, shownName } from '../../mcp/logging/display';
import { ask as askDialog, type Dialog } from '../dialogs';
import { errorText } from '../commands/args';

export const PARTICIPANT_ID = 'mcpHost.mcp';
/** Commands of this module (palette and tree items). */
export const ChatCommandIds = { runPromptInChat: CommandIds.runPromptInChat, attachResourceToChat: CommandIds.attachResourceToChat } as const;
/** Where "always allow this tool" grants live (keys `scope:server:fingerprint/tool`, in the scope of the server's definition). */
export const TOOL_ALWAYS_KEY = 'mcpHost.chat.toolGrants';
/** Where grants keyed by a bare `server/tool` lived before; dropped on activation. */
export const LEGACY_TOOL_ALWAYS_KEY = 'mcpHost.chat.toolsAlwaysAllowed';
/** Model ↔ tool round trips per request before the participant stops. */
export const MAX_TOOL_ROUNDS = 10;

/** A tool call waiting for the user's decision. */
export interface ToolAsk {
  server: string; tool: string; description?: string; args: Record<string, unknown>; readOnly?: boolean;
  /** Aborts when whoever asked went away (an App view closed): a dialog that can close should; the answer is ignored. */
  closed?: AbortSignal;
}

/** One prompt argument to ask for. */
export interface ArgumentAsk {
  handle: ServerHandle;
  prompt: string;
  argument: string;
  description?: string;
  required: boolean;
  index: number;
  total: number;
  /** The values given so far (completion context). */
  context: Record<string, string>;
  /** `completion/complete` values for the empty input (empty when the server offers none). */
  suggestions: () => Promise<string[]>;
}

/** The participant's dialogs, replaceable for tests. `askArgument` resolves undefined on cancel, '' to skip. */
export interface ChatUi {
  approveTool(ask: ToolAsk): Promise<Grant>;
  askArgument(ask: ArgumentAsk): Promise<string | undefined>;
}

/** The tool-call confirmation's decisions; "Deny" is also what Escape and the close box mean. */
export const TOOL_BUTTONS = { once: 'Allow Once', session: 'Allow for This Session', always: 'Always Allow This Tool', deny: 'Deny' } as const;

/**
 * The tool-call confirmation: the first line names the server and the tool (quoted, one line, no control or bidi
 * characters, cut); the detail carries the server's words (full name when it was cut or cleaned, description,
 * arguments) with controls and invisible characters shown as escapes.
 */
export function toolDialog(ask: ToolAsk): Dialog {
  const name = shownName(ask.tool);
  const detail = [
    name !== ask.tool ? `Tool name as sent: ${dialogText(jsonText(ask.tool, 0), 500)}` : undefined,
    ask.description ? `Description (from the server): ${dialogText(ask.description, 1000)}` : undefined,
    `Arguments:\n${dialogText(jsonText(ask.args), 2000)}`,
    ask.readOnly ? 'The server says this tool only reads (not verified).' : undefined,
  ].filter(Boolean).join('\n');
  return {
    severity: 'warning',
    message: `Run the tool ${quoted(ask.tool)} of MCP server ${quoted(ask.server)}?`,
    detail,
    buttons: [{ title: TOOL_BUTTONS.once }, { title: TOOL_BUTTONS.session }, { title: TOOL_BUTTONS.always }, { title: TOOL_BUTTONS.deny, isCloseAffordance: true }],
  };
}

export const defaultChatUi: ChatUi = {
  async approveTool(ask) {
    const pick = await askDialog(toolDialog(ask));
    return pick === TOOL_BUTTONS.once ? 'once' : pick === TOOL_BUTTONS.session ? 'session' : pick === TOOL_BUTTONS.always ? 'always' : 'deny';
  },
  askArgument(ask) {
    return askWithCompletion(ask.handle, { type: 'ref/prompt', name: ask.prompt }, ask.argument, ask.context, {
      title: `${shownName(`${ask.handle.name}.${ask.prompt}`, 120)} (${ask.index + 1}/${ask.total}): ${shownName(ask.argument)}${ask.required ? '' : ' (optional)'}`,
      placeholder: ask.description === undefined ? undefined : shownName(ask.description, 200),
      required: ask.required,
    });
  },
};

/** What a response keeps for later turns (ChatResult.metadata.mcp). */
interface TurnMemo {
  /** The prompt's messages as the model saw them. */
  messages?: { role: 'user' | 'assistant'; text: string }[];
  /** Resources attached as context. */
  attached?: { server: string; uri: string; text: string }[];
  /** The question asked with an attached resource. */
  question?: string;
  /** The model's answer (without the participant's own notes). */
  answer?: string;
}

function isRunning(h: ServerHandle): boolean {
  return h.state.kind === 'running';
}

/** The participant's logic, independent of how requests arrive (chat UI or test hook). */
export class McpChat {
  ui: ChatUi = defaultChatUi;
  /** MCP App views (set by the extension): tool calls with a UI open one; views' model context joins requests. */
  apps?: Pick<AppViews, 'open' | 'modelContexts'>;
  /** Before a request: servers waiting for their first use (`mcpHost.startup: lazy`) start (set by the extension). */
  beforeRequest?: () => Promise<void>;
  /** Why a server the user denied is not started, and how the user allows it (set by the extension). Never asks. */
  notAllowed?: (server: string) => string | undefined;
  private readonly grants: ScopedGrants;

  constructor(private readonly host: HostApi, mementos: { user?: vscode.Memento; workspace?: vscode.Memento } = {}, private readonly identity: ServerIdentityLookup = {}) {
    this.grants = new ScopedGrants(mementos, TOOL_ALWAYS_KEY);
  }

  /** Forgets session and always tool grants. */
  resetGrants(): Promise<void> {
    return this.grants.clear();
  }

  async handle(req: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    // A sticky participant plus a typed "@mcp" leaves "@mcp" in the prompt text: drop it.
    const request = /^\s*@mcp\s/.test(req.prompt) ? { ...req, prompt: req.prompt.replace(/^\s*@mcp\s+/, '') } as vscode.ChatRequest : req;
    try {
      await this.beforeRequest?.();
      // Servers the user denied stay stopped; the answer says so, and how the user allows one.
      for (const h of this.host.servers) {
        const why = isRunning(h) ? undefined : this.notAllowed?.(h.name);
        if (why) stream.markdown(`_${markdownText(why)}_\n\n`);
      }
      switch (request.command) {
        case 'prompts': return this.listPrompts(stream, false);
        case 'tools': return this.listTools(stream);
        case 'resource': return await this.attachResource(request, context, stream, token);
        default: break;
      }
      const inv = parseInvocation(request.prompt);
      if (inv.target) return await this.runPrompt(request, context, stream, token);
      if (!request.prompt.trim()) return this.listPrompts(stream, true);
      const messages = [...this.history(context), ...await referenceMessages(request), ...this.viewContext(stream), vscode.LanguageModelChatMessage.User(request.prompt)];
      const memo: TurnMemo = { answer: await this.answer(messages, request.model, stream, token) };
      return { metadata: { mcp: memo } };
    } catch (err) {
      if (token.isCancellationRequested) return {};
      const message = err instanceof vscode.LanguageModelError
        ? `The language model failed (${err.code}): ${err.message}`
        : errorText(err);
      // Chat renders the message as markdown, and it may carry a server's words.
      return { errorDetails: { message: errorMarkdown(message) } };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Listings
  // ---------------------------------------------------------------------------------------------

  private listPrompts(stream: vscode.ChatResponseStream, offer: boolean): vscode.ChatResult {
    const servers = this.host.servers.filter(h => isRunning(h) && h.catalogue.prompts.length);
    if (!servers.length) {
      const configured = this.host.servers.length;
      stream.markdown(configured
        ? 'No running MCP server offers prompts. Start one in the **MCP Host** view.\n'
        : 'No MCP server is configured. Add one under `mcpHost.servers` in settings.\n');
      if (configured) stream.button({ command: CommandIds.startAll, title: 'Start All Servers' });
      return {};
    }
    // The listing is untrusted markdown, every name and description escaped (render.ts): server text never sits
    // in trusted markdown, so it cannot end a list item and add a command link of its own. The actions are ours:
    // one button (a quick pick of every prompt; a run of buttons is folded by the chat view, showing only the last)
    // and the follow-up chips, which run a prompt.
    stream.markdown(new vscode.MarkdownString(promptListing(servers.map(h => ({ name: h.name, prompts: h.catalogue.prompts })), offer)));
    stream.button({ command: ChatCommandIds.runPromptInChat, title: 'Run a Prompt…' });
    const prompts = servers.flatMap(h => h.catalogue.prompts.filter(p => typeable(h.name, p.name)).map(p => promptCommand(h.name, p.name)));
    return { metadata: { prompts } };
  }

  private listTools(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const { names } = this.collectTools();
    stream.markdown(toolListing([...names].map(([name, e]) => [name, { server: e.server, tool: e.tool, description: e.def.description }] as const)));
    return {};
  }

  // ---------------------------------------------------------------------------------------------
  // Prompts
  // ---------------------------------------------------------------------------------------------

  private async runPrompt(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const inv = parseInvocation(request.prompt);
    const target = inv.target!;
    const hit = resolveTarget(target, this.host.servers.filter(isRunning).map(h => ({ name: h.name, prompts: h.catalogue.prompts.map(p => p.name) })));
    if (!hit) {
      const server = this.host.servers.find(h => target.startsWith(`${h.name}.`));
      if (server && !isRunning(server)) {
        stream.markdown(`MCP server ${markdownCode(server.name)} is not running (${server.state.kind}).\n`);
        stream.button({ command: CommandIds.startServer, title: buttonTitle(`Start ${server.name}`), arguments: [server.name] });
      } else {
        stream.markdown(`There is no prompt ${markdownCode(`/${target}`)}. `);
        this.listPrompts(stream, true);
      }
      return {};
    }
    const h = this.host.get(hit.server)!;
    const prompt = h.catalogue.prompts.find(p => p.name === hit.prompt)!;
    const declared = prompt.arguments ?? [];
    const bound = bindArguments(inv, declared);
    if (bound.unknown.length) stream.markdown(`_Ignoring unknown argument${bound.unknown.length > 1 ? 's' : ''} ${bound.unknown.map(u => markdownCode(u)).join(', ')}._\n\n`);
    const args = { ...bound.args };
    // Nothing given inline: ask every argument (optional ones may be skipped); else only missing required ones.
    const nothingGiven = !Object.keys(inv.named).length && !inv.positional.length;
    const toAsk = declared.filter(d => args[d.name] === undefined && (nothingGiven || d.required));
    for (const [i, d] of toAsk.entries()) {
      let value: string | undefined;
      for (let attempt = 0; attempt < 3; attempt++) {
        value = await this.ui.askArgument({
          handle: h, prompt: prompt.name, argument: d.name, description: d.description, required: d.required === true,
          index: i, total: toAsk.length, context: { ...args },
          suggestions: () => this.suggestions(h, prompt.name, d.name, args),
        });
        if (value === undefined || value !== '' || !d.required) break;
      }
      if (value === undefined || (value === '' && d.required) || token.isCancellationRequested) {
        stream.markdown(`Cancelled: ${markdownCode(d.name)} is needed to run ${markdownCode(promptCommand(h.name, prompt.name))}.\n`);
        return {};
      }
      if (value !== '') setOwn(args, d.name, value);
    }
    stream.progress(progressText`Getting prompt ${prompt.name} from ${h.name}…`);
    const result = await h.getPrompt(prompt.name, args, { signal: abortSignalOf(token) });
    const shown = Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
    stream.markdown(`**${markdownText(promptCommand(h.name, prompt.name))}**${shown ? ` ${markdownText(shown)}` : ''}\n\n`);
    const messages = [...this.history(context), ...await referenceMessages(request), ...promptToChatMessages(result)];
    if (!result.messages.length) {
      stream.markdown('_The prompt has no messages._\n');
      return {};
    }
    const answer = await this.answer(messages, request.model, stream, token);
    const memo: TurnMemo = { messages: promptToTranscript(result), answer };
    return { metadata: { mcp: memo } };
  }

  private async suggestions(h: ServerHandle, prompt: string, argument: string, context: Record<string, string>): Promise<string[]> {
    if (h.state.kind !== 'running' || !h.state.capabilities.completions) return [];
    try {
      return (await h.complete({ type: 'ref/prompt', name: prompt }, { name: argument, value: '' }, context)).values;
    } catch {
      return [];
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Resources
  // ---------------------------------------------------------------------------------------------

  private async attachResource(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const [serverName, uri, ...rest] = tokenize(request.prompt);
    const h = serverName ? this.host.get(serverName) : undefined;
    if (!h || !uri) {
      stream.markdown('Attach a resource with `@mcp /resource <server> <uri> [question]`.');
      const running = this.host.servers.filter(s => isRunning(s) && s.catalogue.resources.length);
      if (running.length) stream.markdown(' Some resources:\n\n');
      for (const s of running) {
        for (const r of s.catalogue.resources.slice(0, 20)) {
          // The query only fills the chat input (isPartialQuery); a URI that would not parse back is left out.
          if (/[\s\x00-\x1f\x7f-\x9f]/.test(r.uri)) continue;
          stream.button({ command: 'workbench.action.chat.open', title: buttonTitle(`${s.name}: ${r.name}`), arguments: [{ query: `@mcp /resource ${s.name} ${r.uri} `, isPartialQuery: true }] });
        }
      }
      return {};
    }
    if (!isRunning(h)) {
      stream.markdown(`MCP server ${markdownCode(h.name)} is not running (${h.state.kind}).\n`);
      stream.button({ command: CommandIds.startServer, title: buttonTitle(`Start ${h.name}`), arguments: [h.name] });
      return {};
    }
    stream.progress(progressText`Reading ${uri} from ${h.name}…`);
    const text = resourceText(uri, await h.readResource(uri, { signal: abortSignalOf(token) }));
    const memo: TurnMemo = { attached: [{ server: h.name, uri, text }] };
    stream.markdown(`Attached ${markdownCode(uri)} from ${markdownCode(h.name)} (${text.length} characters) as context for this conversation.\n\n`);
    const question = rest.join(' ').trim();
    if (question) {
      const messages = [...this.history(context), contextMessage(memo.attached![0]), vscode.LanguageModelChatMessage.User(question)];
      memo.question = question;
      memo.answer = await this.answer(messages, request.model, stream, token);
    }
    return { metadata: { mcp: memo } };
  }

  // ---------------------------------------------------------------------------------------------
  // The model, with tools
  // ---------------------------------------------------------------------------------------------

  /** Earlier `@mcp` turns as messages: prompts as the model saw them, attached resources, answers. */
  private history(context: vscode.ChatContext): vscode.LanguageModelChatMessage[] {
    const out: vscode.LanguageModelChatMessage[] = [];
    const turns = context.history;
    for (let i = 0; i < turns.length; i++) {
      const t = turns[i];
      if (t.participant !== PARTICIPANT_ID) continue;
      if (t instanceof vscode.ChatRequestTurn) {
        const next = turns[i + 1];
        const memo = next instanceof vscode.ChatResponseTurn ? (next.result.metadata?.mcp as TurnMemo | undefined) : undefined;
        if (memo?.messages) continue; // the response turn carries the prompt's messages instead
        if (t.command) continue; // listings are not conversation
        out.push(vscode.LanguageModelChatMessage.User(t.prompt));
      } else if (t instanceof vscode.ChatResponseTurn) {
        const memo = t.result.metadata?.mcp as TurnMemo | undefined;
        for (const m of memo?.messages ?? []) {
          out.push(m.role === 'assistant' ? vscode.LanguageModelChatMessage.Assistant(m.text) : vscode.LanguageModelChatMessage.User(m.text));
        }
        for (const a of memo?.attached ?? []) out.push(contextMessage(a));
        if (memo?.question) out.push(vscode.LanguageModelChatMessage.User(memo.question));
        const text = memo?.answer ?? (memo ? '' : t.response
          .filter((p): p is vscode.ChatResponseMarkdownPart => p instanceof vscode.ChatResponseMarkdownPart)
          .map(p => p.value.value).join(''));
        if (text) out.push(vscode.LanguageModelChatMessage.Assistant(text));
      }
    }
    return out;
  }

  /** What open MCP App views put into the model's context (`ui/update-model-context`), said visibly. */
  private viewContext(stream: vscode.ChatResponseStream): vscode.LanguageModelChatMessage[] {
    const views = this.apps?.modelContexts() ?? [];
    if (views.length) stream.markdown(`_Context from MCP App views: ${views.map(v => toolRef(v.tool, v.server)).join(', ')}._\n\n`);
    return views.map(v => vscode.LanguageModelChatMessage.User(`Context from the view of tool "${v.tool}" of MCP server "${v.server}":\n${v.text}`));
  }

  /** The running servers' tools under names unique across servers. */
  private collectTools(): { tools: vscode.LanguageModelChatTool[]; names: Map<string, { server: string; tool: string; def: Tool }> } {
    // App-only tools (`_meta.ui.visibility: ["app"]`) are for their server's views, never the model.
    const entries = this.host.servers.filter(isRunning).flatMap(h => h.catalogue.tools.filter(t => visibleToModel(t) && this.toolEnabled(h.name, t.name)).map(t => ({ server: h.name, tool: t.name, def: t })));
    const unique = uniqueToolNames(entries);
    const names = new Map<string, { server: string; tool: string; def: Tool }>();
    const tools: vscode.LanguageModelChatTool[] = [];
    for (const [name, e] of unique) {
      const def = entries.find(x => x.server === e.server && x.tool === e.tool)!.def;
      names.set(name, { ...e, def });
      tools.push({ name, description: `${def.description ?? def.title ?? def.name} (MCP server "${e.server}", tool "${e.tool}")`, inputSchema: def.inputSchema });
    }
    return { tools, names };
  }

  /** Sends `messages` with the tools, streams text into chat, runs confirmed tool calls, until the model answers. */
  private async answer(messages: vscode.LanguageModelChatMessage[], model: vscode.LanguageModelChat, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<string> {
    const { tools, names } = this.collectTools();
    let all = '';
    const send = (m: vscode.LanguageModelChat) => m.sendRequest(messages, {
      justification: 'The @mcp chat participant sends your request and MCP prompt messages to the language model.',
      tools: tools.length ? tools : undefined,
    }, token);
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await send(model);
      } catch (err) {
        // Right after start-up the model may not be there yet: wait for it (bounded), once, and say so.
        if (round > 0 || !isModelUnavailable(err)) throw err;
        stream.progress(`Waiting for the language model "${model.name}" to become available…`);
        const [again] = await chatModels({ id: model.id }, MODEL_WAIT_MS, token);
        if (!again) throw err;
        model = again;
        response = await send(model);
      }
      let text = '';
      const calls: vscode.LanguageModelToolCallPart[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) { stream.markdown(part.value); text += part.value; }
        else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
      }
      all += text;
      if (!calls.length || token.isCancellationRequested) return all;
      messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
      const results: vscode.LanguageModelToolResultPart[] = [];
      for (const call of calls) results.push(await this.callTool(call, names, stream, token));
      messages.push(vscode.LanguageModelChatMessage.User(results));
    }
    stream.markdown(`\n\n_Stopped after ${MAX_TOOL_ROUNDS} rounds of tool calls._\n`);
    return all;
  }

  /**
   * The confirmation of one tool call (the model's, or an MCP App view's): a standing grant for the tool (session
   * or always, keyed by where the server is defined plus its fingerprint) or the dialog. True when allowed.
   */
  async approveCall(server: string, tool: Tool, args: Record<string, unknown>, closed?: AbortSignal): Promise<boolean> {
    // An unknown server is asked every time.
    const id = this.identity.of?.(server);
    const key = id && grantKey(id, tool.name);
    let grant: Grant | undefined = id && key ? this.grants.standing(id.scope, key) : undefined;
    if (!grant) {
      grant = await this.ui.approveTool({ server, tool: tool.name, description: tool.description, args, readOnly: tool.annotations?.readOnlyHint, closed });
      if (closed?.aborted) return false;
      if (id && key) await this.grants.record(id.scope, key, grant);
    }
    return grant !== 'deny';
  }

  /** False for a tool the user turned off for models (`mcpHost.disabledTools`); set by the extension. */
  toolEnabled: (server: string, tool: string) => boolean = () => true;

  /** True when the user allowed this tool "always" (its calls show no dialog); the gateway forwards that to VS Code. */
  alwaysAllowed(server: string, toolName: string): boolean {
    const id = this.identity.of?.(server);
    const key = id && grantKey(id, toolName);
    return !!(id && key && this.grants.standing(id.scope, key) === 'always');
  }

  private async callTool(
    call: vscode.LanguageModelToolCallPart, names: Map<string, { server: string; tool: string; def: Tool }>,
    stream: vscode.ChatResponseStream, token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResultPart> {
    const reply = (text: string) => new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(text)]);
    const entry = names.get(call.name);
    const h = entry && this.host.get(entry.server);
    if (!entry || !h || !isRunning(h)) return reply(`There is no tool named "${call.name}" (or its MCP server is not running).`);
    const args = (call.input && typeof call.input === 'object' ? call.input : {}) as Record<string, unknown>;
    if (!await this.approveCall(entry.server, entry.def, args)) {
      stream.markdown(toolCallNote('declined', entry.tool, entry.server));
      return reply('The user declined to run this tool.');
    }
    stream.progress(progressText`Calling ${entry.tool} of ${entry.server}…`);
    try {
      // A tool that runs as an MCP task is waited for; its status shows as chat progress, and Stop cancels it.
      let said = '';
      const result = await h.callTool(entry.tool, args, {
        signal: abortSignalOf(token),
        by: 'model',
        onTask: t => {
          const line = progressText`${entry.tool} (${entry.server}): task ${t.status === 'input_required' ? 'needs your input' : t.status}${t.statusMessage ? ' — ' : ''}${t.statusMessage ?? ''}`;
          if (line !== said) stream.progress(said = line);
        },
      });
      stream.markdown(toolCallNote(result.isError ? 'reported-error' : 'called', entry.tool, entry.server));
      // A tool with an MCP App view: the view opens beside the chat, and the answer offers a button to focus it.
      const view = this.apps?.open(entry.server, entry.def, args, { preserveFocus: true });
      if (view) {
        view.result(result);
        stream.button({ command: CommandIds.openAppView, title: buttonTitle(`Open the view of ${entry.tool}`), arguments: [entry.server, entry.tool] });
      }
      return reply(toolResultText(result));
    } catch (err) {
      stream.markdown(toolCallNote('failed', entry.tool, entry.server, errorText(err)));
      return reply(`The tool call failed: ${errorText(err)}`);
    }
  }
}

/** The user's `#` attachments (files, selections, values) as context messages; unreadable ones are named only. */
async function referenceMessages(request: vscode.ChatRequest): Promise<vscode.LanguageModelChatMessage[]> {
  const out: vscode.LanguageModelChatMessage[] = [];
  for (const ref of request.references ?? []) {
    const v = ref.value;
    try {
      if (typeof v === 'string') out.push(vscode.LanguageModelChatMessage.User(`Context (${ref.modelDescription ?? ref.id}):\n${v}`));
      else if (v instanceof vscode.Uri) {
        const doc = await vscode.workspace.openTextDocument(v);
        out.push(vscode.LanguageModelChatMessage.User(`Context: the file ${vscode.workspace.asRelativePath(v)}:\n${doc.getText()}`));
      } else if (v instanceof vscode.Location) {
        const doc = await vscode.workspace.openTextDocument(v.uri);
        out.push(vscode.LanguageModelChatMessage.User(`Context: ${vscode.workspace.asRelativePath(v.uri)} lines ${v.range.start.line + 1}-${v.range.end.line + 1}:\n${doc.getText(v.range)}`));
      }
    } catch {
      out.push(vscode.LanguageModelChatMessage.User(`Context: ${ref.modelDescription ?? ref.id} (could not be read)`));
    }
  }
  return out;
}

function contextMessage(a: { server: string; uri: string; text: string }): vscode.LanguageModelChatMessage {
  return vscode.LanguageModelChatMessage.User(`Context: the resource ${a.uri} of MCP server "${a.server}":\n${a.text}`);
}

function abortSignalOf(token: vscode.CancellationToken): AbortSignal {
  const ac = new AbortController();
  if (token.isCancellationRequested) ac.abort();
  else token.onCancellationRequested(() => ac.abort());
  return ac.signal;
}

/**
 * After a prompt listing: the first prompts as follow-ups; one click runs one (missing arguments are asked). VS Code
 * sends a follow-up with the command of the request it follows unless it names one (`command ?? request.command`),
 * which would send `/prompts /<server>.<prompt>` and list the prompts again: `command: ''` sends `@mcp /<server>.<prompt>`.
 * Chips render their label as markdown: escaped.
 */
function promptFollowups(result: vscode.ChatResult): vscode.ChatFollowup[] {
  const prompts = (result.metadata as { prompts?: unknown } | undefined)?.prompts;
  return Array.isArray(prompts)
    ? prompts.filter((p): p is string => typeof p === 'string').slice(0, 6).map(p => ({ prompt: p, label: chipLabel(p), command: '' }))
    : [];
}

/** Opens the chat with `@mcp /<server>.<prompt>` (sent at once when the prompt has no arguments). */
async function runPromptInChat(host: HostApi, node?: { server?: string; prompt?: { name: string } }): Promise<void> {
  let server = node?.server;
  let prompt = node?.prompt?.name;
  if (!server || !prompt) {
    // Labels and details are server text: one line, no controls or bidi overrides, no `$(icon)` of the server's.
    const items = host.servers.filter(isRunning).flatMap(h => h.catalogue.prompts.filter(p => typeable(h.name, p.name)).map(p => ({
      label: shownName(promptCommand(h.name, p.name), 120).replace(/\$\(/g, '$\u200b('),
      detail: p.description === undefined ? undefined : shownName(p.description, 200).replace(/\$\(/g, '$\u200b('),
      server: h.name, prompt: p.name,
    })));
    if (!items.length) { void vscode.window.showInformationMessage('No running MCP server offers prompts.'); return; }
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Run an MCP prompt in chat', matchOnDetail: true });
    if (!pick) return;
    ({ server, prompt } = pick);
  }
  if (!typeable(server, prompt)) {
    void vscode.window.showWarningMessage(`The prompt ${quoted(prompt)} of MCP server ${quoted(server)} has white space in its name, so it cannot be run as @mcp /<server>.<prompt>.`);
    return;
  }
  const p = host.get(server)?.catalogue.prompts.find(x => x.name === prompt);
  const partial = !!p?.arguments?.length;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp /${server}.${prompt}${partial ? ' ' : ''}`, isPartialQuery: partial });
}

/** Opens the chat with `@mcp /resource <server> <uri> ` for the user to add a question. */
async function attachResourceToChat(host: HostApi, node?: { server?: string; resource?: { uri: string } }): Promise<void> {
  let server = node?.server;
  let uri = node?.resource?.uri;
  if (!server || !uri) {
    const items = host.servers.filter(isRunning).flatMap(h => h.catalogue.resources.map(r => ({ label: r.name, description: r.uri, server: h.name, uri: r.uri })));
    if (!items.length) { void vscode.window.showInformationMessage('No running MCP server offers resources.'); return; }
    const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Attach an MCP resource to chat', matchOnDescription: true });
    if (!pick) return;
    ({ server, uri } = pick);
  }
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@mcp /resource ${server} ${uri} `, isPartialQuery: true });
}

/** What a test sees of one handled request. */
export interface ChatTranscript {
  markdown: string;
  /** Every markdown part as streamed, with its trust (a string part is untrusted markdown). */
  parts: { value: string; isTrusted: boolean | { readonly enabledCommands: readonly string[] }; supportHtml: boolean }[];
  progress: string[];
  buttons: vscode.Command[];
  result: vscode.ChatResult;
}

/** The participant plus hooks that drive it without the chat UI (tests, other extensions). */
export interface ChatRegistration extends vscode.Disposable {
  readonly chat: McpChat;
  /** Handles `prompt` (and `command`) as if typed after `@mcp`, with `model` (default: the first model). */
  run(prompt: string, opts?: {
    command?: string; model?: vscode.LanguageModelChat; references?: vscode.ChatPromptReference[];
    history?: vscode.ChatContext['history']; token?: vscode.CancellationToken;
  }): Promise<ChatTranscript>;
  /** Replaces the dialogs (undefined restores the real ones). */
  setUi(ui: Partial<ChatUi> | undefined): void;
  /** The follow-ups the chat view offers after `result`. */
  followups(result: vscode.ChatResult): vscode.ChatFollowup[];
}

/** Registers `@mcp` (id `mcpHost.mcp`). */
export function registerChat(context: vscode.ExtensionContext, host: HostApi, identity: ServerIdentityLookup = {}): ChatRegistration {
  const chat = new McpChat(host, { user: context.globalState, workspace: context.workspaceState }, identity);
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (req, ctx, stream, token) => chat.handle(req, ctx, stream, token));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'mcp.svg');
  participant.followupProvider = { provideFollowups: result => promptFollowups(result) };
  const commands = [
    vscode.commands.registerCommand(ChatCommandIds.runPromptInChat, (node?: { server?: string; prompt?: { name: string } }) => runPromptInChat(host, node)),
    vscode.commands.registerCommand(ChatCommandIds.attachResourceToChat, (node?: { server?: string; resource?: { uri: string } }) => attachResourceToChat(host, node)),
  ];
  return {
    chat,
    dispose: () => { participant.dispose(); commands.forEach(c => c.dispose()); },
    setUi: ui => { chat.ui = { ...defaultChatUi, ...ui }; },
    followups: result => promptFollowups(result),
    async run(prompt, opts = {}) {
      const model = opts.model ?? (await chatModels())[0];
      const transcript: ChatTranscript = { markdown: '', parts: [], progress: [], buttons: [], result: {} };
      const stream = {
        markdown: (v: string | vscode.MarkdownString) => {
          transcript.markdown += typeof v === 'string' ? v : v.value;
          transcript.parts.push(typeof v === 'string'
            ? { value: v, isTrusted: false, supportHtml: false }
            : { value: v.value, isTrusted: v.isTrusted ?? false, supportHtml: v.supportHtml ?? false });
        },
        progress: (v: string) => { transcript.progress.push(v); },
        button: (c: vscode.Command) => { transcript.buttons.push(c); },
        anchor: () => undefined, reference: () => undefined, filetree: () => undefined, push: () => undefined,
      } as unknown as vscode.ChatResponseStream;
      const request = { prompt, command: opts.command, references: opts.references ?? [], toolReferences: [], toolInvocationToken: undefined, model } as unknown as vscode.ChatRequest;
      const cts = new vscode.CancellationTokenSource();
      try {
        transcript.result = await chat.handle(request, { history: opts.history ?? [] }, stream, opts.token ?? cts.token);
      } finally {
        cts.dispose();
      }
      return transcript;
    },
  };
}
