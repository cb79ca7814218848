import type * as vscode from 'vscode';
import type { Prompt, Resource, ResourceTemplateType as ResourceTemplate, Tool } from '@modelcontextprotocol/client';
import type { SkillInfo } from '../mcp';

/** The groups shown under a running server: its tasks, then its catalogue, then its skills (SEP-2640). */
export type GroupKind = 'tasks' | 'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'skills';

/**
 * A node of the MCP trees. Commands invoked from a tree receive one of these; every node names its
 * server, so a command can find the handle with `host.get(node.server)`.
 */
export type McpNode =
  | { kind: 'server'; server: string }
  | { kind: 'group'; server: string; group: GroupKind }
  | { kind: 'tool'; server: string; tool: Tool }
  | { kind: 'prompt'; server: string; prompt: Prompt }
  | { kind: 'resource'; server: string; resource: Resource }
  | { kind: 'resourceTemplate'; server: string; template: ResourceTemplate }
  /** A skill as listed (name, description): nothing of it is read until it is used. */
  | { kind: 'skill'; server: string; skill: SkillInfo }
  /** A tool call running (or finished) as an MCP task; its state is read from the handle's `tasks`. */
  | { kind: 'task'; server: string; taskId: string }
  | { kind: 'loadMore'; server: string }
  | {
    kind: 'message'; server: string; text: string; error?: boolean; command?: { id: string; args?: unknown[] };
    /** Shown beside the text (what clicking does); `tooltip` the whole explanation; `icon` a codicon other than info/warning. */
    description?: string; tooltip?: string; icon?: string;
    /** The row's `contextValue` (its inline and context-menu actions), if it has any. */
    context?: 'restricted';
  };

/**
 * What the extension knows about a server beyond the core's model (why it may not start, which
 * resources the user subscribed to). The trees show these; they never decide them.
 */
export interface ServerAnnotations {
  /** Why a stopped server is not started (untrusted workspace, launch not allowed), if it is held back. */
  blockedReason(server: string): string | undefined;
  /** Problems with the settings (invalid definitions, unresolvable variables), one sentence each. */
  configProblems(): string[];
  /** Servers in workspace settings that Restricted Mode keeps from even being read (names only). */
  restrictedServers(): string[];
  /** A server waiting to start on first use (`mcpHost.startup: lazy`) is started (expanding it in the tree). */
  startOnUse?(server: string): void;
  /** True when the server waits for its first use (lazy start, not started yet). */
  waitsForUse?(server: string): boolean;
  /** Multi-root: the folder whose own settings define the server, if one does. */
  folderOf?(server: string): string | undefined;
  /** The portable file the server was read from (`.mcp.json`, `~/.copilot/mcp-config.json`: mcpHost.configSources), if any. */
  sourceOf?(server: string): string | undefined;
  /** The MCP Registry the server was installed from, while its definition is the one installed (issue 40), if it was. */
  installedFrom?(server: string): string | undefined;
  /** Where else the server is configured and started by VS Code's built-in MCP (it then runs twice), if anywhere. */
  alsoIn?(server: string): string | undefined;
  /** True when the user subscribed to `uri` of `server`. */
  isSubscribed(server: string, uri: string): boolean;
  /** Fires when any of the above changes. */
  readonly onDidChange: vscode.Event<void>;
}
