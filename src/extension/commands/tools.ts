import * as vscode from 'vscode';
import type { CallToolResult, Tool } from '@modelcontextprotocol/client';
import { offeredAsTask, type TaskMode, quoted } from '../../mcp';
import { errorText, pickServer, requireRunning, running, shownError, type ServerAccess } from './args';
import type { Forms } from '../forms/forms';
import { askArguments } from './schemaInput';
import { renderToolResult } from './render';
import { taskMessage } from './tasks';
import type { AppViews } from '../apps/appViews';
import { resultDocuments } from '../documents/results';
import { abortSignalOf } from '../ui/cancellation';

/**
 * MCP Host: Call Tool (and Call Tool as Task, `mode` 'task'). Arguments: a tree node or server name, a tool name,
 * and the tool arguments (when given, nothing is asked, so tests and other extensions can call it). Shows
 * progress with cancel (a task's status and message while it runs; cancel cancels the task) and opens the
 * result as a markdown document; resolves the result (undefined on cancel).
 */
export async function callToolCommand(access: ServerAccess, arg?: unknown, toolName?: string, args?: Record<string, unknown>, mode: TaskMode = 'auto', ui: { apps?: Pick<AppViews, 'open'>; forms?: Forms } = {}): Promise<CallToolResult | undefined> {
  const picked = await pickServer(access, arg, { filter: running(access.startOnUse, 'tools'), none: vscode.l10n.t('No running MCP server offers tools.') });
  const h = picked && await requireRunning(access, picked);
  if (!h) return undefined;
  const nodeTool = (arg as { tool?: Tool } | undefined)?.tool;
  const st = h.state;
  const offered = mode === 'task' && st.kind === 'running'
    ? h.catalogue.tools.filter(t => offeredAsTask(t.execution?.taskSupport, st.protocolVersion, st.capabilities as Record<string, unknown>))
    : h.catalogue.tools;
  const name = toolName ?? nodeTool?.name ?? (await access.quickInputs.showPick(
    offered.map(t => ({ label: t.name, description: t.title, detail: t.description })),
    { placeHolder: vscode.l10n.t('Tool of {0}', h.name), matchOnDetail: true },
  ))?.label;
  if (!name) return undefined;
  const tool = h.catalogue.tools.find(t => t.name === name);
  if (!tool) {
    void vscode.window.showErrorMessage(vscode.l10n.t('MCP server {0} has no tool named {1}.', quoted(h.name), quoted(name)));
    return undefined;
  }
  const input = args ?? await askArguments(vscode.l10n.t('Call {0}', tool.name), tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] }, { forms: ui.forms, quickInputs: access.quickInputs });
  if (!input) return undefined;
  // A tool with an MCP App view: the view opens now with the input, and gets the result when it comes.
  const view = ui.apps?.open(h.name, tool, input);
  const at = new Date();
  let result: CallToolResult;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('MCP Host: {0} › {1}', h.name, tool.name), cancellable: true },
      (progress, token) => {
        // Cancel aborts the call; a call running as a task is cancelled on the server (tasks/cancel).
        const signal = abortSignalOf(token);
        let last = 0;
        let said: string | undefined;
        return h.callTool(tool.name, input, {
          signal,
          task: mode,
          userStarted: true,
          onTask: t => {
            const message = `task ${taskMessage(t)}`;
            if (message !== said) progress.report({ message: said = message });
          },
          onProgress: p => {
            const pct = p.total ? (p.progress / p.total) * 100 : undefined;
            progress.report({ message: p.message, increment: pct !== undefined ? pct - last : undefined });
            if (pct !== undefined) last = pct;
          },
        });
      },
    );
  } catch (err) {
    view?.cancelled(errorText(err));
    void vscode.window.showErrorMessage(vscode.l10n.t('Tool {0} of {1} failed: {2}', quoted(tool.name), quoted(h.name), shownError(err)));
    return undefined;
  }
  if (view) {
    view.result(result);
    return result;
  }
  await resultDocuments.openResult(h.name, tool.name, renderToolResult(h.name, tool.name, input, result), at);
  return result;
}
