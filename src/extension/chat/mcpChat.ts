/**
 * The `@mcp` chat participant. `/prompts` lists every running server's prompts; `/<server>.<prompt>
 * key=value "quoted"…` runs one (missing arguments asked step by step with completion values);
 * `/resource <server> <uri> [question]` attaches a resource as context; `/tools` lists the tools the
 * model may call; `/skill <server>.<name> [question]` loads a server's skill (SEP-2640) as context, and the model
 * may load one through a tool (skills.ts). Every model request carries the running servers' tools; each tool call is shown
 * and confirmed (once / session / always for this tool / deny) before it runs.
 *
 * This file is the participant's dispatcher and its registration (with the test hook); the rooms:
 * `slashCommands.ts` (the slash commands), `toolLoop.ts` (the model and tool-calling loop, grants),
 * `context.ts` (history and attachments), `ui.ts` (the dialogs), `followups.ts` (follow-ups and palette
 * commands), `skills.ts` (skills as context), `parse.ts`, `render.ts`, `messages.ts`, `models.ts`, `lmTools.ts`.
 *
 * VS Code (1.139) has no finalized API to add slash commands at run time (only the static
 * `chatParticipants[].commands`), so `/<server>.<prompt>` is parsed from `request.prompt` here.
 */
import * as vscode from 'vscode';
import { markdownText, ToolDiscovery } from '../../mcp';
import { parseInvocation } from './parse';
import { isModelUnavailable, PICK_A_MODEL } from './models';
import { errorMarkdown } from './render';
import { errorText } from '../commands/args';
import { activatedTools, history, PARTICIPANT_ID, referenceMessages, type TurnMemo } from './context';
import { attachResourceToChat, ChatCommandIds, promptFollowups, runPromptInChat } from './followups';
import { isRunning, type ChatServices } from './chatServices';
import { SlashCommands } from './slashCommands';

export { PARTICIPANT_ID } from './context';
export { ChatCommandIds } from './followups';
export { LEGACY_TOOL_ALWAYS_KEY, MAX_TOOL_ROUNDS, TOOL_ALWAYS_KEY, type ChatServices } from './chatServices';
export { defaultChatUi, toolButtons, toolDialog, type ArgumentAsk, type ChatUi, type ToolAsk } from './ui';

/** The participant's logic, independent of how requests arrive (chat UI or test hook). */
export class McpChat extends SlashCommands {
  /** Before a request: servers waiting for their first use (`mcpHost.startup: lazy`) start. */
  private readonly beforeRequest?: () => Promise<void>;
  /** Why a server the user denied is not started, and how the user allows it. Never asks. */
  private readonly notAllowed?: (server: string) => string | undefined;

  constructor(services: ChatServices) {
    super(services);
    this.beforeRequest = services.beforeRequest;
    this.notAllowed = services.notAllowed;
  }

  async handle(req: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    // A sticky participant plus a typed "@mcp" leaves "@mcp" in the prompt text: drop it.
    const request = /^\s*@mcp\s/.test(req.prompt) ? { ...req, prompt: req.prompt.replace(/^\s*@mcp\s+/, '') } as vscode.ChatRequest : req;
    // A request is the user's act: an App view may put one message into the chat input again (H355).
    this.apps?.userActed();
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
        case 'skill': return await this.useSkill(request, context, stream, token);
        default: break;
      }
      const inv = parseInvocation(request.prompt);
      if (inv.target) return await this.runPrompt(request, context, stream, token);
      if (!request.prompt.trim()) return this.listPrompts(stream, true);
      const messages = [...history(context), ...await referenceMessages(request), ...this.viewContext(stream), vscode.LanguageModelChatMessage.User(request.prompt)];
      // Over the tool budget: what the model activated in earlier turns of this chat is offered again.
      const discovery = new ToolDiscovery();
      discovery.restore(activatedTools(context));
      const memo: TurnMemo = { answer: await this.answer(messages, request.model, stream, token, discovery) };
      if (discovery.size) memo.activated = discovery.saved();
      return { metadata: { mcp: memo } };
    } catch (err) {
      if (token.isCancellationRequested) return {};
      const message = err instanceof vscode.LanguageModelError
        ? vscode.l10n.t('The language model failed ({0}): {1}', err.code, err.message) + (isModelUnavailable(err) ? ` ${PICK_A_MODEL}` : '')
        : errorText(err);
      // Chat renders the message as markdown, and it may carry a server's words.
      return { errorDetails: { message: errorMarkdown(message) } };
    }
  }
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
  /**
   * Handles `prompt` (and `command`) as if typed after `@mcp`, with `model` (default: the first model there is now;
   * `null`: none, as a request that needs one and has none).
   */
  run(prompt: string, opts?: {
    command?: string; model?: vscode.LanguageModelChat | null; references?: vscode.ChatPromptReference[];
    history?: vscode.ChatContext['history']; token?: vscode.CancellationToken;
  }): Promise<ChatTranscript>;
  /** The follow-ups the chat view offers after `result`. */
  followups(result: vscode.ChatResult): vscode.ChatFollowup[];
}

/** Registers `@mcp` (id `mcpHost.mcp`) from the services it is given (grants kept in the context's user and workspace state). */
export function registerChat(context: vscode.ExtensionContext, services: Omit<ChatServices, 'mementos'>): ChatRegistration {
  const host = services.host;
  const chat = new McpChat({ ...services, mementos: { user: context.globalState, workspace: context.workspaceState } });
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, (req, ctx, stream, token) => chat.handle(req, ctx, stream, token));
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'mcp.svg');
  participant.followupProvider = { provideFollowups: result => promptFollowups(result) };
  const commands = [
    vscode.commands.registerCommand(ChatCommandIds.runPromptInChat, (node?: { server?: string; prompt?: { name: string } }) => runPromptInChat(host, services.quickInputs, node)),
    vscode.commands.registerCommand(ChatCommandIds.attachResourceToChat, (node?: { server?: string; resource?: { uri: string } }) => attachResourceToChat(host, services.quickInputs, node)),
  ];
  return {
    chat,
    dispose: () => { participant.dispose(); commands.forEach(c => c.dispose()); },
    followups: result => promptFollowups(result),
    async run(prompt, opts = {}) {
      // Not waited for: a listing needs no model, and one that does says how to pick one.
      const model = opts.model === null ? undefined : opts.model ?? (await vscode.lm.selectChatModels())[0];
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
