/**
 * The running servers' tools for every chat agent (VS Code's Agent mode, other extensions) through `vscode.lm.tools`.
 * VS Code 1.139 registers only tools declared in package.json (`contributes.languageModelTools`); defining tools at run
 * time (`vscode.lm.registerToolDefinition`) is the proposed API `languageModelToolSupportsModel`, closed to extensions
 * from the marketplace. So two declared gateway tools: `mcpHost_listTools` (the model-visible tools of the running
 * servers with their input schemas) and `mcpHost_callTool` (server, tool, arguments), whose calls go through the same
 * confirmation and grants as the `@mcp` participant's. Which tools they list and call is the core's one predicate
 * (src/mcp/catalogue/modelTools.ts), as for `@mcp` and the gateway.
 * A third, `mcpHost_loadSkill` (server, skill), loads a skill's
 * SKILL.md (SEP-2640, verified by the core; skills.ts) for the agent: a read, like a resource, with no dialog, behind
 * the same gate as the tools (a server whose tools are all turned off for models, or denied, is not reachable).
 */
import * as vscode from 'vscode';
import type { Tool } from '@modelcontextprotocol/client';
import { type HostApi, modelMaySee, modelTools, runsOrRestarts, serverOffered, type ModelToolGate } from '../../mcp';
import { toolResultText } from './messages';
import { abortSignalOf } from '../ui/cancellation';
import type { AppViews } from '../apps/appViews';
import { loadSkillForModel, runningSkills, skillLines } from './skills';

export const LM_TOOL_IDS = { list: 'mcpHost_listTools', call: 'mcpHost_callTool', skill: 'mcpHost_loadSkill' } as const;
/** The listing handed to a model is cut here (characters). */
export const MAX_LISTING_CHARS = 256 * 1024;

interface ListInput { server?: string }
interface CallInput { server?: string; tool?: string; arguments?: Record<string, unknown> }

export interface LmToolsOptions {
  host: HostApi;
  /** The @mcp participant's confirmation (grants for the session / always included). */
  approve(server: string, tool: Tool, args: Record<string, unknown>, cancelled: AbortSignal): Promise<boolean>;
  apps?: Pick<AppViews, 'open' | 'propose'>;
  /** Before a use: servers waiting for their first use (`mcpHost.startup: lazy`) start. */
  beforeUse?: () => Promise<void>;
  /** Why a server the user denied is not started, and how the user allows it (undefined: not denied). Never asks. */
  notAllowed?: (server: string) => string | undefined;
  /** What decides the tools a model sees (state, trust/consent, enablement). Default: running servers, every tool. */
  gate?: ModelToolGate;
}

const text = (s: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);


/**
 * The listing: per server, each tool a model may call, with its description and input schema; a server the user
 * denied is listed with `notStarted` (why, and how the user allows it).
 */
export function listing(host: HostApi, only?: string, notAllowed?: (server: string) => string | undefined, gate: ModelToolGate = {}): string {
  const servers = host.servers.filter(h => runsOrRestarts(h.state) && serverOffered(h, gate) && (!only || h.name === only));
  const denied = host.servers.filter(h => !runsOrRestarts(h.state) && (!only || h.name === only))
    .map(h => ({ server: h.name, notStarted: notAllowed?.(h.name) })).filter((d): d is { server: string; notStarted: string } => !!d.notStarted);
  if (only && !servers.length && denied.length) return denied[0].notStarted;
  if (!servers.length && !denied.length) return only ? `MCP server "${only}" is not running (or not configured in MCP Host).` : 'No MCP server is running in MCP Host.';
  const out: unknown[] = servers.map(h => ({
    server: h.name,
    tools: modelTools([h], gate).map(({ tool: t }) => ({ name: t.name, description: t.description ?? t.title ?? '', inputSchema: t.inputSchema })),
  }));
  out.push(...denied.map(d => ({ server: d.server, tools: [], notStarted: d.notStarted })));
  const json = JSON.stringify(out);
  return json.length > MAX_LISTING_CHARS ? `${json.slice(0, MAX_LISTING_CHARS)}… (cut: the listing is larger than ${MAX_LISTING_CHARS} characters; ask for one server)` : json;
}

export function registerLmTools(o: LmToolsOptions): vscode.Disposable {
  const list = vscode.lm.registerTool<ListInput>(LM_TOOL_IDS.list, {
    prepareInvocation: () => ({ invocationMessage: vscode.l10n.t('Listing the tools of the MCP servers') }),
    invoke: async opts => {
      await o.beforeUse?.();
      return text(listing(o.host, typeof opts.input?.server === 'string' ? opts.input.server : undefined, o.notAllowed, o.gate));
    },
  });
  const call = vscode.lm.registerTool<CallInput>(LM_TOOL_IDS.call, {
    prepareInvocation: opts => ({ invocationMessage: vscode.l10n.t('Calling the MCP tool {0} of {1}', String(opts.input?.tool), String(opts.input?.server)) }),
    invoke: async (opts, token) => {
      await o.beforeUse?.();
      const { server, tool: name } = opts.input ?? {};
      const args = opts.input?.arguments && typeof opts.input.arguments === 'object' && !Array.isArray(opts.input.arguments) ? opts.input.arguments : {};
      const h = typeof server === 'string' ? o.host.get(server) : undefined;
      const denied = h && !runsOrRestarts(h.state) ? o.notAllowed?.(h.name) : undefined;
      if (denied) return text(denied);
      if (!h || !runsOrRestarts(h.state)) return text(`MCP server "${String(server)}" is not running (or not configured in MCP Host). Call ${LM_TOOL_IDS.list} to see what runs.`);
      const tool = h.catalogue.tools.find(t => t.name === name);
      if (!tool || !modelMaySee(h, tool, o.gate ?? {})) return text(`MCP server "${h.name}" has no tool named "${String(name)}". Call ${LM_TOOL_IDS.list} to see its tools.`);
      // The view (if the tool has one) shows the proposed call while the user confirms (tool-input-partial).
      const proposed = o.apps?.propose(h.name, tool, args, { preserveFocus: true });
      if (!await o.approve(h.name, tool, args, abortSignalOf(token))) {
        proposed?.cancelled('The user declined to run the tool');
        return text('The user declined to run this tool.');
      }
      const view = o.apps?.open(h.name, tool, args, { preserveFocus: true });
      try {
        const result = await h.callTool(tool.name, args, { signal: abortSignalOf(token), by: 'model' });
        view?.result(result);
        return text(toolResultText(result));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        view?.cancelled(message);
        return text(`The tool call failed: ${message}`);
      }
    },
  });
  const skill = vscode.lm.registerTool<{ server?: string; skill?: string }>(LM_TOOL_IDS.skill, {
    prepareInvocation: opts => ({ invocationMessage: vscode.l10n.t('Loading the MCP skill {0} of {1}', String(opts.input?.skill), String(opts.input?.server)) }),
    invoke: async (opts, token) => {
      await o.beforeUse?.();
      // Without a skill: what the running servers list (the model picks one and calls again).
      if (typeof opts.input?.skill !== 'string') {
        const all = runningSkills(o.host, o.gate ?? {}).filter(s => !opts.input?.server || s.server === opts.input.server);
        return text(all.length ? `MCP skills (call again with server and skill):\n${skillLines(all)}` : 'No running MCP server lists skills.');
      }
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        return text((await loadSkillForModel(o.host, opts.input, ac.signal, o.gate ?? {})).text);
      } finally {
        sub.dispose();
      }
    },
  });
  return vscode.Disposable.from(list, call, skill);
}
