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

// Reached from the editor and the CLI (issue 39: outside src/mcp, imports go through this file).
export { BoundedReadError, READ_CAPS, readBoundedText } from './boundedRead';
export { DISCOVERY_TOOL_NAMES, discoveryTools, mergeToolBudgets, modelMayReach, modelMaySee, type ModelTool, type ModelToolGate, modelTools, modelToolView, parseToolBudget, serverOffered, type ToolBudget, ToolDiscovery } from './catalogue/modelTools';
export { estimateToolTokens, formatTokens, mergeToolPolicies, parseToolPolicy, serverToolsEnabled, toolEnabled, type ToolPolicy, withToolEnabled } from './catalogue/toolPolicy';
export { definitionFromCommandLine, tokenize } from './config/commandLine';
export { configSourcesSetting, mergeSources, portableFile, type PortableSource, type SourceLayer } from './config/configSources';
export { loadEnvironment, parseDotenv } from './config/envFile';
export { importConfig, loadConfigFile } from './config/import';
export { parseInputs, parseServers, type RawServer } from './config/validate';
export { type ResolveContext, resolveServerNow, resolveServers } from './config/variables';
export { describeOfferedTools, offeredTools, type OfferedTools } from './features/samplingTools';
export { consentDetail, elicitationTarget, type ElicitationTarget, openLabel, type UrlElicitationOutcome, UrlElicitations } from './features/urlElicitation';
export type { GatewayServer } from './gateway/server';
export { countOf, dialogText, escapeControls, firstLine, formatBytes, iconFreeText, jsonText, markdownCode, markdownText, quoted, shownName } from './logging/humanText';
export { applyPolicy, loadPolicy, type McpAccess, type OrgPolicy, platformPolicyFile } from './policy/orgPolicy';
export { resolveCommand } from './process/resolveCommand';
export { PARSE_SLICE_MS, SlicedJsonParser } from './process/slicedJson';
export { describeInstall } from './registry/install';
export { pickEntries, type PickEntry } from './registry/pick';
export type { InstallOption } from './registry/serverJson';
export { SchemaCompiler } from './schema/compiler';
export { getOwn, hasOwn, setOwn } from './schema/own';
export { shortPattern, testPattern } from './schema/regexp';
