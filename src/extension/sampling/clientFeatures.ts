/**
 * Sampling (`sampling/createMessage`) through `vscode.lm`: the core validates, rate-limits and picks
 * the model; here the user sees the request (and may edit it), the chosen model answers, and the
 * user reviews the answer before it goes back. Concurrent requests from one server wait behind one
 * dialog; a session or always grant lets the queued ones through. Elicitation is offered too.
 */
import * as vscode from 'vscode';
import { chatModels } from '../chat/models';
import { ProtocolError, ProtocolErrorCode, type CreateMessageResult } from '@modelcontextprotocol/client';
import { type ClientFeatures, type ModelDescriptor, type SamplingContext, type SamplingPolicy, offeredTools, type OfferedTools, dialogText, quoted, shownName } from '../../mcp';
import { createElicit } from '../elicitation/elicitation';
import type { TestSeams } from '../testSupport';
import type { Forms } from '../forms/forms';
import { blocksOf, describeSampling, lastUserText, withLastUserText } from './describe';
import { KeyedQueue, ScopedGrants, type Grant } from '../trust/grants';
import { applyStopSequences } from './stopSequences';
import { grantKey, type ServerIdentityLookup } from '../trust/identity';
import type { Dialog, Dialogs } from '../ui/dialogs';
import { ServerTurns } from '../trust/serverTurns';

/** Where "always" sampling grants live (globalState for user servers, workspaceState for workspace servers). */
export const SAMPLING_ALWAYS_KEY = 'mcpHost.sampling.grants';
/** Where grants keyed by a bare server name lived before; dropped on activation. */
export const LEGACY_SAMPLING_ALWAYS_KEY = 'mcpHost.sampling.alwaysAllowed';

/** What the confirmation dialog is shown; what a test or the real UI answers. */
export interface SamplingAsk {
  server: string;
  model: ModelDescriptor;
  /** The request as readable text (see describeSampling). */
  summary: string;
  /** The last user message's text, if any (what "Edit…" changes). */
  lastUserText?: string;
}

/** The approval answer; `editedText` replaces the last user message's text. */
export interface SamplingAnswer { grant: Grant; editedText?: string }

/** The review answer: send `text` (possibly edited) back, or cancel (the server gets a rejection). */
export type ReviewAnswer = { action: 'send'; text: string } | { action: 'cancel' };

/** The dialogs, replaceable for tests. */
export interface SamplingUi {
  approve(ask: SamplingAsk): Promise<SamplingAnswer>;
  /** `toolCalls`: the model's tool calls, one line each (shown; they go back as they are, only the text is editable). */
  review(server: string, model: ModelDescriptor, answer: string, toolCalls?: readonly string[]): Promise<ReviewAnswer>;
}

export interface ClientFeatureDeps {
  context: vscode.ExtensionContext;
  log: (server: string, level: 'info' | 'warning' | 'error', msg: string) => void;
  /** The window's modal dialogs (ui/dialogs.ts): sampling's and elicitation's questions, through its one governor. */
  dialogs: Dialogs;
  /** The core applies the policy already; kept for callers that want it in the dialog. */
  getPolicy?: (server: string) => SamplingPolicy | undefined;
  /** Where each server is defined plus its definition key: what "always" grants are keyed by and kept in. */
  identity?: ServerIdentityLookup;
  /** Test-only replacements of the sampling and elicitation dialogs (testSupport.ts; given in test mode only). */
  seams?: Pick<TestSeams, 'samplingUi' | 'elicitUi' | 'urlElicitUi' | 'externalUrlUi'>;
  /** The form host: an elicitation of more than one field is one form (undefined: quick inputs only). */
  forms?: Forms;
}

/** The client features plus hooks for tests and commands. */
export interface SamplingFeatures extends ClientFeatures, vscode.Disposable {
  listModels: NonNullable<ClientFeatures['listModels']>;
  sample: NonNullable<ClientFeatures['sample']>;
  elicit: NonNullable<ClientFeatures['elicit']>;
  /** Forgets session and always grants. */
  resetGrants(): Promise<void>;
  /** Forgets `server`'s sampling and elicitation denials of this session (the user started or restarted it). */
  forgetDenials(server: string): void;
}

/** Messages the user sees; exported so tests can assert what the server receives. */
export const REJECTED_MESSAGE = 'The user rejected the sampling request';
export const REVIEW_CANCELLED_MESSAGE = 'The user rejected the sampling result after review';

/** The sampling dialogs' buttons. The first dialog shows the decisions only; editing is behind "More…". */
export const SAMPLING_BUTTONS = {
  once: vscode.l10n.t('Allow Once'), session: vscode.l10n.t('Allow for This Session'), always: vscode.l10n.t('Always Allow This Server'), more: vscode.l10n.t('More…'), deny: vscode.l10n.t('Deny'),
  send: vscode.l10n.t('Send'), edit: vscode.l10n.t('Edit…'), dontSend: vscode.l10n.t('Don\'t Send'),
} as const;
const B = SAMPLING_BUTTONS;
/** What "More…" offers. */
const EDIT_LAST_MESSAGE = vscode.l10n.t('Edit the Last Message…');

