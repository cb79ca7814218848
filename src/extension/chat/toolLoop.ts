/**
 * The `@mcp` participant's model loop: every model request carries the tools a model may see (the core's one
 * predicate, src/mcp/catalogue/modelTools.ts: running, allowed, not app-only, not turned off), under names unique
 * across servers; over the tool budget (`mcpHost.toolBudget`) it carries a search and an activate tool instead, and
 * the tools the model activated from the next round on (kept across turns in the response's metadata). Each tool
 * call is confirmed (a standing grant or the dialog) before it runs, MCP App views open for tools that have one, and
 * the loop stops after `mcpHost.chat.maxToolRounds` rounds (the answer says how to raise it).
 *
 * One request is one turn of the consent governor (src/extension/trust/governor.ts): a tool is asked about at most once per
 * request (an "Allow Once" runs that one call; the model asking for the tool again in the same request is told it is
 * not run again), a Deny ends the model's turn (the loop stops and says so), Stop (the request's cancellation) closes
 * the pending question and no dialog opens after it, and at most MAX_CALLS_PER_RESPONSE calls of one response are
 * considered. When a running server lists skills, the model may load one through the
 * participant's own skill tool (skills.ts): a read, shown in the answer, verified by the core.
 *
 * Code mode (`mcpHost.codeMode`, issue 42): the model is offered one tool, `mcp_host_run_program`
 * (src/mcp/codemode/codeModeTool.ts), instead of the servers' tools; each `mcp.<server>.<tool>()` of its program goes
 * the way of a direct call here (the model gate, approval() in this request's turn, `callTool(..., { by: 'model' })`
 * with the program's id for History), a Deny ends the program, and Stop aborts it.
 */
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import { type HostApi, claimsReadOnly, DISCOVERY_TOOL_NAMES, discoveryTools, modelMaySee, modelToolView, ToolDiscovery, type ModelTool, type ModelToolGate, type ToolBudget, markdownCode, markdownText, CODE_MODE_TOOL_NAME, codeModeServers, codeModeTool, ProgramStop, runCodeModeTool, type CodeModeLimits, programValue } from '../../mcp';
import { ScopedGrants, type Grant } from '../trust/grants';
import { Turn, type Dialogs } from '../ui/dialogs';
import { DEFAULT_MAX_TOOL_ROUNDS } from '../settings';
import { abortSignalOf } from '../ui/cancellation';
import { grantKey, type ServerIdentityLookup } from '../trust/identity';
import { toolResultText } from './messages';
import { uniqueToolNames } from './parse';
import { chatModels, isModelUnavailable, MODEL_WAIT_MS, NoLanguageModelError } from './models';
import { CommandIds } from '../../views/commandIds';
import { buttonTitle, progressArgs, toolCallNote, toolRef } from './render';
import { errorText } from '../commands/args';
import { defaultChatUi, type ChatUi } from './ui';
import { loadSkillForModel, SKILL_TOOL, skillTool } from './skills';
import { callInTurn } from './taskTurn';
import { MAX_CALLS_PER_RESPONSE, MAX_TOOL_ROUNDS, TOOL_ALWAYS_KEY, isRunning, toolQuestionKey, type Approval, type ChatServices, type ChatTools } from './chatServices';

/** The participant's tools, grants and model round trips (McpChat's base). */
export class ChatModelLoop {
  protected readonly host: HostApi;
  private readonly seams?: ChatServices['seams'];
  /** MCP App views: tool calls with a UI open one; views' model context joins requests. */
  protected readonly apps?: ChatServices['apps'];
  private readonly identity?: ServerIdentityLookup;
  /** What decides the tools a model sees (state, trust/consent, enablement). Default: running servers, every tool. */
  protected readonly gate: ModelToolGate;
  /** The tool budget now (`mcpHost.toolBudget`). Default: none. */
  protected readonly budget: () => ToolBudget;
  /** Round trips per request (`mcpHost.chat.maxToolRounds`). */
  protected readonly maxToolRounds: () => number;
  /** Code mode's limits while `mcpHost.codeMode` is on (settings.ts codeMode()), else undefined. */
  readonly codeMode: () => CodeModeLimits | undefined;
  private readonly grants: ScopedGrants;
  /** The participant's dialogs: the real ones, or (tests) the replacements in the test seams, the rest real. */
  protected get ui(): ChatUi {
    return this.seams?.chatUi ? { ...this.realUi, ...this.seams.chatUi } : this.realUi;
  }
  /** The real dialogs (chat/ui.ts), over the window's dialogs. */
  private readonly realUi: ChatUi;
  private readonly dialogs: Dialogs;
  private readonly grantsChanged = new vscode.EventEmitter<void>();
  /** A standing "always" grant was given or the grants were reset (the gateway re-lists what VS Code may run unasked). */
  readonly onDidChangeGrants = this.grantsChanged.event;

