/** The host core's public surface. Editor-free: never import `vscode` below src/mcp. */
export * from './types';
export * from './api';
export * from './events';
