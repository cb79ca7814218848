import * as vscode from 'vscode';
import { type HostApi, type ServerHandle, quoted, shownName } from '../../mcp';
import type { McpNode } from '../../views/nodes';
import { stateDescription } from '../../views/items';
import type { QuickInputs } from '../ui/quickInputs';

/** What a command may receive as its first argument: a tree node, a server name, or nothing (then it asks). */
export type ServerArg = McpNode | string | undefined;

/** The server name a command argument names, if any. */
export function serverNameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && typeof (arg as { server?: unknown }).server === 'string') return (arg as { server: string }).server;
  return undefined;
}

/**
 * The server a command acts on: the one named by `arg`, or the user's pick among those matching
 * `filter` (the only match is taken without asking). Shows a readable message and returns undefined
 * when there is none.
 */
export async function pickServer(
  access: ServerAccess, arg: unknown, opts: { filter?: (h: ServerHandle) => boolean; placeHolder?: string; none?: string } = {},
): Promise<ServerHandle | undefined> {
  const { host } = access;
  const name = serverNameOf(arg);
  if (name !== undefined) {
    const h = host.get(name);
    if (!h) void vscode.window.showErrorMessage(vscode.l10n.t('No MCP server named {0} is configured.', quoted(name)));
    return h;
  }
  const candidates = host.servers.filter(opts.filter ?? (() => true));
  if (!candidates.length) {
    void vscode.window.showInformationMessage(opts.none ?? vscode.l10n.t('No MCP server is configured. Add one under "mcpHost.servers" in settings.'));
    return undefined;
  }
  if (candidates.length === 1) return candidates[0];
  const items = candidates.map(h => ({ label: h.name, description: pickDescription(h, access.startOnUse), handle: h }));
  const placeHolder = opts.placeHolder ?? vscode.l10n.t('Select an MCP server');
  return (await access.quickInputs.showPick(items, { placeHolder }))?.handle;
}

/**
 * A server's state in a picker, as the Servers view words it ("starts on first use" for one lazy start holds, not
 * "stopped"); an error's text is the server's, so it is masked and kept to one short line.
 */
export function pickDescription(h: ServerHandle, lazy: StartOnUse | undefined): string {
  return shownName(h.redactor.text(stateDescription(h.state, undefined, h.state.kind === 'stopped' && lazy?.waits(h.name) === true), '••••'), 120);
}

/** Servers waiting for their first use (`mcpHost.startup: lazy`): how to tell, and how to start one (the server controller's). */
export interface StartOnUse { waits(server: string): boolean; start(server: string): Promise<void>; denied?(server: string): string | undefined }

/**
 * What the server commands work with (issue 39: given at registration, register.ts, never set on a module): the host,
 * and the servers that wait for their first use, which a command starts.
 */
export interface ServerAccess {
  host: HostApi;
  startOnUse?: StartOnUse;
  /** The window's quick picks and input boxes (ui/quickInputs.ts; recorded in test mode only). */
  quickInputs: QuickInputs;
}

/**
 * The running handle of `h`'s server; a server waiting for its first use is started now (a command is a use). The
 * handle is looked up again after a start: clearing a gate (its `${input:}` values, launch consent) may replace it.
 * Otherwise says so ("server is not running") and resolves undefined.
 */
export async function requireRunning(access: ServerAccess, h: ServerHandle): Promise<ServerHandle | undefined> {
  const { host, startOnUse: lazy } = access;
  if (h.state.kind === 'running') return h;
  const now = () => { const c = host.get(h.name); return c?.state.kind === 'running' ? c : undefined; };
  if (h.state.kind === 'starting') {
    try { await h.start(); } catch { /* said below */ }
    const c = now();
    if (c) return c;
  }
  if (lazy?.waits(h.name)) {
    try { await lazy.start(h.name); } catch { /* said below */ }
    const c = now();
    if (c) return c;
  }
  const current = host.get(h.name) ?? h;
  void vscode.window.showWarningMessage(lazy?.denied?.(h.name) ?? vscode.l10n.t('MCP server {0} is not running ({1}). Start it first.', quoted(h.name), current.state.kind));
  return undefined;
}

/** A readable message for any thrown value. */
export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * `errorText` for a notification: it may carry a server's words, and a notification makes `[label](command:…)`
 * clickable: one line, no controls, bidi characters or links, cut (src/mcp/logging/humanText.ts).
 */
export function shownError(err: unknown): string {
  return shownName(errorText(err), 1000);
}

/**
 * The running servers, optionally only those declaring a capability, and the servers waiting for their first use
 * (lazy start) whose cached lists have such items, or that have no cached lists yet.
 */
export function running(lazy: StartOnUse | undefined, cap?: 'tools' | 'prompts' | 'resources'): (h: ServerHandle) => boolean {
  return h => (h.state.kind === 'running' && (!cap || h.state.capabilities[cap] !== undefined))
    || (!!lazy?.waits(h.name) && (!cap || !h.catalogueStale || h.catalogue[cap].length > 0));
}
