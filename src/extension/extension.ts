import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('MCP Host', { log: true });
  context.subscriptions.push(log);
  log.info('MCP Host activated');
}

export function deactivate(): void {}