  constructor(services: ChatServices) {
    this.host = services.host;
    this.seams = services.seams;
    this.dialogs = services.dialogs;
    this.realUi = defaultChatUi(services.dialogs, services.quickInputs);
    this.apps = services.apps;
    this.identity = services.identity;
    this.gate = services.gate ?? {};
    this.budget = services.budget ?? (() => ({}));
    this.maxToolRounds = services.maxToolRounds ?? (() => MAX_TOOL_ROUNDS);
    this.codeMode = services.codeMode ?? (() => undefined);
    this.grants = new ScopedGrants(services.mementos ?? {}, TOOL_ALWAYS_KEY);
  }

  /** Forgets session and always tool grants. */
  async resetGrants(): Promise<void> {
    await this.grants.clear();
    this.grantsChanged.fire();
  }

  /** What open MCP App views put into the model's context (`ui/update-model-context`), said visibly. */
  protected viewContext(stream: vscode.ChatResponseStream): vscode.LanguageModelChatMessage[] {
    const views = this.apps?.modelContexts() ?? [];
    if (views.length) stream.markdown(vscode.l10n.t('_Context from MCP App views: {0}._\n\n', views.map(v => toolRef(v.tool, v.server)).join(', ')));
    return views.map(v => vscode.LanguageModelChatMessage.User(`Context from the view of tool "${v.tool}" of MCP server "${v.server}":\n${v.text}`));
  }

