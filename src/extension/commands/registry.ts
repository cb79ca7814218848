/**
 * MCP Host: Browse MCP Servers… — searches the MCP Registry (`mcpHost.registry.url`, v0.1 API) and installs a server
 * from its `server.json` into settings (src/mcp/registry): an npm package with npx, PyPI with uvx, an OCI image with
 * docker run, a remote as http; required env and headers become `${input:}` prompts. The new server then starts
 * through the usual launch consent. Arguments skip the questions (tests): search text, server name, option index.
 */
import * as vscode from 'vscode';
import { registryUrl } from '../settings';
import { searchRegistry } from '../../mcp/registry/client';
import { fromServerJson, type InstallOption } from '../../mcp/registry/serverJson';
import { quoted, shownName as sanitizeForDialog } from '../../mcp/logging/display';
import { addToSettings, inputsNote } from './settings';
import { errorText } from './args';

export const DEFAULT_REGISTRY_URL = 'https://registry.modelcontextprotocol.io';

/** Resolves the name of the server installed, or undefined. */
export async function browseRegistryCommand(searchArg?: string, pickName?: string, optionIndex?: number): Promise<string | undefined> {
  const base = registryUrl() ?? DEFAULT_REGISTRY_URL;
  const search = searchArg ?? await vscode.window.showInputBox({ prompt: `Search the MCP Registry (${base})`, placeHolder: 'e.g. filesystem, github, weather' });
  if (search === undefined) return undefined;
  let page;
  try {
    page = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Searching the MCP Registry…' }, () => searchRegistry(base, search.trim()));
  } catch (e) {
    void vscode.window.showErrorMessage(errorText(e));
    return undefined;
  }
  const docs = page.servers.map(s => ({ raw: s, r: fromServerJson(s) })).filter(d => d.r.options.length);
  let chosen = pickName !== undefined ? docs.find(d => (d.raw as { name?: string }).name === pickName) : undefined;
  if (!chosen && pickName === undefined) {
    const pick = await vscode.window.showQuickPick(docs.map(d => ({
      label: sanitizeForDialog(d.r.title, 80), description: sanitizeForDialog(String((d.raw as { name?: unknown }).name ?? ''), 80),
      detail: sanitizeForDialog(d.r.description, 200), d,
    })), { placeHolder: docs.length ? 'Install which MCP server?' : 'No installable server found', matchOnDescription: true, matchOnDetail: true });
    chosen = pick?.d;
  }
  if (!chosen) return undefined;
  const options = chosen.r.options;
  let option: InstallOption | undefined = optionIndex !== undefined ? options[optionIndex] : options.length === 1 ? options[0] : undefined;
  if (!option && optionIndex === undefined) {
    option = (await vscode.window.showQuickPick(options.map(o => ({ label: sanitizeForDialog(o.label, 120), o })), { placeHolder: 'Install how?' }))?.o;
  }
  if (!option) return undefined;
  if (chosen.r.errors.length) void vscode.window.showWarningMessage(`Some ways to install ${sanitizeForDialog(chosen.r.title, 80)} were left out: ${sanitizeForDialog(chosen.r.errors.join(' '), 400)}`);
  const n = await addToSettings({ [option.name]: option.server }, option.inputs);
  if (n && option.inputs.length) void vscode.window.showInformationMessage(`Installed ${quoted(option.name)}.${inputsNote(option.inputs)}`);
  return n ? option.name : undefined;
}
