/** The host core's public surface. Editor-free: never import `vscode` below src/mcp. */
export * from './types';
export * from './api';
export * from './events';
export * from './errors';
export * from './logging/logging';
export * from './catalogue/catalogue';
export * from './catalogue/paging';
export * from './catalogue/toolSchemas';
export * from './schema/ajvErrors';
export * from './features/sampling';
export * from './server/connection';
export * from './host';
export { definitionKeyer, ephemeralKeyer, isDefinitionKey, isInstallationKey, keyMigration, legacyDefinitionKey, newInstallationKey, type DefinitionKey } from './config/definitionKey';
export * from './http/fetch';
export * from './oauth/provider';
export * from './oauth/workloadIdentity';
export * from './logging/redact';
export * from './limits';
export * from './oauth/urls';
export * from './tasks/tasks';
export * from './tasks/toolTasks';
export * from './tasks/taskNotices';
export * from './features/externalUrl';
export * from './apps';
export * from './logging/protocolLabel';
export * from './logging/stderrLevel';
export * from './server/history';
export { EraVerdicts, ERA_VERDICT_MAX_AGE_MS, MAX_ERA_VERDICTS, type EraVerdict, type EraVerdictStore } from './server/eraVerdicts';
export { TaskMemory, MAX_TASK_MEMORY_KEYS, type RememberedTask, type TaskMemoryStore } from './tasks/taskMemory';
export { ServerSkills, SkillError, skillsClientCapability, MAX_SKILL_DESCRIPTION, type SkillInfo, type LoadedSkillFile } from './skills/skills';
export {
  DEFAULT_DENY_READ, HOME_PROTECTED, describeWall, SANDBOX_ENV, isSandboxed, protectedPaths, resetSandbox, sandboxPolicy, sandboxProtectedNames,
  sandboxUnavailable, type ProtectedNames, type SandboxDenial, type SandboxHostOptions, type SandboxPolicy,
} from './launch/sandbox';
