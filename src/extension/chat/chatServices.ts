/**
 * The `@mcp` participant's contract (toolLoop.ts, mcpChat.ts): what it is given at construction (`ChatServices`), where
 * its "always" grants are kept, its bounds per request, and the shapes its model loop passes around (the tools of a
 * round, what a confirmation came to, the governor's key of a tool question).
 */
import type * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import { type HostApi, type ServerHandle, runsOrRestarts, type ToolDiscovery, type ModelToolGate, type ToolBudget, type CodeModeServer, type CodeModeLimits } from '../../mcp';
import type { Dialogs } from '../ui/dialogs';
import type { QuickInputs } from '../ui/quickInputs';
import { DEFAULT_MAX_TOOL_ROUNDS } from '../settings';
import type { ServerIdentityLookup } from '../trust/identity';
import type { AppViews } from '../apps/appViews';
import type { TestSeams } from '../testSupport';

/** Where "always allow this tool" grants live (keys `scope:server:definitionKey/tool`, in the scope of the server's definition). */
export const TOOL_ALWAYS_KEY = 'mcpHost.chat.toolGrants';
/** Where grants keyed by a bare `server/tool` lived before; dropped on activation. */
export const LEGACY_TOOL_ALWAYS_KEY = 'mcpHost.chat.toolsAlwaysAllowed';
/** Model ↔ tool round trips per request before the participant stops, unless set (`mcpHost.chat.maxToolRounds`). */
export const MAX_TOOL_ROUNDS = DEFAULT_MAX_TOOL_ROUNDS;
/** Tool calls of one model response that are considered; the rest are answered "not run" without a dialog. */
export const MAX_CALLS_PER_RESPONSE = 32;

/** What the governor and the grants made of one tool call's confirmation. */
export type Approval =
  /** Run it (a standing grant, or the user's answer to this call). */
  | 'allowed'
  /** The user said no (or closed the dialog): the requester's turn ends. */
  | 'declined'
  /** Allowed once earlier in this request (or in a dialog another call opened): not run again. */
  | 'once-used'
  /** No dialog: the request was cancelled or its turn had ended. */
  | 'refused';

/** The governor's key of a tool-call question. */
export function toolQuestionKey(server: string, tool: string): string {
  return `tool:${JSON.stringify([server, tool])}`;
}

/** The tools of one round: what the model is sent, every name it may search or activate, which are active. */
export interface ChatTools {
  tools: vscode.LanguageModelChatTool[];
  names: Map<string, { server: string; tool: string; def: Tool }>;
  /** Set while over the budget: the conversation's discovery state. */
  discovery?: ToolDiscovery;
  /** `server\0tool` of the tools that may be called now. */
  active: Set<string>;
  /** Set in code mode: the program tool is offered instead of the servers' tools. */
  codeMode?: { servers: CodeModeServer[]; limits: CodeModeLimits };
}

/**
 * True when the server is running (only running servers' tools, prompts and resources are offered), or waits for its
 * automatic restart after a crash (H585: a call then waits for the restart).
 */
export function isRunning(h: ServerHandle): boolean {
  return runsOrRestarts(h.state);
}

/** What the participant is given at construction (extension.ts); nothing is set on it afterwards. */
export interface ChatServices {
  host: HostApi;
  /** The window's modal dialogs (ui/dialogs.ts): tool-call confirmations go through its one governor. */
  dialogs: Dialogs;
  /** The window's quick picks and input boxes (ui/quickInputs.ts): a prompt's arguments, the follow-up pickers. */
  quickInputs: QuickInputs;
  /** Where "always" grants are kept (user and workspace state). */
  mementos?: { user?: vscode.Memento; workspace?: vscode.Memento };
  /** Where each server is defined plus its definition key: what grants are keyed by. */
  identity?: ServerIdentityLookup;
  /** MCP App views: tool calls with a UI open one; views' model context joins requests. */
  apps?: Pick<AppViews, 'open' | 'propose' | 'modelContexts' | 'userActed'>;
  /** The one predicate for what models see (src/mcp/catalogue/modelTools.ts). Default: running servers, every tool. */
  gate?: ModelToolGate;
  /** The tool budget now (`mcpHost.toolBudget`). Default: none. */
  budget?: () => ToolBudget;
  /** Round trips per request (`mcpHost.chat.maxToolRounds`). Default: MAX_TOOL_ROUNDS. */
  maxToolRounds?: () => number;
  /** Code mode's limits while `mcpHost.codeMode` is on, else undefined. Default: off. */
  codeMode?: () => CodeModeLimits | undefined;
  /** Before a request: servers waiting for their first use (`mcpHost.startup: lazy`) start. */
  beforeRequest?: () => Promise<void>;
  /** Why a server the user denied is not started, and how the user allows it. Never asks. */
  notAllowed?: (server: string) => string | undefined;
  /** Test-only replacements of the dialogs (testSupport.ts; given in test mode only). */
  seams?: Pick<TestSeams, 'chatUi'>;
}
