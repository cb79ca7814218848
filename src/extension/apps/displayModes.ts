/**
 * An MCP App view's display modes (`ui/request-display-mode`) as the editor's layout: inline is the editor panel where
 * it opened, fullscreen its editor group maximised, pip the panel in the group to the right of its own. At a bounded
 * rate and one change at a time, so a view cannot make the layout flicker (docs/FEATURES.md, MCP Apps). The panel and
 * its bridge are view.ts's.
 */
import * as vscode from 'vscode';
import type { McpUiDisplayMode } from '@modelcontextprotocol/ext-apps/app-bridge' with { 'resolution-mode': 'import' };
import { DISPLAY_MODE_CHANGES_PER_SECOND, RateBudget } from '../../mcp';
import type { AppView, AppViewServices } from './view';

/** The display modes the host offers, and what each maps to (docs/FEATURES.md, MCP Apps). */
export const DISPLAY_MODES: readonly McpUiDisplayMode[] = ['inline', 'fullscreen', 'pip'];
/** The editor's command that maximises (and restores) the active editor group: fullscreen. */
export const MAXIMIZE_GROUP_COMMAND = 'workbench.action.toggleMaximizeEditorGroup';
/** pip: the editor's commands that move the active editor into the group to its right (created if none) and focus back. */
const MOVE_RIGHT_COMMAND = 'workbench.action.moveEditorToRightGroup';
const FOCUS_LEFT_COMMAND = 'workbench.action.focusLeftGroup';

/** One view's display mode and the layout changes made for it. */
export class DisplayModes {
  /** The display mode in effect. */
  mode: McpUiDisplayMode = 'inline';
  /** This view maximised its editor group (fullscreen) and restores it when leaving fullscreen. */
  maximized = false;
  private readonly budget = new RateBudget(DISPLAY_MODE_CHANGES_PER_SECOND);
  private changing = false;
  /** The column the view was in before pip. */
  private inlineColumn?: vscode.ViewColumn;
  private said = false;

  constructor(private readonly v: AppView, private readonly log: AppViewServices['log']) {}

  /**
   * `ui/request-display-mode`: inline is the editor panel where it opened, fullscreen its editor group maximised (when
   * there is more than one group; with one, the panel already fills the editor area), pip the panel in the group to
   * the right of its own (focus back where it was; refused while the view is the only editor). At most DISPLAY_MODE_CHANGES_PER_SECOND layout changes a second (bursts twice that) and
   * one at a time: a request over it changes nothing. Resolves the mode in effect (the view then tells the app its new
   * context).
   */
  async request(mode: unknown): Promise<McpUiDisplayMode> {
    const v = this.v;
    v.modeCounts.requests++;
    const want = DISPLAY_MODES.find(m => m === mode);
    if (!want || want === this.mode || v.isDisposed) return this.mode;
    // pip is the view beside another editor: a view alone in the only editor group has nothing to be beside (moving it
    // leaves the same layout), so the mode in effect stays.
    if (want === 'pip' && vscode.window.tabGroups.all.length === 1 && vscode.window.tabGroups.all[0].tabs.length <= 1) return this.mode;
    if (this.changing || !this.budget.take(1)) {
      v.modeCounts.refused++;
      if (!this.said) { this.said = true; this.log(v.server, 'warning', `MCP App ${v.uri}: the view asked to change its display mode more often than ${DISPLAY_MODE_CHANGES_PER_SECOND} a second; the layout stays as it is`); }
      return this.mode;
    }
    this.said = false;
    this.changing = true;
    const from = this.mode;
    const panel = v.panel;
    try {
      v.modeCounts.changes++;
      if (this.maximized) {
        this.maximized = false;
        panel.reveal(undefined, false);
        await vscode.commands.executeCommand(MAXIMIZE_GROUP_COMMAND);
      }
      if (from === 'inline') this.inlineColumn = this.column();
      if (want === 'fullscreen') {
        panel.reveal(undefined, false);
        if (vscode.window.tabGroups.all.length > 1) {
          await vscode.commands.executeCommand(MAXIMIZE_GROUP_COMMAND);
          this.maximized = true;
        }
      } else if (want === 'pip') {
        // The group to the right of the view's: moved there with focus kept when it exists; else the editor's own
        // move (which creates the group; reveal cannot move a webview into a group that does not exist), then the
        // focus goes back to the group it left.
        const target = Math.min((this.column() ?? vscode.ViewColumn.One) + 1, vscode.ViewColumn.Nine);
        if (vscode.window.tabGroups.all.some(g => g.viewColumn === target)) panel.reveal(target, true);
        else {
          panel.reveal(undefined, false);
          await vscode.commands.executeCommand(MOVE_RIGHT_COMMAND);
          await vscode.commands.executeCommand(FOCUS_LEFT_COMMAND);
        }
      } else if (this.inlineColumn !== undefined && this.column() !== this.inlineColumn && vscode.window.tabGroups.all.some(g => g.viewColumn === this.inlineColumn)) {
        panel.reveal(this.inlineColumn, true);
      }
      this.mode = want;
    } catch (err) {
      this.log(v.server, 'warning', `MCP App ${v.uri}: display mode ${want} could not be set: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.changing = false;
    }
    v.trace.push(`display mode ${this.mode}`);
    return this.mode;
  }

  /** The editor group the panel is in now (its tab), else what the panel last said. */
  column(): vscode.ViewColumn | undefined {
    const panel = this.v.panel;
    const title = panel.title;
    const group = vscode.window.tabGroups.all.find(g => g.tabs.some(t => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(panel.viewType) && t.label === title));
    return group?.viewColumn ?? panel.viewColumn;
  }

  /** Restores the editor group this view maximised (the view is closing). */
  async restore(): Promise<void> {
    if (!this.maximized || this.v.isDisposed) return;
    this.maximized = false;
    this.v.panel.reveal(undefined, false);
    await vscode.commands.executeCommand(MAXIMIZE_GROUP_COMMAND).then(undefined, () => undefined);
  }
}
