import * as vscode from 'vscode';
import { type HostApi, quoted } from '../../mcp';
import type { McpNode } from '../../views/nodes';
import type { ServersTreeProvider } from '../../views/serversTree';
import type { ResourcesTreeProvider } from '../../views/resourcesTree';
import { CommandIds } from '../../views/commandIds';
import type { LaunchConsent } from '../trust/consent';
import type { OAuthBridge } from '../oauth/signIn';
import type { InputStore } from '../trust/inputs';
import type { ServerLogs } from '../ui/logs';
import type { ResourceFileSystem } from '../documents/resourceFs';
import type { ServerController } from '../servers/serverController';
import type { AppViews } from '../apps/appViews';
import type { HistoryNode, HistoryTreeProvider } from '../../views/historyTree';
import { openHistoryEntry, rerunHistoryEntry } from './history';
import { pickServer, running, serverNameOf, shownError, type ServerAccess, type StartOnUse } from './args';
import { callToolCommand } from './tools';
import { cancelTaskCommand, showTaskResultCommand } from './tasks';
import { runPromptCommand } from './prompts';
import { browseResourcesCommand, openResource, readResourceCommand, readTemplateCommand } from './resources';
import { heldBack, listServers, restartServer, startAll, startServer, stopAll, stopServer } from './servers';
import { addServerCommand, importServersCommand } from './settings';
import { browseRegistryCommand } from './registry';
import type { AddedServers } from '../trust/addedServers';
import type { RegistryInstalls } from '../trust/registryInstalls';
import type { Forms } from '../forms/forms';
import type { Dialogs } from '../ui/dialogs';
import type { QuickInputs } from '../ui/quickInputs';

/**
 * What the commands work with, given once at registration (issue 39): each handler closes over these, and no command
 * module holds state set from outside.
 */
export interface CommandServices {
  host: HostApi;
  /** Servers waiting for their first use (`mcpHost.startup: lazy`): a command on one starts it. */
  startOnUse: StartOnUse;
  /** The record of servers the host writes into settings (import, registry, Add Server): they ask launch consent. */
  added: AddedServers;
  /** The window's modal dialogs (ui/dialogs.ts): the questions before settings are written. */
  dialogs: Dialogs;
  /** The window's quick picks and input boxes (ui/quickInputs.ts; recorded in test mode only). */
  quickInputs: QuickInputs;
  /** The record of servers installed from the MCP Registry (`chat.mcp.access: registry`). */
  registryInstalls: RegistryInstalls;
  /** The form host: arguments of more than one field are one form (undefined: quick inputs only). */
  forms?: Forms;
  controller: ServerController;
  logs: ServerLogs;
  resources: ResourceFileSystem;
  consent: LaunchConsent;
  inputs: InputStore;
  oauth: OAuthBridge;
  serversTree: ServersTreeProvider;
  resourcesTree: ResourcesTreeProvider;
  /** MCP App views: a tool with a UI opens one. */
  apps?: AppViews;
  /** The History view. */
  historyTree?: HistoryTreeProvider;
  /** Forgets a server's sampling and elicitation denials (its Start or Restart is the user's own act). */
  forgetDenials?: (server: string) => void;
}

