/**
 * The `@mcp` slash commands: `/prompts` lists every running server's prompts; `/<server>.<prompt> key=value
 * "quoted"…` runs one (missing arguments asked step by step with completion values); `/resource <server> <uri>
 * [question]` attaches a resource as context; `/tools` lists the tools the model may call; `/skill <server>.<name>
 * [question]` loads a skill's SKILL.md (verified) as context (`/skill` alone lists the skills).
 */
import * as vscode from 'vscode';
import { type ServerHandle, setOwn, markdownCode, markdownText, shownName } from '../../mcp';
import { promptToChatMessages, promptToTranscript, resourceText } from './messages';
import { bindArguments, parseInvocation, resolveTarget, tokenize } from './parse';
import { CommandIds } from '../../views/commandIds';
import { buttonTitle, progressArgs, promptCommand, promptListing, toolListing, typeable } from './render';
import { contextMessage, history, referenceMessages, type TurnMemo } from './context';
import { ChatCommandIds } from './followups';
import { ChatModelLoop } from './toolLoop';
import { isRunning } from './chatServices';
import { abortSignalOf } from '../ui/cancellation';
import { resolveSkill, runningSkills } from './skills';

/** The slash commands' handlers (McpChat's base; the dispatcher is McpChat.handle). */
export abstract class SlashCommands extends ChatModelLoop {
  // ---------------------------------------------------------------------------------------------
  // Listings
  // ---------------------------------------------------------------------------------------------

  protected listPrompts(stream: vscode.ChatResponseStream, offer: boolean): vscode.ChatResult {
    const servers = this.host.servers.filter(h => isRunning(h) && h.catalogue.prompts.length);
    if (!servers.length) {
      const configured = this.host.servers.length;
      stream.markdown(configured
        ? vscode.l10n.t('No running MCP server offers prompts. Start one in the **MCP Host** view.\n')
        : vscode.l10n.t('No MCP server is configured. Add one under `mcpHost.servers` in settings.\n'));
      if (configured) stream.button({ command: CommandIds.startAll, title: vscode.l10n.t('Start All Servers') });
      return {};
    }
    // The listing is untrusted markdown, every name and description escaped (render.ts): server text never sits
    // in trusted markdown, so it cannot end a list item and add a command link of its own. The actions are ours:
    // one button (a quick pick of every prompt; a run of buttons is folded by the chat view, showing only the last)
    // and the follow-up chips, which run a prompt.
    stream.markdown(new vscode.MarkdownString(promptListing(servers.map(h => ({ name: h.name, prompts: h.catalogue.prompts })), offer)));
    stream.button({ command: ChatCommandIds.runPromptInChat, title: vscode.l10n.t('Run a Prompt…') });
    const prompts = servers.flatMap(h => h.catalogue.prompts.filter(p => typeable(h.name, p.name)).map(p => promptCommand(h.name, p.name)));
    return { metadata: { prompts } };
  }

  protected listTools(stream: vscode.ChatResponseStream): vscode.ChatResult {
    const { names } = this.collectTools();
    stream.markdown(toolListing([...names].map(([name, e]) => [name, { server: e.server, tool: e.tool, description: e.def.description }] as const)));
    return {};
  }

  // ---------------------------------------------------------------------------------------------
  // Prompts
  // ---------------------------------------------------------------------------------------------

