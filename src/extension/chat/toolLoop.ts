/**
 * The `@mcp` participant's model loop: every model request carries the running servers' tools (under names unique
 * across servers, app-only and user-disabled tools left out); each tool call is confirmed (a standing grant or the
 * dialog) before it runs, MCP App views open for tools that have one, and the loop stops after MAX_TOOL_ROUNDS. When a
 * running server lists skills, the model may load one through the participant's own skill tool (skills.ts): a read,
 * shown in the answer, verified by the core.
 */
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import { visibleToModel, type HostApi, type ServerHandle } from '../../mcp';
import { ScopedGrants, type Grant } from '../grants';
import { abortSignalOf } from '../cancellation';
import { grantKey, type ServerIdentityLookup } from '../identity';
import { toolResultText } from './messages';
import { uniqueToolNames } from './parse';
import type { AppViews } from '../apps';
import { chatModels, isModelUnavailable, MODEL_WAIT_MS } from './models';
import { CommandIds } from '../../views/commandIds';
import { buttonTitle, progressText, toolCallNote, toolRef } from './render';
import { errorText } from '../commands/args';
import { defaultChatUi, type ChatUi } from './ui';
import { loadSkillForModel, SKILL_TOOL, skillTool } from './skills';
import { markdownCode } from '../../mcp/logging/display';

/** Where "always allow this tool" grants live (keys `scope:server:fingerprint/tool`, in the scope of the server's definition). */
export const TOOL_ALWAYS_KEY = 'mcpHost.chat.toolGrants';
/** Where grants keyed by a bare `server/tool` lived before; dropped on activation. */
export const LEGACY_TOOL_ALWAYS_KEY = 'mcpHost.chat.toolsAlwaysAllowed';
/** Model ↔ tool round trips per request before the participant stops. */
export const MAX_TOOL_ROUNDS = 10;

/** True when the server is running (only running servers' tools, prompts and resources are offered). */
export function isRunning(h: ServerHandle): boolean {
  return h.state.kind === 'running';
}

/** The participant's tools, grants and model round trips (McpChat's base). */
export class ChatModelLoop {
  ui: ChatUi = defaultChatUi;
  /** MCP App views (set by the extension): tool calls with a UI open one; views' model context joins requests. */
  apps?: Pick<AppViews, 'open' | 'modelContexts'>;
  private readonly grants: ScopedGrants;

  constructor(protected readonly host: HostApi, mementos: { user?: vscode.Memento; workspace?: vscode.Memento } = {}, private readonly identity: ServerIdentityLookup = {}) {
    this.grants = new ScopedGrants(mementos, TOOL_ALWAYS_KEY);
  }

  /** Forgets session and always tool grants. */
  resetGrants(): Promise<void> {
    return this.grants.clear();
  }

  /** What open MCP App views put into the model's context (`ui/update-model-context`), said visibly. */
  protected viewContext(stream: vscode.ChatResponseStream): vscode.LanguageModelChatMessage[] {
    const views = this.apps?.modelContexts() ?? [];
    if (views.length) stream.markdown(`_Context from MCP App views: ${views.map(v => toolRef(v.tool, v.server)).join(', ')}._\n\n`);
    return views.map(v => vscode.LanguageModelChatMessage.User(`Context from the view of tool "${v.tool}" of MCP server "${v.server}":\n${v.text}`));
  }

  /** The running servers' tools under names unique across servers. */
  protected collectTools(): { tools: vscode.LanguageModelChatTool[]; names: Map<string, { server: string; tool: string; def: Tool }> } {
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
  protected async answer(messages: vscode.LanguageModelChatMessage[], model: vscode.LanguageModelChat, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<string> {
    const { tools, names } = this.collectTools();
    // Skills: one tool of the participant's own (unless a server's tool took the name).
    const skills = names.has(SKILL_TOOL) ? undefined : skillTool(this.host);
    if (skills) tools.push(skills);
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
      for (const call of calls) results.push(skills && call.name === SKILL_TOOL ? await this.loadSkill(call, stream, token) : await this.callTool(call, names, stream, token));
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

  /** The model asked for a skill: loaded (verified by the core) and said in the answer; a refusal is the tool's answer. */
  private async loadSkill(call: vscode.LanguageModelToolCallPart, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResultPart> {
    const input = call.input as { server?: unknown; skill?: unknown } | undefined;
    stream.progress(progressText`Loading skill ${String(input?.skill)} of ${String(input?.server)}…`);
    const { text, loaded } = await loadSkillForModel(this.host, input, abortSignalOf(token));
    stream.markdown(loaded
      ? `\n\n_Loaded skill ${markdownCode(loaded.skill)} of ${markdownCode(loaded.server)}${loaded.verified ? ' (verified)' : ''}._\n\n`
      : `\n\n_Skill not loaded: ${markdownCode(text)}_\n\n`);
    return new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(text)]);
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