/**
 * The first sampling dialog: server and model named in the first line (quoted); the request (the server's words)
 * in the detail, escaped; allow once / for the session / always, deny (also Escape), and "More…" when the
 * request has a message to edit.
 */
export function samplingDialog(ask: SamplingAsk, edited?: string): Dialog {
  const summary = edited === undefined ? ask.summary : vscode.l10n.t('{0}\n\nEdited last message: {1}', ask.summary, edited);
  return {
    severity: 'warning',
    message: vscode.l10n.t('MCP server {0} wants to use the language model {1}. Allow?', quoted(ask.server), quoted(ask.model.name)),
    detail: dialogText(summary),
    buttons: [
      { title: B.once }, { title: B.session }, { title: B.always },
      ...(ask.lastUserText !== undefined ? [{ title: B.more }] : []),
      { title: B.deny, isCloseAffordance: true },
    ],
  };
}

/** The review of the model's answer before it goes back to the server: send, edit, or don't send (also Escape). */
export function reviewDialog(server: string, model: ModelDescriptor, text: string, toolCalls?: readonly string[]): Dialog {
  const calls = toolCalls?.length ? vscode.l10n.t('\n\nTool calls for the server:\n{0}', toolCalls.join('\n')) : '';
  return {
    severity: 'info',
    message: vscode.l10n.t('Send this answer of {0} back to MCP server {1}?', quoted(model.name), quoted(server)),
    detail: dialogText(text + calls),
    buttons: [{ title: B.send }, { title: B.edit }, { title: B.dontSend, isCloseAffordance: true }],
  };
}

/** The real dialogs: modal messages (through `dialogs`, the window's one governor) and an input box for edits. */
export const modalSamplingUi = (dialogs: Dialogs): SamplingUi => ({
  async approve(ask) {
    let edited: string | undefined;
    for (;;) {
      const pick = await dialogs.ask(samplingDialog(ask, edited));
      if (pick === B.more) {
        const more = await vscode.window.showQuickPick([EDIT_LAST_MESSAGE], { title: vscode.l10n.t('Sampling request of {0}', quoted(ask.server)) });
        if (more !== EDIT_LAST_MESSAGE) continue;
        const text = await vscode.window.showInputBox({
          title: vscode.l10n.t('Edit the sampling request of {0}', quoted(ask.server)), value: edited ?? ask.lastUserText, ignoreFocusOut: true,
          prompt: vscode.l10n.t('The text of the last user message sent to the model'),
        });
        if (text !== undefined) edited = text;
        continue;
      }
      const grant: Grant = pick === B.once ? 'once' : pick === B.session ? 'session' : pick === B.always ? 'always' : 'deny';
      return { grant, editedText: edited };
    }
  },
  async review(server, model, answer, toolCalls) {
    let text = answer;
    for (;;) {
      const pick = await dialogs.ask(reviewDialog(server, model, text, toolCalls));
      if (pick === B.send) return { action: 'send', text };
      if (pick !== B.edit) return { action: 'cancel' };
      const edited = await vscode.window.showInputBox({ title: vscode.l10n.t('Edit the answer'), value: text, ignoreFocusOut: true });
      if (edited !== undefined) text = edited;
    }
  },
});

/** Maps `vscode.lm` chat models to the core's descriptors. */
export async function listModels(): Promise<ModelDescriptor[]> {
  // Right after start-up no provider may have registered yet: wait for one (bounded) rather than refuse.
  const models = await chatModels();
  return models.map(m => ({ id: m.id, name: m.name, family: m.family, vendor: m.vendor }));
}

/**
 * The sampling messages as `vscode.lm` messages (system prompt first, as a user message). A tool_use
 * block becomes a tool call part (under the name the model was offered), a tool_result block a tool
 * result part with its text.
 */
