// Helpers shared by the editor suites (not a *.test.ts file, so index.ts does not load it as a suite).
import * as path from 'path';
import * as vscode from 'vscode';
import type { McpHostExtensionApi } from '../../src/extension/extension';

/** The project root (the suites run from out/test/editor). */
export const ROOT = path.resolve(__dirname, '../../..');
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

/** Activates MCP Host and returns its test API. */
export async function activateHost<T extends McpHostExtensionApi = McpHostExtensionApi>(): Promise<T> {
  return await vscode.extensions.getExtension<T>('mcp-host.mcp-host')!.activate();
}

/** Resolves when `check` holds (re-checked on every host event and every 250 ms); fails with `what` after `ms`. */
export function until(api: McpHostExtensionApi, what: string, check: () => boolean, ms = 30000): Promise<void> {
  return new Promise((resolve, reject) => {
    const subs: { dispose(): void }[] = [];
    const done = (err?: Error) => { clearTimeout(timer); clearInterval(poll); subs.forEach(s => s.dispose()); if (err) reject(err); else resolve(); };
    const test = () => { try { if (check()) done(); } catch (e) { done(e as Error); } };
    const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}`)), ms);
    const poll = setInterval(test, 250);
    subs.push(api.host.onDidChangeState(test), api.host.onDidChangeServers(test), api.host.onDidChangeCatalogue(test));
    test();
  });
}

/**
 * Answers the host's dialogs that ask where to write servers (Import Servers, a registry install) with `title`,
 * and records them; every other dialog is dismissed. Returns the record; `api.setDialogAnswerer(undefined)` ends it.
 */
export function answerWhereToWrite(api: McpHostExtensionApi, title: string): { message: string; detail?: string; buttons: string[] }[] {
  const seen: { message: string; detail?: string; buttons: string[] }[] = [];
  api.setDialogAnswerer(async d => {
    seen.push({ message: d.message, detail: d.detail, buttons: d.buttons.map(b => b.title) });
    return d.buttons.some(b => b.title === title) ? title : undefined;
  });
  return seen;
}
