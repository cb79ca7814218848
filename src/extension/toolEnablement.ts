/**
 * Tool enablement in the editor: `mcpHost.disabledTools` (per server `"*"`, or the names of tools that are off),
 * read live, and written by the Servers view's checkboxes; and the budget `mcpHost.toolBudget` (tools and/or
 * tokens), over which `@mcp` and the gateway switch to progressive discovery (src/mcp/catalogue/modelTools.ts). What it says is asked by every path that gives tools to a
 * model (`@mcp`, the language-model tools, the gateway into VS Code's chat); see src/mcp/catalogue/toolPolicy.ts.
 */
import * as vscode from 'vscode';
import { disabledTools, disabledToolsWhereSet, toolBudget, writeDisabledTools, type SettingsTarget } from './settings';
import { mergeToolBudgets, parseToolBudget, type ToolBudget, type HostApi, mergeToolPolicies, parseToolPolicy, serverToolsEnabled, toolEnabled, withToolEnabled, type ToolPolicy } from '../mcp';

export const DISABLED_TOOLS_SETTING = { section: 'mcpHost', key: 'disabledTools' } as const;

/** The current policy and its changes. */
export class ToolEnablement implements vscode.Disposable {
  private policy: ToolPolicy = {};
  private limits: ToolBudget = {};
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly subs: vscode.Disposable[] = [this.changed];

  constructor(private readonly host: HostApi) {
    this.read();
    this.subs.push(vscode.workspace.onDidChangeConfiguration(e => {
      if (e.affectsConfiguration(`${DISABLED_TOOLS_SETTING.section}.${DISABLED_TOOLS_SETTING.key}`) || e.affectsConfiguration('mcpHost.toolBudget')) { this.read(); this.changed.fire(); }
    }));
  }

  /** Whether the tool may go to a model. */
  enabled(server: string, tool: string): boolean {
    return toolEnabled(this.policy, server, tool);
  }

  /** The tool budget now (`mcpHost.toolBudget`; empty: no budget). */
  budget(): ToolBudget {
    return this.limits;
  }

  /** Whether the server's tools may go to models at all. */
  serverEnabled(server: string): boolean {
    return serverToolsEnabled(this.policy, server);
  }

  /**
   * Turns a server's tools (`tool` undefined) or one tool on or off for models (the user's own act, a checkbox). Off:
   * written where the setting is set (workspace if it has a value there, else user settings). On: taken out of every
   * scope that turns it off, since either scope's "off" wins (mergeToolPolicies).
   */
  async set(server: string, tool: string | undefined, on: boolean): Promise<void> {
    const all = this.host.get(server)?.catalogue.tools.map(t => t.name) ?? [];
    const write = async (value: unknown, target: SettingsTarget) => {
      const base = parseToolPolicy(value);
      const next = withToolEnabled(base, server, tool, on, all);
      if (JSON.stringify(next) !== JSON.stringify(base)) await writeDisabledTools(Object.keys(next).length ? next : undefined, target);
    };
    if (!on) { const { value, target } = disabledToolsWhereSet(); await write(value, target); return; }
    const scoped = disabledTools();
    if (scoped.workspace !== undefined) await write(scoped.workspace, 'workspace');
    await write(scoped.user, 'user');
  }

  dispose(): void { this.subs.forEach(s => s.dispose()); }

  private read(): void {
    const off = disabledTools();
    this.policy = mergeToolPolicies(parseToolPolicy(off.user), parseToolPolicy(off.workspace));
    const budget = toolBudget();
    this.limits = mergeToolBudgets(parseToolBudget(budget.user), parseToolBudget(budget.workspace));
  }
}
