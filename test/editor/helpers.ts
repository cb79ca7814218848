// Helpers shared by the editor suites (not a *.test.ts file, so index.ts does not load it as a suite).
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';
import type { TestSupport } from '../../src/extension/testSupport';
import { until as waitUntil, type Truthy } from '../support/wait';

export { textOf } from '../support/wait';

/** The project root (the suites run from out/test/editor). */
export const ROOT = path.resolve(__dirname, '../../..');
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/**
 * MCP Host's one test-only object (src/extension/testSupport.ts: the dialogs a test answers without UI). The extension
 * returns it only in test mode (vscode.ExtensionMode.Test), which is how the editor runner starts it.
 */
export function testSupport(api: McpHostExtensionApi): TestSupport {
  if (!api.testSupport) throw new Error('MCP Host returned no testSupport: it is given only when the extension runs in test mode (vscode.ExtensionMode.Test, as scripts/editor/run-editor-tests.mjs starts it)');
  return api.testSupport;
}

/** Activates MCP Host and returns its test API. */
export async function activateHost<T extends McpHostExtensionApi = McpHostExtensionApi>(): Promise<T> {
  return await vscode.extensions.getExtension<T>('mcp-host.mcp-host')!.activate();
}

/**
 * Activates MCP Host with every launch-consent dialog answered "allow" (the start-up most suites share; a suite that
 * asks about consent itself sets its own prompt through testSupport(api) afterwards).
 */
export async function activateAllowing<T extends McpHostExtensionApi = McpHostExtensionApi>(): Promise<T> {
  const api = await activateHost<T>();
  testSupport(api).setConsentPrompt(async () => 'allow');
  return api;
}

/**
 * A describe block's start-up in the real editor, written once (issue 39): before its tests MCP Host activated with
 * launches allowed (activateAllowing); after them the workspace's `mcpHost.servers` removed and the host left with no
 * server. `api` is the extension's API once `before` ran; `cfg()` the `mcpHost` settings.
 */
export function activatedSuite(): { readonly api: McpHostExtensionApi; cfg(): vscode.WorkspaceConfiguration } {
  let api: McpHostExtensionApi | undefined;
  const get = (): McpHostExtensionApi => {
    if (!api) throw new Error('MCP Host is activated in the suite\'s before hook; use its API inside a test or hook');
    return api;
  };
  const cfg = () => vscode.workspace.getConfiguration('mcpHost');
  before(async () => { api = await activateAllowing(); });
  after(async () => {
    await cfg().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
    await until(() => get().host.servers.length === 0, 'no servers left');
  });
  return { get api() { return get(); }, cfg };
}

/**
 * The shared readiness wait (test/support/wait.ts) with the editor's pace: re-checked every 250 ms and on every event
 * of the activated host (state, servers, catalogue); fails with "timed out waiting for <what>" after `ms`.
 */
export function until<T>(check: () => T, what: string, ms = 30000): Promise<Truthy<T>> {
  const api = vscode.extensions.getExtension<McpHostExtensionApi>('mcp-host.mcp-host')?.exports as McpHostExtensionApi | undefined;
  const wakeOn = api ? [api.host.onDidChangeState, api.host.onDidChangeServers, api.host.onDidChangeCatalogue].map(e => (l: () => void) => e(l)) : [];
  return waitUntil(check, what, { ms, every: 250, wakeOn });
}

/**
 * Answers the host's dialogs that ask where to write servers (Import Servers, a registry install) with `title`,
 * and records them; every other dialog is dismissed. Returns the record; `testSupport(api).setDialogAnswerer(undefined)` ends it.
 */
export function answerWhereToWrite(api: McpHostExtensionApi, title: string): { message: string; detail?: string; buttons: string[] }[] {
  const seen: { message: string; detail?: string; buttons: string[] }[] = [];
  testSupport(api).setDialogAnswerer(async d => {
    seen.push({ message: d.message, detail: d.detail, buttons: d.buttons.map(b => b.title) });
    return d.buttons.some(b => b.title === title) ? title : undefined;
  });
  return seen;
}

/**
 * The visible text of every frame of the workbench page as the browser shows it (the workbench and its webviews,
 * the walkthrough's page among them), from the runner's UI probe (scripts/editor/run-extension-tests.mjs,
 * MCP_HOST_UI_PROBE; `main` marks the workbench's own frame): for what the extension host cannot read. One snapshot; wait for a state with `until`.
 */
export async function workbenchFrames(): Promise<{ url: string; main: boolean; text: string }[]> {
  const probe = process.env.MCP_HOST_UI_PROBE;
  if (!probe) throw new Error('MCP_HOST_UI_PROBE is not set: run the editor tests with scripts/editor/run-editor-tests.mjs (its runner serves the UI probe)');
  const res = await fetch(`${probe}/frames`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`the UI probe answered ${res.status}`);
  return await res.json() as { url: string; main: boolean; text: string }[];
}