export function toChatMessages(params: SamplingContext['request'], offered?: OfferedTools): vscode.LanguageModelChatMessage[] {
  const modelName = new Map([...offered?.serverName ?? []].map(([m, s]) => [s, m]));
  const out: vscode.LanguageModelChatMessage[] = [];
  if (params.systemPrompt) out.push(vscode.LanguageModelChatMessage.User(`System instructions: ${params.systemPrompt}`));
  for (const m of params.messages) {
    const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelDataPart | vscode.LanguageModelToolCallPart | vscode.LanguageModelToolResultPart)[] = [];
    for (const b of blocksOf(m.content)) {
      if (b.type === 'text') parts.push(new vscode.LanguageModelTextPart(b.text ?? ''));
      else if (b.type === 'image' && typeof b.data === 'string' && b.mimeType) {
        parts.push(vscode.LanguageModelDataPart.image(Buffer.from(b.data, 'base64'), b.mimeType));
      } else if (b.type === 'tool_use' && m.role === 'assistant' && typeof b.id === 'string' && typeof b.name === 'string') {
        const input = b.input && typeof b.input === 'object' ? b.input as object : {};
        parts.push(new vscode.LanguageModelToolCallPart(b.id, modelName.get(b.name) ?? b.name, input));
      } else if (b.type === 'tool_result' && m.role === 'user' && typeof b.toolUseId === 'string') {
        const text = blocksOf(b.content).map(c => (c.type === 'text' ? c.text ?? '' : `[${c.type} content omitted]`)).join('\n');
        parts.push(new vscode.LanguageModelToolResultPart(b.toolUseId, [new vscode.LanguageModelTextPart(b.isError === true ? `Error: ${text}` : text)]));
      } else parts.push(new vscode.LanguageModelTextPart(`[${b.type} content omitted]`));
    }
    out.push(m.role === 'assistant'
      ? vscode.LanguageModelChatMessage.Assistant(parts.filter(p => !(p instanceof vscode.LanguageModelToolResultPart)) as (vscode.LanguageModelTextPart | vscode.LanguageModelDataPart | vscode.LanguageModelToolCallPart)[])
      : vscode.LanguageModelChatMessage.User(parts.filter(p => !(p instanceof vscode.LanguageModelToolCallPart)) as (vscode.LanguageModelTextPart | vscode.LanguageModelDataPart | vscode.LanguageModelToolResultPart)[]));
  }
  return out;
}

/** A tool_use block of a sampling answer. */
interface ToolUse { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }

