import * as vscode from 'vscode';
import type { HostApi, Root } from '../mcp';

/** The open workspace folders as MCP roots (`file://` URIs with the folder names). */
export function workspaceRoots(): Root[] {
  return (vscode.workspace.workspaceFolders ?? [])
    .filter(f => f.uri.scheme === 'file')
    .map(f => ({ uri: f.uri.toString(), name: f.name }));
}

/** Pushes the workspace folders to the core now and on every folder change (the core sends roots/list_changed). */
export function syncRoots(host: HostApi): vscode.Disposable {
  host.setRoots(workspaceRoots());
  return vscode.workspace.onDidChangeWorkspaceFolders(() => host.setRoots(workspaceRoots()));
}