  /**
   * The tools a model may see (the one predicate), under names unique across servers. With a discovery state and
   * over the budget: the search and activate tools plus the activated ones (`names` still holds every tool, by name,
   * for the search and activation; `active` says which may be called).
   */
  protected collectTools(discovery?: ToolDiscovery): ChatTools {
    const limits = this.codeMode();
    if (limits) {
      const servers = codeModeServers(this.host.servers, this.gate);
      const t = codeModeTool(servers, (server, tool) => this.mayCall(server, tool), limits);
      return { tools: [{ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema }], names: new Map(), active: new Set(), codeMode: { servers, limits } };
    }
    const view = modelToolView(this.host.servers, this.gate, this.budget(), discovery);
    const every = view.discovery ? view.all : view.tools;
    const entries = every.map(mt => ({ server: mt.server, tool: mt.tool.name, def: mt.tool }));
    const unique = uniqueToolNames(entries);
    const names = new Map<string, { server: string; tool: string; def: Tool }>();
    const active = new Set(view.tools.map(mt => `${mt.server}\u0000${mt.tool.name}`));
    const tools: vscode.LanguageModelChatTool[] = view.discovery ? discoveryTools().map(t => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })) : [];
    for (const [name, e] of unique) {
      const def = entries.find(x => x.server === e.server && x.tool === e.tool)!.def;
      names.set(name, { ...e, def });
      if (!active.has(`${e.server}\u0000${e.tool}`)) continue;
      tools.push({ name, description: `${def.description ?? def.title ?? def.name} (MCP server "${e.server}", tool "${e.tool}")`, inputSchema: def.inputSchema });
    }
    return { tools, names, discovery: view.discovery ? discovery : undefined, active };
  }

  /** Sends `messages` with the tools, streams text into chat, runs confirmed tool calls, until the model answers. */
  protected async answer(messages: vscode.LanguageModelChatMessage[], requested: vscode.LanguageModelChat | undefined, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, discovery?: ToolDiscovery): Promise<string> {
    // Only here is a model needed: listings and argument questions came before, without one.
    if (!requested) throw new NoLanguageModelError();
    let model = requested;
    let offered = this.collectTools(discovery);
    // Skills: one tool of the participant's own (unless a server's tool took the name).
    const withSkills = (o: ChatTools): ChatTools => {
      const skill = o.names.has(SKILL_TOOL) ? undefined : skillTool(this.host, this.gate);
      return skill ? { ...o, tools: [...o.tools, skill] } : o;
    };
    offered = withSkills(offered);
    const skills = () => !offered.names.has(SKILL_TOOL) && offered.tools.some(t => t.name === SKILL_TOOL);
    let all = '';
    const send = (m: vscode.LanguageModelChat) => m.sendRequest(messages, {
      justification: vscode.l10n.t('The @mcp chat participant sends your request and MCP prompt messages to the language model.'),
      tools: offered.tools.length ? offered.tools : undefined,
    }, token);
    // This request is one turn of the governor: cancelled with the request, ended by a Deny or by its end.
    const turn = new Turn('@mcp request', abortSignalOf(token));
    const maxRounds = this.maxToolRounds();
    try {
    for (let round = 0; round < maxRounds; round++) {
      // Tools activated in the round before are offered from this one on.
      if (round > 0) offered = withSkills(this.collectTools(discovery));
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await send(model);
      } catch (err) {
        // Right after start-up the model may not be there yet: wait for it (bounded), once, and say so.
        if (round > 0 || !isModelUnavailable(err)) throw err;
        stream.progress(vscode.l10n.t('Waiting for the language model "{0}" to become available…', model.name));
        const [again] = await chatModels({ id: model.id }, MODEL_WAIT_MS, token);
        if (!again) throw new NoLanguageModelError(`The language model "${model.name}" is not available (${err instanceof Error ? err.message : String(err)}).`);
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
      if (!calls.length || token.isCancellationRequested || turn.ended) return all;
      // Calls past the bound are dropped from the conversation too (not answered one by one, not sent back).
      const asked = calls.length;
      calls.splice(MAX_CALLS_PER_RESPONSE);
      messages.push(vscode.LanguageModelChatMessage.Assistant([...(text ? [new vscode.LanguageModelTextPart(text)] : []), ...calls]));
      const results: vscode.LanguageModelToolResultPart[] = [];
      const notRun = (call: vscode.LanguageModelToolCallPart, why: string) => new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(why)]);
      for (const call of calls) {
        if (turn.ended) results.push(notRun(call, 'Not run: the request ended (the user declined a tool call or stopped the request).'));
        else results.push(skills() && call.name === SKILL_TOOL ? await this.loadSkill(call, stream, token) : await this.callTool(call, offered, stream, token, turn));
      }
      if (asked > MAX_CALLS_PER_RESPONSE && !turn.ended) stream.markdown(vscode.l10n.t('\n\n_The model asked for {0} tool calls in one response: only the first {1} were considered._\n\n', asked, MAX_CALLS_PER_RESPONSE));
      if (turn.ended === 'denied') {
        stream.markdown(vscode.l10n.t('\n\n_Stopped: you declined a tool call, so the model\'s turn ends here. Send a new request to go on._\n'));
        return all;
      }
      if (turn.ended || token.isCancellationRequested) return all;
      messages.push(vscode.LanguageModelChatMessage.User(results));
    }
    stream.markdown(vscode.l10n.t('\n\n_Stopped after {0} rounds of tool calls: the limit is the setting `mcpHost.chat.maxToolRounds` (default {1}); raise it in your user settings to let a model work longer._\n', maxRounds, DEFAULT_MAX_TOOL_ROUNDS));
    return all;
    } finally {
      turn.end('done');
    }
  }

  /** The search or activate tool of progressive discovery, answered here (server text as data: JSON, one plain line each). */
  private async discoveryCall(name: string, args: Record<string, unknown>, offered: ChatTools, stream: vscode.ChatResponseStream): Promise<string> {
    const d = offered.discovery!;
    const byName = new Map<string, ModelTool>();
    const nameOf = new Map<string, string>();
    for (const [n, e] of offered.names) {
      byName.set(n, { server: e.server, tool: e.def });
      nameOf.set(`${e.server}\u0000${e.tool}`, n);
    }
    if (name === DISCOVERY_TOOL_NAMES.search) {
      stream.progress(vscode.l10n.t('Searching the MCP tools…'));
      const { hits, total } = await d.search([...byName.values()], args.query, mt => nameOf.get(`${mt.server}\u0000${mt.tool.name}`)!);
      return JSON.stringify({ matches: total, shown: hits.length, tools: hits, active: d.size, maxActive: d.maxActive });
    }
    const { activated, text } = d.activate(args.names, n => byName.get(n));
    if (activated.length) stream.progress(vscode.l10n.t('Activated {0} MCP tool(s)', ...progressArgs(String(activated.length))));
    return text;
  }

  /**
   * The confirmation of one tool call (the model's, or an MCP App view's): a standing grant for the tool (session
   * or always, keyed by where the server is defined plus its definition key) or the dialog. True when allowed (run it).
   */
  async approveCall(server: string, tool: Tool, args: Record<string, unknown>, closed?: AbortSignal, turn?: Turn): Promise<boolean> {
    return await this.approval(server, tool, args, { closed, turn }) === 'allowed';
  }

  /**
   * The confirmation through the governor: a standing grant, or the one dialog of this tool (joined when it is open,
   * remembered for the rest of `turn`). Only the call whose own dialog said "Allow Once" runs on it; session and
   * always grants are recorded (then stand for every later call).
   */
  async approval(server: string, tool: Tool, args: Record<string, unknown>, o: { closed?: AbortSignal; turn?: Turn } = {}): Promise<Approval> {
    // An unknown server has no standing grant: its calls are asked (once per turn).
    const id = this.identity?.(server);
    const key = id && grantKey(id, tool.name);
    if (id && key && this.grants.standing(id.scope, key)) return 'allowed';
    const out = await this.dialogs.govern({
      key: toolQuestionKey(server, tool.name), turn: o.turn, closed: o.closed,
      show: closed => this.ui.approveTool({ server, tool: tool.name, description: tool.description, args, readOnly: claimsReadOnly(tool), closed }),
      denies: a => a === undefined || a === 'deny',
    });
    if (out.kind === 'refused') return 'refused';
    const grant = (out.answer ?? 'deny') as Grant;
    if (grant === 'deny') return 'declined';
    if (out.kind === 'answered') {
      if (id && key) {
        await this.grants.record(id.scope, key, grant);
        if (grant === 'always') this.grantsChanged.fire();
      }
      return 'allowed';
    }
    // Joined or remembered: an "Allow Once" was acted on by the call that asked; a session or always grant stands.
    return grant === 'once' ? 'once-used' : 'allowed';
  }


  /** Whether the model may call `tool` of `server` now (the one predicate, on a running server). */
  private mayCall(server: string, toolName: string): boolean {
    const h = this.host.get(server);
    const def = h?.catalogue.tools.find(t => t.name === toolName);
    return !!(h && def && isRunning(h) && modelMaySee(h, def, this.gate));
  }

  /**
   * One use of the code-mode tool: `describe`, or a program whose every tool call is confirmed and made as a direct
   * call of the model is (approval in this request's turn, App views, `by: 'model'`), recorded under the program's id.
   */
  private async programCall(input: Record<string, unknown>, cm: NonNullable<ChatTools['codeMode']>, stream: vscode.ChatResponseStream, token: vscode.CancellationToken, turn?: Turn): Promise<string> {
    if (typeof input.program === 'string') stream.progress(vscode.l10n.t('Running a code-mode program…'));
    let r: Awaited<ReturnType<typeof runCodeModeTool>>;
    try {
      r = await runCodeModeTool(input, {
        servers: cm.servers, limits: cm.limits, signal: abortSignalOf(token),
        visible: (server, tool) => this.mayCall(server, tool),
        call: async (server, tool, args, o) => {
          const h = this.host.get(server)!;
          const proposed = this.apps?.propose(server, tool, args, { preserveFocus: true });
          const approval = await this.approval(server, tool, args, { turn, closed: o.signal });
          if (approval !== 'allowed') {
            proposed?.cancelled(approval === 'declined' ? 'The user declined to run the tool' : 'The tool was not run');
            if (approval === 'declined') {
              stream.markdown(toolCallNote('declined', tool.name, server));
              throw new ProgramStop(`the user declined to run tool "${tool.name}" of MCP server "${server}", so the program ends here.`);
            }
            if (approval === 'once-used') throw new Error(`not run: the user allowed tool "${tool.name}" of MCP server "${server}" once in this request, and that call ran.`);
            throw new ProgramStop('the request ended.');
          }
          stream.progress(vscode.l10n.t('Program: calling {0} of {1}…', ...progressArgs(tool.name, server)));
          const view = this.apps?.open(server, tool, args, { preserveFocus: true });
          try {
            // A tool that runs as an MCP task is awaited (its status shows as progress): the program needs its result.
            const result = await h.callTool(tool.name, args, {
              signal: o.signal, by: 'model', program: o.program,
              onTask: t => stream.progress(vscode.l10n.t('{0} ({1}): task {2}', ...progressArgs(tool.name, server), t.status === 'input_required' ? vscode.l10n.t('needs your input') : t.status)),
            });
            view?.result(result);
            stream.markdown(toolCallNote(result.isError ? 'reported-error' : 'called', tool.name, server));
            return programValue(server, tool.name, result);
          } catch (err) {
            view?.cancelled(errorText(err));
            stream.markdown(toolCallNote('failed', tool.name, server, errorText(err)));
            throw err;
          }
        },
      });
    } catch (err) {
      // The engine itself failed (not the program): said in the answer and to the model, the request goes on.
      stream.markdown(`\n\n_${vscode.l10n.t('The code-mode program could not run: {0}', markdownText(errorText(err), 1000))}_\n\n`);
      return `The program could not run: ${errorText(err)}`;
    }
    if (r.program) {
      const n = String(r.calls.length);
      stream.markdown(`\n\n_${r.isError ? vscode.l10n.t('The program {0} stopped after {1} tool call(s).', markdownCode(r.program), n) : vscode.l10n.t('Ran the program {0}: {1} tool call(s).', markdownCode(r.program), n)}_\n\n`);
    }
    return r.text;
  }


  /** True when the user allowed this tool "always" (its calls show no dialog); the gateway forwards that to VS Code. */
  alwaysAllowed(server: string, toolName: string): boolean {
    const id = this.identity?.(server);
    const key = id && grantKey(id, toolName);
    return !!(id && key && this.grants.standing(id.scope, key) === 'always');
  }

  /** The model asked for a skill: loaded (verified by the core) and said in the answer; a refusal is the tool's answer. */
  private async loadSkill(call: vscode.LanguageModelToolCallPart, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResultPart> {
    const input = call.input as { server?: unknown; skill?: unknown } | undefined;
    stream.progress(vscode.l10n.t('Loading skill {0} of {1}…', ...progressArgs(String(input?.skill), String(input?.server))));
    const { text, loaded } = await loadSkillForModel(this.host, input, abortSignalOf(token), this.gate);
    stream.markdown(loaded
      ? vscode.l10n.t('\n\n_Loaded skill {0} of {1}{2}._\n\n', markdownCode(loaded.skill), markdownCode(loaded.server), loaded.verified ? vscode.l10n.t(' (verified)') : '')
      : vscode.l10n.t('\n\n_Skill not loaded: {0}_\n\n', markdownCode(text)));
    return new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(text)]);
  }

  private async callTool(
    call: vscode.LanguageModelToolCallPart, offered: ChatTools,
    stream: vscode.ChatResponseStream, token: vscode.CancellationToken, turn?: Turn,
  ): Promise<vscode.LanguageModelToolResultPart> {
    const reply = (text: string) => new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(text)]);
    const args = (call.input && typeof call.input === 'object' ? call.input : {}) as Record<string, unknown>;
    if (offered.codeMode && call.name === CODE_MODE_TOOL_NAME) return reply(await this.programCall(args, offered.codeMode, stream, token, turn));
    if (offered.discovery && (call.name === DISCOVERY_TOOL_NAMES.search || call.name === DISCOVERY_TOOL_NAMES.activate)) return reply(await this.discoveryCall(call.name, args, offered, stream));
    const entry = offered.names.get(call.name);
    const h = entry && this.host.get(entry.server);
    if (!entry || !h || !isRunning(h) || !modelMaySee(h, entry.def, this.gate)) return reply(`There is no tool named "${call.name}" (or its MCP server is not running).`);
    if (!offered.active.has(`${entry.server}\u0000${entry.tool}`)) return reply(`The tool "${call.name}" is not active: call ${DISCOVERY_TOOL_NAMES.activate} with its name first.`);
    // A tool with an MCP App view: the view opens beside the chat with the proposed arguments (tool-input-partial)
    // while the user confirms; it gets the input once confirmed, or is told the call was declined.
    const proposed = this.apps?.propose(entry.server, entry.def, args, { preserveFocus: true });
    const approval = await this.approval(entry.server, entry.def, args, { turn });
    if (approval !== 'allowed') {
      proposed?.cancelled(approval === 'declined' ? 'The user declined to run the tool' : 'The tool was not run');
      if (approval === 'declined') stream.markdown(toolCallNote('declined', entry.tool, entry.server));
      return reply(approval === 'declined' ? 'The user declined to run this tool.'
        : approval === 'once-used' ? 'Not run: the user allowed this tool once in this request, and that call ran. It is not run again in this request.'
          : 'Not run: the request ended.');
    }
    stream.progress(vscode.l10n.t('Calling {0} of {1}…', ...progressArgs(entry.tool, entry.server)));
    // The answer offers a button to focus the view.
    const view = this.apps?.open(entry.server, entry.def, args, { preserveFocus: true });
    try {
      // A tool that runs as an MCP task: its status shows as chat progress and Stop cancels it while the turn waits;
      // a task still running after a short grace returns at once, and its end is notified (taskTurn.ts).
      let said = '';
      const outcome = await callInTurn(o => h.callTool(entry.tool, args, { ...o, by: 'model' }), token, t => {
        const status = t.status === 'input_required' ? vscode.l10n.t('needs your input') : t.status;
        const [tool, server, shownStatus, message] = progressArgs(entry.tool, entry.server, status, t.statusMessage ?? '');
        const line = t.statusMessage ? vscode.l10n.t('{0} ({1}): task {2} — {3}', tool, server, shownStatus, message) : vscode.l10n.t('{0} ({1}): task {2}', tool, server, shownStatus);
        if (line !== said) stream.progress(said = line);
      });
      if (outcome.kind === 'detached') {
        outcome.later.then(r => view?.result(r), (e: unknown) => view?.cancelled(errorText(e)));
        stream.markdown(toolCallNote('called', entry.tool, entry.server));
        return reply(`The tool is running as an MCP task (task ${outcome.task.taskId} on server ${entry.server}); the user will be notified when it ends and can see its result then (MCP Host: Show Task Result). Do not wait for it: tell the user it is running.`);
      }
      const result = outcome.result;
      stream.markdown(toolCallNote(result.isError ? 'reported-error' : 'called', entry.tool, entry.server));
      if (view) {
        view.result(result);
        stream.button({ command: CommandIds.openAppView, title: buttonTitle(vscode.l10n.t('Open the view of {0}', entry.tool)), arguments: [entry.server, entry.tool] });
      }
      return reply(toolResultText(result));
    } catch (err) {
      view?.cancelled(errorText(err));
      stream.markdown(toolCallNote('failed', entry.tool, entry.server, errorText(err)));
      return reply(`The tool call failed: ${errorText(err)}`);
    }
  }
}