/** A readable reason for a `vscode.lm` failure. */
function modelFailure(err: unknown, model: ModelDescriptor): string {
  if (err instanceof vscode.LanguageModelError) {
    const why = err.code === vscode.LanguageModelError.NoPermissions.name ? 'access to the model was refused'
      : err.code === vscode.LanguageModelError.Blocked.name ? 'the request was blocked'
        : err.code === vscode.LanguageModelError.NotFound.name ? 'the model is not available' : `the model failed (${err.code})`;
    return `Sampling with "${model.name}" failed: ${why}${err.message ? `: ${err.message}` : ''}`;
  }
  return `Sampling with "${model.name}" failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * The client features the host is built with: `listModels` and `sample` (vscode.lm after the
 * user's yes) and `elicit` (quick inputs).
 */
export function createClientFeatures(deps: ClientFeatureDeps): SamplingFeatures {
  const grants = new ScopedGrants({ user: deps.context.globalState, workspace: deps.context.workspaceState }, SAMPLING_ALWAYS_KEY);
  /** Scope and key of a server's sampling grant; undefined (ask every time) for a server the controller does not know. */
  const grantOf = (server: string) => {
    const id = deps.identity?.(server);
    return id && { scope: id.scope, key: grantKey(id) };
  };
  const queue = new KeyedQueue();
  // The real dialogs, or (tests) the replacement in the test seams; read each time one is asked.
  const modal = modalSamplingUi(deps.dialogs);
  const ui = (): SamplingUi => deps.seams?.samplingUi ?? modal;
  // A server's sampling and elicitation questions, once per turn through the governor: after a Deny (or a Decline)
  // that server's later requests of the kind are refused without a dialog this session.
  const turns = new ServerTurns(deps.dialogs.govern);
  const elicitation = createElicit(deps.log, turns, deps.dialogs, deps.seams, deps.forms);

  const runModel = async (ctx: SamplingContext, params: SamplingContext['request']): Promise<{ text: string; stopped: boolean; toolUses: ToolUse[] }> => {
    const [model] = await chatModels({ id: ctx.model.id });
    if (!model) throw new ProtocolError(ProtocolErrorCode.InternalError, `Sampling failed: the language model "${ctx.model.name}" is no longer available`);
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const modelOptions: Record<string, unknown> = { maxTokens: params.maxTokens };
      if (params.temperature !== undefined) modelOptions.temperature = params.temperature;
      if (params.stopSequences?.length) modelOptions.stop = params.stopSequences;
      // Tools the server offers (toolChoice none offers none) go to the model; its calls go back as tool_use.
      const offered = offeredTools(params);
      const response = await model.sendRequest(toChatMessages(params, offered), {
        justification: vscode.l10n.t('MCP server "{0}" asked for a completion (sampling), and you allowed it.', ctx.server),
        modelOptions,
        ...(offered ? {
          tools: offered.tools,
          toolMode: offered.mode === 'required' ? vscode.LanguageModelChatToolMode.Required : vscode.LanguageModelChatToolMode.Auto,
        } : {}),
      }, cts.token);
      let text = '';
      const toolUses: ToolUse[] = [];
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) text += part.value;
        else if (part instanceof vscode.LanguageModelToolCallPart && offered) {
          toolUses.push({ type: 'tool_use', id: part.callId, name: offered.serverName.get(part.name) ?? part.name, input: { ...part.input as Record<string, unknown> } });
        }
      }
      return { ...applyStopSequences(text, params.stopSequences), toolUses };
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      cts.dispose();
    }
  };

  const exchange = async (ctx: SamplingContext): Promise<CreateMessageResult> => {
    const { server } = ctx;
    let params = ctx.request;
    const summary = describeSampling(server, params, ctx.model);
    deps.log(server, 'info', `Sampling request:\n${summary}`);
    const where = grantOf(server);
    let grant: Grant | undefined = where && grants.standing(where.scope, where.key);
    if (!grant) {
      const asked = await turns.ask(server, 'sampling', {
        show: () => ui().approve({ server, model: ctx.model, summary, lastUserText: lastUserText(params) }),
        says: a => (a.grant === 'deny' ? 'no' : 'yes'),
        signal: ctx.signal,
      });
      if (asked.kind === 'refused') {
        deps.log(server, 'info', asked.why === 'denied'
          ? 'Sampling request refused without a dialog: the user denied this server\'s sampling earlier in this session'
          : 'Sampling request not asked: it was cancelled');
        throw new Error(asked.why === 'denied' ? REJECTED_MESSAGE : 'The sampling request was cancelled');
      }
      const answer = asked.value;
      grant = answer.grant;
      if (grant === 'deny') {
        deps.log(server, 'info', 'Sampling request rejected by the user (later requests of this server are refused without a dialog this session)');
        throw new Error(REJECTED_MESSAGE);
      }
      if (where) await grants.record(where.scope, where.key, grant);
      if (answer.editedText !== undefined) {
        params = withLastUserText(params, answer.editedText);
        deps.log(server, 'info', `The user edited the last message to: ${answer.editedText}`);
      }
    }
    if (ctx.signal.aborted) throw new Error('The sampling request was cancelled by the server');
    let result: { text: string; stopped: boolean; toolUses: ToolUse[] };
    try {
      result = await runModel(ctx, params);
    } catch (err) {
      if (err instanceof ProtocolError) { deps.log(server, 'error', err.message); void vscode.window.showWarningMessage(shownName(err.message, 1000)); throw err; }
      const message = modelFailure(err, ctx.model);
      deps.log(server, 'error', message);
      void vscode.window.showWarningMessage(vscode.l10n.t('MCP server {0}: {1}', quoted(server), shownName(message, 1000)));
      throw new ProtocolError(ProtocolErrorCode.InternalError, message);
    }
    let text = result.text;
    if (grant !== 'always') {
      const review = await ui().review(server, ctx.model, text, result.toolUses.map(u => `${u.name} ${JSON.stringify(u.input)}`));
      if (review.action === 'cancel') {
        deps.log(server, 'info', 'Sampling answer withheld by the user after review');
        throw new Error(REVIEW_CANCELLED_MESSAGE);
      }
      text = review.text;
    }
    const calls = result.toolUses.map(u => `\n[tool call ${u.name} ${JSON.stringify(u.input)}]`).join('');
    deps.log(server, 'info', `Sampling answer from ${ctx.model.id}${result.stopped ? ' (stop sequence)' : ''}:\n${text}${calls}`);
    if (result.toolUses.length) {
      return {
        role: 'assistant',
        content: [...(text ? [{ type: 'text' as const, text }] : []), ...result.toolUses],
        model: ctx.model.id,
        stopReason: 'toolUse',
      } as unknown as CreateMessageResult;
    }
    return {
      role: 'assistant',
      content: { type: 'text', text },
      model: ctx.model.id,
      stopReason: result.stopped ? 'stopSequence' : 'endTurn',
    };
  };

  return {
    listModels: async () => {
      const models = await listModels();
      // Only called for a sampling request: the core then answers the server with a clear error.
      if (!models.length) void vscode.window.showWarningMessage(vscode.l10n.t('An MCP server asked for a language model completion (sampling), but no language model is available. Install or sign in to a language model provider.'));
      return models;
    },
    sample: ctx => queue.run(ctx.server, () => exchange(ctx), ctx.signal),
    elicit: (server, request, signal) => elicitation.elicit(server, request, signal),
    elicitUrlRequired: elicitation.elicitUrlRequired,
    elicitationComplete: elicitation.elicitationComplete,
    resetGrants: () => { turns.reset(); return grants.clear(); },
    forgetDenials: server => turns.forget(server),
    dispose: () => { /* nothing held beyond the grants in the mementos */ },
  };
}