/** Registers every command of `CommandIds`; each accepts a tree node, or plain arguments from code. */
export function registerCommands(s: CommandServices): vscode.Disposable[] {
  const { host, controller } = s;
  const access: ServerAccess = { host, startOnUse: s.startOnUse, quickInputs: s.quickInputs };
  // Restricted Mode: a picker whose only candidates are held back says why and offers Manage Workspace Trust.
  const trusted = (arg: unknown, cap: 'tools' | 'prompts' | 'resources') => !heldBack(host, controller, arg, running(s.startOnUse, cap));
  const resourceOf = (node: unknown, uri?: string) => uri ?? (node as { resource?: { uri: string } } | undefined)?.resource?.uri;
  const handlers: Record<string, (...args: any[]) => unknown> = {
    [CommandIds.listServers]: () => listServers(access, controller, s.logs),
    [CommandIds.startServer]: (arg?: unknown) => startServer(access, controller, arg, s.forgetDenials),
    [CommandIds.stopServer]: (arg?: unknown) => stopServer(access, arg),
    [CommandIds.restartServer]: (arg?: unknown) => restartServer(access, controller, arg, s.forgetDenials),
    [CommandIds.startAll]: () => startAll(host, controller),
    [CommandIds.stopAll]: () => stopAll(host),
    [CommandIds.showLogs]: async (arg?: unknown) => {
      const h = await pickServer(access, arg);
      if (h) s.logs.show(h.name);
    },
    [CommandIds.browseResources]: (arg?: unknown) => (trusted(arg, 'resources') ? browseResourcesCommand(access, s.resources, arg) : []),
    [CommandIds.readResource]: (arg?: unknown, uri?: string) => (trusted(arg, 'resources') ? readResourceCommand(access, s.resources, arg, uri) : []),
    [CommandIds.readResourceTemplate]: (arg?: unknown, tpl?: string, vars?: Record<string, string>) => (trusted(arg, 'resources') ? readTemplateCommand(access, s.resources, arg, tpl, vars) : []),
    [CommandIds.openResource]: (arg: unknown, uri?: string) => {
      const server = serverNameOf(arg);
      const target = resourceOf(arg, uri);
      return server && target ? openResource(s.resources, server, target) : [];
    },
    [CommandIds.callTool]: (arg?: unknown, tool?: string, args?: Record<string, unknown>) => (trusted(arg, 'tools') ? callToolCommand(access, arg, tool, args, 'auto', { apps: s.apps, forms: s.forms }) : undefined),
    [CommandIds.callToolAsTask]: (arg?: unknown, tool?: string, args?: Record<string, unknown>) => (trusted(arg, 'tools') ? callToolCommand(access, arg, tool, args, 'task', { apps: s.apps, forms: s.forms }) : undefined),
    [CommandIds.cancelTask]: (arg?: unknown, taskId?: string) => cancelTaskCommand(host, arg, taskId),
    [CommandIds.showTaskResult]: (arg?: unknown, taskId?: string) => showTaskResultCommand(host, arg, taskId),
    [CommandIds.runPrompt]: (arg?: unknown, prompt?: string, args?: Record<string, string>) => (trusted(arg, 'prompts') ? runPromptCommand(access, arg, prompt, args) : undefined),
    [CommandIds.refresh]: async () => {
      // Servers that never send list_changed: their lists are fetched again.
      await Promise.all(host.servers.filter(h => h.state.kind === 'running').map(h => h.refreshCatalogue().catch(() => undefined)));
      s.serversTree.refresh();
      s.resourcesTree.reset();
    },
    [CommandIds.subscribeResource]: (arg: unknown, uri?: string) => subscription(s, arg, resourceOf(arg, uri), true),
    [CommandIds.unsubscribeResource]: (arg: unknown, uri?: string) => subscription(s, arg, resourceOf(arg, uri), false),
    [CommandIds.copyUri]: async (arg: unknown, uri?: string) => {
      const target = resourceOf(arg, uri) ?? (arg as McpNode & { template?: { uriTemplate: string } })?.template?.uriTemplate;
      if (target) await vscode.env.clipboard.writeText(target);
    },
    [CommandIds.importServers]: (file?: string, answer?: string, target?: 'user' | 'workspace') => importServersCommand(s, file, answer, target),
    [CommandIds.browseRegistry]: (search?: string, name?: string, option?: number) => browseRegistryCommand(s, search, name, option),
    [CommandIds.addServer]: (kind?: 'stdio' | 'http', target?: string, name?: string) => addServerCommand(s, kind, target, name),
    [CommandIds.openSettings]: () => vscode.commands.executeCommand('workbench.action.openSettings', 'mcpHost'),
    [CommandIds.resetTrust]: async () => {
      await s.consent.reset();
      await controller.sync();
      void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: launch consent reset; workspace servers ask again before they start.'));
    },
    [CommandIds.manageWorkspaceTrust]: () => vscode.commands.executeCommand('workbench.trust.manage'),
    [CommandIds.clearInputs]: async () => {
      const n = await s.inputs.clear();
      void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: cleared {0} stored input value{1}; they are asked again on next start.', n, n === 1 ? '' : 's'));
      return n;
    },
    [CommandIds.signOut]: async (arg?: unknown) => {
      const h = await pickServer(access, arg, { filter: x => x.definition.type !== 'stdio', none: vscode.l10n.t('No HTTP MCP server is configured.') });
      if (!h || h.definition.type === 'stdio') return;
      await s.oauth.signOut(h.definition);
      void vscode.window.showInformationMessage(vscode.l10n.t('MCP Host: signed out of {0}; it asks you to sign in on its next start.', quoted(h.name)));
    },
    [CommandIds.loadMoreResources]: (server: string) => s.resourcesTree.loadMore(server),
    [CommandIds.openHistoryEntry]: (node: HistoryNode) => (s.historyTree ? openHistoryEntry(s.historyTree, node) : undefined),
    [CommandIds.rerunHistoryEntry]: (node: HistoryNode, args?: Record<string, unknown>) => (s.historyTree ? rerunHistoryEntry(host, s.historyTree, node, args) : undefined),
    [CommandIds.saveResourceAs]: async (arg?: unknown, uri?: string, part?: number, target?: vscode.Uri) => {
      const server = serverNameOf(arg);
      const res = resourceOf(arg, uri);
      if (!server || !res) return undefined;
      try {
        return await s.resources.saveAs(server, res, part, target);
      } catch (err) {
        void vscode.window.showErrorMessage(vscode.l10n.t('Could not save {0} of {1}: {2}', res, quoted(server), shownError(err)));
        return undefined;
      }
    },
  };
  return Object.entries(handlers).map(([id, fn]) => vscode.commands.registerCommand(id, fn));
}

async function subscription(s: CommandServices, arg: unknown, uri: string | undefined, on: boolean): Promise<void> {
  const h = await pickServer(s, arg, { filter: h => running(s.startOnUse, 'resources')(h) && (!on || h.state.kind === 'running' && h.state.capabilities.resources?.subscribe === true),
    none: on ? vscode.l10n.t('No running MCP server supports resource subscriptions.') : vscode.l10n.t('No running MCP server offers resources.') });
  if (!h) return;
  const target = uri ?? (await vscode.window.showQuickPick(
    h.catalogue.resources.filter(r => s.controller.isSubscribed(h.name, r.uri) !== on).map(r => ({ label: r.uri, description: r.title ?? r.name })),
    { placeHolder: on ? vscode.l10n.t('Subscribe to a resource of {0}', h.name) : vscode.l10n.t('Unsubscribe from a resource of {0}', h.name) },
  ))?.label;
  if (!target) return;
  try {
    if (on) await s.controller.subscribe(h.name, target);
    else await s.controller.unsubscribe(h.name, target);
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not {0} {1}: {2}', on ? 'subscribe to' : 'unsubscribe from', target, shownError(err)));
  }
}
