import * as vscode from 'vscode';
import { type HostApi, type ServerHandle, quoted } from '../../mcp';
import { ConsentDeniedError, type ServerController } from '../servers/serverController';
import type { ServerLogs } from '../ui/logs';
import { pickDescription, pickServer, serverNameOf, shownError, type ServerAccess } from './args';
import { CommandIds } from '../../views/commandIds';
import { notify } from '../ui/dialogs';

/** Restricted Mode holds these back: say so, and offer Manage Workspace Trust (`workbench.trust.manage`). */
export function offerTrust(ctl: ServerController, names: string[]): void {
  const manage = vscode.l10n.t('Manage Workspace Trust');
  const text = names.length === 1
    ? vscode.l10n.t('This workspace is not trusted (Restricted Mode): {0} is defined in workspace settings and cannot start until you trust it.', quoted(names[0]))
    : vscode.l10n.t('This workspace is not trusted (Restricted Mode): {0} servers ({1}) are defined in workspace settings and cannot start until you trust it.', names.length, names.map(n => quoted(n)).join(', '));
  ctl.trustOffers.push({ text, actions: [manage] });
  void notify('warning', text, manage)
    .then(pick => { if (pick === manage) void vscode.commands.executeCommand('workbench.trust.manage'); });
}

/**
 * Restricted Mode, before a command picks a server: when `arg` names a server it holds back, or nothing names one and
 * no server `fits` the command while some are held back, says so and offers Manage Workspace Trust (`offerTrust`)
 * and returns true: the command stops there instead of saying "no server".
 */
export function heldBack(host: HostApi, ctl: ServerController, arg: unknown, fits: (h: ServerHandle) => boolean): boolean {
  const held = ctl.untrustedServers();
  if (!held.length) return false;
  const named = serverNameOf(arg);
  if (named !== undefined) {
    if (!held.includes(named)) return false;
    offerTrust(ctl, [named]);
    return true;
  }
  if (host.servers.some(h => fits(h) && !held.includes(h.name))) return false;
  offerTrust(ctl, held);
  return true;
}

/** Starts one server through the controller's gates; shows a readable error. Resolves true when it runs. */
export async function startServer(access: ServerAccess, ctl: ServerController, arg?: unknown, forgetDenials?: (server: string) => void): Promise<boolean> {
  const { host } = access;
  if (heldBack(host, ctl, arg, s => s.state.kind !== 'running')) return false;
  const held = ctl.untrustedServers();
  const h = await pickServer(access, arg, {
    filter: s => s.state.kind !== 'running' && !held.includes(s.name),
    none: host.servers.length ? vscode.l10n.t('Every MCP server is already running.') : undefined,
  });
  if (!h) return false;
  // The user's own Start: the server's sampling and elicitation questions denied earlier may be asked again.
  forgetDenials?.(h.name);
  try {
    await ctl.start(h.name);
    return true;
  } catch (err) {
    // "Don't Allow" was the user's own answer: the dialog was the one message.
    if (!answeredNo(err)) void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} did not start: {1}', quoted(h.name), shownError(err)));
    return false;
  }
}

/** Stops one server (its whole process tree). */
export async function stopServer(access: ServerAccess, arg?: unknown): Promise<void> {
  const h = await pickServer(access, arg, { filter: s => s.state.kind === 'running' || s.state.kind === 'starting', none: vscode.l10n.t('No MCP server is running.') });
  await h?.stop();
}

/** Restarts one server through the same gate as Start: a server held back (consent, inputs) asks again, never relaunches silently. */
export async function restartServer(access: ServerAccess, ctl: ServerController, arg?: unknown, forgetDenials?: (server: string) => void): Promise<void> {
  const h = await pickServer(access, arg);
  if (!h) return;
  forgetDenials?.(h.name);
  try {
    await ctl.restart(h.name);
  } catch (err) {
    if (!answeredNo(err)) void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} did not restart: {1}', quoted(h.name), shownError(err)));
  }
}

/** Starts every stopped server through the gate; workspace servers waiting for consent are asked in one dialog. */
export async function startAll(host: HostApi, ctl: ServerController): Promise<void> {
  const held = ctl.untrustedServers();
  if (held.length) offerTrust(ctl, held);
  const names = host.servers.filter(h => (h.state.kind === 'stopped' || h.state.kind === 'error') && !held.includes(h.name)).map(h => h.name);
  if (!names.length && !held.length) {
    void vscode.window.showInformationMessage(host.servers.length ? vscode.l10n.t('Every MCP server is already running.') : vscode.l10n.t('No MCP server is configured. Add one under "mcpHost.servers" in settings.'));
    return;
  }
  const errors = await ctl.startMany(names);
  errors.forEach((err, i) => { if (err && !answeredNo(err)) void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} did not start: {1}', quoted(names[i]), shownError(err))); });
}

/** True when the start failed because the user has just answered "Don't Allow" (or dismissed the dialog). */
function answeredNo(err: unknown): boolean {
  return err instanceof ConsentDeniedError && err.answered;
}

/** Stops every server. */
export async function stopAll(host: HostApi): Promise<void> {
  await Promise.all(host.servers.map(h => h.stop()));
}

/** MCP Host: List Servers — pick a server, then an action that fits its state. */
export async function listServers(access: ServerAccess, ctl: ServerController, logs: ServerLogs): Promise<void> {
  const h = await pickServer(access, undefined, { placeHolder: vscode.l10n.t('MCP servers') });
  if (!h) return;
  const actions = actionsFor(h);
  const pick = (await access.quickInputs.showPick(actions, { placeHolder: `${h.name}: ${pickDescription(h, access.startOnUse)}` }))?.action;
  switch (pick) {
    case 'start': await startServer(access, ctl, h.name); break;
    case 'stop': await h.stop(); break;
    case 'restart': await restartServer(access, ctl, h.name); break;
    case 'logs': logs.show(h.name); break;
    case 'tool': await vscode.commands.executeCommand(CommandIds.callTool, h.name); break;
    case 'prompt': await vscode.commands.executeCommand(CommandIds.runPrompt, h.name); break;
    case 'resources': await vscode.commands.executeCommand(CommandIds.browseResources, h.name); break;
  }
}

type ServerAction = 'start' | 'stop' | 'restart' | 'logs' | 'tool' | 'prompt' | 'resources';

function actionsFor(h: ServerHandle): { label: string; action: ServerAction }[] {
  const s = h.state;
  const label: Record<ServerAction, string> = {
    start: vscode.l10n.t('Start'), stop: vscode.l10n.t('Stop'), restart: vscode.l10n.t('Restart'), logs: vscode.l10n.t('Show Logs'),
    tool: vscode.l10n.t('Call Tool…'), prompt: vscode.l10n.t('Run Prompt…'), resources: vscode.l10n.t('Browse Resources'),
  };
  const out: ServerAction[] = s.kind === 'running' || s.kind === 'starting' ? ['stop', 'restart'] : ['start'];
  out.push('logs');
  if (s.kind === 'running') {
    if (s.capabilities.tools) out.push('tool');
    if (s.capabilities.prompts) out.push('prompt');
    if (s.capabilities.resources) out.push('resources');
  }
  return out.map(action => ({ label: label[action], action }));
}