  protected async runPrompt(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const inv = parseInvocation(request.prompt);
    const target = inv.target!;
    const hit = resolveTarget(target, this.host.servers.filter(isRunning).map(h => ({ name: h.name, prompts: h.catalogue.prompts.map(p => p.name) })));
    if (!hit) {
      const server = this.host.servers.find(h => target.startsWith(`${h.name}.`));
      if (server && !isRunning(server)) {
        stream.markdown(vscode.l10n.t('MCP server {0} is not running ({1}).\n', markdownCode(server.name), server.state.kind));
        stream.button({ command: CommandIds.startServer, title: buttonTitle(vscode.l10n.t('Start {0}', server.name)), arguments: [server.name] });
      } else {
        stream.markdown(vscode.l10n.t('There is no prompt {0}. ', markdownCode(`/${target}`)));
        this.listPrompts(stream, true);
      }
      return {};
    }
    const h = this.host.get(hit.server)!;
    const prompt = h.catalogue.prompts.find(p => p.name === hit.prompt)!;
    const declared = prompt.arguments ?? [];
    const bound = bindArguments(inv, declared);
    if (bound.unknown.length) stream.markdown((bound.unknown.length > 1 ? vscode.l10n.t('_Ignoring unknown arguments {0}._\n\n', bound.unknown.map(u => markdownCode(u)).join(', ')) : vscode.l10n.t('_Ignoring unknown argument {0}._\n\n', markdownCode(bound.unknown[0]))));
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
        stream.markdown(vscode.l10n.t('Cancelled: {0} is needed to run {1}.\n', markdownCode(d.name), markdownCode(promptCommand(h.name, prompt.name))));
        return {};
      }
      if (value !== '') setOwn(args, d.name, value);
    }
    stream.progress(vscode.l10n.t('Getting prompt {0} from {1}…', ...progressArgs(prompt.name, h.name)));
    const result = await h.getPrompt(prompt.name, args, { signal: abortSignalOf(token) });
    const shown = Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
    stream.markdown(`**${markdownText(promptCommand(h.name, prompt.name))}**${shown ? ` ${markdownText(shown)}` : ''}\n\n`);
    const messages = [...history(context), ...await referenceMessages(request), ...promptToChatMessages(result)];
    if (!result.messages.length) {
      stream.markdown(vscode.l10n.t('_The prompt has no messages._\n'));
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

  protected async attachResource(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const [serverName, uri, ...rest] = tokenize(request.prompt);
    const h = serverName ? this.host.get(serverName) : undefined;
    if (!h || !uri) {
      stream.markdown(vscode.l10n.t('Attach a resource with `@mcp /resource <server> <uri> [question]`.'));
      const running = this.host.servers.filter(s => isRunning(s) && s.catalogue.resources.length);
      if (running.length) stream.markdown(vscode.l10n.t(' Some resources:\n\n'));
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
      stream.markdown(vscode.l10n.t('MCP server {0} is not running ({1}).\n', markdownCode(h.name), h.state.kind));
      stream.button({ command: CommandIds.startServer, title: buttonTitle(vscode.l10n.t('Start {0}', h.name)), arguments: [h.name] });
      return {};
    }
    stream.progress(vscode.l10n.t('Reading {0} from {1}…', ...progressArgs(uri, h.name)));
    const text = resourceText(uri, await h.readResource(uri, { signal: abortSignalOf(token) }));
    const memo: TurnMemo = { attached: [{ server: h.name, uri, text }] };
    stream.markdown(vscode.l10n.t('Attached {0} from {1} ({2} characters) as context for this conversation.\n\n', markdownCode(uri), markdownCode(h.name), text.length));
    return this.askWithAttached(memo, rest.join(' ').trim(), request, context, stream, token);
  }

  /** Keeps `memo`'s attached text as context; with a question, answers it with that text first. */
  private async askWithAttached(memo: TurnMemo, question: string, request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    if (question) {
      const messages = [...history(context), contextMessage(memo.attached![0]), vscode.LanguageModelChatMessage.User(question)];
      memo.question = question;
      memo.answer = await this.answer(messages, request.model, stream, token);
    }
    return { metadata: { mcp: memo } };
  }

  // ---------------------------------------------------------------------------------------------
  // Skills (SEP-2640)
  // ---------------------------------------------------------------------------------------------

  /**
   * `/skill <server>.<name> [question]`: the skill's SKILL.md, read and verified only now, kept as context for the
   * conversation (like an attached resource); `/skill` alone lists the running servers' skills, each a button that
   * fills the chat input.
   */
  protected async useSkill(request: vscode.ChatRequest, context: vscode.ChatContext, stream: vscode.ChatResponseStream, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
    const [target, ...rest] = tokenize(request.prompt);
    const hit = target ? resolveSkill(this.host, target) : undefined;
    if (!hit) {
      const all = runningSkills(this.host);
      if (target) stream.markdown(vscode.l10n.t('There is no skill {0}. ', markdownCode(target)));
      if (!all.length) {
        stream.markdown(vscode.l10n.t('No running MCP server lists skills.\n'));
        return {};
      }
      // Untrusted markdown, every name and description escaped; the buttons only fill the chat input.
      stream.markdown(vscode.l10n.t('Load a skill with {0}. Skills:\n\n{1}\n', markdownCode('@mcp /skill <server>.<name> [question]'), all.map(s => `- ${markdownCode(`${s.server}.${shownName(s.skill.name)}`)}: ${markdownText(shownName(s.skill.description, 200))}`).join('\n')));
      for (const s of all.slice(0, 20)) {
        if (/[\s\x00-\x1f\x7f-\x9f]/.test(s.skill.name)) continue;
        stream.button({ command: 'workbench.action.chat.open', title: buttonTitle(`${s.server}: ${s.skill.name}`), arguments: [{ query: `@mcp /skill ${s.server}.${s.skill.name} `, isPartialQuery: true }] });
      }
      return {};
    }
    const { handle: h, skill } = hit;
    stream.progress(vscode.l10n.t('Loading skill {0} of {1}…', ...progressArgs(skill.name, h.name)));
    const loaded = await h.loadSkill(skill.name, undefined, { signal: abortSignalOf(token) });
    const memo: TurnMemo = { attached: [{ server: h.name, uri: loaded.uri, text: loaded.text }] };
    stream.markdown(vscode.l10n.t('Loaded skill {0} of {1} ({2}, {3} characters) as context for this conversation.\n\n', markdownCode(shownName(skill.name)), markdownCode(h.name), loaded.verified ? vscode.l10n.t('verified') : vscode.l10n.t('dynamic, not digest-checked'), loaded.text.length));
    return this.askWithAttached(memo, rest.join(' ').trim(), request, context, stream, token);
  }
}
