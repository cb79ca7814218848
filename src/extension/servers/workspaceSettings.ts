/**
 * What the settings files say besides what VS Code hands over: the server names Restricted Mode hides, and which
 * `${input:}` ids each part of a server's settings uses (for the consent dialog).
 */
import * as vscode from 'vscode';
import { parse as parseJsonc } from 'jsonc-parser';
import { type RawServer, READ_CAPS } from '../../mcp';
import { readWorkspaceText } from '../documents/workspaceFiles';
import type { InputUse } from '../trust/consent';

/**
 * Names under `mcpHost.servers` in the workspace's settings files. In Restricted Mode VS Code hides
 * restricted settings from extensions; the names (never the commands) let the view say what is held back.
 */
export async function workspaceServerNames(): Promise<string[]> {
  const files = vscode.workspace.workspaceFile?.scheme === 'file'
    ? [vscode.workspace.workspaceFile]
    : (vscode.workspace.workspaceFolders ?? []).map(f => vscode.Uri.joinPath(f.uri, '.vscode', 'settings.json'));
  const names = new Set<string>();
  for (const f of files) {
    try {
      const doc = asObject(parseJsonc(await readWorkspaceText(f, READ_CAPS.configFile)));
      const settings = f === vscode.workspace.workspaceFile ? asObject(doc.settings) : doc;
      for (const n of Object.keys(asObject(settings['mcpHost.servers']))) names.add(n);
    } catch {
      // No settings file: nothing held back.
    }
  }
  return [...names];
}

/** Which `${input:}` ids each part of a server's settings uses (for the consent dialog; values never shown). */
export function inputUses(raw: RawServer): InputUse[] {
  const ids = (...texts: (string | null | undefined)[]) => [...new Set(texts.flatMap(t => [...(t ?? '').matchAll(/\$\{input:([^}]+)\}/g)].map(m => m[1])))];
  const out: InputUse[] = [
    { where: 'command', inputs: ids(raw.command) },
    { where: 'args', inputs: ids(...(raw.args ?? [])) },
    { where: 'cwd', inputs: ids(raw.cwd) },
    { where: 'envFile', inputs: ids(raw.envFile) },
    ...Object.entries(raw.env ?? {}).map(([k, v]) => ({ where: `env ${k}`, inputs: ids(v) })),
    { where: 'URL', inputs: ids(raw.url) },
    ...Object.entries(raw.headers ?? {}).map(([k, v]) => ({ where: `header ${k}`, inputs: ids(v) })),
  ];
  return out.filter(u => u.inputs.length);
}


/** `v` when it is a plain object, else an empty one. */
export function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : {};
}
