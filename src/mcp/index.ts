/** The host core's public surface. Editor-free: never import `vscode` below src/mcp. */
export * from './types';
export * from './api';
export * from './events';
export * from './errors';
export * from './logging';
export * from './catalogue';
export * from './sampling';
export * from './connection';
export * from './host';
export * from './http/fetch';
export * from './oauth/provider';
export * from './redact';
export * from './limits';
export * from './oauth/urls';
export * from './tasks';
export * from './toolTasks';
export * from './apps';
export * from './protocolLabel';
export * from './stderrLevel';
export * from './history';
export {
  DEFAULT_DENY_READ, isSandboxed, resetSandbox, sandboxPolicy, sandboxUnavailable,
  type SandboxDenial, type SandboxHostOptions, type SandboxPolicy,
} from './launch/sandbox';
